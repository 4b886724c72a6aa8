// The Explorer's canvas: mounts cytoscape (fcose layout, edgehandles to draw links) in its
// container, turns its taps, right-clicks and link drawing into callbacks, restyles it with the
// theme, and leaves the test hooks on the container. It owns cytoscape's lifetime and nothing of
// what is shown: the graph's commands (useExplorerGraph) add and remove elements.

import cytoscape, { type EdgeSingular, type NodeSingular } from 'cytoscape';
import { useEffect, useRef, type ReactNode } from 'react';
import { register, stylesheet, themeColours, type CanvasHooks } from './canvas';
import { PICTURE_GESTURES_FROM, pictureGestures } from './gestures';
import { fastHitTest } from './hittest';
import { ContextMenu } from './parts';
import type { KnowledgeEdits } from './useKnowledgeEdits';
import type { ExplorerGraph, Selection } from './useExplorerGraph';

export interface MenuState {
  x: number;
  y: number;
  target: { kind: 'node'; id: string } | { kind: 'edge'; id: string } | { kind: 'canvas'; pos: { x: number; y: number } };
}

interface CanvasHandlers {
  select: (sel: Selection) => void;
  onMenu: (m: MenuState | null) => void;
  onDrawHint: (hint: string) => void;
  /** a link was drawn from one node to another */
  onLink: (source: string, target: string) => void;
}

export function GraphCanvas({
  g,
  active,
  drawMode,
  children,
  ...callbacks
}: CanvasHandlers & {
  g: ExplorerGraph;
  /** The tab is on screen (cytoscape measures its container then). */
  active: boolean;
  drawMode: boolean;
  /** what shows over the canvas (status, legend, toasts) */
  children?: ReactNode;
}) {
  register();
  const containerRef = useRef<HTMLDivElement>(null);
  const { cyRef, ehRef, counts } = g;
  // cytoscape's listeners are set once; they call the newest handlers.
  const handlers = useRef<CanvasHandlers>(callbacks);
  handlers.current = callbacks;
  const gestures = useRef<ReturnType<typeof pictureGestures> | null>(null);

  // ---- cytoscape's lifetime ----

  useEffect(() => {
    const el = containerRef.current;
    if (!el) return;
    const cy = cytoscape({
      container: el,
      style: stylesheet(themeColours(el)),
      minZoom: 0.05,
      maxZoom: 4,
      // Thousands of elements stay interactive: edges hide and the canvas is reused while panning.
      hideEdgesOnViewport: true,
      textureOnViewport: true,
    });
    cyRef.current = cy;
    const eh = cy.edgehandles({
      canConnect: (s, t) => !s.same(t),
      edgeParams: () => ({ data: { label: '' } }),
      hoverDelay: 150,
      snap: false,
    });
    ehRef.current = eh;
    const hitTest = fastHitTest(cy, el);
    gestures.current = pictureGestures(cy, el, hitTest.find);
    cy.on('tap', 'node', (e) => handlers.current.select({ kind: 'node', id: (e.target as NodeSingular).id() }));
    cy.on('tap', 'edge', (e) => handlers.current.select({ kind: 'edge', id: (e.target as EdgeSingular).id() }));
    cy.on('tap', (e) => {
      if (e.target === cy) handlers.current.select(null);
      handlers.current.onMenu(null);
    });
    cy.on('cxttap', (e) => {
      const r = el.getBoundingClientRect();
      const p = e.renderedPosition ?? { x: 0, y: 0 };
      const t = e.target;
      if (t === cy) handlers.current.onMenu({ x: r.left + p.x, y: r.top + p.y, target: { kind: 'canvas', pos: e.position } });
      else if ((t as NodeSingular).isNode()) handlers.current.onMenu({ x: r.left + p.x, y: r.top + p.y, target: { kind: 'node', id: t.id() } });
      else handlers.current.onMenu({ x: r.left + p.x, y: r.top + p.y, target: { kind: 'edge', id: t.id() } });
    });
    cy.on('ehstart', (_e, source: NodeSingular) => handlers.current.onDrawHint(`Linking from ${source.data('label')}: release over another node.`));
    cy.on('ehhoverover', (_e, _s: NodeSingular, target: NodeSingular) => handlers.current.onDrawHint(`Release to link to ${target.data('label')}.`));
    cy.on('ehhoverout', () => handlers.current.onDrawHint('Move over another node to link to it.'));
    cy.on('ehstop', () => handlers.current.onDrawHint(''));
    cy.on('ehcomplete', (_e, source: NodeSingular, target: NodeSingular, added: cytoscape.CollectionReturnValue) => {
      added.remove();
      handlers.current.onLink(source.id(), target.id());
    });
    const hooks: CanvasHooks = {
      rendered: (id) => {
        const n = cy.getElementById(id);
        if (n.empty()) return null;
        const p = n.isNode() ? n.renderedPosition() : (n as unknown as EdgeSingular).renderedMidpoint();
        const r = el.getBoundingClientRect();
        return { x: r.left + p.x, y: r.top + p.y };
      },
      classes: (id) => {
        const n = cy.getElementById(id);
        return n.empty() ? [] : (n.classes() as unknown as string[]);
      },
      count: (prefix) =>
        prefix === undefined
          ? { nodes: cy.nodes().length, edges: cy.edges().length }
          : { nodes: cy.nodes().filter((n) => n.id().startsWith(prefix)).length, edges: cy.edges().filter((e) => e.source().id().startsWith(prefix)).length },
      position: (id) => {
        const n = cy.getElementById(id);
        return n.nonempty() && n.isNode() ? { ...n.position() } : null;
      },
      style: (id) => {
        const n = cy.getElementById(id);
        if (n.empty() || !n.isNode()) return null;
        return { color: String(n.style('background-color')), width: n.width(), shape: String(n.style('shape')), label: String(n.style('label')) };
      },
      viewport: () => ({ zoom: cy.zoom(), pan: { ...cy.pan() } }),
      settled: () =>
        new Promise<void>((done) => {
          let timer = setTimeout(finish, 300);
          function again() {
            clearTimeout(timer);
            timer = setTimeout(finish, 300);
          }
          function finish() {
            cy.off('render', again);
            done();
          }
          cy.on('render', again);
        }),
      _data: (id: string) => cy.getElementById(id).data(),
      nearest: (x, y) => ({ fast: hitTest.find(x, y).map((e) => e.id()), full: hitTest.full(x, y).map((e) => e.id()) }),
    };
    (el as HTMLElement & { kg?: CanvasHooks }).kg = hooks;
    // cytoscape keeps the container's place on the page until the window resizes; the page around it
    // moves (a banner, the toolbar wrapping), so a press or a wheel measures it again first.
    const remeasure = () => {
      const r = (cy as unknown as { renderer?: () => { invalidateContainerClientCoordsCache?: () => void } }).renderer?.();
      if (r?.invalidateContainerClientCoordsCache) r.invalidateContainerClientCoordsCache();
      else cy.resize();
    };
    el.addEventListener('pointerdown', remeasure, true);
    el.addEventListener('mousedown', remeasure, true);
    el.addEventListener('wheel', remeasure, { capture: true, passive: true });
    // The theme can change (Settings, or the system's): restyle.
    const restyle = () => cy.style(stylesheet(themeColours(el)));
    const mq = window.matchMedia?.('(prefers-color-scheme: dark)');
    mq?.addEventListener?.('change', restyle);
    const mo = new MutationObserver(restyle);
    mo.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => {
      mq?.removeEventListener?.('change', restyle);
      mo.disconnect();
      el.removeEventListener('pointerdown', remeasure, true);
      el.removeEventListener('mousedown', remeasure, true);
      el.removeEventListener('wheel', remeasure, true);
      gestures.current?.destroy();
      gestures.current = null;
      hitTest.destroy();
      eh.destroy();
      cy.destroy();
      cyRef.current = null;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    if (active) cyRef.current?.resize();
  }, [active, cyRef]);

  // A big view pans and zooms as a picture (gestures.ts).
  useEffect(() => {
    gestures.current?.on(counts.nodes + counts.edges >= PICTURE_GESTURES_FROM);
  }, [counts.nodes, counts.edges]);

  useEffect(() => {
    const eh = ehRef.current;
    if (!eh) return;
    if (drawMode) eh.enableDrawMode();
    else eh.disableDrawMode();
    gestures.current?.drawing(drawMode);
  }, [drawMode, ehRef]);

  return (
    <div className="kg-canvas-wrap">
      <div
        ref={containerRef}
        className="kg-canvas"
        data-testid="kg-canvas"
        data-nodes={counts.nodes}
        data-edges={counts.edges}
        role="img"
        aria-label={`Graph view: ${counts.nodes} nodes, ${counts.edges} links. Select a node to see its statements in the side panel.`}
      />
      {children}
    </div>
  );
}

/** The right-click menu of a node, a link or the empty canvas. */
export function CanvasMenu({ menu, g, edits, onClose }: { menu: MenuState; g: ExplorerGraph; edits: KnowledgeEdits; onClose: () => void }) {
  const { cyRef, ehRef, expanded, collapse, expand, togglePin } = g;
  const { deleteNode, deleteEdge, newNode } = edits;
  return (
    <ContextMenu
      x={menu.x}
      y={menu.y}
      onClose={onClose}
      items={
        menu.target.kind === 'node'
          ? (() => {
              const id = menu.target.id;
              const exp = expanded.current.has(id);
              const pinned = !!cyRef.current?.getElementById(id).locked();
              return [
                { label: exp ? 'Collapse' : 'Expand', run: () => (exp ? collapse(id) : void expand(id)) },
                { label: pinned ? 'Unpin' : 'Pin', run: () => togglePin(id) },
                {
                  label: 'Link from here…',
                  run: () => {
                    const n = cyRef.current?.getElementById(id);
                    if (n && n.nonempty()) ehRef.current?.start(n as NodeSingular);
                  },
                },
                { label: 'Delete node…', run: () => void deleteNode(id) },
              ];
            })()
          : menu.target.kind === 'edge'
            ? [{ label: 'Delete link…', run: () => deleteEdge((menu.target as { id: string }).id) }]
            : [
                { label: 'New node here…', run: () => newNode((menu.target as { pos: { x: number; y: number } }).pos) },
                { label: 'Fit', run: () => cyRef.current?.fit(undefined, 40) },
              ]
      }
    />
  );
}
