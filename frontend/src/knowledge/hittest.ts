// Finding the element under the pointer, fast on a big view. cytoscape looks for it on every mouse
// move over the canvas (for its hover events), and on every press and release, by testing each
// element in turn, each test reading styles and a bounding box: about 180 ms at 10,000 nodes and
// 20,000 links here, so merely moving the pointer over such a view drew 6 frames a second, and a
// press or a release froze the page for a quarter of a second or more.
//
// Here each element's bounding box is kept in a flat array, read once after the graph changes
// (about 45 ms at that size, cytoscape's boxes being cached), and cytoscape's own test runs only on
// the elements whose box, widened by its largest tolerance, holds the point: the answer is the one
// it would give (an element it could find is always among those), in a millisecond or two.

import type { Core, SingularElementReturnValue } from 'cytoscape';

type Ele = SingularElementReturnValue;
/** cytoscape's elements in drawing order, with the interactive ones (what its test walks). */
type ZSorted = Ele[] & { interactive: Ele[] };
type FindNearest = (x: number, y: number, interactiveOnly: boolean, isTouch: boolean) => Ele[];
/** The parts of cytoscape's canvas renderer this leans on (not in its typings). */
interface Renderer {
  findNearestElements: FindNearest;
  getCachedZSortedEles: (forceRecalc?: boolean) => ZSorted;
}

/** The widest a hit may reach past an element's box, in rendered px: cytoscape's edge tolerance for touch. */
const TOLERANCE_PX = 24;

/**
 * Gives cytoscape's renderer (drawing into container) the fast search. `find` is the search its
 * handlers now make, `full` its own over every element (a test compares the two), both at a point
 * of the page (client px); `destroy` puts it back.
 */
export function fastHitTest(cy: Core, container: HTMLElement) {
  const r = (cy as unknown as { renderer?: () => Renderer | undefined }).renderer?.();
  if (!r || typeof r.findNearestElements !== 'function' || typeof r.getCachedZSortedEles !== 'function') {
    return { find: () => [] as Ele[], full: () => [] as Ele[], destroy() {} };
  }
  /** The graph's coordinates of a point of the page. */
  const inGraph = (clientX: number, clientY: number) => {
    const box = container.getBoundingClientRect();
    const pan = cy.pan();
    const zoom = cy.zoom();
    return { x: (clientX - box.left - pan.x) / zoom, y: (clientY - box.top - pan.y) / zoom };
  };
  const own = Object.prototype.hasOwnProperty.call(r, 'findNearestElements');
  const original = r.findNearestElements;
  let from: ZSorted | null = null; // the drawing order the boxes were read in
  let boxes = new Float64Array(0); // x1, y1, x2, y2 of from[i], in the graph's coordinates
  // A box moves with its node, its links' ends, its size (a perspective, a class) and its caption.
  const stale = () => {
    from = null;
  };
  const events = 'add remove position style class data';
  cy.on(events, stale);

  const read = (eles: ZSorted) => {
    if (boxes.length < eles.length * 4) boxes = new Float64Array(eles.length * 4);
    for (let i = 0; i < eles.length; i++) {
      const b = eles[i].boundingBox();
      boxes[4 * i] = b.x1;
      boxes[4 * i + 1] = b.y1;
      boxes[4 * i + 2] = b.x2;
      boxes[4 * i + 3] = b.y2;
    }
    from = eles;
  };

  const getZSorted = r.getCachedZSortedEles;
  r.findNearestElements = function (this: Renderer, x, y, interactiveOnly, isTouch) {
    const all = getZSorted.call(r);
    if (all !== from) read(all);
    const t = TOLERANCE_PX / cy.zoom();
    const near = [] as unknown as ZSorted;
    for (let i = 0; i < all.length; i++) {
      if (x >= boxes[4 * i] - t && x <= boxes[4 * i + 2] + t && y >= boxes[4 * i + 1] - t && y <= boxes[4 * i + 3] + t) near.push(all[i]);
    }
    near.interactive = near.filter((e) => (e as Ele & { interactive(): boolean }).interactive());
    // cytoscape's own test, on those elements only, in the same order.
    r.getCachedZSortedEles = () => near;
    try {
      return original.call(r, x, y, interactiveOnly, isTouch);
    } finally {
      delete (r as Partial<Renderer>).getCachedZSortedEles;
      if (r.getCachedZSortedEles !== getZSorted) r.getCachedZSortedEles = getZSorted;
    }
  };

  return {
    /** What cytoscape's handlers find under a point of the page (through the renderer, as they call it). */
    find: (clientX: number, clientY: number) => {
      const p = inGraph(clientX, clientY);
      return r.findNearestElements(p.x, p.y, true, false);
    },
    full: (clientX: number, clientY: number) => {
      const p = inGraph(clientX, clientY);
      return original.call(r, p.x, p.y, true, false);
    },
    destroy() {
      cy.off(events, stale);
      if (own) r.findNearestElements = original;
      else delete (r as Partial<Renderer>).findNearestElements;
    },
  };
}
