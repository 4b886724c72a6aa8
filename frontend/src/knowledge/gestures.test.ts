import { describe, expect, it } from 'vitest';
import { panned, still, viewportAfter, wheelFactor, zoomedAt, type Moved } from './gestures';

// Where a viewport draws a point of the graph, and where a moved picture shows a drawn point.
const drawn = (vp: { zoom: number; pan: { x: number; y: number } }, g: { x: number; y: number }) => ({ x: vp.pan.x + vp.zoom * g.x, y: vp.pan.y + vp.zoom * g.y });
const shown = (m: Moved, r: { x: number; y: number }) => ({ x: m.tx + m.s * r.x, y: m.ty + m.s * r.y });

describe('picture gestures', () => {
  const vp = { zoom: 0.08, pan: { x: 310, y: -42 } };
  const points = [
    { x: 0, y: 0 },
    { x: 1543.7, y: -2543.4 },
    { x: -880, y: 4021 },
  ];

  it('the redrawn graph lands where the moved picture showed it, after pans and zooms', () => {
    let m = still;
    m = panned(m, 40, -25);
    m = zoomedAt(m, { x: 500, y: 300 }, 1.2);
    m = zoomedAt(m, { x: 120, y: 640 }, 0.7);
    m = panned(m, -300, 10);
    const after = viewportAfter(vp, m);
    for (const g of points) {
      const want = shown(m, drawn(vp, g));
      const got = drawn(after, g);
      expect(got.x).toBeCloseTo(want.x, 6);
      expect(got.y).toBeCloseTo(want.y, 6);
    }
    expect(after.zoom).toBeCloseTo(0.08 * 1.2 * 0.7, 9);
  });

  it('a zoom keeps the point under the pointer where it is', () => {
    const m = zoomedAt(panned(still, 15, 15), { x: 200, y: 100 }, 2);
    // The drawn point that showed at (200, 100) before the zoom shows there after it.
    const before = { x: 185, y: 85 };
    expect(shown(panned(still, 15, 15), before)).toEqual({ x: 200, y: 100 });
    expect(shown(m, before)).toEqual({ x: 200, y: 100 });
  });

  it('a picture not moved leaves the viewport as it was', () => {
    expect(viewportAfter(vp, still)).toEqual(vp);
  });

  it('zooms a mouse notch by about 4.5%, a trackpad in proportion, and Firefox lines as pixels', () => {
    expect(wheelFactor(120, 0)).toBeCloseTo(10 ** -0.02, 9); // down: out
    expect(wheelFactor(-120, 0)).toBeCloseTo(10 ** 0.02, 9); // up: in
    expect(wheelFactor(2, 0)).toBeCloseTo(10 ** (-2 / 250), 9);
    expect(wheelFactor(3, 1)).toBeCloseTo(10 ** -0.02, 9);
    expect(wheelFactor(0, 0)).toBe(1);
  });
});
