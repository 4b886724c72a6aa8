// Laying out the explorer's canvas. A small view is laid out on the page's thread, at once, as it
// always was (fcose on 100 nodes: a fraction of a second); a big one is
// sent to a worker (layout.worker.ts) and its positions applied when it answers, so the page stays
// usable meanwhile. fcose's full quality is quadratic in practice (500 nodes ≈ 1.5 s, 2,000 ≈ 76 s
// measured in node on the 2-CPU CI machine); above QUALITY_LIMIT the worker runs its "draft" quality,
// the spectral layout alone (10,000 nodes ≈ 6 s).

import type { Core, LayoutOptions } from 'cytoscape';

/** The most nodes the canvas shows at once (measured usable: 10,000 nodes and 20,000 links, docs/performance.md). */
export const MAX_CANVAS_NODES = 10_000;
/** Views up to this many nodes are laid out on the page's thread. */
export const MAIN_THREAD_LAYOUT = 100;
/** Views up to this many nodes get fcose's full quality; bigger ones its draft (spectral) layout. */
export const QUALITY_LIMIT = 500;

export interface LayoutRequest {
  id: number;
  nodes: { id: string; x: number; y: number; w: number; h: number; locked: boolean }[];
  edges: [string, string][];
  quality: 'draft' | 'default';
}

export interface LayoutResult {
  id: number;
  positions?: [string, number, number][];
  error?: string;
}

let worker: Worker | null = null;
let lastId = 0;
const waiting = new Map<number, (r: LayoutResult) => void>();

function layoutWorker(): Worker | null {
  if (typeof Worker === 'undefined') return null; // jsdom (unit tests): the page's thread does it
  if (!worker) {
    worker = new Worker(new URL('./layout.worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (e: MessageEvent<LayoutResult>) => {
      const done = waiting.get(e.data.id);
      waiting.delete(e.data.id);
      done?.(e.data);
    };
    // The worker could not start or died: every layout waiting on it fails (the next one starts a new worker).
    worker.onerror = (e) => {
      e.preventDefault();
      for (const [id, done] of waiting) done({ id, error: e.message || 'the layout worker failed' });
      waiting.clear();
      worker?.terminate();
      worker = null;
    };
  }
  return worker;
}

/** Whether laying out this view goes to the worker (the caller says so while it runs). */
export function layoutInWorker(cy: Core): boolean {
  return cy.nodes().length > MAIN_THREAD_LAYOUT && typeof Worker !== 'undefined';
}

/** The worker's positions for a request's nodes; throws when the worker failed. */
export async function layoutOffThread(req: Omit<LayoutRequest, 'id'>): Promise<[string, number, number][]> {
  const w = layoutWorker();
  if (!w) throw new Error('this page has no workers');
  const id = ++lastId;
  const res = await new Promise<LayoutResult>((done) => {
    waiting.set(id, done);
    w.postMessage({ ...req, id } satisfies LayoutRequest);
  });
  if (!res.positions) throw new Error(res.error ?? 'the layout worker answered nothing');
  return res.positions;
}

/** The worker's quality for a view of n nodes. */
export const qualityFor = (n: number): LayoutRequest['quality'] => (n > QUALITY_LIMIT ? 'draft' : 'default');

/**
 * The viewport that shows every box (centre and size, in the graph's units) within a canvas of
 * width × height with `pad` pixels around: what cytoscape's fit gives, without asking cytoscape to
 * measure every element first.
 */
export function viewportToFit(
  boxes: Iterable<{ x: number; y: number; w: number; h: number }>,
  canvas: { width: number; height: number; pad: number; minZoom: number; maxZoom: number },
): { zoom: number; pan: { x: number; y: number } } | null {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const b of boxes) {
    x0 = Math.min(x0, b.x - b.w / 2);
    y0 = Math.min(y0, b.y - b.h / 2);
    x1 = Math.max(x1, b.x + b.w / 2);
    y1 = Math.max(y1, b.y + b.h / 2);
  }
  if (x0 > x1) return null;
  const { width, height, pad } = canvas;
  const fit = Math.min((width - 2 * pad) / Math.max(x1 - x0, 1), (height - 2 * pad) / Math.max(y1 - y0, 1));
  const zoom = Math.min(canvas.maxZoom, Math.max(canvas.minZoom, fit));
  return { zoom, pan: { x: width / 2 - (zoom * (x0 + x1)) / 2, y: height / 2 - (zoom * (y0 + y1)) / 2 } };
}

/**
 * Lays out every node in view (pinned ones stay) and fits the view to them. Resolves once the
 * positions are applied; to false when `stale()` says the view was replaced meanwhile (they are not
 * applied then). Throws when the worker failed.
 */
export async function layoutView(cy: Core, stale: () => boolean, opts: { randomize?: boolean } = {}): Promise<boolean> {
  const n = cy.nodes().length;
  if (n < 2) return true;
  if (!layoutInWorker(cy)) {
    cy.layout({ name: 'fcose', animate: false, randomize: opts.randomize ?? true, nodeDimensionsIncludeLabels: true } as LayoutOptions).run();
    cy.fit(undefined, 40);
    return true;
  }
  const positions = await layoutOffThread({
    // A node's box with its caption under it (what nodeDimensionsIncludeLabels measures on the page).
    nodes: cy.nodes().map((node) => ({ id: node.id(), ...node.position(), w: node.width() + LABEL_ROOM, h: node.height() + LABEL_ROOM, locked: node.locked() })),
    edges: cy.edges().map((e) => [e.source().id(), e.target().id()]),
    quality: qualityFor(n),
  });
  if (stale() || cy.destroyed()) return false;
  cy.batch(() => {
    for (const [id, x, y] of positions) {
      const node = cy.getElementById(id);
      if (node.nonempty() && !node.locked()) node.position({ x, y });
    }
  });
  cy.fit(undefined, 40);
  return true;
}

/** What the worker adds around a node's box for its caption. */
export const LABEL_ROOM = 20;
