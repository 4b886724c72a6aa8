// Saved views ("scenes", as Neo4j Bloom calls them) of the explorer: a named set of visible nodes
// with their positions (and whether each is pinned), the perspective in use, the zoom and pan and
// the selection, kept in localStorage per graph (this hub's, or an added agent's), and shared as a
// JSON file. Views saved before scenes had only nodes: they still open (no perspective, fitted).

import { validPerspective, type Perspective } from './perspective';

export interface ViewNode {
  id: string;
  x: number;
  y: number;
  pinned?: boolean;
}

export interface SavedView {
  name: string;
  nodes: ViewNode[];
  savedAt: string;
  /** the perspective in use (the whole of it, so a shared scene looks the same elsewhere) */
  perspective?: Perspective;
  viewport?: { zoom: number; pan: { x: number; y: number } };
  selected?: string[];
}

function validViewport(v: unknown): SavedView['viewport'] | undefined {
  const o = v as SavedView['viewport'];
  if (!o || !Number.isFinite(o.zoom) || o.zoom <= 0 || !o.pan || !Number.isFinite(o.pan.x) || !Number.isFinite(o.pan.y)) return undefined;
  return { zoom: o.zoom, pan: { x: o.pan.x, y: o.pan.y } };
}

/** A view or scene read from storage or a file, or null when it is not one. */
export function validView(v: unknown): SavedView | null {
  const o = v as SavedView;
  if (!o || typeof o !== 'object' || typeof o.name !== 'string' || o.name.trim() === '' || !Array.isArray(o.nodes)) return null;
  const out: SavedView = { name: o.name.trim().slice(0, 200), savedAt: typeof o.savedAt === 'string' ? o.savedAt : '', nodes: o.nodes.filter(validNode).map((n) => ({ id: n.id, x: n.x, y: n.y, ...(n.pinned === true ? { pinned: true } : {}) })) };
  const p = o.perspective === undefined ? null : validPerspective(o.perspective);
  if (p) out.perspective = p;
  const vp = validViewport(o.viewport);
  if (vp) out.viewport = vp;
  if (Array.isArray(o.selected)) out.selected = o.selected.filter((x): x is string => typeof x === 'string');
  return out;
}

/** The subset of Storage used (so tests pass a Map-backed fake). */
export interface KVStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** The storage key of a graph's views: `agent` undefined is this hub's graph. */
export function viewsKey(agent?: string): string {
  return `agenthub.kg.views.${agent ? `agent:${agent}` : 'hub'}`;
}

function validNode(n: unknown): n is ViewNode {
  const v = n as ViewNode;
  return !!v && typeof v.id === 'string' && Number.isFinite(v.x) && Number.isFinite(v.y);
}

/** The saved views of a graph, by name; whatever in storage is not a view is skipped. */
export function loadViews(storage: KVStorage, agent?: string): SavedView[] {
  let raw: unknown;
  try {
    raw = JSON.parse(storage.getItem(viewsKey(agent)) ?? '[]');
  } catch {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  return raw
    .map(validView)
    .filter((v): v is SavedView => v !== null)
    .sort((a, b) => a.name.localeCompare(b.name));
}

function store(storage: KVStorage, agent: string | undefined, views: SavedView[]): void {
  storage.setItem(viewsKey(agent), JSON.stringify(views));
}

/** Saves a view under its name (replacing one of the same name) and returns the views now saved. */
export function saveView(storage: KVStorage, agent: string | undefined, view: SavedView): SavedView[] {
  const name = view.name.trim();
  if (name === '') throw new Error('A view needs a name.');
  const views = loadViews(storage, agent).filter((v) => v.name !== name);
  views.push({ ...view, name });
  store(storage, agent, views);
  return loadViews(storage, agent);
}

export function deleteView(storage: KVStorage, agent: string | undefined, name: string): SavedView[] {
  store(
    storage,
    agent,
    loadViews(storage, agent).filter((v) => v.name !== name),
  );
  return loadViews(storage, agent);
}

/** The view of what is on screen now: each node's position, rounded, and whether it is pinned. */
export function snapshotView(
  name: string,
  nodes: { id: string; x: number; y: number; pinned: boolean }[],
  now = new Date(),
  extra: Pick<SavedView, 'perspective' | 'viewport' | 'selected'> = {},
): SavedView {
  return {
    name: name.trim(),
    savedAt: now.toISOString(),
    nodes: nodes.map((n) => ({ id: n.id, x: Math.round(n.x), y: Math.round(n.y), ...(n.pinned ? { pinned: true } : {}) })),
    ...(extra.perspective ? { perspective: extra.perspective } : {}),
    ...(extra.viewport ? { viewport: extra.viewport } : {}),
    ...(extra.selected && extra.selected.length ? { selected: extra.selected } : {}),
  };
}

// ---- scene files ----

export const SCENE_FORMAT = 'agenthub.kg.scene';
/** The largest scene file read (a hostile file must not hang the page). */
export const MAX_SCENE_BYTES = 5_000_000;
const MAX_SCENE_NODES = 20_000;

/** A scene as the file "Export scene" writes. */
export function encodeScene(v: SavedView): string {
  return JSON.stringify({ format: SCENE_FORMAT, version: 1, scene: v }, null, 2);
}

/** The scene in a file, or an Error that says what is wrong with it (nothing is changed then). */
export function decodeScene(text: string): SavedView {
  if (text.length > MAX_SCENE_BYTES) throw new Error('The file is too large to be a scene.');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error('The file is not JSON: not a scene exported from AgentHub.');
  }
  const o = raw as { format?: unknown; version?: unknown; scene?: unknown };
  if (!o || typeof o !== 'object' || o.format !== SCENE_FORMAT) throw new Error('The file is not a scene exported from AgentHub.');
  if (o.version !== 1) throw new Error(`The scene's version (${String(o.version)}) is not one this hub reads.`);
  const sc = o.scene as SavedView;
  if (!sc || typeof sc !== 'object' || !Array.isArray(sc.nodes)) throw new Error('The scene has no nodes.');
  if (sc.nodes.length > MAX_SCENE_NODES) throw new Error(`The scene has more than ${MAX_SCENE_NODES} nodes.`);
  const v = validView(sc);
  if (!v) throw new Error('The scene has no name.');
  if (v.nodes.length !== sc.nodes.length) throw new Error(`${sc.nodes.length - v.nodes.length} of the scene's nodes are malformed.`);
  if (sc.perspective !== undefined && !v.perspective) throw new Error("The scene's perspective is malformed.");
  return v;
}
