// Bringing thousands of nodes onto the canvas without freezing the page. cytoscape styles, measures
// and draws every element on the page's thread: 30,000 elements added at once kept it busy for
// seconds in one go on the 2-CPU machine (docs/performance.md), and a layout after that moved every
// node and drew them all again. So a big batch is laid out first, in the worker, from the elements'
// data alone; then added with its positions a slice per frame while the viewport looks at an empty
// part of the plane (cytoscape styles and measures each slice as it comes, work it would do anyway,
// but draws nothing out of view); and last the viewport is set to show them all: one draw.

import type { Core, ElementDefinition } from 'cytoscape';
import { LABEL_ROOM, layoutOffThread, qualityFor, viewportToFit } from './layout';
import { DEFAULT_SIZE } from './perspective';

/** Elements added per frame. */
export const SLICE = 1_000;

const nextFrame = () => new Promise<void>((done) => requestAnimationFrame(() => setTimeout(done, 0)));

/**
 * Lays out the view with `defs` (new nodes and the links among them and to the view) in the worker
 * and adds them, a slice per frame, reporting progress; then fits the view to all its nodes.
 * Resolves to false, leaving what was added so far, when `stale()` says the view moved on.
 */
export async function bringInBig(
  cy: Core,
  defs: ElementDefinition[],
  stale: () => boolean,
  progress: (added: number, total: number) => void,
): Promise<boolean> {
  const nodes = defs.filter((d) => d.group === 'nodes');
  const edges = defs.filter((d) => d.group === 'edges');
  const size = (d: ElementDefinition) => Number(d.data.size ?? DEFAULT_SIZE) + LABEL_ROOM;
  const boxes = new Map<string, { x: number; y: number; w: number; h: number }>();
  cy.nodes().forEach((n) => {
    boxes.set(n.id(), { ...n.position(), w: n.width() + LABEL_ROOM, h: n.height() + LABEL_ROOM });
  });
  for (const d of nodes) boxes.set(String(d.data.id), { x: 0, y: 0, w: size(d), h: size(d) });
  const positions = await layoutOffThread({
    nodes: [...boxes].map(([id, b]) => ({ id, ...b, locked: cy.getElementById(id).locked() })),
    edges: [...cy.edges().map((e) => [e.source().id(), e.target().id()] as [string, string]), ...edges.map((e) => [String(e.data.source), String(e.data.target)] as [string, string])],
    quality: qualityFor(boxes.size),
  });
  if (stale() || cy.destroyed()) return false;
  for (const [id, x, y] of positions) {
    const b = boxes.get(id);
    const have = cy.getElementById(id);
    if (!b || (have.nonempty() && have.locked())) continue;
    b.x = x;
    b.y = y;
  }
  // While they come the viewport looks at an empty part of the plane, right of everything.
  let right = 0;
  for (const b of boxes.values()) right = Math.max(right, b.x + b.w);
  cy.viewport({ zoom: 1, pan: { x: -(right + 10 * cy.width()), y: 0 } });
  cy.batch(() => {
    cy.nodes().forEach((n) => {
      const b = boxes.get(n.id());
      if (b && !n.locked()) n.position({ x: b.x, y: b.y });
    });
  });
  const placed = nodes.map((d) => {
    const { x, y } = boxes.get(String(d.data.id))!;
    return { ...d, position: { x, y } };
  });
  // What the view gained or lost meanwhile (a live change, a collapse) is left as it is: an element
  // already there is not added twice, a link whose end is gone not at all. Every node comes before
  // any link, so a link's ends are on the canvas when it is checked.
  const has = (id: unknown) => cy.getElementById(String(id)).nonempty();
  const total = placed.length + edges.length;
  let added = 0;
  for (const [group, fits] of [
    [placed, (d: ElementDefinition) => !has(d.data.id)],
    [edges, (d: ElementDefinition) => !has(d.data.id) && has(d.data.source) && has(d.data.target)],
  ] as const) {
    for (let i = 0; i < group.length; i += SLICE) {
      const slice = group.slice(i, i + SLICE);
      cy.add(slice.filter(fits));
      added += slice.length;
      progress(added, total);
      await nextFrame();
      if (stale() || cy.destroyed()) return false;
    }
  }
  const vp = viewportToFit(boxes.values(), { width: cy.width(), height: cy.height(), pad: 40, minZoom: cy.minZoom(), maxZoom: cy.maxZoom() });
  if (vp) cy.viewport(vp);
  return true;
}
