// A2UI (a2ui-project/a2ui): surfaces an agent draws with A2UI v0.9 messages, carried in data parts of
// media type application/a2ui+json (application/json+a2ui from older agents) whose data is a list of
// messages. This module finds them in parts, checks a surface before it is rendered, and builds what
// goes back (an action, an error). Pure: no React, no renderer.
//
// A2UI is untrusted agent input. checkSurface runs over everything a surface received so far and
// either refuses the surface (a reference cycle, too many components, a tree too deep, a data model
// or surface too large: the bubble says so) or passes messages the renderer may take, with what it
// changed listed as notes shown under the surface: unknown component types become a short text,
// images, video and audio are not loaded (the app's CSP allows no remote fetches, and data: URLs are
// refused too), javascript:/data:/vbscript:/file: URLs are emptied, and text with HTML is shown as
// text (the renderer is given no markdown renderer, so nothing in a Text is ever parsed as HTML).

import type { Part } from '../api/types';

export const A2UI_MEDIA_TYPE = 'application/a2ui+json';
export const A2UI_LEGACY_MEDIA_TYPE = 'application/json+a2ui';
export const A2UI_BASIC_CATALOG = 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json';

/** Limits on one surface (everything it received). */
export const LIMITS = {
  components: 500,
  depth: 32,
  dataModelBytes: 64 * 1024,
  surfaceBytes: 512 * 1024,
};

/** The basic catalog's components: the only ones rendered. */
export const BASIC_COMPONENTS = new Set([
  'Text', 'Image', 'Icon', 'Video', 'AudioPlayer', 'Row', 'Column', 'List', 'Card', 'Tabs', 'Modal', 'Divider',
  'Button', 'TextField', 'CheckBox', 'ChoicePicker', 'Slider', 'DateTimeInput',
]);
const MEDIA_COMPONENTS = new Set(['Image', 'Video', 'AudioPlayer']);

export type A2uiMessage = Record<string, unknown>;

function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** True for a data part that carries A2UI messages. */
export function isA2uiPart(p: Part | null | undefined): boolean {
  if (!p || p.kind !== 'data') return false;
  const mt = (p as { mediaType?: unknown }).mediaType;
  return mt === A2UI_MEDIA_TYPE || mt === A2UI_LEGACY_MEDIA_TYPE;
}

/** The A2UI messages of a part list, in order (a data that is not a list carries none). */
export function a2uiMessagesOf(parts: readonly (Part | null)[] | null | undefined): A2uiMessage[] {
  const out: A2uiMessage[] = [];
  for (const p of parts ?? []) {
    if (!isA2uiPart(p)) continue;
    const data = (p as { data?: unknown }).data;
    if (Array.isArray(data)) for (const m of data) if (isObj(m)) out.push(m);
  }
  return out;
}

/** The kind of an A2UI message (its one operation key), or '' when it has none known. */
export function messageKind(m: A2uiMessage): string {
  for (const k of ['createSurface', 'updateComponents', 'updateDataModel', 'deleteSurface', 'action', 'error',
    'beginRendering', 'surfaceUpdate', 'dataModelUpdate', 'userAction'])
    if (k in m) return k;
  return '';
}

/** The surface a server-to-client message is about ('' for none). */
export function surfaceIdOf(m: A2uiMessage): string {
  const body = m[messageKind(m)];
  return isObj(body) && typeof body.surfaceId === 'string' ? body.surfaceId : '';
}

export interface Checked {
  /** why the whole surface is not rendered; undefined when it is */
  refused?: string;
  /** the messages to render, one for each message received, in order (changed as the notes say) */
  messages: A2uiMessage[];
  /** what was changed or left out, for a small note under the surface */
  notes: string[];
  /** the surface asked for its data model to go with the next message (createSurface.sendDataModel) */
  sendDataModel: boolean;
}

const BAD_URL = /^\s*(javascript|data|vbscript|file|blob)\s*:/i;
const HTML = /<\s*[a-z!/][^>]*>/i;

/** Child ids a component refers to (children lists and templates, child, trigger, content, tabs). */
export function childIds(c: Record<string, unknown>): string[] {
  const out: string[] = [];
  const ch = c.children;
  if (Array.isArray(ch)) for (const id of ch) if (typeof id === 'string') out.push(id);
  if (isObj(ch) && typeof ch.componentId === 'string') out.push(ch.componentId);
  for (const k of ['child', 'trigger', 'content']) if (typeof c[k] === 'string') out.push(c[k] as string);
  if (Array.isArray(c.tabs)) for (const t of c.tabs) if (isObj(t) && typeof t.child === 'string') out.push(t.child);
  return out;
}

/** A copy of v with every dangerous URL string emptied; counts what it emptied. */
function scrubUrls(v: unknown, found: { n: number }): unknown {
  if (typeof v === 'string') {
    if (BAD_URL.test(v)) {
      found.n++;
      return '';
    }
    return v;
  }
  if (Array.isArray(v)) return v.map((x) => scrubUrls(x, found));
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrubUrls(x, found)]));
  return v;
}

function hasHtml(v: unknown): boolean {
  if (typeof v === 'string') return HTML.test(v);
  if (Array.isArray(v)) return v.some(hasHtml);
  if (isObj(v)) return Object.values(v).some(hasHtml);
  return false;
}

function bytes(v: unknown): number {
  try {
    return new TextEncoder().encode(JSON.stringify(v) ?? '').length;
  } catch {
    return Infinity; // not serialisable (cannot come from JSON, but never trust it)
  }
}

/**
 * Checks everything one surface received (its messages in order, createSurface first) before it is
 * rendered. See the module comment for what is refused and what is changed.
 */
export function checkSurface(received: readonly A2uiMessage[]): Checked {
  const notes = new Set<string>();
  const out: A2uiMessage[] = [];
  const components = new Map<string, Record<string, unknown>>();
  let sendDataModel = false;
  let modelBytes = 0;
  const refuse = (why: string): Checked => ({ refused: why, messages: [], notes: [], sendDataModel: false });
  if (bytes(received) > LIMITS.surfaceBytes) return refuse(`it is larger than ${LIMITS.surfaceBytes / 1024} KiB`);
  const urls = { n: 0 };
  for (const m of received) {
    const kind = messageKind(m);
    if (m.version !== 'v0.9') {
      if (['beginRendering', 'surfaceUpdate', 'dataModelUpdate'].includes(kind)) return refuse('it uses A2UI v0.8, which this version of AgentHub does not render yet');
      return refuse(`it uses an A2UI version this app does not render (${JSON.stringify(m.version ?? null)})`);
    }
    const body = m[kind];
    if (!isObj(body)) {
      notes.add('a message of an unknown kind was left out');
      out.push({ version: 'v0.9' }); // keeps the one-for-one order; the renderer ignores it
      continue;
    }
    switch (kind) {
      case 'createSurface': {
        sendDataModel = body.sendDataModel === true;
        // the basic catalog is the only one: a surface asking for another is drawn with it anyway
        if (body.catalogId !== A2UI_BASIC_CATALOG) notes.add(`it asked for catalog ${String(body.catalogId)}; the basic catalog is used`);
        const { theme: _theme, ...rest } = body; // an agent's theme does not override the app's
        out.push({ version: 'v0.9', createSurface: { ...rest, catalogId: A2UI_BASIC_CATALOG } });
        break;
      }
      case 'updateComponents': {
        const list = Array.isArray(body.components) ? body.components : [];
        const clean: Record<string, unknown>[] = [];
        for (const raw of list) {
          if (!isObj(raw) || typeof raw.id !== 'string') {
            notes.add('a component without an id was left out');
            continue;
          }
          let c = scrubUrls(raw, urls) as Record<string, unknown>;
          const type = typeof c.component === 'string' ? c.component : components.get(c.id as string)?.component;
          if (typeof type !== 'string' || !BASIC_COMPONENTS.has(type)) {
            notes.add(`unknown component type “${String(type)}” shown as a note`);
            c = { id: c.id, component: 'Text', text: `[unsupported component: ${String(type).slice(0, 40)}]` };
          } else if (MEDIA_COMPONENTS.has(type)) {
            notes.add(`${type === 'Image' ? 'an image was' : 'media was'} not loaded: this app loads nothing from agents' hosts`);
            c = { id: c.id, component: 'Text', text: `[${type === 'Image' ? 'image' : type === 'Video' ? 'video' : 'audio'} not loaded${typeof c.description === 'string' && c.description ? `: ${c.description}` : ''}]` };
          } else if (type === 'Text' && hasHtml(c.text)) {
            notes.add('HTML in text is shown as plain text');
          }
          components.set(c.id as string, c);
          clean.push(c);
        }
        if (components.size > LIMITS.components) return refuse(`it has more than ${LIMITS.components} components`);
        out.push({ version: 'v0.9', updateComponents: { ...body, components: clean } });
        break;
      }
      case 'updateDataModel': {
        const value = scrubUrls(body.value, urls);
        modelBytes += bytes(value ?? null);
        if (modelBytes > LIMITS.dataModelBytes) return refuse(`its data model is larger than ${LIMITS.dataModelBytes / 1024} KiB`);
        out.push({ version: 'v0.9', updateDataModel: { ...body, ...(body.value !== undefined ? { value } : {}) } });
        break;
      }
      case 'deleteSurface':
        out.push(m);
        break;
      default:
        notes.add('a message of an unknown kind was left out');
        out.push({ version: 'v0.9' });
    }
  }
  if (urls.n > 0) notes.add(`${urls.n === 1 ? 'a link' : `${urls.n} links`} with a javascript:, data: or file: URL ${urls.n === 1 ? 'was' : 'were'} removed`);

  // The tree from root: a reference cycle or a tree too deep refuses the whole surface.
  const state = new Map<string, 1 | 2>(); // 1: on the path, 2: done
  const walk = (id: string, depth: number): string | undefined => {
    if (depth > LIMITS.depth) return `its components are nested more than ${LIMITS.depth} deep`;
    const st = state.get(id);
    if (st === 1) return `its components refer to each other in a cycle (through “${id}”)`;
    if (st === 2) return undefined;
    const c = components.get(id);
    if (!c) return undefined; // not there yet: the renderer shows a placeholder
    state.set(id, 1);
    for (const child of childIds(c)) {
      const why = walk(child, depth + 1);
      if (why) return why;
    }
    state.set(id, 2);
    return undefined;
  };
  const why = components.has('root') ? walk('root', 1) : undefined;
  if (why) return refuse(why);
  // components no path from root reaches can still form a cycle the renderer may meet later
  for (const id of components.keys()) {
    const w = walk(id, 1);
    if (w) return refuse(w);
  }
  return { messages: out, notes: [...notes], sendDataModel };
}

/** The A2UI action message for the agent, from what the renderer dispatched. */
export function actionMessage(action: { name: string; surfaceId: string; sourceComponentId: string; timestamp: string; context: Record<string, unknown> }): A2uiMessage {
  const { name, surfaceId, sourceComponentId, timestamp, context } = action;
  return { version: 'v0.9', action: { name, surfaceId, sourceComponentId, timestamp, context: context ?? {} } };
}

/** The A2UI error message for the agent. */
export function errorMessage(surfaceId: string, message: string, code = 'RENDER_FAILED', path?: string): A2uiMessage {
  if (code === 'VALIDATION_FAILED') return { version: 'v0.9', error: { code, surfaceId, path: path ?? '/', message } };
  return { version: 'v0.9', error: { code, surfaceId, message } };
}

/** Words for the transcript's compact line of an action the owner sent: "You chose Plan it (version 2.0, …)". */
export function describeAction(m: A2uiMessage): string {
  const a = m.action;
  if (!isObj(a)) return isObj(m.error) ? 'Your app reported a problem with a form' : 'You answered a form';
  const name = typeof a.name === 'string' ? a.name.replace(/[_-]+/g, ' ') : 'an action';
  const ctx = isObj(a.context) ? a.context : {};
  const values = Object.entries(ctx)
    .filter(([, v]) => v !== '' && v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0))
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(' · ');
  const text = `You chose ${name}${values ? ` (${values})` : ''}`;
  return text.length > 240 ? `${text.slice(0, 239)}…` : text;
}
