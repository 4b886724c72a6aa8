// Panning and zooming a big view as a picture. Redrawing 10,000 nodes and 20,000 links takes
// cytoscape's 2D canvas about half a second on a machine without a GPU, so on a big view a drag or a
// wheel does not redraw the graph frame by frame: the picture already drawn moves and scales under a
// CSS transform, and the graph is redrawn once, at the new viewport, when the gesture ends.
// (cytoscape's own textureOnViewport does the same in spirit, but it first redraws the whole graph
// into its texture at every gesture's start, a second-long stall at this size; see
// docs/performance.md.) Small views keep cytoscape's own panning and zooming, which draws what comes
// into view as it comes.

import type { Core, EventObject, SingularElementReturnValue } from 'cytoscape';

/** From this many elements (nodes and links) on the canvas, gestures move the picture. */
export const PICTURE_GESTURES_FROM = 5_000;

/** How the picture is moved: a point drawn at r shows at t + s·r (in the canvas's own pixels). */
export interface Moved {
  s: number;
  tx: number;
  ty: number;
}

export const still: Moved = { s: 1, tx: 0, ty: 0 };

export const panned = (m: Moved, dx: number, dy: number): Moved => ({ s: m.s, tx: m.tx + dx, ty: m.ty + dy });

/** Scales the picture by f about the point p (canvas pixels), keeping p where it is. */
export const zoomedAt = (m: Moved, p: { x: number; y: number }, f: number): Moved => ({
  s: m.s * f,
  tx: p.x + f * (m.tx - p.x),
  ty: p.y + f * (m.ty - p.y),
});

/** The viewport that draws the graph where the moved picture shows it. */
export function viewportAfter(vp: { zoom: number; pan: { x: number; y: number } }, m: Moved) {
  return { zoom: vp.zoom * m.s, pan: { x: m.tx + m.s * vp.pan.x, y: m.ty + m.s * vp.pan.y } };
}

/**
 * One wheel event's zoom factor, as cytoscape's own wheel zoom gives it for a mouse (a notch is
 * about 4.5%; a trackpad's small deltas zoom in proportion).
 */
export function wheelFactor(deltaY: number, deltaMode: number): number {
  const d = deltaMode === 1 ? deltaY * 33 : deltaY; // lines (Firefox) to pixels
  return 10 ** (-Math.sign(d) * Math.min(Math.abs(d), 5) / 250);
}

/** How far (px) a press may move and still be a tap (cytoscape's desktop tap threshold, 4 px, and a bit). */
const TAP_DISTANCE = 6;

/** The ms without a wheel event after which a zoom is done and the graph redrawn. */
const WHEEL_SETTLE_MS = 250;

/**
 * Wires picture gestures onto cytoscape's container. They are on while `on(true)` says so; off, the
 * container is left to cytoscape's own panning and zooming. `find` says what is under a point of the
 * page (client px), as cytoscape's own search would (hittest.ts).
 */
export function pictureGestures(cy: Core, container: HTMLElement, find: (clientX: number, clientY: number) => SingularElementReturnValue[]) {
  let enabled = false;
  let drawing = false; // links are being drawn: presses on nodes are edgehandles'
  let moved: Moved = still;
  let drag: {
    x: number;
    y: number;
    from: Moved;
    toldCytoscape: boolean;
    /** A mouse press kept from cytoscape: what a release without a drag taps (a node, a link or the background). */
    tap?: SingularElementReturnValue | Core;
    /** The pointer went past the tap distance: the picture moves with it. */
    panning: boolean;
  } | null = null;
  let wheelTimer: ReturnType<typeof setTimeout> | undefined;
  let boxSelection = cy.boxSelectionEnabled();
  // cytoscape draws into canvases inside one div of the container: that div is what moves.
  const picture = () => container.firstElementChild as HTMLElement | null;

  const show = () => {
    const p = picture();
    if (!p) return;
    p.style.transformOrigin = '0 0';
    p.style.transform = moved === still ? '' : `translate(${moved.tx}px, ${moved.ty}px) scale(${moved.s})`;
  };

  /** Draws the graph at the viewport the picture shows, then lets the picture go back in place. */
  const commit = () => {
    clearTimeout(wheelTimer);
    drag = null;
    if (moved === still) return;
    const m = moved;
    moved = still;
    // The transform goes in the same frame as the redraw (cytoscape's 'render' event comes before
    // the browser paints), so the picture never jumps back for a frame.
    let done = false;
    const settle = () => {
      if (done || moved !== still) return;
      done = true;
      show();
    };
    cy.one('render', settle);
    setTimeout(settle, 1_000); // nothing to redraw (an empty view): let go anyway
    cy.viewport(viewportAfter({ zoom: cy.zoom(), pan: cy.pan() }, m));
  };

  // A touch on the background (cytoscape says which; a mouse press is kept from it, below) starts a
  // pan, followed by pointer events on the window. cytoscape's own mouse and touch moves are kept
  // from it meanwhile: it would look for the element under the pointer at every move and send hover
  // events, none of which a pan needs. The first move past its tap distance still reaches it, so it
  // does not take the release for a tap.
  const onTapStart = (e: EventObject) => {
    if (!enabled || e.target !== cy) return;
    commit();
    const r = container.getBoundingClientRect();
    drag = { x: e.renderedPosition.x + r.left, y: e.renderedPosition.y + r.top, from: moved, toldCytoscape: false, panning: true };
    for (const [type, fn] of dragListeners) window.addEventListener(type, fn, true);
  };
  // A mouse press (main button) never reaches cytoscape on a big view. On a node, cytoscape would make
  // it active and ready to drag, moving it and its links to a layer of their own, and redraw all the
  // elements for that (0.9 s at 30,000 here), then again at the release. Here what is under the
  // pointer is looked up, the press is kept, and a drag pans the picture wherever it starts (nodes
  // are not dragged one by one on a big view); a release before the tap distance is a tap on what
  // was pressed, sent to cytoscape's listeners as its own would be.
  const onMouseDown = (e: MouseEvent) => {
    if (!enabled || drawing || e.button !== 0) return;
    e.stopPropagation();
    e.preventDefault();
    (document.activeElement as HTMLElement | null)?.blur?.(); // as cytoscape does: a press on the canvas leaves the field
    commit();
    const under = find(e.clientX, e.clientY);
    drag = { x: e.clientX, y: e.clientY, from: moved, toldCytoscape: true, tap: under[0] ?? cy, panning: false };
    for (const [type, fn] of dragListeners) window.addEventListener(type, fn, true);
  };
  const onPointerMove = (e: PointerEvent) => {
    if (!drag) return;
    const dx = e.clientX - drag.x;
    const dy = e.clientY - drag.y;
    if (!drag.panning && dx ** 2 + dy ** 2 <= TAP_DISTANCE ** 2) return;
    drag.panning = true;
    moved = panned(drag.from, dx, dy);
    show();
  };
  const keepFromCytoscape = (e: MouseEvent | TouchEvent) => {
    if (!drag) return;
    const p = 'touches' in e ? e.touches[0] : e;
    if (drag.toldCytoscape) e.stopPropagation();
    else if (p) drag.toldCytoscape = (p.clientX - drag.x) ** 2 + (p.clientY - drag.y) ** 2 > TAP_DISTANCE ** 2;
  };
  const onUp = () => {
    for (const [type, fn] of dragListeners) window.removeEventListener(type, fn, true);
    const d = drag;
    if (d?.tap && !d.panning) {
      drag = null;
      d.tap.emit('tap');
      return;
    }
    if (d) commit();
  };
  const dragListeners = [
    ['pointermove', onPointerMove],
    ['mousemove', keepFromCytoscape],
    ['touchmove', keepFromCytoscape],
    ['pointerup', onUp],
    ['pointercancel', onUp],
  ] as [string, EventListener][];
  const onWheel = (e: WheelEvent) => {
    if (!enabled || drag || e.deltaY === 0) return;
    e.preventDefault();
    const r = container.getBoundingClientRect();
    const zoom = cy.zoom() * moved.s;
    // Within cytoscape's zoom limits.
    const f = Math.min(cy.maxZoom() / zoom, Math.max(cy.minZoom() / zoom, wheelFactor(e.deltaY, e.deltaMode)));
    moved = zoomedAt(moved, { x: e.clientX - r.left, y: e.clientY - r.top }, f);
    show();
    clearTimeout(wheelTimer);
    wheelTimer = setTimeout(commit, WHEEL_SETTLE_MS);
  };

  cy.on('tapstart', onTapStart);
  container.addEventListener('mousedown', onMouseDown, true);
  container.addEventListener('wheel', onWheel, { passive: false });

  return {
    /** Turns picture gestures on (a big view) or off (cytoscape's own gestures). */
    on(want: boolean) {
      if (want === enabled) return;
      if (!want) commit();
      enabled = want;
      cy.userPanningEnabled(!want);
      cy.userZoomingEnabled(!want);
      // With its panning off, cytoscape would take a drag on the background for a box selection.
      if (want) {
        boxSelection = cy.boxSelectionEnabled();
        cy.boxSelectionEnabled(false);
      } else cy.boxSelectionEnabled(boxSelection);
    },
    /** Links are being drawn (edgehandles takes presses on nodes) or not. */
    drawing(on: boolean) {
      drawing = on;
    },
    destroy() {
      clearTimeout(wheelTimer);
      cy.off('tapstart', onTapStart);
      container.removeEventListener('mousedown', onMouseDown, true);
      for (const [type, fn] of dragListeners) window.removeEventListener(type, fn, true);
      container.removeEventListener('wheel', onWheel);
    },
  };
}
