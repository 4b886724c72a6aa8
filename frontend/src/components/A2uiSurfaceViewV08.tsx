// A v0.8 A2UI surface, drawn by the official React renderer's v0.8 entry (@a2ui/react/v0_8, its
// standard catalog) from the messages lib/a2ui.ts checked. Loaded only when a v0.8 surface shows.
// One provider (one message processor) per surface; messages only ever get appended, and the new
// ones are fed to the same processor, so an update changes the surface in place and what the person
// typed stays.
//
// Two components are replaced. v0.8's Text renders its text as Markdown into HTML (links and images
// included); here a Text is plain text, as in the v0.9 surfaces, so nothing an agent writes is
// parsed into markup. v0.8's MultipleChoice is an uncontrolled <select> that shows its first option
// whatever the data model holds; here it shows the data model's choice.
//
// The renderer draws a surface's children from its global registry (ComponentRegistry.getInstance(),
// filled with the default catalog the first time a provider renders), whatever registry the
// A2UIRenderer is given. So the replacements go into that registry, by a component rendered inside
// the provider before the renderer: after the provider's own registration, before any child is drawn.

import { useEffect, useId, useRef } from 'react';
import {
  A2UIProvider,
  A2UIRenderer,
  ComponentRegistry,
  classMapToString,
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

/** v0.8's MultipleChoice, controlled by the data model (see the module comment). */
function ModelChoice({ node, surfaceId }: A2UIComponentProps<Types.MultipleChoiceNode>) {
  const { theme, resolveString, getValue, setValue } = useA2UIComponent(node, surfaceId);
  const id = useId();
  const props = node.properties;
  const path = (props.selections as { path?: string } | undefined)?.path;
  const held = path ? getValue(path) : null;
  const chosen = Array.isArray(held) ? held[0] : held;
  const style = typeof node.weight === 'number' ? ({ '--weight': node.weight } as React.CSSProperties) : undefined;
  return (
    <div className="a2ui-multiplechoice" style={style}>
      <section className={classMapToString(theme.components.MultipleChoice.container)}>
        <label htmlFor={id} className={classMapToString(theme.components.MultipleChoice.label)}>
          {resolveString((props as { description?: never }).description) ?? 'Select an item'}
        </label>
        <select
          id={id}
          className={classMapToString(theme.components.MultipleChoice.element)}
          value={chosen == null ? '' : String(chosen)}
          onChange={(e) => path && setValue(path, [e.target.value])}
        >
          {(props.options ?? []).map((o) => (
            <option key={o.value} value={o.value}>
              {resolveString(o.label)}
            </option>
          ))}
        </select>
      </section>
    </div>
  );
}

/** Puts the replacements into the renderer's registry (see the module comment); renders nothing. */
function Replacements() {
  const registry = ComponentRegistry.getInstance();
  registry.register('Text', { component: PlainText as never });
  registry.register('MultipleChoice', { component: ModelChoice as never });
  return null;
}

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
      <Replacements />
      <Feed messages={messages} onProblem={onProblem} />
      <A2UIRenderer surfaceId={surfaceId} />
    </A2UIProvider>
  );
}
