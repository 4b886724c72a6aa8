// One A2UI surface, drawn by the official React renderer (@a2ui/react, basic catalog) from the messages
// it received so far, after lib/a2ui.ts checked them. Messages only ever get appended: the new ones are
// fed to the same processor, so a later update changes the surface in place and what the person typed
// stays. A surface that lib/a2ui.ts refuses, or that the renderer throws on, shows a small note
// instead and never takes the transcript down with it. A v0.8 surface is drawn by the renderer's
// v0.8 entry (A2uiSurfaceViewV08.tsx, loaded with the first one), inside the same frame.

import { Component, lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { MessageProcessor } from '@a2ui/web_core/v0_9';
import { A2uiSurface, basicCatalog } from '@a2ui/react/v0_9';
import { checkSurface, surfaceVersion, type A2uiMessage, type SurfaceActionData } from '../lib/a2ui';

const A2uiSurfaceViewV08 = lazy(() => import('./A2uiSurfaceViewV08').then((m) => ({ default: m.A2uiSurfaceViewV08 })));

/** What the person did on a surface; version is the surface's (v0.9 when unset). */
export type SurfaceAction = SurfaceActionData;

function makeProcessor(onAction: (a: SurfaceAction) => Promise<void>) {
  return new MessageProcessor([basicCatalog], onAction);
}
type Processor = ReturnType<typeof makeProcessor>;
type Surface = ReturnType<Processor['model']['getSurface']>;

/** Renderer errors caught here go to onError once, and the bubble shows a note. */
class Guard extends Component<{ children: ReactNode; onError: (message: string) => void }, { failed?: string }> {
  override state: { failed?: string } = {};
  static getDerivedStateFromError(e: unknown) {
    return { failed: (e as Error)?.message || 'the renderer failed' };
  }
  override componentDidCatch(e: unknown) {
    this.props.onError((e as Error)?.message || 'the renderer failed');
  }
  override render() {
    return this.state.failed ? <p className="a2ui-note small" role="note">This form could not be shown: {this.state.failed}.</p> : this.props.children;
  }
}

export function A2uiSurfaceView({
  surfaceId,
  messages,
  readOnly,
  onAction,
  onError,
}: {
  surfaceId: string;
  /** everything the surface received, in order (only ever appended to) */
  messages: readonly A2uiMessage[];
  /** the task ended: the surface is shown, its inputs and buttons are disabled */
  readOnly?: boolean;
  /** the person acted; dataModel is set when the surface asked for it (sendDataModel) */
  onAction?: (action: SurfaceAction, dataModel?: Record<string, unknown>) => Promise<unknown> | void;
  /** the renderer reported an error about this surface */
  onError?: (error: { code: string; message: string; path?: string }) => void;
}) {
  const checked = useMemo(() => checkSurface(messages), [messages]);
  const v08 = surfaceVersion(messages) === 'v0.8';
  const proc = useRef<{ p: Processor; fed: number } | null>(null);
  const [surface, setSurface] = useState<Surface>();
  const [problem, setProblem] = useState('');
  const [sending, setSending] = useState(false);
  const handlers = useRef({ onAction, onError, readOnly });
  handlers.current = { onAction, onError, readOnly };

  // the person acted: to onAction, the inputs disabled until it went (or failed)
  const act = useCallback(async (action: SurfaceAction, dataModel?: Record<string, unknown>) => {
    const h = handlers.current;
    if (h.readOnly || !h.onAction) return;
    setSending(true);
    try {
      await h.onAction(action, dataModel);
    } finally {
      setSending(false);
    }
  }, []);
  const v08Problem = useCallback((message: string, index: number) => {
    setProblem(message);
    handlers.current.onError?.({ code: 'VALIDATION_FAILED', message, path: `/${index}` });
  }, []);

  useEffect(() => {
    if (checked.refused || v08) {
      proc.current = null;
      setSurface(undefined);
      return;
    }
    if (!proc.current || proc.current.fed > checked.messages.length) {
      const p: Processor = makeProcessor(async (action: SurfaceAction) => {
        const model = p.getClientDataModel() as { surfaces?: Record<string, Record<string, unknown>> } | undefined;
        const dataModel = model?.surfaces?.[action.surfaceId] !== undefined ? { version: 'v0.9', surfaces: { [action.surfaceId]: model.surfaces[action.surfaceId] } } : undefined;
        await act({ ...action, version: 'v0.9' }, dataModel);
      });
      proc.current = { p, fed: 0 };
    }
    const cur: { p: Processor; fed: number } = proc.current;
    for (; cur.fed < checked.messages.length; cur.fed++) {
      try {
        cur.p.processMessages([checked.messages[cur.fed]] as never);
      } catch (e) {
        // one message that fails does not stop the others (the A2UI extension's processing rule)
        const message = (e as Error)?.message || 'invalid message';
        setProblem(message);
        handlers.current.onError?.({ code: 'VALIDATION_FAILED', message, path: `/${cur.fed}` });
      }
    }
    const s = cur.p.model.getSurface(surfaceId);
    setSurface(s);
    if (s) {
      const sub = s.onError.subscribe((err: { code?: string; message?: string; path?: string }) =>
        handlers.current.onError?.({ code: err.code || 'RENDER_FAILED', message: err.message || 'render error', path: err.path }),
      );
      return () => sub.unsubscribe();
    }
    return undefined;
  }, [checked, surfaceId, v08, act]);

  if (checked.refused) {
    return (
      <p className="a2ui-note a2ui-refused small" role="note" data-testid="a2ui-refused">
        This form was not shown: {checked.refused}.
      </p>
    );
  }
  return (
    <div className={v08 ? 'a2ui-box a2ui-v08' : 'a2ui-box'} data-testid="a2ui-surface" data-surface-id={surfaceId} data-a2ui-version={v08 ? 'v0.8' : 'v0.9'} aria-busy={sending || undefined}>
      <fieldset disabled={readOnly || sending} className="a2ui-fieldset">
        <legend className="sr-only">Form from the agent</legend>
        <Guard onError={(message) => handlers.current.onError?.({ code: 'RENDER_FAILED', message })}>
          {v08 ? (
            <Suspense fallback={null}>
              <A2uiSurfaceViewV08 surfaceId={surfaceId} messages={checked.messages} onAction={(a) => void act(a)} onProblem={v08Problem} />
            </Suspense>
          ) : surface ? (
            <A2uiSurface surface={surface} />
          ) : null}
        </Guard>
      </fieldset>
      {(checked.notes.length > 0 || problem) && (
        <div role="note" data-testid="a2ui-notes">
          <ul className="a2ui-note small">
            {checked.notes.map((n) => (
              <li key={n}>{n}</li>
            ))}
            {problem && <li>part of this form could not be shown: {problem}</li>}
          </ul>
        </div>
      )}
      {readOnly && <p className="muted small a2ui-readonly">This form is closed: its task has ended.</p>}
    </div>
  );
}
