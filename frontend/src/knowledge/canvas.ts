// The explorer's cytoscape setup: its extensions, the stylesheet in the theme's colours, where a new
// node goes, and the canvas's test hooks.

import cytoscape, { type Core } from 'cytoscape';
import edgehandles from 'cytoscape-edgehandles';
import fcose from 'cytoscape-fcose';
import { ringPositions } from './graph';

let registered = false;

/** Registers the cytoscape extensions once. */
export function register() {
  if (registered) return;
  registered = true;
  cytoscape.use(fcose);
  cytoscape.use(edgehandles);
}

/** The canvas's test hooks (not global): screen positions and classes of elements, for e2e tests. */
export interface CanvasHooks {
  rendered(id: string): { x: number; y: number } | null;
  classes(id: string): string[];
  /** How many nodes and links are on the canvas (with a prefix: nodes whose id starts with it, links from them). */
  count(prefix?: string): { nodes: number; edges: number };
  /** A node's position in the graph's own coordinates (what a saved view keeps). */
  position(id: string): { x: number; y: number } | null;
  /** A node's rendered look (what a perspective sets): colour as rgb(), size in graph units, shape, caption. */
  style(id: string): { color: string; width: number; shape: string; label: string } | null;
  /** The zoom and pan (what a scene keeps). */
  viewport(): { zoom: number; pan: { x: number; y: number } };
  /** Resolves once the canvas has not been redrawn for 300 ms (a measurement starts from a still canvas). */
  settled(): Promise<void>;
  /** A node's data (its types and the property values a perspective read). */
  _data(id: string): Record<string, unknown>;
  /**
   * What is under a point of the page (client px), found as a press finds it (hittest.ts) and by
   * cytoscape's own search over every element: the ids of the node and the link it gives.
   */
  nearest(x: number, y: number): { fast: string[]; full: string[] };
}

/** Resolved theme colours (CSS custom properties hold light-dark(), so read them off a probe). */
export function themeColours(el: HTMLElement) {
  const probe = document.createElement('span');
  el.appendChild(probe);
  const read = (v: string) => {
    probe.style.color = `var(${v})`;
    return getComputedStyle(probe).color;
  };
  const c = { text: read('--text'), muted: read('--muted'), accent: read('--accent'), surface: read('--surface'), border: read('--border-strong'), warn: read('--warn') };
  probe.remove();
  return c;
}

export function stylesheet(c: ReturnType<typeof themeColours>): cytoscape.StylesheetJson {
  return [
    {
      selector: 'node[color]',
      style: { 'background-color': 'data(color)', shape: 'data(shape)' as unknown as cytoscape.Css.NodeShape },
    },
    {
      selector: 'node[label]',
      style: { label: 'data(label)' },
    },
    // A perspective's caption (its size rule follows the plain node rule, which sets the default).
    {
      selector: 'node[caption]',
      style: { label: 'data(caption)' },
    },
    {
      selector: 'node',
      style: {
        color: c.text,
        'font-size': 11,
        'text-valign': 'bottom',
        'text-margin-y': 4,
        'text-max-width': '140px',
        'text-wrap': 'ellipsis',
        'min-zoomed-font-size': 7,
        width: 24,
        height: 24,
        'border-width': 1.5,
        'border-color': c.surface,
      },
    },
    { selector: 'node[size]', style: { width: 'data(size)', height: 'data(size)' } },
    { selector: 'node.expanded', style: { 'border-width': 3, 'border-color': c.border } },
    { selector: 'node.pinned', style: { 'border-style': 'dashed', 'border-width': 3, 'border-color': c.text } },
    { selector: 'node:selected', style: { 'border-width': 4, 'border-color': c.accent, 'border-style': 'solid' } },
    { selector: 'edge[label]', style: { label: 'data(label)' } },
    {
      selector: 'edge',
      style: {
        width: 1.5,
        'line-color': c.border,
        'target-arrow-color': c.border,
        'target-arrow-shape': 'triangle',
        'curve-style': 'bezier',
        'font-size': 9,
        color: c.muted,
        'text-rotation': 'autorotate',
        'text-background-color': c.surface,
        'text-background-opacity': 1,
        'text-background-padding': '1px',
        'min-zoomed-font-size': 9,
      },
    },
    { selector: 'edge:selected', style: { 'line-color': c.accent, 'target-arrow-color': c.accent, width: 3 } },
    { selector: '.flash', style: { 'overlay-color': c.warn, 'overlay-opacity': 0.35, 'overlay-padding': 8 } },
    { selector: '.eh-source, .eh-target', style: { 'border-width': 4, 'border-color': c.accent } },
    {
      selector: '.eh-preview, .eh-ghost-edge',
      style: { 'line-color': c.accent, 'target-arrow-color': c.accent, 'line-style': 'dashed', label: '' },
    },
    { selector: '.eh-ghost-edge.eh-preview-active', style: { opacity: 0 } },
    { selector: '.eh-ghost-node', style: { opacity: 0, width: 1, height: 1, label: '' } },
  ];
}

/** The first spot at or around `c` with no node within 50 units, so a new node does not land on another. */
export function freeSpot(cy: Core, c: { x: number; y: number }): { x: number; y: number } {
  const taken = cy.nodes().map((n) => n.position());
  const free = (p: { x: number; y: number }) => taken.every((t) => Math.hypot(t.x - p.x, t.y - p.y) >= 50);
  if (free(c)) return c;
  for (let k = 0; k < 200; k++) {
    const [p] = ringPositions(c.x, c.y, 1, k, 60);
    if (free(p)) return p;
  }
  return c;
}
