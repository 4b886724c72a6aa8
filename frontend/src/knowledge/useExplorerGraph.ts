// The Explorer's view of the graph: what is on the canvas and the commands that change it (read,
// expand, collapse, pin, select, start over, open a saved view). It owns the cytoscape instance's
// ref (GraphCanvas mounts it), the selection and its detail, and the status and error lines.
// It does not edit the graph (useKnowledgeEdits does) nor follow others' changes (useLiveChanges).

import type { Core, ElementDefinition } from 'cytoscape';
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import {
  NODE_FIELDS,
  withAuthor,
  collapseTargets,
  edgeElement,
  linksOf,
  neighbourIds,
  nodeElement,
  ringPositions,
  shortId,
  summariesOf,
  summariesQuery,
  type Element,
  type GNode,
  type GNodeDetail,
  type GStatement,
  type NodeData,
} from './graph';
import { kgErrorText, query } from './kg';
import { bringInBig } from './bigview';
import { layoutInWorker, layoutView, MAIN_THREAD_LAYOUT, MAX_CANVAS_NODES } from './layout';
import { LINKS_PAGE } from './NodePanel';
import {
  generatePerspective,
  loadPerspectives,
  perspectiveLegend,
  predicatesOf,
  savePerspective,
  styleOf,
  type Perspective,
  type StyledNode,
} from './perspective';
import type { SavedView } from './views';

/** The storage key of the perspective in use on a graph. */
function currentPerspectiveKey(agent?: string) {
  return `agenthub.kg.perspective.${agent ? `agent:${agent}` : 'hub'}`;
}

/** What a perspective's rules read of a node on the canvas. */
const styledNode = (d: Partial<NodeData> & { id: string; props?: Record<string, unknown[]> }): StyledNode => ({
  types: d.types ?? [],
  type: d.type ?? '',
  label: d.label ?? d.id,
  props: d.props,
});

/** Queries in flight at once while reading many nodes with their links (the hub answers them side by side). */
const LINK_READERS = 3;

/** How many nodes the first view shows. */
const OVERVIEW_NODES = 40;

export type Selection = { kind: 'node'; id: string } | { kind: 'edge'; id: string } | null;

export type ExplorerGraph = ReturnType<typeof useExplorerGraph>;

export function useExplorerGraph(agent: string | undefined, toast: (text: string) => void) {
  const cyRef = useRef<Core | null>(null);
  const ehRef = useRef<ReturnType<Core['edgehandles']> | null>(null);
  const agentRef = useRef(agent);
  agentRef.current = agent;
  const expanded = useRef(new Set<string>());
  const caps = useRef(new Map<string, number>());
  const lastChange = useRef<string | undefined>(undefined);
  const [, bump] = useReducer((n: number) => n + 1, 0);

  const [selection, setSelection] = useState<Selection>(null);
  const [detail, setDetail] = useState<GNodeDetail | null>(null);
  const [detailError, setDetailError] = useState('');
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');
  const [legend, setLegend] = useState<ReturnType<typeof perspectiveLegend>>([]);
  const [perspectives, setPerspectives] = useState<Perspective[]>(() => loadPerspectives(localStorage, agent));
  const [perspective, setPerspectiveState] = useState<Perspective | null>(null);
  const perspectiveRef = useRef<Perspective | null>(null);
  perspectiveRef.current = perspective;
  const [counts, setCounts] = useState({ nodes: 0, edges: 0 });
  const [ready, setReady] = useState(false);
  // "Arranging…" while a big view's layout runs in the worker (the page stays usable meanwhile).
  const [arranging, setArranging] = useState('');
  // Bumped by each layout and whenever the view is replaced: an older layout's positions are dropped.
  const layoutGen = useRef(0);
  // Bumped whenever the view is replaced as a whole (start over, a saved view, another graph): a
  // load that was under way for the view before does not add to the new one.
  const viewGen = useRef(0);

  // ---- reading the graph ----

  const q = useCallback(async <T,>(graphql: string, variables?: Record<string, unknown>): Promise<T> => {
    const r = await query(agentRef.current, graphql, variables);
    // The first answer says where the live stream starts: after the last change it had seen.
    const id = r.queryMetadata?.changeId;
    if (lastChange.current === undefined && typeof id === 'string') lastChange.current = id;
    return r.data as T;
  }, []);

  const summaries = useCallback(
    async (ids: string[]): Promise<GNode[]> => {
      const out: GNode[] = [];
      for (let i = 0; i < ids.length; i += 250) {
        const part = ids.slice(i, i + 250);
        const sq = summariesQuery(part);
        out.push(...summariesOf(await q(sq.query, sq.variables), part));
      }
      return out;
    },
    [q],
  );

  const openDetail = useCallback(
    async (id: string, first: number): Promise<GNodeDetail | null> => {
      const d = await withAuthor((fields) =>
        q<{ node: GNodeDetail | null }>(
          `query Open($id: ID!, $first: Int) { node(id: $id) { ${NODE_FIELDS} attributes { ${fields} } out(first: $first) { ${fields} } in(first: $first) { ${fields} } } }`,
          { id, first },
        ),
      );
      return d.node;
    },
    [q],
  );

  // ---- the view ----

  /** Styles every node on the canvas by the perspective in use, and the legend with it. */
  const applyPerspective = useCallback((p: Perspective | null) => {
    const cy = cyRef.current;
    if (!cy) return;
    const styled: StyledNode[] = [];
    cy.batch(() => {
      cy.nodes().forEach((n) => {
        const d = n.data() as NodeData & { props?: Record<string, unknown[]> };
        const sn = styledNode(d);
        styled.push(sn);
        const st = styleOf(p, sn);
        // Only a node whose look changed is restyled (cytoscape restyles whatever data is set, and
        // this runs on every change to the view).
        const now = n.data() as Partial<typeof st>;
        if (now.color !== st.color || now.shape !== st.shape || now.size !== st.size || now.caption !== st.caption) n.data(st);
      });
    });
    setLegend(perspectiveLegend(p, styled));
  }, []);

  // The values of the predicates the perspective's rules read, for nodes that have not been read yet.
  const propsGen = useRef(0);
  const loadProps = useCallback(async () => {
    const cy = cyRef.current;
    const p = perspectiveRef.current;
    if (!cy || predicatesOf(p).length === 0) return;
    const ids = cy.nodes().filter((n) => n.data('props') === undefined).map((n) => n.id());
    if (ids.length === 0) return;
    const gen = ++propsGen.current;
    for (let i = 0; i < ids.length; i += 100) {
      const part = ids.slice(i, i + 100);
      const vars = part.map((_, j) => `$n${j}: ID!`).join(', ');
      const fields = part.map((_, j) => `n${j}: node(id: $n${j}) { id attributes { predicate value } out(first: 200) { predicate object } }`).join(' ');
      let d: Record<string, { id: string; attributes?: GStatement[]; out?: GStatement[] } | null>;
      try {
        d = await q(`query PerspectiveProps(${vars}) { ${fields} }`, Object.fromEntries(part.map((id, j) => [`n${j}`, id])));
      } catch {
        return; // the look stays by type; the next change tries again
      }
      if (gen !== propsGen.current) return;
      cy.batch(() => {
        // A node the graph no longer has: nothing to read (so it is not asked again and again).
        for (const id of part) if (cy.getElementById(id).data('props') === undefined) cy.getElementById(id).data('props', {});
        for (const n of Object.values(d)) {
          if (!n) continue;
          const props: Record<string, unknown[]> = {};
          for (const st of [...(n.attributes ?? []), ...(n.out ?? [])]) (props[st.predicate] ??= []).push(st.object ?? st.value);
          cy.getElementById(n.id).data('props', props);
        }
      });
    }
    applyPerspective(perspectiveRef.current);
  }, [q, applyPerspective]);

  const refreshCounts = useCallback(() => {
    const cy = cyRef.current;
    if (!cy) return;
    setCounts({ nodes: cy.nodes().length, edges: cy.edges().length });
    applyPerspective(perspectiveRef.current);
    void loadProps();
  }, [applyPerspective, loadProps]);

  /** Puts a perspective in use (null: by type, as before perspectives), restyling the canvas at once. */
  const choosePerspective = useCallback(
    (p: Perspective | null) => {
      perspectiveRef.current = p;
      setPerspectiveState(p);
      if (p) localStorage.setItem(currentPerspectiveKey(agentRef.current), p.name);
      applyPerspective(p);
      // Values read for another perspective's predicates may lack this one's.
      cyRef.current?.nodes().removeData('props');
      void loadProps();
    },
    [applyPerspective, loadProps],
  );

  /** Saves a perspective (new or edited) and puts it in use. */
  const storePerspective = useCallback(
    (p: Perspective) => {
      const all = savePerspective(localStorage, agentRef.current, p);
      setPerspectives(all);
      choosePerspective(all.find((x) => x.name === p.name.trim()) ?? null);
    },
    [choosePerspective],
  );

  /** The first time a graph is explored: the perspective made from its types, in use (it looks as before). */
  const ensurePerspective = useCallback(() => {
    const cy = cyRef.current;
    const a = agentRef.current;
    const saved = loadPerspectives(localStorage, a);
    setPerspectives(saved);
    const want = localStorage.getItem(currentPerspectiveKey(a));
    const p = saved.find((x) => x.name === want) ?? saved[0];
    if (p) {
      choosePerspective(p);
      return;
    }
    if (!cy) return;
    const types = cy.nodes().map((n) => (n.data('types') as string[]) ?? []).flat();
    storePerspective(generatePerspective(types));
  }, [choosePerspective, storePerspective]);

  const flash = useCallback((ids: string[]) => {
    const cy = cyRef.current;
    if (!cy) return;
    const els = cy.collection();
    for (const id of ids) els.merge(cy.getElementById(id));
    els.addClass('flash');
    setTimeout(() => els.removeClass('flash'), 2500);
  }, []);

  /**
   * Lays out the whole view (pinned nodes stay) and fits it: at once for a small view, in the layout
   * worker for a big one (layout.ts), saying so in the status line until its positions arrive.
   */
  const arrange = useCallback(async (randomize = true) => {
    const cy = cyRef.current;
    if (!cy) return;
    const gen = ++layoutGen.current;
    const big = layoutInWorker(cy);
    if (big) setArranging(`Arranging ${cy.nodes().length} nodes…`);
    try {
      await layoutView(cy, () => gen !== layoutGen.current, { randomize });
    } catch (e) {
      if (gen === layoutGen.current) setError(`The nodes could not be arranged: ${(e as Error).message}`);
    } finally {
      if (big && gen === layoutGen.current) setArranging('');
    }
  }, []);

  /** Drops a layout under way (the view is being replaced). */
  const cancelLayout = useCallback(() => {
    layoutGen.current++;
    setArranging('');
  }, []);

  /** A big batch: laid out in the worker, then drawn a slice per frame, saying so in the status line. */
  const addBig = useCallback(
    async (cy: Core, defs: ElementDefinition[]) => {
      // Given up only when the view is replaced (an Arrange meanwhile lays out what is there; these
      // come with their own layout).
      const gen = viewGen.current;
      const stale = () => gen !== viewGen.current;
      const nodes = cy.nodes().length + defs.filter((d) => d.group === 'nodes').length;
      setArranging(`Arranging ${nodes} nodes…`);
      try {
        await bringInBig(cy, defs, stale, (added, total) => {
          if (!stale()) setArranging(`Drawing ${nodes} nodes… ${Math.floor((100 * added) / total)}%`);
        });
      } catch (e) {
        if (!stale()) {
          setError(`The nodes could not be arranged: ${(e as Error).message}`);
          // Not laid out, but not lost: they come in rings around the centre.
          const rest = defs.filter((d) => cy.getElementById(String(d.data.id)).empty());
          const pos = ringPositions(0, 0, rest.length);
          cy.batch(() => cy.add(rest.map((d, i) => (d.group === 'nodes' ? { ...d, position: pos[i] } : d))));
          cy.fit(undefined, 40);
        }
      } finally {
        if (!stale()) setArranging('');
        refreshCounts();
      }
    },
    [refreshCounts],
  );

  /**
   * Adds elements not in view yet: new nodes placed around `around`, or the view laid out when it
   * was empty. A batch of more than MAIN_THREAD_LAYOUT new nodes is laid out in the worker first and
   * drawn a slice per frame (bigview.ts); the view is arranged as a whole then. Says whether it was
   * (the view is fitted to all its nodes when it is drawn).
   */
  const addElements = useCallback(
    (els: Element[], around?: string): boolean => {
      const cy = cyRef.current;
      if (!cy) return false;
      const wasEmpty = cy.nodes().length === 0;
      const centre = around ? cy.getElementById(around) : null;
      const c = centre && centre.nonempty() ? centre.position() : { x: 0, y: 0 };
      const placedBefore = around ? Number(centre?.scratch('_kgPlaced') ?? 0) : 0;
      const newNodes = els.filter((e) => e.group === 'nodes' && cy.getElementById(e.data.id).empty());
      const newIds = new Set(newNodes.map((n) => n.data.id));
      const big = newNodes.length > MAIN_THREAD_LAYOUT && typeof Worker !== 'undefined';
      const pos = big ? [] : ringPositions(c.x, c.y, newNodes.length, placedBefore);
      if (!big && centre && centre.nonempty()) centre.scratch('_kgPlaced', placedBefore + newNodes.length);
      const defs: ElementDefinition[] = [];
      // A new node comes with its look (restyling thousands after they are drawn costs seconds).
      newNodes.forEach((n, i) => defs.push({ group: 'nodes', data: { ...n.data, ...styleOf(perspectiveRef.current, styledNode(n.data)) }, position: pos[i] }));
      for (const e of els) {
        if (e.group === 'nodes') {
          const have = cy.getElementById(e.data.id);
          // A newer summary: its property values are read again for the perspective (a live change may have moved them).
          if (have.nonempty()) have.data(e.data).removeData('props');
          continue;
        }
        // An edge needs both ends in view (a change may name a node the view has dropped meanwhile).
        const has = (id: string) => newIds.has(id) || cy.getElementById(id).nonempty();
        if (cy.getElementById(e.data.id).empty() && has(e.data.source) && has(e.data.target)) defs.push({ group: 'edges', data: { ...e.data } });
      }
      if (big) {
        void addBig(cy, defs);
        return true;
      }
      cy.batch(() => cy.add(defs));
      // A first view is laid out; so is the whole view when many nodes come at once (where there is
      // no worker: a batch goes the big way otherwise).
      if ((wasEmpty && cy.nodes().length > 1) || newNodes.length > MAIN_THREAD_LAYOUT) void arrange();
      refreshCounts();
      return false;
    },
    [refreshCounts, arrange, addBig],
  );

  const loadDetail = useCallback(
    async (id: string) => {
      setDetailError('');
      try {
        const d = await openDetail(id, caps.current.get(id) ?? LINKS_PAGE);
        if (!d) {
          setDetail(null);
          setDetailError(`${id} is no longer in the graph.`);
          return null;
        }
        setDetail(d);
        return d;
      } catch (e) {
        setDetailError(kgErrorText(e));
        return null;
      }
    },
    [openDetail],
  );

  /** Shows a node and its links (up to its cap) and marks it expanded. */
  const expand = useCallback(
    async (id: string, first?: number) => {
      if (first) caps.current.set(id, first);
      const cap = caps.current.get(id) ?? LINKS_PAGE;
      setStatus(`Opening ${shortId(id)}…`);
      try {
        const d = await openDetail(id, cap);
        if (!d) {
          setError(`${id} is not in the graph.`);
          return;
        }
        const others = neighbourIds(d);
        const cy = cyRef.current;
        if (cy && cy.getElementById(id).empty()) addElements([nodeElement(d)]);
        const known = cy ? others.filter((o) => cy.getElementById(o).nonempty()) : [];
        const fresh = others.filter((o) => !known.includes(o));
        const sums = await summaries(fresh);
        const byId = new Map(sums.map((n) => [n.id, n]));
        const els: Element[] = [nodeElement(d)];
        for (const o of fresh) els.push(nodeElement(byId.get(o) ?? { id: o }));
        for (const st of linksOf(d)) els.push(edgeElement(st));
        addElements(els, id);
        expanded.current.add(id);
        cy?.getElementById(id).addClass('expanded');
        if (selectionRef.current?.kind === 'node' && selectionRef.current.id === id) setDetail(d);
        setError('');
      } catch (e) {
        setError(kgErrorText(e));
      } finally {
        setStatus('');
      }
    },
    [addElements, openDetail, summaries],
  );

  const selectionRef = useRef<Selection>(null);
  selectionRef.current = selection;

  const select = useCallback(
    (sel: Selection, center = false) => {
      setSelection(sel);
      const cy = cyRef.current;
      if (!cy) return;
      cy.elements(':selected').unselect();
      if (sel) {
        const el = cy.getElementById(sel.id);
        el.select();
        if (center && el.nonempty()) cy.animate({ center: { eles: el }, duration: 200 });
      }
      if (sel?.kind === 'node') void loadDetail(sel.id);
      else setDetail(null);
    },
    [loadDetail],
  );

  const open = useCallback(
    async (id: string) => {
      await expand(id);
      select({ kind: 'node', id }, true);
    },
    [expand, select],
  );

  const collapse = useCallback(
    (id: string) => {
      const cy = cyRef.current;
      if (!cy) return;
      const kept = new Set<string>([...expanded.current].filter((x) => x !== id));
      cy.nodes('.pinned').forEach((n) => {
        kept.add(n.id());
      });
      if (selectionRef.current) kept.add(selectionRef.current.id);
      const hide = collapseTargets(
        { nodes: cy.nodes().map((n) => n.id()), edges: cy.edges().map((e) => ({ source: e.source().id(), target: e.target().id() })) },
        id,
        kept,
      );
      cy.batch(() => {
        for (const h of hide) cy.getElementById(h).remove();
      });
      expanded.current.delete(id);
      cy.getElementById(id).removeClass('expanded').scratch('_kgPlaced', 0);
      refreshCounts();
      bump();
    },
    [refreshCounts],
  );

  const togglePin = useCallback((id: string) => {
    const n = cyRef.current?.getElementById(id);
    if (!n || n.empty()) return;
    if (n.locked()) {
      n.unlock();
      n.removeClass('pinned');
    } else {
      n.lock();
      n.addClass('pinned');
    }
    bump();
  }, []);

  const loadOverview = useCallback(async () => {
    const gen = ++viewGen.current;
    setStatus('Loading the graph…');
    try {
      const d = await q<{ nodes: { items: (GNode & { out: GStatement[] })[] } }>(
        `query Overview($first: Int) { nodes(first: $first) { items { ${NODE_FIELDS} out(first: 50) { subject predicate object graph certainty } } } }`,
        { first: OVERVIEW_NODES },
      );
      if (gen !== viewGen.current) return;
      const items = d.nodes?.items ?? [];
      const ids = new Set(items.map((n) => n.id));
      const els: Element[] = items.map((n) => nodeElement(n));
      for (const n of items) for (const st of linksOf({ id: n.id, out: n.out })) if (ids.has(st.object)) els.push(edgeElement(st));
      addElements(els);
      setError('');
    } catch (e) {
      setError(kgErrorText(e));
    } finally {
      setStatus('');
      setReady(true);
      if (gen === viewGen.current) ensurePerspective();
    }
  }, [q, addElements, ensurePerspective]);

  // A new source: start over on its graph.
  useEffect(() => {
    const cy = cyRef.current;
    cancelLayout();
    cy?.elements().remove();
    expanded.current.clear();
    caps.current.clear();
    lastChange.current = undefined;
    perspectiveRef.current = null; // the new graph's own comes with its first nodes
    setSelection(null);
    setDetail(null);
    setReady(false);
    void loadOverview();
  }, [agent, loadOverview, cancelLayout]);

  /** Clears the view and shows the first nodes of the graph again. */
  const startOver = useCallback(() => {
    cancelLayout();
    cyRef.current?.elements().remove();
    expanded.current.clear();
    select(null);
    void loadOverview();
  }, [loadOverview, select, cancelLayout]);

  const fit = useCallback(() => cyRef.current?.fit(undefined, 40), []);

  /** Arranges the nodes again (pinned ones stay): from where they are for a small view, afresh for a big one. */
  const relayout = useCallback(() => void arrange(false), [arrange]);

  /**
   * The nodes' summaries and their outgoing links, read 100 nodes a query (the hub's GraphQL limit
   * of 2,000 fields a query allows 181), LINK_READERS queries at a time, saying how far it got in the
   * status line.
   */
  const summariesWithLinks = useCallback(
    async (ids: string[], gen: number) => {
      const parts: string[][] = [];
      for (let i = 0; i < ids.length; i += 100) parts.push(ids.slice(i, i + 100));
      const answers: Record<string, (GNode & { out?: GStatement[] }) | null>[] = [];
      let next = 0;
      let read = 0;
      let failed = false;
      setStatus(`Reading nodes and their links… 0 of ${ids.length}`);
      const reader = async () => {
        while (next < parts.length && !failed && gen === viewGen.current) {
          const k = next++;
          const part = parts[k];
          const vars = part.map((_, j) => `$n${j}: ID!`).join(', ');
          const fields = part
            .map((_, j) => `n${j}: node(id: $n${j}) { ${NODE_FIELDS} out(first: 200) { subject predicate object graph certainty } }`)
            .join(' ');
          try {
            answers[k] = await q(`query ShowLinks(${vars}) { ${fields} }`, Object.fromEntries(part.map((id, j) => [`n${j}`, id])));
          } catch (e) {
            failed = true;
            throw e;
          }
          read += part.length;
          if (gen === viewGen.current) setStatus(`Reading nodes and their links… ${read} of ${ids.length}`);
        }
      };
      await Promise.all(Array.from({ length: Math.min(LINK_READERS, parts.length) }, reader));
      const nodes: GNode[] = [];
      const links: Element[] = [];
      parts.forEach((part, k) => {
        if (!answers[k]) return; // the view moved on before it was read
        for (const n of summariesOf(answers[k], part) as (GNode & { out?: GStatement[] })[]) {
          nodes.push(n);
          for (const st of linksOf({ id: n.id, out: n.out })) links.push(edgeElement(st));
        }
      });
      return { nodes, links };
    },
    [q],
  );

  /**
   * Brings nodes into view (the Query tab's "show in graph", "Show what I imported"), selecting the
   * one if there is one; with `withLinks`, the links among them (and to nodes in view) too. At most
   * MAX_CANVAS_NODES are shown (the first ones; a toast says so).
   */
  const showNodes = useCallback(
    async (all: string[], withLinks = false) => {
      const gen = viewGen.current;
      const ids = all.slice(0, MAX_CANVAS_NODES);
      if (all.length > ids.length) toast(`Showing the first ${MAX_CANVAS_NODES} of ${all.length} nodes: the canvas shows at most ${MAX_CANVAS_NODES}.`);
      let sums: GNode[];
      let links: Element[] = [];
      try {
        if (withLinks) ({ nodes: sums, links } = await summariesWithLinks(ids, gen));
        else sums = await summaries(ids);
      } catch (e) {
        setError(kgErrorText(e));
        return;
      } finally {
        if (withLinks) setStatus('');
      }
      if (gen !== viewGen.current) return;
      const cy = cyRef.current;
      // A big batch fits the view itself once drawn.
      if (!addElements([...sums.map(nodeElement), ...links]) && cy) {
        const els = cy.collection();
        for (const n of sums) els.merge(cy.getElementById(n.id));
        if (els.nonempty()) cy.animate({ fit: { eles: els, padding: 60 }, duration: 200 });
      }
      if (sums.length === 1) select({ kind: 'node', id: sums[0].id });
    },
    [addElements, select, summaries, summariesWithLinks, toast],
  );

  // ---- saved views ----

  /** The nodes in view with their places, for a saved view (null when there is no canvas). */
  const snapshot = useCallback(() => {
    const cy = cyRef.current;
    if (!cy) return null;
    return cy.nodes().map((n) => ({ id: n.id(), ...n.position(), pinned: n.locked() }));
  }, []);

  /** What a scene keeps besides the nodes: the perspective in use, the zoom and pan, the selection. */
  const sceneExtras = useCallback((): Pick<SavedView, 'perspective' | 'viewport' | 'selected'> => {
    const cy = cyRef.current;
    return {
      perspective: perspectiveRef.current ?? undefined,
      viewport: cy ? { zoom: cy.zoom(), pan: { ...cy.pan() } } : undefined,
      selected: selectionRef.current?.kind === 'node' ? [selectionRef.current.id] : [],
    };
  }, []);

  /** Replaces the view with a saved one: its nodes where they were, and the links among them. */
  const openView = async (v: SavedView) => {
    const name = v.name;
    const cy = cyRef.current;
    if (!cy) return;
    const gen = ++viewGen.current;
    cancelLayout();
    setStatus(`Opening the view “${name}”…`);
    try {
      const ids = v.nodes.map((n) => n.id);
      const sums = await summaries(ids);
      const found = new Set(sums.map((n) => n.id));
      // The links among the view's nodes, read from each node's outgoing statements.
      const linkEls: Element[] = [];
      for (let i = 0; i < ids.length; i += 100) {
        const part = ids.slice(i, i + 100).filter((id) => found.has(id));
        if (part.length === 0) continue;
        const vars = part.map((_, j) => `$n${j}: ID!`).join(', ');
        const fields = part.map((_, j) => `n${j}: node(id: $n${j}) { id out(first: 1000) { subject predicate object graph certainty } }`).join(' ');
        const d = await q<Record<string, GNodeDetail | null>>(`query ViewLinks(${vars}) { ${fields} }`, Object.fromEntries(part.map((id, j) => [`n${j}`, id])));
        for (const n of Object.values(d)) if (n) for (const st of linksOf(n)) if (found.has(st.object)) linkEls.push(edgeElement(st));
      }
      if (gen !== viewGen.current) return;
      cy.elements().remove();
      expanded.current.clear();
      const pos = new Map(v.nodes.map((n) => [n.id, n]));
      cy.batch(() => {
        cy.add(sums.map((n) => ({ group: 'nodes' as const, data: { ...nodeElement(n).data }, position: { x: pos.get(n.id)!.x, y: pos.get(n.id)!.y } })));
        cy.add(linkEls.map((e) => ({ group: 'edges' as const, data: { ...e.data } })));
        for (const n of v.nodes) if (n.pinned) cy.getElementById(n.id).lock().addClass('pinned');
      });
      // A scene's perspective comes with it (saved here, so a scene from a file brings its look).
      if (v.perspective) storePerspective(v.perspective);
      if (v.viewport) cy.viewport({ zoom: v.viewport.zoom, pan: v.viewport.pan });
      else cy.fit(undefined, 40);
      refreshCounts();
      const sel = (v.selected ?? []).find((id) => found.has(id));
      select(sel ? { kind: 'node', id: sel } : null);
      const missing = ids.length - sums.length;
      toast(`Opened the view “${name}”${missing > 0 ? `; ${missing} of its nodes are not in this graph and were skipped` : ''}.`);
    } catch (e) {
      setError(kgErrorText(e));
    } finally {
      setStatus('');
    }
  };

  return {
    cyRef,
    ehRef,
    agentRef,
    expanded,
    caps,
    lastChange,
    selectionRef,
    selection,
    detail,
    detailError,
    status: status || arranging,
    arranging,
    setStatus,
    error,
    setError,
    legend,
    counts,
    ready,
    q,
    summaries,
    refreshCounts,
    flash,
    addElements,
    loadDetail,
    expand,
    select,
    open,
    collapse,
    togglePin,
    startOver,
    fit,
    relayout,
    showNodes,
    snapshot,
    sceneExtras,
    openView,
    perspective,
    perspectives,
    choosePerspective,
    storePerspective,
    setPerspectives,
  };
}
