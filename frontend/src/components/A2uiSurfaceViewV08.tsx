// A v0.8 A2UI surface, drawn by the official React renderer's v0.8 entry (@a2ui/react/v0_8, its
// standard catalog) from the messages lib/a2ui.ts checked. Loaded only when a v0.8 surface shows.
// One provider (one message processor) per surface; messages only ever get appended, and the new
// ones are fed to the same processor, so an update changes the surface in place and what the person
// typed stays.
//
// One component is replaced: v0.8's Text renders its text as Markdown into HTML (links and images
// included). Here a Text is plain text, as in the v0.9 surfaces, so nothing an agent writes is
// parsed into markup.

import { useEffect, useRef } from 'react';
import {
  A2UIProvider,
  A2UIRenderer,
  ComponentRegistry,
  classMapToString,
  registerDefaultCatalog,
  useA2UI,
  useA2UIComponent,
  type A2UIClientEventMessage,
  type A2UIComponentProps,
  type Types,
} from '@a2ui/react/v0_8';
import { messageKind, type A2uiMessage, type SurfaceActionData } from '../lib/a2ui';

const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5']);

/** v0.8's Text, as plain text (see the module comment). */
function PlainText({ node, surfaceId }: A2UIComponentProps<Types.TextNode>) {
  const { theme, resolveString } = useA2UIComponent(node, surfaceId);
  const text = resolveString(node.properties.text);
  if (text === null) return null;
  const hint = node.properties.usageHint as string | undefined;
  const classes = { ...theme.components.Text.all, ...(hint ? (theme.components.Text as Record<string, Record<string, boolean>>)[hint] : {}) };
  const Tag = (hint && HEADINGS.has(hint) ? hint : 'p') as 'p';
  const style = typeof node.weight === 'number' ? ({ '--weight': node.weight } as React.CSSProperties) : undefined;
  return (
    <div className="a2ui-text" style={style}>
      <section className={classMapToString(classes)}>
        <Tag>{text}</Tag>
      </section>
    </div>
  );
}

const registry = new ComponentRegistry();
registerDefaultCatalog(registry);
registry.register('Text', { component: PlainText as never });

/** Feeds the processor the messages it has not had yet. */
function Feed({ messages, onProblem }: { messages: readonly A2uiMessage[]; onProblem: (message: string, index: number) => void }) {
  const { processMessages, clearSurfaces } = useA2UI();
  const fed = useRef(0);
  useEffect(() => {
    if (fed.current > messages.length) {
      // not an append (cannot happen from a transcript): start again
      clearSurfaces();
      fed.current = 0;
    }
    for (; fed.current < messages.length; fed.current++) {
      const m = messages[fed.current];
      if (!messageKind(m)) continue; // left out by the check
      try {
        processMessages([m] as never);
      } catch (e) {
        // one message that fails does not stop the others
        onProblem((e as Error)?.message || 'invalid message', fed.current);
      }
    }
  }, [messages, processMessages, clearSurfaces, onProblem]);
  return null;
}

export function A2uiSurfaceViewV08({
  surfaceId,
  messages,
  onAction,
  onProblem,
}: {
  surfaceId: string;
  messages: readonly A2uiMessage[];
  onAction: (action: SurfaceActionData) => void;
  onProblem: (message: string, index: number) => void;
}) {
  const act = (m: A2UIClientEventMessage) => {
    const ua = m.userAction;
    if (!ua) return;
    onAction({
      name: ua.name,
      surfaceId: ua.surfaceId,
      sourceComponentId: ua.sourceComponentId,
      timestamp: ua.timestamp,
      context: (ua.context ?? {}) as Record<string, unknown>,
      version: 'v0.8',
    });
  };
  return (
    <A2UIProvider onAction={act}>
      <Feed messages={messages} onProblem={onProblem} />
      <A2UIRenderer surfaceId={surfaceId} registry={registry} />
    </A2UIProvider>
  );
}
