import { describe, expect, it } from 'vitest';
import { viewportToFit } from './layout';

// Where a viewport draws a point of the graph.
const drawn = (vp: { zoom: number; pan: { x: number; y: number } }, g: { x: number; y: number }) => ({ x: vp.pan.x + vp.zoom * g.x, y: vp.pan.y + vp.zoom * g.y });

describe('viewportToFit', () => {
  const canvas = { width: 1000, height: 700, pad: 40, minZoom: 0.05, maxZoom: 4 };

  it('shows every box within the padding, tight on one side, centred', () => {
    const boxes = [
      { x: -500, y: 200, w: 44, h: 44 },
      { x: 2500, y: -800, w: 44, h: 44 },
      { x: 900, y: 1300, w: 60, h: 60 },
    ];
    const vp = viewportToFit(boxes, canvas)!;
    let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const b of boxes) {
      const a = drawn(vp, { x: b.x - b.w / 2, y: b.y - b.h / 2 });
      const c = drawn(vp, { x: b.x + b.w / 2, y: b.y + b.h / 2 });
      [x0, y0, x1, y1] = [Math.min(x0, a.x), Math.min(y0, a.y), Math.max(x1, c.x), Math.max(y1, c.y)];
    }
    expect(x0).toBeGreaterThanOrEqual(40 - 1e-9);
    expect(y0).toBeGreaterThanOrEqual(40 - 1e-9);
    expect(x1).toBeLessThanOrEqual(960 + 1e-9);
    expect(y1).toBeLessThanOrEqual(660 + 1e-9);
    expect(Math.min(x0 - 40, 960 - x1, y0 - 40, 660 - y1)).toBeCloseTo(0, 6);
    expect((x0 + x1) / 2).toBeCloseTo(500, 6);
    expect((y0 + y1) / 2).toBeCloseTo(350, 6);
  });

  it("keeps within cytoscape's zoom limits, and has nothing to fit without boxes", () => {
    expect(viewportToFit([{ x: 0, y: 0, w: 1, h: 1 }], canvas)!.zoom).toBe(4);
    expect(viewportToFit([{ x: 0, y: 0, w: 1e6, h: 1e6 }], canvas)!.zoom).toBe(0.05);
    expect(viewportToFit([], canvas)).toBeNull();
  });
});
