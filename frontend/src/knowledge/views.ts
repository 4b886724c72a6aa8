// Saved views of the explorer: a named set of visible nodes with their positions (and whether each
// is pinned), kept in localStorage per graph (this hub's, or an added agent's).

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
    .filter((v): v is SavedView => !!v && typeof v.name === 'string' && v.name.trim() !== '' && Array.isArray(v.nodes))
    .map((v) => ({ name: v.name, savedAt: typeof v.savedAt === 'string' ? v.savedAt : '', nodes: v.nodes.filter(validNode) }))
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
export function snapshotView(name: string, nodes: { id: string; x: number; y: number; pinned: boolean }[], now = new Date()): SavedView {
  return {
    name: name.trim(),
    savedAt: now.toISOString(),
    nodes: nodes.map((n) => ({ id: n.id, x: Math.round(n.x), y: Math.round(n.y), ...(n.pinned ? { pinned: true } : {}) })),
  };
}
