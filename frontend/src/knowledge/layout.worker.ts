// The explorer's layout off the page's thread: fcose on a headless cytoscape (no canvas, no DOM),
// so laying out thousands of nodes never freezes the page. It answers each request with the nodes'
// positions; the page applies them (layout.ts).

import cytoscape from 'cytoscape';
import fcose from 'cytoscape-fcose';
import type { LayoutRequest, LayoutResult } from './layout';

cytoscape.use(fcose);

self.onmessage = (e: MessageEvent<LayoutRequest>) => {
  const { id, nodes, edges, quality } = e.data;
  try {
    const cy = cytoscape({
      headless: true,
      styleEnabled: true,
      style: [{ selector: 'node', style: { width: 'data(w)', height: 'data(h)' } }],
      elements: [
        ...nodes.map((n) => ({ group: 'nodes' as const, data: { id: n.id, w: n.w, h: n.h }, position: { x: n.x, y: n.y }, locked: n.locked })),
        ...edges.map(([s, t], i) => ({ group: 'edges' as const, data: { id: `e${i}`, source: s, target: t } })),
      ],
    });
    cy.layout({ name: 'fcose', animate: false, randomize: true, quality } as cytoscape.LayoutOptions).run();
    const positions: LayoutResult['positions'] = cy.nodes().map((n) => [n.id(), n.position('x'), n.position('y')]);
    cy.destroy();
    self.postMessage({ id, positions } satisfies LayoutResult);
  } catch (err) {
    self.postMessage({ id, error: String((err as Error)?.message ?? err) } satisfies LayoutResult);
  }
};
