// The Knowledge page's Explore tab: a search-first view of the graph drawn with cytoscape.js
// (fcose layout, edgehandles to draw links), with a side panel that shows and edits the selected
// node's statements. Every edit goes through knowledge/update with the person's justification and
// can be undone (the inverse patches, sent as a new update); knowledge/subscribe keeps the view live.

import cytoscape, { type Core, type EdgeSingular, type ElementDefinition, type NodeSingular } from 'cytoscape';
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { freeSpot, register, stylesheet, themeColours, type CanvasHooks } from './canvas';
import { EditDialog, type EditField, type EditSubmit } from './EditDialog';
import {
  NODE_FIELDS,
  RDF_TYPE,
  RDFS_LABEL,
  STATEMENT_FIELDS,
  changeEffect,
  collapseTargets,
  edgeElement,
  laterChangeId,
  legendOf,
  linksOf,
  neighbourIds,
  nodeElement,
  parseLiteral,
  ringPositions,
  shortId,
  summariesOf,
  summariesQuery,
  toKG,
  valueText,
  type Element,
  type GNode,
  type GNodeDetail,
  type GStatement,
  type NodeData,
} from './graph';
import { kgErrorText, query, subscribe, update, type ChangeEvent, type KGPatch, type KGStatement } from './kg';
import { UndoStack, inversePatches, redoJustification, undoJustification, type Edit } from './undo';
import { LINKS_PAGE, NodePanel } from './NodePanel';
import { ContextMenu, EdgePanel, ShapeIcon } from './parts';
import { deleteView, loadViews, saveView, snapshotView, type SavedView } from './views';

/** How many nodes the first view shows. */
const OVERVIEW_NODES = 40;

type Selection = { kind: 'node'; id: string } | { kind: 'edge'; id: string } | null;

interface DialogState {
  title: string;
  summary?: string;
  fields?: EditField[];
  submitLabel: string;
  withCertainty?: boolean;
  run: (s: EditSubmit) => Promise<void>;
  onCancel?: () => void;
}

interface MenuState {
  x: number;
  y: number;
  target: { kind: 'node'; id: string } | { kind: 'edge'; id: string } | { kind: 'canvas'; pos: { x: number; y: number } };
}

interface Toast {
  id: number;
  text: string;
}

export interface ShowRequest {
  ids: string[];
  nonce: number;
}

export function Explorer({
  agent,
  active,
  show,
  connectionId,
  connected,
}: {
  agent?: string;
  /** The tab is on screen (cytoscape measures its container then). */
  active: boolean;
  /** Nodes to bring into view (from the Query tab's "show in graph"). */
  show?: ShowRequest;
  /** The gateway connection's number: a new one means the live stream must be opened again. */
  connectionId: number;
  connected: boolean;
}) {
  register();
  const containerRef = useRef<HTMLDivElement>(null);
  const cyRef = useRef<Core | null>(null);
  const ehRef = useRef<ReturnType<Core['edgehandles']> | null>(null);
  const agentRef = useRef(agent);
  agentRef.current = agent;
  const expanded = useRef(new Set<string>());
  const caps = useRef(new Map<string, number>());
  const undo = useRef(new UndoStack());
  const lastChange = useRef<string | undefined>(undefined);
  const [, bump] = useReducer((n: number) => n + 1, 0);

  const [selection, setSelection] = useState<Selection>(null);
  const [detail, setDetail] = useState<GNodeDetail | null>(null);
  const [detailError, setDetailError] = useState('');
  const [searchText, setSearchText] = useState('');
  const [results, setResults] = useState<GNode[] | null>(null);
  const [searchError, setSearchError] = useState('');
  const [dialog, setDialog] = useState<DialogState | null>(null);
  const [menu, setMenu] = useState<MenuState | null>(null);
  const [toasts, setToasts] = useState<Toast[]>([]);
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');
  const [drawMode, setDrawMode] = useState(false);
  const [drawHint, setDrawHint] = useState('');
  const [legend, setLegend] = useState<ReturnType<typeof legendOf>>([]);
  const [counts, setCounts] = useState({ nodes: 0, edges: 0 });
  const [views, setViews] = useState<SavedView[]>(() => loadViews(localStorage, agent));
  const [viewName, setViewName] = useState('');
  const [live, setLive] = useState<'off' | 'on' | 'error'>('off');
  const [ready, setReady] = useState(false);

  const toast = useCallback((text: string) => {
    const id = Date.now() + Math.random();
    setToasts((t) => [...t.slice(-3), { id, text }]);
    setTimeout(() => setToasts((t) => t.filter((x) => x.id !== id)), 6000);
  }, []);

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
      const d = await q<{ node: GNodeDetail | null }>(
        `query Open($id: ID!, $first: Int) { node(id: $id) { ${NODE_FIELDS} attributes { ${STATEMENT_FIELDS} } out(first: $first) { ${STATEMENT_FIELDS} } in(first: $first) { ${STATEMENT_FIELDS} } } }`,
        { id, first },
      );
      return d.node;
    },
    [q],
  );

  // ---- the view ----

  const refreshCounts = useCallback(() => {
    const cy = cyRef.current;
    if (!cy) return;
    setCounts({ nodes: cy.nodes().length, edges: cy.edges().length });
    setLegend(legendOf(cy.nodes().map((n) => n.data() as NodeData)));
  }, []);

  const flash = useCallback((ids: string[]) => {
    const cy = cyRef.current;
    if (!cy) return;
    const els = cy.collection();
    for (const id of ids) els.merge(cy.getElementById(id));
    els.addClass('flash');
    setTimeout(() => els.removeClass('flash'), 2500);
  }, []);

  /** Adds elements not in view yet (new nodes placed around `around`, or laid out when the view was empty). */
  const addElements = useCallback(
    (els: Element[], around?: string) => {
      const cy = cyRef.current;
      if (!cy) return;
      const wasEmpty = cy.nodes().length === 0;
      const centre = around ? cy.getElementById(around) : null;
      const c = centre && centre.nonempty() ? centre.position() : { x: 0, y: 0 };
      const placedBefore = around ? Number(centre?.scratch('_kgPlaced') ?? 0) : 0;
      const newNodes = els.filter((e) => e.group === 'nodes' && cy.getElementById(e.data.id).empty());
      const newIds = new Set(newNodes.map((n) => n.data.id));
      const pos = ringPositions(c.x, c.y, newNodes.length, placedBefore);
      if (centre && centre.nonempty()) centre.scratch('_kgPlaced', placedBefore + newNodes.length);
      const defs: ElementDefinition[] = [];
      newNodes.forEach((n, i) => defs.push({ group: 'nodes', data: { ...n.data }, position: pos[i] }));
      for (const e of els) {
        if (e.group === 'nodes') {
          const have = cy.getElementById(e.data.id);
          if (have.nonempty()) have.data(e.data); // newer summary
          continue;
        }
        // An edge needs both ends in view (a change may name a node the view has dropped meanwhile).
        const has = (id: string) => newIds.has(id) || cy.getElementById(id).nonempty();
        if (cy.getElementById(e.data.id).empty() && has(e.data.source) && has(e.data.target)) defs.push({ group: 'edges', data: { ...e.data } });
      }
      cy.batch(() => cy.add(defs));
      if (wasEmpty && cy.nodes().length > 1) {
        cy.layout({ name: 'fcose', animate: false, randomize: true, nodeDimensionsIncludeLabels: true } as cytoscape.LayoutOptions).run();
        cy.fit(undefined, 40);
      }
      refreshCounts();
    },
    [refreshCounts],
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

  // Bumped whenever the view is replaced as a whole (start over, a saved view, another graph): a
  // load that was under way for the view before does not add to the new one.
  const viewGen = useRef(0);

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
    }
  }, [q, addElements]);

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
    cy.on('tap', 'node', (e) => select({ kind: 'node', id: (e.target as NodeSingular).id() }));
    cy.on('tap', 'edge', (e) => select({ kind: 'edge', id: (e.target as EdgeSingular).id() }));
    cy.on('tap', (e) => {
      if (e.target === cy) select(null);
      setMenu(null);
    });
    cy.on('cxttap', (e) => {
      const r = el.getBoundingClientRect();
      const p = e.renderedPosition ?? { x: 0, y: 0 };
      const t = e.target;
      if (t === cy) setMenu({ x: r.left + p.x, y: r.top + p.y, target: { kind: 'canvas', pos: e.position } });
      else if ((t as NodeSingular).isNode()) setMenu({ x: r.left + p.x, y: r.top + p.y, target: { kind: 'node', id: t.id() } });
      else setMenu({ x: r.left + p.x, y: r.top + p.y, target: { kind: 'edge', id: t.id() } });
    });
    cy.on('ehstart', (_e, source: NodeSingular) => setDrawHint(`Linking from ${source.data('label')}: release over another node.`));
    cy.on('ehhoverover', (_e, _s: NodeSingular, target: NodeSingular) => setDrawHint(`Release to link to ${target.data('label')}.`));
    cy.on('ehhoverout', () => setDrawHint('Move over another node to link to it.'));
    cy.on('ehstop', () => setDrawHint(''));
    cy.on('ehcomplete', (_e, source: NodeSingular, target: NodeSingular, added: cytoscape.CollectionReturnValue) => {
      added.remove();
      linkRef.current(source.id(), target.id());
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
      count: () => ({ nodes: cy.nodes().length, edges: cy.edges().length }),
      position: (id) => {
        const n = cy.getElementById(id);
        return n.nonempty() && n.isNode() ? { ...n.position() } : null;
      },
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
      eh.destroy();
      cy.destroy();
      cyRef.current = null;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // A new source: start over on its graph.
  useEffect(() => {
    const cy = cyRef.current;
    cy?.elements().remove();
    expanded.current.clear();
    caps.current.clear();
    undo.current.clear();
    lastChange.current = undefined;
    setSelection(null);
    setDetail(null);
    setResults(null);
    setViews(loadViews(localStorage, agent));
    setReady(false);
    void loadOverview();
  }, [agent, loadOverview]);

  useEffect(() => {
    if (active) cyRef.current?.resize();
  }, [active]);

  useEffect(() => {
    const eh = ehRef.current;
    if (!eh) return;
    if (drawMode) eh.enableDrawMode();
    else eh.disableDrawMode();
  }, [drawMode]);

  // Nodes the Query tab asked to show.
  useEffect(() => {
    if (!show || show.ids.length === 0) return;
    void (async () => {
      const sums = await summaries(show.ids);
      addElements(sums.map(nodeElement));
      const cy = cyRef.current;
      if (cy) {
        const els = cy.collection();
        for (const n of sums) els.merge(cy.getElementById(n.id));
        if (els.nonempty()) cy.animate({ fit: { eles: els, padding: 60 }, duration: 200 });
      }
      if (sums.length === 1) select({ kind: 'node', id: sums[0].id });
    })();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [show?.nonce]);

  // ---- live ----

  // Changes are applied in batches (an import sends thousands): one summaries query per batch, one
  // note per source.
  const pending = useRef<ChangeEvent[]>([]);
  const flushing = useRef<Promise<void>>(Promise.resolve());
  const flushTimer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const applyChanges = useCallback(
    async (batch: ChangeEvent[]) => {
      const cy = cyRef.current;
      if (!cy || batch.length === 0) return;
      const visible = new Set(cy.nodes().map((n) => n.id()));
      const addNodes = new Map<string, string | undefined>(); // id → the node to place it around
      const addEdges = new Map<string, Element>();
      const removeEdges = new Set<string>();
      const refresh = new Set<string>();
      const notes = new Map<string, ChangeEvent[]>();
      for (const c of batch) {
        const eff = changeEffect(c, visible, expanded.current);
        if (!eff.touches) continue;
        const who = typeof c.changeMetadata?.source === 'string' ? c.changeMetadata.source : 'someone';
        notes.set(who, [...(notes.get(who) ?? []), c]);
        if (eff.removeEdge) {
          removeEdges.add(eff.removeEdge);
          addEdges.delete(eff.removeEdge);
        }
        if (eff.addNode) {
          const d = eff.addEdge?.data as { source: string; target: string } | undefined;
          addNodes.set(eff.addNode, d?.source === eff.addNode ? d?.target : d?.source);
          visible.add(eff.addNode);
        }
        if (eff.addEdge) {
          addEdges.set(eff.addEdge.data.id, eff.addEdge);
          removeEdges.delete(eff.addEdge.data.id);
        }
        for (const r of eff.refresh) refresh.add(r);
      }
      if (notes.size === 0) return;
      for (const id of removeEdges) cy.getElementById(id).remove();
      const sums = await summaries([...new Set([...addNodes.keys(), ...refresh])]);
      const byId = new Map(sums.map((n) => [n.id, n]));
      for (const [id, around] of addNodes) addElements([nodeElement(byId.get(id) ?? { id })], around);
      addElements([...addEdges.values()]);
      for (const id of refresh) {
        const n = byId.get(id);
        const el = cy.getElementById(id);
        if (n && el.nonempty()) el.data(nodeElement(n).data);
      }
      refreshCounts();
      flash([...addNodes.keys(), ...addEdges.keys(), ...refresh]);
      for (const [who, cs] of notes) {
        // The person's own edits on this hub show by themselves; others' get a note.
        if (!agentRef.current && who === 'user://owner') continue;
        const c = cs[0];
        const obj = c.statement.object?.id ? shortId(c.statement.object.id) : JSON.stringify(c.statement.object?.value);
        toast(cs.length === 1 ? `${who}: ${c.op} ${shortId(c.statement.subject.id)} ${shortId(c.statement.predicate.id)} ${obj}` : `${who}: ${cs.length} changes`);
      }
      const sel = selectionRef.current;
      if (sel?.kind === 'node' && refresh.has(sel.id)) void loadDetail(sel.id);
    },
    [addElements, flash, loadDetail, refreshCounts, summaries, toast],
  );
  const applyRef = useRef(applyChanges);
  applyRef.current = applyChanges;

  const onChange = useCallback((c: ChangeEvent) => {
    lastChange.current = laterChangeId(lastChange.current, c.changeId);
    pending.current.push(c);
    if (flushTimer.current) return;
    flushTimer.current = setTimeout(() => {
      flushTimer.current = null;
      const batch = pending.current.splice(0);
      flushing.current = flushing.current.then(() => applyRef.current(batch)).catch((e) => setError(kgErrorText(e)));
    }, 150);
  }, []);
  useEffect(
    () => () => {
      if (flushTimer.current) clearTimeout(flushTimer.current);
    },
    [],
  );
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;

  // Subscribed while the page is open; on a new connection, again, after the last change seen.
  useEffect(() => {
    if (!ready || !connected) return;
    let close: (() => void) | null = null;
    let gone = false;
    void subscribe(agent, 'subscription { changes { op changeId } }', (c) => onChangeRef.current(c), {
      afterChangeId: lastChange.current,
      onError: (e) => {
        // code 0: the connection was lost; the app's banner says so and a new connection resumes.
        if (e.code === 0) return;
        setLive('error');
        toast(`Live updates stopped: ${e.message}`);
      },
      onEnd: () => {
        if (!gone) setLive('off');
      },
    }).then(
      (c) => {
        if (gone) c();
        else {
          close = c;
          setLive('on');
        }
      },
      (e) => {
        setLive('error');
        setError(`Live updates are off: ${kgErrorText(e)}`);
      },
    );
    return () => {
      gone = true;
      close?.();
    };
  }, [agent, ready, connected, connectionId, toast]);

  // ---- editing ----

  /** The statements as they are now at the places the patches touch, for the undo. */
  const priorOf = useCallback(
    async (patches: KGPatch[]): Promise<KGStatement[]> => {
      const places = [...new Set(patches.map((p) => JSON.stringify([p.statement.subject.id, p.statement.predicate.id])))].map(
        (s) => JSON.parse(s) as [string, string],
      );
      const vars = places.map((_, i) => `$s${i}: ID!, $p${i}: ID!`).join(', ');
      const fields = places.map((_, i) => `q${i}: statements(subject: $s${i}, predicate: $p${i}, first: 1000) { items { ${STATEMENT_FIELDS} } }`).join(' ');
      const variables: Record<string, string> = {};
      places.forEach(([s, p], i) => {
        variables[`s${i}`] = s;
        variables[`p${i}`] = p;
      });
      const d = await q<Record<string, { items: GStatement[] }>>(`query Prior(${vars}) { ${fields} }`, variables);
      return places.flatMap((_, i) => (d[`q${i}`]?.items ?? []).map(toKG));
    },
    [q],
  );

  /** Sends an edit (the undo remembers how to take it back) and refreshes what it touched. */
  const applyEdit = useCallback(
    async (patches: KGPatch[], justification: string, label: string) => {
      const prior = await priorOf(patches);
      const r = await update(agentRef.current, patches, justification);
      if (!r?.success) throw new Error(r?.verificationDetails || r?.verificationStatus || 'The hub did not accept the change.');
      undo.current.push({ patches, inverse: inversePatches(patches, prior), justification, label });
      bump();
      return r;
    },
    [priorOf],
  );

  /** Brings the view in line with the graph after patches: links added or removed, nodes re-read. */
  const reflect = useCallback(
    async (patches: KGPatch[]) => {
      const cy = cyRef.current;
      if (!cy) return;
      const touched = new Set<string>();
      for (const p of patches) {
        const s = p.statement;
        touched.add(s.subject.id);
        if (s.object.id && s.predicate.id !== RDF_TYPE) {
          const e = edgeElement({ subject: s.subject.id, predicate: s.predicate.id, object: s.object.id, graph: s.graph, certainty: s.certainty });
          if (p.op === 'remove') cy.getElementById(e.data.id).remove();
          else if (cy.getElementById(s.subject.id).nonempty() && cy.getElementById(s.object.id).nonempty()) addElements([e]);
          touched.add(s.object.id);
        }
      }
      const shown = [...touched].filter((id) => cy.getElementById(id).nonempty());
      const sums = await summaries(shown);
      const found = new Set(sums.map((n) => n.id));
      for (const n of sums) cy.getElementById(n.id).data(nodeElement(n).data);
      // A node whose every statement is gone has left the graph.
      for (const id of shown) if (!found.has(id)) cy.getElementById(id).remove();
      refreshCounts();
      const sel = selectionRef.current;
      if (sel?.kind === 'node') {
        if (cy.getElementById(sel.id).empty()) select(null);
        else void loadDetail(sel.id);
      } else if (sel?.kind === 'edge' && cy.getElementById(sel.id).empty()) select(null);
    },
    [addElements, loadDetail, refreshCounts, select, summaries],
  );

  const ask = useCallback((d: DialogState) => {
    setMenu(null);
    setDialog(d);
  }, []);

  const withCertainty = (st: KGStatement, c?: number): KGStatement => (c === undefined ? st : { ...st, certainty: c });

  const newNode = useCallback(
    (at?: { x: number; y: number }) => {
      const types = [...new Set(legend.map((l) => l.type).filter(Boolean))];
      ask({
        title: 'New node',
        fields: [
          { name: 'id', label: 'Id', required: true, placeholder: 'ex:alice' },
          { name: 'type', label: 'Type', suggestions: types, placeholder: 'ex:Person' },
          { name: 'label', label: 'Label', placeholder: 'Alice' },
        ],
        submitLabel: 'Create',
        run: async ({ values, justification, certainty }) => {
          const id = values.id.trim();
          const type = values.type.trim();
          const label = values.label.trim() || (type ? '' : shortId(id));
          const patches: KGPatch[] = [];
          if (type) patches.push({ op: 'add', statement: withCertainty({ subject: { id }, predicate: { id: RDF_TYPE }, object: { id: type } }, certainty) });
          if (label) patches.push({ op: 'add', statement: withCertainty({ subject: { id }, predicate: { id: RDFS_LABEL }, object: { value: label } }, certainty) });
          await applyEdit(patches, justification, `create ${id}`);
          setDialog(null);
          const [n] = await summaries([id]);
          const cy = cyRef.current;
          if (cy && n) {
            const ext = cy.extent();
            const pos = at ?? freeSpot(cy, { x: (ext.x1 + ext.x2) / 2, y: (ext.y1 + ext.y2) / 2 });
            if (cy.getElementById(id).empty()) cy.add({ group: 'nodes', data: { ...nodeElement(n).data }, position: pos });
            // A new node shows all its links: any added later (by anyone) come into view.
            expanded.current.add(id);
            cy.getElementById(id).addClass('expanded');
            refreshCounts();
          }
          select({ kind: 'node', id });
        },
      });
    },
    [applyEdit, ask, legend, refreshCounts, select, summaries],
  );

  const link = useCallback(
    (source: string, target: string) => {
      const cy = cyRef.current;
      const preds = cy ? [...new Set(cy.edges().map((e) => e.data('predicate') as string))].sort() : [];
      const name = (id: string) => (cy?.getElementById(id).data('label') as string) || id;
      ask({
        title: 'New link',
        summary: `From ${name(source)} to ${name(target)}.`,
        fields: [{ name: 'predicate', label: 'Predicate', required: true, suggestions: preds, placeholder: 'ex:knows' }],
        submitLabel: 'Link',
        run: async ({ values, justification, certainty }) => {
          const st = withCertainty({ subject: { id: source }, predicate: { id: values.predicate.trim() }, object: { id: target } }, certainty);
          await applyEdit([{ op: 'add', statement: st }], justification, `link ${shortId(source)} → ${shortId(target)}`);
          setDialog(null);
          await reflect([{ op: 'add', statement: st }]);
          const e = edgeElement({ subject: source, predicate: st.predicate.id, object: target });
          select({ kind: 'edge', id: e.data.id });
        },
      });
    },
    [applyEdit, ask, reflect, select],
  );
  const linkRef = useRef(link);
  linkRef.current = link;

  const editLiteral = useCallback(
    (st: GStatement, text: string) => {
      const old = toKG(st);
      const next: KGStatement = { subject: old.subject, predicate: old.predicate, object: { value: parseLiteral(text, st.value) } };
      if (old.graph) next.graph = old.graph;
      ask({
        title: `Change ${shortId(st.predicate)}`,
        summary: `${valueText(st.value)} → ${text}`,
        submitLabel: 'Save',
        run: async ({ justification, certainty }) => {
          const patches: KGPatch[] = [
            { op: 'remove', statement: old },
            { op: 'add', statement: withCertainty(next, certainty) },
          ];
          await applyEdit(patches, justification, `change ${shortId(st.subject)} ${shortId(st.predicate)}`);
          setDialog(null);
          await reflect(patches);
        },
      });
    },
    [applyEdit, ask, reflect],
  );

  const addAttribute = useCallback(
    (subject: string) => {
      ask({
        title: 'New attribute',
        fields: [
          { name: 'predicate', label: 'Predicate', required: true, placeholder: 'schema:description' },
          { name: 'value', label: 'Value', required: true },
        ],
        submitLabel: 'Add',
        run: async ({ values, justification, certainty }) => {
          const v = values.value;
          const value = /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v.trim()) : v === 'true' ? true : v === 'false' ? false : v;
          const st = withCertainty({ subject: { id: subject }, predicate: { id: values.predicate.trim() }, object: { value } }, certainty);
          await applyEdit([{ op: 'add', statement: st }], justification, `add ${shortId(values.predicate)} to ${shortId(subject)}`);
          setDialog(null);
          await reflect([{ op: 'add', statement: st }]);
        },
      });
    },
    [applyEdit, ask, reflect],
  );

  const removeStatements = useCallback(
    (stmts: KGStatement[], title: string, label: string) => {
      ask({
        title,
        summary: stmts.length === 1 ? undefined : `This removes ${stmts.length} statements.`,
        submitLabel: 'Delete',
        withCertainty: false,
        run: async ({ justification }) => {
          const patches: KGPatch[] = stmts.map((s) => ({ op: 'remove', statement: s }));
          await applyEdit(patches, justification, label);
          setDialog(null);
          await reflect(patches);
        },
      });
    },
    [applyEdit, ask, reflect],
  );

  const deleteNode = useCallback(
    async (id: string) => {
      try {
        const d = await q<{ a: { items: GStatement[] }; b: { items: GStatement[] } }>(
          `query Of($id: ID!) { a: statements(subject: $id, first: 1000) { items { ${STATEMENT_FIELDS} } } b: statements(object: $id, first: 1000) { items { ${STATEMENT_FIELDS} } } }`,
          { id },
        );
        const all = [...(d.a?.items ?? []), ...(d.b?.items ?? [])].map(toKG);
        if (all.length === 0) return setError(`${id} has no statements left.`);
        removeStatements(all, `Delete ${shortId(id)}`, `delete ${shortId(id)}`);
      } catch (e) {
        setError(kgErrorText(e));
      }
    },
    [q, removeStatements],
  );

  const deleteEdge = useCallback(
    (edgeIdValue: string) => {
      const e = cyRef.current?.getElementById(edgeIdValue);
      if (!e || e.empty()) return;
      const st: KGStatement = { subject: { id: e.data('source') }, predicate: { id: e.data('predicate') }, object: { id: e.data('target') } };
      if (e.data('graph')) st.graph = e.data('graph');
      removeStatements([st], `Delete the link ${e.data('label')}`, `delete link ${shortId(st.subject.id)} → ${shortId(st.object.id!)}`);
    },
    [removeStatements],
  );

  // Undo and redo run one after the other, each reading the stacks when its turn comes, so a quick
  // Ctrl+Z Ctrl+Z undoes two edits rather than dropping the second press.
  const undoQueue = useRef<Promise<void>>(Promise.resolve());
  const undoOnce = useCallback(
    async (redo: boolean) => {
      const e: Edit | undefined = redo ? undo.current.peekRedo() : undo.current.peekUndo();
      if (!e) return;
      try {
        const patches = redo ? e.patches : e.inverse;
        const r = await update(agentRef.current, patches, redo ? redoJustification(e) : undoJustification(e));
        if (!r?.success) throw new Error(r?.verificationDetails || 'The hub did not accept the change.');
        if (redo) undo.current.markRedone(e);
        else undo.current.markUndone(e);
        bump();
        await reflect(patches);
        toast(`${redo ? 'Redone' : 'Undone'}: ${e.label}`);
        setError('');
      } catch (err) {
        setError(`Could not ${redo ? 'redo' : 'undo'} “${e.label}”: ${kgErrorText(err)}`);
      }
    },
    [reflect, toast],
  );
  const runUndo = useCallback(
    (redo: boolean) => {
      undoQueue.current = undoQueue.current.then(() => undoOnce(redo));
      return undoQueue.current;
    },
    [undoOnce],
  );

  // Ctrl+Z / Ctrl+Shift+Z (and Ctrl+Y) while the Explore tab is on screen and no field is being typed in.
  useEffect(() => {
    if (!active) return;
    const on = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || dialog) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.isContentEditable)) return;
      const k = e.key.toLowerCase();
      if (k === 'z' || k === 'y') {
        e.preventDefault();
        void runUndo(k === 'y' || e.shiftKey);
      }
    };
    window.addEventListener('keydown', on);
    return () => window.removeEventListener('keydown', on);
  }, [active, dialog, runUndo]);

  // ---- search ----

  useEffect(() => {
    const text = searchText.trim();
    if (text === '') {
      setResults(null);
      setSearchError('');
      return;
    }
    let live = true;
    const t = setTimeout(async () => {
      try {
        const d = await q<{ search: GNode[] }>(`query Search($text: String!) { search(text: $text, first: 20) { ${NODE_FIELDS} } }`, { text });
        if (live) {
          setResults(d.search ?? []);
          setSearchError('');
        }
      } catch (e) {
        if (live) setSearchError(kgErrorText(e));
      }
    }, 250);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [searchText, q, agent]);

  // ---- saved views ----

  const saveCurrentView = () => {
    const cy = cyRef.current;
    if (!cy || viewName.trim() === '') return;
    const v = snapshotView(
      viewName,
      cy.nodes().map((n) => ({ id: n.id(), ...n.position(), pinned: n.locked() })),
    );
    setViews(saveView(localStorage, agent, v));
    toast(`Saved the view “${v.name}” (${v.nodes.length} nodes).`);
  };

  const openView = async (name: string) => {
    const v = views.find((x) => x.name === name);
    const cy = cyRef.current;
    if (!v || !cy) return;
    const gen = ++viewGen.current;
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
      cy.fit(undefined, 40);
      refreshCounts();
      select(null);
      const missing = ids.length - sums.length;
      toast(`Opened the view “${name}”${missing > 0 ? `; ${missing} of its nodes are no longer in the graph` : ''}.`);
    } catch (e) {
      setError(kgErrorText(e));
    } finally {
      setStatus('');
    }
  };

  // ---- rendering ----

  const cy = cyRef.current;
  const selNode = selection?.kind === 'node' ? cy?.getElementById(selection.id) : undefined;
  const selEdge = selection?.kind === 'edge' ? cy?.getElementById(selection.id) : undefined;
  const isExpanded = selection?.kind === 'node' && expanded.current.has(selection.id);
  const isPinned = !!selNode && selNode.nonempty() && selNode.locked();
  const nextUndo = undo.current.peekUndo();
  const nextRedo = undo.current.peekRedo();
  const cap = detail ? (caps.current.get(detail.id) ?? LINKS_PAGE) : LINKS_PAGE;

  const nameOf = useMemo(
    () => (id: string) => {
      const n = cyRef.current?.getElementById(id);
      return n && n.nonempty() ? (n.data('label') as string) : shortId(id);
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [counts, detail],
  );

  return (
    <div className="kg-explorer">
      <div className="kg-toolbar" role="toolbar" aria-label="Graph">
        <div className="kg-search">
          <label className="sr-only" htmlFor="kg-search">
            Search the graph
          </label>
          <input
            id="kg-search"
            type="search"
            placeholder="Search nodes by name or value…"
            value={searchText}
            onChange={(e) => setSearchText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && results && results.length > 0) void open(results[0].id);
              if (e.key === 'Escape') setSearchText('');
            }}
          />
          {results !== null && (
            <div className="kg-results" role="region" aria-label="Search results">
              {searchError ? (
                <p className="kg-error">{searchError}</p>
              ) : results.length === 0 ? (
                <p className="muted small">No node matches “{searchText.trim()}”.</p>
              ) : (
                <ul>
                  {results.map((n) => {
                    const d = nodeElement(n).data;
                    return (
                      <li key={n.id}>
                        <button
                          type="button"
                          className="kg-result"
                          data-testid="kg-result"
                          onClick={() => {
                            void open(n.id);
                            setSearchText('');
                          }}
                        >
                          <ShapeIcon shape={d.shape} color={d.color} />
                          <span className="kg-result-label">{d.label}</span>
                          <code className="muted small">{n.id}</code>
                          {d.type && <span className="kg-chip">{shortId(d.type)}</span>}
                        </button>
                      </li>
                    );
                  })}
                </ul>
              )}
            </div>
          )}
        </div>
        <button type="button" className="btn btn-small" onClick={() => newNode()}>
          New node
        </button>
        <button
          type="button"
          className="btn btn-small"
          aria-pressed={drawMode}
          title="Drag from one node to another to link them"
          onClick={() => setDrawMode((d) => !d)}
        >
          {drawMode ? 'Drawing links' : 'Draw links'}
        </button>
        <span className="kg-sep" aria-hidden="true" />
        <button
          type="button"
          className="btn btn-small"
          disabled={!nextUndo}
          title={nextUndo ? `Undo ${nextUndo.label} (Ctrl+Z)` : 'Nothing to undo'}
          onClick={() => void runUndo(false)}
        >
          Undo
        </button>
        <button
          type="button"
          className="btn btn-small"
          disabled={!nextRedo}
          title={nextRedo ? `Redo ${nextRedo.label} (Ctrl+Shift+Z)` : 'Nothing to redo'}
          onClick={() => void runUndo(true)}
        >
          Redo
        </button>
        <span className="kg-sep" aria-hidden="true" />
        <button type="button" className="btn btn-small" onClick={() => cyRef.current?.fit(undefined, 40)}>
          Fit
        </button>
        <button
          type="button"
          className="btn btn-small"
          title="Arrange the nodes again (pinned ones stay)"
          onClick={() => cyRef.current?.layout({ name: 'fcose', animate: false, randomize: false, quality: 'default' } as cytoscape.LayoutOptions).run()}
        >
          Layout
        </button>
        <button
          type="button"
          className="btn btn-small"
          title="Clear the view and show the first nodes of the graph again"
          onClick={() => {
            cyRef.current?.elements().remove();
            expanded.current.clear();
            select(null);
            void loadOverview();
          }}
        >
          Start over
        </button>
        <span className="kg-sep" aria-hidden="true" />
        <label className="select-label">
          View
          <select
            value=""
            onChange={(e) => {
              if (e.target.value) void openView(e.target.value);
            }}
            disabled={views.length === 0}
          >
            <option value="">{views.length ? 'Open a saved view…' : 'No saved views'}</option>
            {views.map((v) => (
              <option key={v.name} value={v.name}>
                {v.name} ({v.nodes.length})
              </option>
            ))}
          </select>
        </label>
        <form
          className="kg-saveview"
          onSubmit={(e) => {
            e.preventDefault();
            saveCurrentView();
          }}
        >
          <label className="sr-only" htmlFor="kg-view-name">
            View name
          </label>
          <input id="kg-view-name" type="text" placeholder="View name" value={viewName} onChange={(e) => setViewName(e.target.value)} />
          <button type="submit" className="btn btn-small" disabled={viewName.trim() === '' || counts.nodes === 0}>
            Save view
          </button>
          {views.some((v) => v.name === viewName.trim()) && (
            <button type="button" className="btn btn-small btn-danger" onClick={() => setViews(deleteView(localStorage, agent, viewName.trim()))}>
              Delete view
            </button>
          )}
        </form>
      </div>

      {error && (
        <p className="error-line" role="alert">
          {error}
        </p>
      )}

      <div className="kg-body">
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
          <div className="kg-overlay-top">
            <span className="kg-status" role="status" data-testid="kg-status">
              {drawHint || status || (drawMode ? 'Drag from one node to another to link them.' : '')}
            </span>
          </div>
          <div className="kg-legend" aria-label="Legend">
            <span className="small muted">
              {counts.nodes} nodes · {counts.edges} links ·{' '}
              <span data-testid="kg-live" className={`kg-live kg-live-${live}`}>
                {live === 'on' ? 'live' : live === 'error' ? 'live updates off' : 'connecting…'}
              </span>
            </span>
            <ul>
              {legend.map((l) => (
                <li key={l.type || '-'}>
                  <ShapeIcon shape={l.shape} color={l.color} />
                  <span>{l.type ? shortId(l.type) : 'untyped'}</span>
                  <span className="muted">{l.count}</span>
                </li>
              ))}
            </ul>
          </div>
          <div className="kg-toasts" aria-live="polite">
            {toasts.map((t) => (
              <div key={t.id} className="kg-toast" data-testid="kg-toast">
                {t.text}
              </div>
            ))}
          </div>
        </div>

        <aside className="kg-side" aria-label="Selection">
          {!selection && (
            <div className="kg-side-empty">
              <h2>Nothing selected</h2>
              <p className="muted">Search for a node above, or click one in the graph to see its statements. Right-click for more.</p>
              <p className="muted small">
                {counts.nodes === 0 && ready ? 'The graph is empty: create the first node with New node.' : ''}
              </p>
            </div>
          )}
          {selection?.kind === 'node' && (
            <NodePanel
              key={selection.id}
              id={selection.id}
              detail={detail}
              detailError={detailError}
              fallbackLabel={selNode?.nonempty() ? (selNode.data('label') as string) : shortId(selection.id)}
              expanded={isExpanded}
              pinned={isPinned}
              cap={cap}
              nameOf={nameOf}
              onExpand={(first) => void expand(selection.id, first)}
              onCollapse={() => collapse(selection.id)}
              onTogglePin={() => togglePin(selection.id)}
              onDelete={() => void deleteNode(selection.id)}
              onAddAttribute={() => addAttribute(selection.id)}
              onEditLiteral={editLiteral}
              onRemove={removeStatements}
              onOpen={(id) => void open(id)}
            />
          )}
          {selection?.kind === 'edge' && selEdge && selEdge.nonempty() && (
            <EdgePanel
              edge={selEdge as EdgeSingular}
              agentQuery={q}
              nameOf={nameOf}
              onOpen={(id) => void open(id)}
              onDelete={() => deleteEdge(selection.id)}
            />
          )}
        </aside>
      </div>

      {menu && (
        <ContextMenu
          x={menu.x}
          y={menu.y}
          onClose={() => setMenu(null)}
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
      )}

      {dialog && (
        <EditDialog
          title={dialog.title}
          summary={dialog.summary}
          fields={dialog.fields}
          submitLabel={dialog.submitLabel}
          withCertainty={dialog.withCertainty}
          onSubmit={async (s) => {
            try {
              await dialog.run(s);
            } catch (e) {
              throw new Error(kgErrorText(e));
            }
          }}
          onClose={() => {
            dialog.onCancel?.();
            setDialog(null);
          }}
        />
      )}
    </div>
  );
}
