// Perspectives (Neo4j Bloom's word): named sets of rules that choose a node's colour, size, shape
// and caption by its type, by a predicate it has, or by where a numeric property falls. Pure: the
// canvas asks styleOf for each node and writes the answer into the node's data.

import { SHAPES, shortId, typeStyle, type Shape } from './graph';
import { compactIri, expandCurie } from './rdf';
import type { KVStorage } from './views';

export type Match =
  | { kind: 'type'; type: string }
  | { kind: 'predicate'; predicate: string }
  /** a numeric value of predicate in [min, max) (either end open when absent) */
  | { kind: 'range'; predicate: string; min?: number; max?: number };

export interface Rule {
  match: Match;
  color?: string;
  size?: number;
  shape?: Shape;
  /** the predicate whose value is the caption ('' or absent: the node's label) */
  caption?: string;
}

export interface Perspective {
  name: string;
  rules: Rule[];
}

/** What styleOf needs of a node: its types, and the values of its predicates when they are known. */
export interface StyledNode {
  types: string[];
  type: string;
  label: string;
  props?: Record<string, unknown[]>;
}

export interface NodeStyle {
  color: string;
  shape: Shape;
  size: number;
  caption: string;
}

export const DEFAULT_SIZE = 24;

/**
 * A node's values of a predicate. A rule may name it as a CURIE (schema:age) or an IRI the hub
 * stores otherwise (http://schema.org/…): both sides are compared as the hub stores ids.
 */
function valuesOf(n: StyledNode, predicate: string): unknown[] | undefined {
  if (!n.props) return undefined;
  const direct = n.props[predicate];
  if (direct) return direct;
  const want = expandCurie(predicate);
  for (const [k, v] of Object.entries(n.props)) if (expandCurie(k) === want) return v;
  return undefined;
}

function matches(m: Match, n: StyledNode): boolean {
  if (m.kind === 'type') {
    const want = expandCurie(m.type);
    return n.type === m.type || n.types.some((t) => t === m.type || expandCurie(t) === want);
  }
  const vals = valuesOf(n, m.predicate);
  if (!vals || vals.length === 0) return false;
  if (m.kind === 'predicate') return true;
  return vals.some((v) => {
    const x = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
    return Number.isFinite(x) && (m.min === undefined || x >= m.min) && (m.max === undefined || x < m.max);
  });
}

/**
 * A node's look under a perspective: the type's default look, then each matching rule in order
 * overrides what it sets (so a later rule wins, as in Bloom's rule list).
 */
export function styleOf(p: Perspective | null, n: StyledNode): NodeStyle {
  const base = typeStyle(n.type);
  const out: NodeStyle = { color: base.color, shape: base.shape, size: DEFAULT_SIZE, caption: n.label };
  for (const r of p?.rules ?? []) {
    if (!matches(r.match, n)) continue;
    if (r.color) out.color = r.color;
    if (r.shape) out.shape = r.shape;
    if (typeof r.size === 'number' && r.size > 0) out.size = r.size;
    if (r.caption) {
      const v = valuesOf(n, r.caption)?.[0];
      if (v !== undefined && v !== null && String(v) !== '') out.caption = String(v);
    }
  }
  return out;
}

/** The predicates a perspective reads (so the canvas fetches their values for the nodes shown). */
export function predicatesOf(p: Perspective | null): string[] {
  const s = new Set<string>();
  for (const r of p?.rules ?? []) {
    if (r.match.kind !== 'type') s.add(r.match.predicate);
    if (r.caption) s.add(r.caption);
  }
  return [...s];
}

/** The perspective made from a graph's types: one rule per type, in today's legend colours and shapes. */
export function generatePerspective(types: string[], name = 'Default'): Perspective {
  const uniq = [...new Set(types.filter((t) => t !== ''))].sort();
  return { name, rules: uniq.map((type) => ({ match: { kind: 'type', type }, ...typeStyle(type) })) };
}

/** A line of the legend; type is set when the line is a type (the New node dialog suggests those). */
export interface LegendItem {
  key: string;
  text: string;
  color: string;
  shape: Shape;
  count: number;
  type?: string;
}

/** The legend under a perspective: each rule with the nodes it matches, then the types no rule names. */
export function perspectiveLegend(
  p: Perspective | null,
  nodes: StyledNode[],
): LegendItem[] {
  const out: LegendItem[] = [];
  const named = new Set<string>();
  (p?.rules ?? []).forEach((r, i) => {
    const count = nodes.filter((n) => matches(r.match, n)).length;
    if (r.match.kind === 'type') named.add(r.match.type);
    if (count === 0) return;
    const look = r.match.kind === 'type' ? typeStyle(r.match.type) : { color: '#8a8f98', shape: 'ellipse' as Shape };
    out.push({
      key: `r${i}`,
      text: ruleText(r),
      color: r.color ?? look.color,
      shape: r.shape ?? look.shape,
      count,
      ...(r.match.kind === 'type' ? { type: r.match.type } : {}),
    });
  });
  const rest = new Map<string, number>();
  for (const n of nodes) if (!named.has(n.type)) rest.set(n.type, (rest.get(n.type) ?? 0) + 1);
  for (const [type, count] of [...rest].sort(([a], [b]) => (a === '' ? 1 : b === '' ? -1 : a.localeCompare(b)))) {
    out.push({ key: `t:${type}`, text: type ? shortId(type) : 'untyped', count, type, ...typeStyle(type) });
  }
  // Two types with one local name (owl:Class, rdfs:Class) would read alike: those say their prefix.
  const seen = new Map<string, number>();
  for (const l of out) seen.set(l.text, (seen.get(l.text) ?? 0) + 1);
  for (const l of out) if (l.type && (seen.get(l.text) ?? 0) > 1) l.text = compactIri(l.type);
  return out;
}

/** A rule as the legend and the editor say it. */
export function ruleText(r: Rule): string {
  const m = r.match;
  if (m.kind === 'type') return shortId(m.type);
  if (m.kind === 'predicate') return `has ${compactIri(m.predicate)}`;
  const lo = m.min !== undefined ? `${m.min}` : '';
  const hi = m.max !== undefined ? `${m.max}` : '';
  return `${compactIri(expandCurie(m.predicate))} ${lo}–${hi}`;
}

// ---- validation and storage ----

const COLOR = /^#[0-9a-fA-F]{6}$/;

/** A perspective read from storage or a file, or null when it is not one (what is wrong: skipped). */
export function validPerspective(x: unknown): Perspective | null {
  const o = x as Perspective;
  if (!o || typeof o !== 'object' || typeof o.name !== 'string' || o.name.trim() === '' || !Array.isArray(o.rules)) return null;
  const rules: Rule[] = [];
  for (const r of o.rules.slice(0, 500)) {
    const m = (r as Rule | null)?.match as Match | undefined;
    if (!m || typeof m !== 'object') continue;
    let match: Match;
    if (m.kind === 'type' && typeof m.type === 'string' && m.type !== '') match = { kind: 'type', type: m.type };
    else if (m.kind === 'predicate' && typeof m.predicate === 'string' && m.predicate !== '') match = { kind: 'predicate', predicate: m.predicate };
    else if (m.kind === 'range' && typeof m.predicate === 'string' && m.predicate !== '') {
      match = { kind: 'range', predicate: m.predicate };
      if (Number.isFinite(m.min)) match.min = m.min;
      if (Number.isFinite(m.max)) match.max = m.max;
    } else continue;
    const rule: Rule = { match };
    if (typeof r.color === 'string' && COLOR.test(r.color)) rule.color = r.color;
    if (typeof r.size === 'number' && r.size >= 4 && r.size <= 200) rule.size = r.size;
    if (typeof r.shape === 'string' && SHAPES.includes(r.shape)) rule.shape = r.shape;
    if (typeof r.caption === 'string' && r.caption !== '') rule.caption = r.caption;
    rules.push(rule);
  }
  return { name: o.name.trim().slice(0, 200), rules };
}

export function perspectivesKey(agent?: string): string {
  return `agenthub.kg.perspectives.${agent ? `agent:${agent}` : 'hub'}`;
}

export function loadPerspectives(storage: KVStorage, agent?: string): Perspective[] {
  let raw: unknown;
  try {
    raw = JSON.parse(storage.getItem(perspectivesKey(agent)) ?? '[]');
  } catch {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  return raw.map(validPerspective).filter((p): p is Perspective => p !== null);
}

/** Saves a perspective (replacing one of the same name) and returns those now saved. */
export function savePerspective(storage: KVStorage, agent: string | undefined, p: Perspective): Perspective[] {
  const v = validPerspective(p);
  if (!v) throw new Error('A perspective needs a name.');
  const all = loadPerspectives(storage, agent).filter((x) => x.name !== v.name);
  all.push(v);
  storage.setItem(perspectivesKey(agent), JSON.stringify(all));
  return all;
}

export function deletePerspective(storage: KVStorage, agent: string | undefined, name: string): Perspective[] {
  const all = loadPerspectives(storage, agent).filter((x) => x.name !== name);
  storage.setItem(perspectivesKey(agent), JSON.stringify(all));
  return all;
}
