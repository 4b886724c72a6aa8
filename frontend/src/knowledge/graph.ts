// The explorer's pure logic: GraphQL results of knowledge/query → cytoscape elements, the look of a
// node by its type, what collapsing a node hides, and what a live change does to the view. No
// cytoscape or React here, so it is tested as plain data.

import type { ChangeEvent, KGStatement } from './kg';

/** rdf:type and rdfs:label as the hub stores and answers them: full IRIs (it expands CURIEs on the way in). */
export const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
export const RDFS_LABEL = 'http://www.w3.org/2000/01/rdf-schema#label';

/** Whether a predicate is rdf:type: the full IRI, or the CURIE another agent's older hub may answer. */
export function isTypePredicate(p: string | null | undefined): boolean {
  return p === RDF_TYPE || p === 'rdf:type';
}

/** A node as the GraphQL schema gives it (Node { id types label degree }). */
export interface GNode {
  id: string;
  types?: string[] | null;
  label?: string | null;
  degree?: number | null;
}

/** A statement as the GraphQL schema gives it (Statement). */
export interface GStatement {
  subject: string;
  predicate: string;
  object?: string | null;
  value?: unknown;
  datatype?: string | null;
  graph?: string | null;
  certainty?: number | null;
  provenance?: unknown;
  /** The principal whose credential wrote it (this hub's graphs; another agent's may not say). */
  author?: string | null;
  updatedAt?: string | null;
}

/** A node opened in the explorer: its attributes and its links either way. */
export interface GNodeDetail extends GNode {
  attributes?: GStatement[] | null;
  out?: GStatement[] | null;
  in?: GStatement[] | null;
}

export interface NodeData {
  id: string;
  label: string;
  type: string; // the primary type ('' when untyped)
  types: string[];
  degree: number;
  color: string;
  shape: Shape;
}

export interface EdgeData {
  id: string;
  source: string;
  target: string;
  predicate: string;
  label: string;
  graph: string;
  certainty: number;
}

export interface NodeElement {
  group: 'nodes';
  data: NodeData;
}
export interface EdgeElement {
  group: 'edges';
  data: EdgeData;
}
export type Element = NodeElement | EdgeElement;

// ---- Names ----

/** The readable tail of an id: after the last '/', '#' or ':' ("agenthub:skill/inbox" → "inbox"). */
/**
 * A node's caption when it has no label: its id's last segment; for a blank node, whose id is a label
 * made up per import ("_:i3f9a01c2_b0"), its type in brackets ("(PostalAddress)"), or "(blank node)".
 */
export function fallbackLabel(id: string, type: string): string {
  if (id.startsWith('_:')) return type ? `(${shortId(type)})` : '(blank node)';
  return shortId(id);
}

export function shortId(id: string): string {
  const m = /[/#:]([^/#:]+)\/?$/.exec(id);
  return m ? m[1] : id;
}

/**
 * Ids for a new node made from its label, most readable first: urn:agenthub:node:alice-smith, then
 * …-2, …-3 (the caller takes the first no node has). A label with nothing to slug ("…") gives
 * urn:agenthub:node:node. An absolute IRI (a URN: nothing to resolve), so it exports as itself; not
 * agenthub:, the hub's own namespace, which alignment keeps read-only.
 */
export function idsFromLabel(label: string, n = 20): string[] {
  const slug =
    label
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60)
      .replace(/-+$/, '') || 'node';
  const base = `urn:agenthub:node:${slug}`;
  return Array.from({ length: n }, (_, i) => (i === 0 ? base : `${base}-${i + 1}`));
}

/** An edge's id: one per (subject, predicate, object, graph), as the store keys statements. */
export function edgeId(subject: string, predicate: string, object: string, graph?: string | null): string {
  return JSON.stringify([subject, predicate, object, graph ?? '']);
}

// ---- Look by type ----

// Convex shapes only: cytoscape's hit test of a concave one (a star) misses presses at its centre.
export type Shape = 'ellipse' | 'round-rectangle' | 'diamond' | 'hexagon' | 'triangle' | 'pentagon';
export const SHAPES: Shape[] = ['ellipse', 'round-rectangle', 'diamond', 'hexagon', 'triangle', 'pentagon'];

// Mid-tone colours that read on the light and on the dark canvas (labels sit beside the node).
export const PALETTE = ['#5b6ee1', '#2f9e6b', '#d9822b', '#c2417a', '#8e5bd9', '#1f97b5', '#b8a12a', '#d14b4b', '#6b8e23', '#7a7f8c'];

const KNOWN: Record<string, { color: string; shape: Shape }> = {
  'a2a:Agent': { color: PALETTE[0], shape: 'ellipse' },
  'a2a:Skill': { color: PALETTE[1], shape: 'round-rectangle' },
};

export const UNTYPED = { color: '#8a8f98', shape: 'ellipse' as Shape };

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

/** A type's colour and shape: fixed for the sample graph's types, otherwise stable per type name. */
export function typeStyle(type: string): { color: string; shape: Shape } {
  if (!type) return UNTYPED;
  const k = KNOWN[type];
  if (k) return k;
  const h = hash(type);
  // Skip the two colours the known types use, so a new type never looks like an agent or a skill.
  return { color: PALETTE[2 + (h % (PALETTE.length - 3))], shape: SHAPES[(h >>> 8) % SHAPES.length] };
}

/** The type a node is drawn as: its first type in name order ('' when it has none). */
export function primaryType(types: string[] | null | undefined): string {
  if (!types || types.length === 0) return '';
  return [...types].sort()[0];
}

/** The legend: each type drawn in the view, with its look and how many nodes have it. */
export function legendOf(nodes: NodeData[]): { type: string; color: string; shape: Shape; count: number }[] {
  const counts = new Map<string, number>();
  for (const n of nodes) counts.set(n.type, (counts.get(n.type) ?? 0) + 1);
  return [...counts.entries()]
    .sort(([a], [b]) => (a === '' ? 1 : b === '' ? -1 : a.localeCompare(b)))
    .map(([type, count]) => ({ type, count, ...typeStyle(type) }));
}

// ---- Elements ----

export function nodeElement(n: GNode): NodeElement {
  const types = (n.types ?? []).filter((t) => typeof t === 'string');
  const type = primaryType(types);
  const style = typeStyle(type);
  return {
    group: 'nodes',
    data: {
      id: n.id,
      label: n.label && n.label.trim() !== '' ? n.label : fallbackLabel(n.id, type),
      type,
      types,
      degree: typeof n.degree === 'number' ? n.degree : 0,
      color: style.color,
      shape: style.shape,
    },
  };
}

/** Whether a statement is drawn as an edge: a link to a resource other than a type. */
export function isLink(st: GStatement): st is GStatement & { object: string } {
  return typeof st.object === 'string' && st.object !== '' && !isTypePredicate(st.predicate);
}

export function edgeElement(st: GStatement & { object: string }): EdgeElement {
  return {
    group: 'edges',
    data: {
      id: edgeId(st.subject, st.predicate, st.object, st.graph),
      source: st.subject,
      target: st.object,
      predicate: st.predicate,
      label: shortId(st.predicate),
      graph: st.graph ?? '',
      certainty: typeof st.certainty === 'number' ? st.certainty : 1,
    },
  };
}

/** A node's links drawn as edges (types excluded: they are the node's colour and shape), without repeats. */
export function linksOf(detail: GNodeDetail): (GStatement & { object: string })[] {
  const seen = new Set<string>();
  const out: (GStatement & { object: string })[] = [];
  for (const st of [...(detail.out ?? []), ...(detail.in ?? [])]) {
    if (!isLink(st)) continue;
    const id = edgeId(st.subject, st.predicate, st.object, st.graph);
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(st);
  }
  return out;
}

/** The ids at the other end of a node's links, in order, without repeats. */
export function neighbourIds(detail: GNodeDetail): string[] {
  const ids: string[] = [];
  const seen = new Set<string>([detail.id]);
  for (const st of linksOf(detail)) {
    const other = st.subject === detail.id ? st.object : st.subject;
    if (!seen.has(other)) {
      seen.add(other);
      ids.push(other);
    }
  }
  return ids;
}

/**
 * The elements that show an opened node and its neighbourhood: the node, each neighbour (with what
 * a summary query said of it; a bare id when it said nothing) and the links between them.
 */
export function neighbourhoodElements(detail: GNodeDetail, neighbours: GNode[]): Element[] {
  const byId = new Map(neighbours.map((n) => [n.id, n]));
  const els: Element[] = [nodeElement(detail)];
  for (const id of neighbourIds(detail)) els.push(nodeElement(byId.get(id) ?? { id }));
  for (const st of linksOf(detail)) els.push(edgeElement(st));
  return els;
}

/** How many of a node's links the view does not show (degree counts type links too: they are not drawn). */
export function hiddenLinks(detail: GNodeDetail, shownLinks: number): number {
  const typeLinks = (detail.out ?? []).filter((s) => isTypePredicate(s.predicate) && s.object).length;
  const degree = typeof detail.degree === 'number' ? detail.degree : 0;
  return Math.max(0, degree - typeLinks - shownLinks);
}

// ---- Collapse ----

export interface ViewGraph {
  nodes: string[];
  edges: { source: string; target: string }[];
}

/**
 * What collapsing a node hides: its neighbours that nothing else keeps in view, that is neighbours
 * that are not kept themselves (opened, expanded or pinned) and are linked to no other visible node.
 */
export function collapseTargets(g: ViewGraph, nodeId: string, kept: Set<string>): string[] {
  const adj = new Map<string, Set<string>>();
  const link = (a: string, b: string) => {
    if (!adj.has(a)) adj.set(a, new Set());
    adj.get(a)!.add(b);
  };
  for (const e of g.edges) {
    link(e.source, e.target);
    link(e.target, e.source);
  }
  const out: string[] = [];
  for (const n of adj.get(nodeId) ?? []) {
    if (n === nodeId || kept.has(n)) continue;
    const others = [...(adj.get(n) ?? [])].filter((m) => m !== nodeId && m !== n);
    if (others.length === 0) out.push(n);
  }
  return out;
}

// ---- Live changes ----

/** What a change seen on knowledge/subscribe does to the view. */
export interface ChangeEffect {
  /** The change touches something shown (a node, or an edge between shown nodes). */
  touches: boolean;
  /** A node to bring into view (a new link of an expanded node); addEdge then links it. */
  addNode?: string;
  addEdge?: EdgeElement;
  removeEdge?: string;
  /** Shown nodes whose label, type or attributes changed: re-read them. */
  refresh: string[];
}

/**
 * The effect of one change on a view showing `visible` nodes, of which `expanded` show all their
 * links: a link between two shown nodes is added or removed; a new link of an expanded node brings
 * its other end into view; any change about a shown node refreshes it. A change about nothing shown
 * does nothing.
 */
export function changeEffect(c: ChangeEvent, visible: Set<string>, expanded: Set<string> = new Set()): ChangeEffect {
  const st: KGStatement = c.statement;
  const s = st.subject?.id ?? '';
  const o = st.object?.id ?? '';
  const p = st.predicate?.id ?? '';
  const subjectShown = visible.has(s);
  const objectShown = o !== '' && visible.has(o);
  if (!subjectShown && !objectShown) return { touches: false, refresh: [] };
  const eff: ChangeEffect = { touches: true, refresh: [] };
  if (o !== '' && !isTypePredicate(p)) {
    const edge = edgeElement({ subject: s, predicate: p, object: o, graph: st.graph, certainty: st.certainty });
    if (c.op === 'remove') {
      if (subjectShown && objectShown) eff.removeEdge = edge.data.id;
    } else if (subjectShown && objectShown) {
      eff.addEdge = edge;
    } else if (subjectShown ? expanded.has(s) : expanded.has(o)) {
      eff.addNode = subjectShown ? o : s;
      eff.addEdge = edge;
    }
  }
  if (subjectShown) eff.refresh.push(s);
  if (objectShown && o !== s) eff.refresh.push(o);
  return eff;
}

/** The larger of two change ids (numeric strings on this hub; compared as numbers when they are). */
export function laterChangeId(a: string | undefined, b: string | undefined): string | undefined {
  if (!a) return b;
  if (!b) return a;
  const x = Number(a);
  const y = Number(b);
  if (Number.isFinite(x) && Number.isFinite(y)) return y > x ? b : a;
  return b;
}

// ---- Statements of the spec from GraphQL rows ----

/** A GraphQL Statement as the spec's KGStatement (to remove it, or to put it back as it was). */
export function toKG(st: GStatement): KGStatement {
  const out: KGStatement = {
    subject: { id: st.subject },
    predicate: { id: st.predicate },
    object: typeof st.object === 'string' && st.object !== '' ? { id: st.object } : { value: st.value as string | number | boolean },
  };
  if (!out.object.id && st.datatype) out.object.type = st.datatype;
  if (st.graph) out.graph = st.graph;
  if (typeof st.certainty === 'number') out.certainty = st.certainty;
  if (st.provenance && typeof st.provenance === 'object') out.provenance = st.provenance as Record<string, unknown>;
  return out;
}

/** A literal's value as text for the side panel. */
export function valueText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

/** The text typed for a literal, as the value to store: the old value's kind is kept when it parses. */
export function parseLiteral(text: string, previous: unknown): string | number | boolean {
  if (typeof previous === 'number') {
    const n = Number(text.trim());
    if (text.trim() !== '' && Number.isFinite(n)) return n;
  }
  if (typeof previous === 'boolean') {
    if (text.trim() === 'true') return true;
    if (text.trim() === 'false') return false;
  }
  return text;
}

/** Who made a statement and when, from its provenance ({sourceAgentId, timestamp} on this hub). */
export function provenanceText(p: unknown, nameOf: (id: string) => string = (id) => id): string {
  if (!p || typeof p !== 'object') return '';
  const o = p as Record<string, unknown>;
  const who = typeof o.sourceAgentId === 'string' ? nameOf(o.sourceAgentId) : '';
  const when = typeof o.timestamp === 'string' ? o.timestamp : '';
  if (who || when) return [who, shortTime(when)].filter(Boolean).join(' · ');
  return JSON.stringify(p);
}

function shortTime(when: string): string {
  const t = when ? new Date(when) : null;
  return t && !Number.isNaN(t.getTime()) ? t.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' }) : when;
}

/**
 * Who wrote a statement, as the side panel says it: its author (the credential that wrote it) when
 * the graph tells, and what its provenance claims when that names someone else; else the provenance.
 */
export function authorshipText(st: GStatement, nameOf: (id: string) => string = (id) => id): string {
  if (!st.author) {
    const prov = provenanceText(st.provenance, nameOf);
    return prov ? `by ${prov}` : '';
  }
  const o = st.provenance && typeof st.provenance === 'object' ? (st.provenance as Record<string, unknown>) : {};
  const claimed = typeof o.sourceAgentId === 'string' && o.sourceAgentId !== st.author ? ` (says ${nameOf(o.sourceAgentId)})` : '';
  const when = typeof o.timestamp === 'string' ? shortTime(o.timestamp) : '';
  return [`by ${nameOf(st.author)}${claimed}`, when].filter(Boolean).join(' · ');
}

/** The ids behind authorshipText (author, claimed source), for a details tooltip. */
export function authorshipIds(st: GStatement): string {
  const o = st.provenance && typeof st.provenance === 'object' ? (st.provenance as Record<string, unknown>) : {};
  return [st.author, typeof o.sourceAgentId === 'string' ? o.sourceAgentId : undefined].filter((x, i, a) => x && a.indexOf(x) === i).join(', ');
}

// ---- Queries ----

export const NODE_FIELDS = 'id types label degree';
export const STATEMENT_FIELDS = 'subject predicate object value datatype graph certainty provenance updatedAt';

/**
 * Runs a query of statements with their author when the graph's schema has that field (this hub's
 * does; another agent's graph may not), else without: run is given the statement fields to ask for.
 */
export async function withAuthor<T>(run: (fields: string) => Promise<T>): Promise<T> {
  try {
    return await run(`${STATEMENT_FIELDS} author`);
  } catch (e) {
    if (!/\bauthor\b/.test(e instanceof Error ? e.message : String(e))) throw e;
    return run(STATEMENT_FIELDS);
  }
}

/** One query for the summaries of many nodes, by aliases (the schema reads one node per field). */
export function summariesQuery(ids: string[]): { query: string; variables: Record<string, string> } {
  if (ids.length === 0) return { query: '', variables: {} };
  const vars = ids.map((_, i) => `$n${i}: ID!`).join(', ');
  const fields = ids.map((_, i) => `n${i}: node(id: $n${i}) { ${NODE_FIELDS} }`).join(' ');
  return { query: `query Summaries(${vars}) { ${fields} }`, variables: Object.fromEntries(ids.map((id, i) => [`n${i}`, id])) };
}

/** The nodes a summaries query found, in the order asked (missing ones: not in the graph). */
export function summariesOf(data: unknown, ids: string[]): GNode[] {
  const d = (data ?? {}) as Record<string, GNode | null>;
  return ids.map((_, i) => d[`n${i}`]).filter((n): n is GNode => !!n && typeof n.id === 'string');
}

/**
 * Positions for n new nodes around a centre, ring after ring (each ring holds more), starting after
 * the `already` nodes placed there before: expanding does not move what the person arranged.
 */
export function ringPositions(cx: number, cy: number, n: number, already = 0, gap = 90): { x: number; y: number }[] {
  const out: { x: number; y: number }[] = [];
  let ring = 1;
  let start = 0; // index of the ring's first slot
  const slots = (r: number) => 8 * r;
  for (let i = already; i < already + n; i++) {
    while (i >= start + slots(ring)) {
      start += slots(ring);
      ring++;
    }
    const k = i - start;
    const angle = (2 * Math.PI * k) / slots(ring) + ring * 0.35;
    out.push({ x: cx + Math.cos(angle) * gap * ring, y: cy + Math.sin(angle) * gap * ring });
  }
  return out;
}
