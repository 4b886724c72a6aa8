// A2UI (a2ui-project/a2ui): surfaces an agent draws with A2UI v0.9 messages, or with v0.8 ones (the
// legacy version many deployed agents speak), carried in data parts of media type
// application/a2ui+json (application/json+a2ui from older agents) whose data is a list of messages
// (v0.9) or one message (v0.8). This module finds them in parts, checks a surface before it is
// rendered, and builds what goes back (an action, an error) in the surface's version. Pure: no React,
// no renderer.
//
// A v0.9 message says {"version":"v0.9", <kind>: …}; a v0.8 message has no version and one of
// beginRendering, surfaceUpdate, dataModelUpdate, deleteSurface (userAction, error going back).
// A surface speaks the version of its first message; a message of the other version refuses it.
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
/** v0.8's standard catalog: the one @a2ui/react/v0_8 renders. */
export const A2UI_STANDARD_CATALOG_V08 = 'https://a2ui.org/specification/v0_8/standard_catalog_definition.json';

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
/** v0.8's standard catalog's components. */
export const STANDARD_COMPONENTS_V08 = new Set([
  'Text', 'Image', 'Icon', 'Video', 'AudioPlayer', 'Row', 'Column', 'List', 'Card', 'Tabs', 'Divider', 'Modal',
  'Button', 'CheckBox', 'TextField', 'DateTimeInput', 'MultipleChoice', 'Slider',
]);
const V08_KINDS = ['beginRendering', 'surfaceUpdate', 'dataModelUpdate', 'deleteSurface', 'userAction', 'error'];

export type A2uiVersion = 'v0.9' | 'v0.8';

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

/** The A2UI messages of a part list, in order: a data that is a list carries its messages, one that
 * is an object is one message (v0.8 sends one per part). */
export function a2uiMessagesOf(parts: readonly (Part | null)[] | null | undefined): A2uiMessage[] {
  const out: A2uiMessage[] = [];
  for (const p of parts ?? []) {
    if (!isA2uiPart(p)) continue;
    const data = (p as { data?: unknown }).data;
    if (Array.isArray(data)) for (const m of data) if (isObj(m)) out.push(m);
    if (isObj(data)) out.push(data);
  }
  return out;
}

/** A message's protocol version ('' when it is neither v0.9 nor v0.8). */
export function versionOf(m: A2uiMessage): A2uiVersion | '' {
  if ('version' in m) return m.version === 'v0.9' ? 'v0.9' : '';
  return V08_KINDS.some((k) => k in m) ? 'v0.8' : '';
}

/** The version a surface speaks: that of its first message. */
export function surfaceVersion(received: readonly A2uiMessage[]): A2uiVersion | '' {
  return received.length ? versionOf(received[0]) : '';
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
  if (surfaceVersion(received) === 'v0.8') return checkSurfaceV08(received);
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
      if (versionOf(m) === 'v0.8') return refuse('it mixes A2UI v0.9 and v0.8 messages');
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

  const why = treeProblem(components, 'root', childIds);
  if (why) return refuse(why);
  return { messages: out, notes: [...notes], sendDataModel };
}

/**
 * Why the tree of components is refused ('' when it is not): a reference cycle, or nesting deeper
 * than the limit, from root and from every other component (one no path from root reaches can still
 * form a cycle the renderer may meet later).
 */
function treeProblem<C>(components: Map<string, C>, root: string, children: (c: C) => string[]): string {
  const state = new Map<string, 1 | 2>(); // 1: on the path, 2: done
  const walk = (id: string, depth: number): string => {
    if (depth > LIMITS.depth) return `its components are nested more than ${LIMITS.depth} deep`;
    const st = state.get(id);
    if (st === 1) return `its components refer to each other in a cycle (through “${id}”)`;
    if (st === 2) return '';
    const c = components.get(id);
    if (!c) return ''; // not there yet: the renderer shows a placeholder (or nothing)
    state.set(id, 1);
    for (const child of children(c)) {
      const why = walk(child, depth + 1);
      if (why) return why;
    }
    state.set(id, 2);
    return '';
  };
  if (components.has(root)) {
    const why = walk(root, 1);
    if (why) return why;
  }
  for (const id of components.keys()) {
    const why = walk(id, 1);
    if (why) return why;
  }
  return '';
}

/** Child ids a v0.8 component's properties refer to (children lists and templates, child, modal and tab children). */
export function childIdsV08(props: Record<string, unknown>): string[] {
  const out: string[] = [];
  const ch = props.children;
  if (isObj(ch)) {
    if (Array.isArray(ch.explicitList)) for (const id of ch.explicitList) if (typeof id === 'string') out.push(id);
    if (isObj(ch.template) && typeof ch.template.componentId === 'string') out.push(ch.template.componentId);
  }
  for (const k of ['child', 'entryPointChild', 'contentChild']) if (typeof props[k] === 'string') out.push(props[k] as string);
  if (Array.isArray(props.tabItems)) for (const t of props.tabItems) if (isObj(t) && typeof t.child === 'string') out.push(t.child);
  return out;
}

/** A v0.8 component {id, component: {Text: {text: {literalString}}}} showing a short text. */
function textV08(id: string, text: string, weight?: unknown): Record<string, unknown> {
  return { id, ...(typeof weight === 'number' ? { weight } : {}), component: { Text: { text: { literalString: text } } } };
}

/** A v0.8 value as literal text, when it is one ('' for a path or nothing). */
function literalV08(v: unknown): string {
  return isObj(v) && typeof v.literalString === 'string' ? v.literalString : '';
}

/**
 * checkSurface for a v0.8 surface: the same refusals and changes as for v0.9, in v0.8's shapes. A
 * component is {id, weight?, component: {<Type>: props}}; a surface's root is named by beginRendering;
 * its data model comes as key/value entries (dataModelUpdate.contents). Besides v0.9's changes, a
 * TextField's validationRegexp is dropped (the renderer compiles it: an agent's pattern is not run
 * here), and beginRendering's styles (the agent's theme) too.
 */
function checkSurfaceV08(received: readonly A2uiMessage[]): Checked {
  const notes = new Set<string>();
  const out: A2uiMessage[] = [];
  const components = new Map<string, Record<string, unknown>>(); // id → props
  let root = 'root';
  let modelBytes = 0;
  const refuse = (why: string): Checked => ({ refused: why, messages: [], notes: [], sendDataModel: false });
  if (bytes(received) > LIMITS.surfaceBytes) return refuse(`it is larger than ${LIMITS.surfaceBytes / 1024} KiB`);
  const urls = { n: 0 };
  for (const m of received) {
    if (versionOf(m) !== 'v0.8') return refuse(versionOf(m) === 'v0.9' ? 'it mixes A2UI v0.8 and v0.9 messages' : 'it uses an A2UI version this app does not render');
    const kind = messageKind(m);
    const body = m[kind];
    if (Object.keys(m).length !== 1 || !isObj(body) || !['beginRendering', 'surfaceUpdate', 'dataModelUpdate', 'deleteSurface'].includes(kind)) {
      notes.add('a message of an unknown kind was left out');
      out.push({}); // keeps the one-for-one order; the view skips it
      continue;
    }
    switch (kind) {
      case 'beginRendering': {
        if (typeof body.root === 'string') root = body.root;
        if (body.catalogId !== undefined && body.catalogId !== A2UI_STANDARD_CATALOG_V08) notes.add(`it asked for catalog ${String(body.catalogId)}; the standard catalog is used`);
        const { styles: _styles, catalogId: _catalog, ...rest } = body; // an agent's theme does not override the app's
        out.push({ beginRendering: rest });
        break;
      }
      case 'surfaceUpdate': {
        const list = Array.isArray(body.components) ? body.components : [];
        const clean: Record<string, unknown>[] = [];
        for (const raw of list) {
          if (!isObj(raw) || typeof raw.id !== 'string') {
            notes.add('a component without an id was left out');
            continue;
          }
          let c = scrubUrls(raw, urls) as Record<string, unknown>;
          const id = c.id as string;
          const wrapper = c.component;
          const types = isObj(wrapper) ? Object.keys(wrapper) : [];
          const type = types.length === 1 ? types[0] : undefined;
          const props = type && isObj((wrapper as Record<string, unknown>)[type]) ? ((wrapper as Record<string, unknown>)[type] as Record<string, unknown>) : undefined;
          if (!type || !props || !STANDARD_COMPONENTS_V08.has(type)) {
            const name = type ?? (types.length ? types.join('+') : 'none');
            notes.add(`unknown component type “${name.slice(0, 40)}” shown as a note`);
            c = textV08(id, `[unsupported component: ${name.slice(0, 40)}]`, c.weight);
          } else if (MEDIA_COMPONENTS.has(type)) {
            notes.add(`${type === 'Image' ? 'an image was' : 'media was'} not loaded: this app loads nothing from agents' hosts`);
            const about = literalV08(props.altText) || literalV08(props.description);
            c = textV08(id, `[${type === 'Image' ? 'image' : type === 'Video' ? 'video' : 'audio'} not loaded${about ? `: ${about}` : ''}]`, c.weight);
          } else if (type === 'Text' && hasHtml(props.text)) {
            notes.add('HTML in text is shown as plain text');
          } else if (type === 'TextField' && props.validationRegexp !== undefined) {
            notes.add('a validation pattern of a text field was ignored');
            const { validationRegexp: _re, ...keep } = props;
            c = { ...c, component: { TextField: keep } };
          }
          const kept = c.component as Record<string, Record<string, unknown>>;
          components.set(id, kept[Object.keys(kept)[0]]);
          clean.push(c);
        }
        if (components.size > LIMITS.components) return refuse(`it has more than ${LIMITS.components} components`);
        out.push({ surfaceUpdate: { ...body, components: clean } });
        break;
      }
      case 'dataModelUpdate': {
        const contents = scrubUrls(body.contents, urls);
        modelBytes += bytes(contents ?? null);
        if (modelBytes > LIMITS.dataModelBytes) return refuse(`its data model is larger than ${LIMITS.dataModelBytes / 1024} KiB`);
        out.push({ dataModelUpdate: { ...body, contents: Array.isArray(contents) ? contents : [] } });
        break;
      }
      default: // deleteSurface
        out.push(m);
    }
  }
  if (urls.n > 0) notes.add(`${urls.n === 1 ? 'a link' : `${urls.n} links`} with a javascript:, data: or file: URL ${urls.n === 1 ? 'was' : 'were'} removed`);
  const why = treeProblem(components, root, childIdsV08);
  if (why) return refuse(why);
  return { messages: out, notes: [...notes], sendDataModel: false };
}

/** What the renderer dispatched when the person acted on a surface (version: that of the surface; v0.9 when unset). */
export interface SurfaceActionData {
  name: string;
  surfaceId: string;
  sourceComponentId: string;
  timestamp: string;
  context: Record<string, unknown>;
  version?: A2uiVersion;
}

/** The A2UI action message for the agent, from what the renderer dispatched: a v0.9 action, or a v0.8 userAction. */
export function actionMessage(action: SurfaceActionData): A2uiMessage {
  const { name, surfaceId, sourceComponentId, timestamp, context } = action;
  const body = { name, surfaceId, sourceComponentId, timestamp, context: context ?? {} };
  return action.version === 'v0.8' ? { userAction: body } : { version: 'v0.9', action: body };
}

/** The A2UI error message for the agent, in the surface's version (v0.8's error is free-form: the same fields). */
export function errorMessage(surfaceId: string, message: string, code = 'RENDER_FAILED', path?: string, version: A2uiVersion | '' = 'v0.9'): A2uiMessage {
  const body = code === 'VALIDATION_FAILED' ? { code, surfaceId, path: path ?? '/', message } : { code, surfaceId, message };
  return version === 'v0.8' ? { error: body } : { version: 'v0.9', error: body };
}

/** Words for the transcript's compact line of an action the owner sent: "You chose Plan it (version 2.0, …)". */
export function describeAction(m: A2uiMessage): string {
  const a = m.action ?? m.userAction;
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
