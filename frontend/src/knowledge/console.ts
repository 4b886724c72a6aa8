// The query console's logic: the schema by introspection, completion, error positions, result
// tables, node ids for "Show in graph", and the per-agent history.

import { buildClientSchema, getIntrospectionQuery, Kind, parse, type GraphQLSchema, type IntrospectionQuery, type SelectionSetNode } from 'graphql';
import { getAutocompleteSuggestions, Position } from 'graphql-language-service';

import type { QueryLanguage } from './kg';
import { rpcErrorOf } from './rpc';
import { compactIri } from './rdf';

export type { QueryLanguage };

/**
 * The introspection query the console sends through knowledge/query. Only the fields every GraphQL
 * server knows (graphql-go has no specifiedByURL or isRepeatable).
 */
export const INTROSPECTION_QUERY = getIntrospectionQuery({ descriptions: true });

/** The schema from knowledge/query's answer to INTROSPECTION_QUERY (result.data). */
export function schemaFromIntrospection(data: unknown): GraphQLSchema {
  return buildClientSchema(data as IntrospectionQuery);
}

export interface Completion {
  label: string;
  detail?: string;
  documentation?: string;
  /** "field", "argument", "type", "keyword", ... */
  kind: string;
}

export interface Completions {
  /** The text between from and to (the word being typed) is replaced by the chosen label. */
  from: number;
  to: number;
  items: Completion[];
}

// CompletionItemKind numbers (the LSP's) as words.
const KINDS: Record<number, string> = { 2: 'method', 3: 'function', 5: 'field', 6: 'variable', 7: 'class', 12: 'value', 13: 'enum', 14: 'keyword', 20: 'enum member', 22: 'struct', 25: 'type' };

/** Line and character (0-based) of an offset in text. */
export function positionAt(text: string, offset: number): { line: number; character: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length - 1;
  return { line, character: offset - (before.lastIndexOf('\n') + 1) };
}

/** Offset in text of a 1-based line and column (as GraphQL errors give them). */
export function offsetAt(text: string, line: number, column: number): number {
  const lines = text.split('\n');
  let off = 0;
  for (let i = 0; i < Math.min(line - 1, lines.length - 1); i++) off += lines[i].length + 1;
  return Math.min(text.length, off + Math.max(0, column - 1));
}

/** What may be typed at offset in a GraphQL query: the schema's fields, arguments, types, keywords. */
export function completionsAt(schema: GraphQLSchema, text: string, offset: number): Completions {
  const word = /[_A-Za-z][_0-9A-Za-z]*$/.exec(text.slice(0, offset));
  const from = word ? offset - word[0].length : offset;
  const { line, character } = positionAt(text, offset);
  const raw = getAutocompleteSuggestions(schema, text, new Position(line, character));
  const typed = word?.[0].toLowerCase() ?? '';
  const seen = new Set<string>();
  const items: Completion[] = [];
  for (const it of raw) {
    // Names only: the service also proposes snippets ("{ }", "...") that are not what a word completes.
    if (!/^[_A-Za-z][_0-9A-Za-z]*$/.test(it.label) || seen.has(it.label)) continue;
    if (typed && !it.label.toLowerCase().startsWith(typed)) continue;
    seen.add(it.label);
    items.push({
      label: it.label,
      detail: it.detail ?? undefined,
      documentation: typeof it.documentation === 'string' ? it.documentation : undefined,
      kind: KINDS[it.kind ?? 0] ?? 'text',
    });
  }
  return { from, to: offset, items };
}

// Gizmo's steps (Cayley's), with a line each on what they do: completion after "g." and after a
// path's ".". Steps that end a query (All, Count, …) are listed with the path's.
const GIZMO_GRAPH_STEPS: Completion[] = [
  { label: 'V', detail: 'V(id?, …)', documentation: 'Starts at the nodes given, or at every node.', kind: 'method' },
  { label: 'M', detail: 'M()', documentation: 'A morphism: a path to reuse with Follow.', kind: 'method' },
  { label: 'Emit', detail: 'Emit(value)', documentation: 'Adds a value to the results.', kind: 'method' },
];
const GIZMO_PATH_STEPS: Completion[] = (
  [
    ['Out', 'Out(predicate?, tags?)', 'Follows statements from the nodes to their objects.'],
    ['In', 'In(predicate?, tags?)', 'Follows statements from the nodes back to their subjects.'],
    ['Both', 'Both(predicate?, tags?)', 'Follows statements either way.'],
    ['Has', 'Has(predicate, object?)', 'Keeps the nodes with that predicate (to that object).'],
    ['HasR', 'HasR(predicate, subject?)', 'Keeps the nodes that subject points to with predicate.'],
    ['Is', 'Is(node, …)', 'Keeps only the nodes given.'],
    ['Tag', 'Tag(name)', 'Names the current nodes in each result.'],
    ['As', 'As(name)', 'Same as Tag.'],
    ['Back', 'Back(name)', 'Returns to the nodes tagged name.'],
    ['Save', 'Save(predicate, tag)', 'Adds each node’s object of predicate to the result as tag.'],
    ['SaveR', 'SaveR(predicate, tag)', 'Adds each node’s subject of predicate to the result as tag.'],
    ['Follow', 'Follow(morphism)', 'Follows a path made with g.M().'],
    ['FollowR', 'FollowR(morphism)', 'Follows a morphism backwards.'],
    ['FollowRecursive', 'FollowRecursive(predicate, depth?)', 'Follows predicate again and again.'],
    ['And', 'And(path)', 'Keeps the nodes also on path.'],
    ['Or', 'Or(path)', 'Adds the nodes on path.'],
    ['Except', 'Except(path)', 'Removes the nodes on path.'],
    ['Unique', 'Unique()', 'Each node once.'],
    ['Labels', 'Labels()', 'The graphs the statements are in.'],
    ['InPredicates', 'InPredicates()', 'The predicates pointing to the nodes.'],
    ['OutPredicates', 'OutPredicates()', 'The predicates leaving the nodes.'],
    ['Filter', 'Filter(comparison)', 'Keeps nodes passing lt(), gt(), regex(), like().'],
    ['Limit', 'Limit(n)', 'At most n results.'],
    ['Skip', 'Skip(n)', 'Skips the first n results.'],
    ['Order', 'Order()', 'Sorts the nodes.'],
    ['All', 'All()', 'Runs the query: every result.'],
    ['GetLimit', 'GetLimit(n)', 'Runs the query: the first n results.'],
    ['Count', 'Count()', 'Runs the query: how many results.'],
    ['ToArray', 'ToArray()', 'The results as an array, for a script.'],
    ['ForEach', 'ForEach(fn)', 'Calls fn with each result.'],
  ] as const
).map(([label, detail, documentation]) => ({ label, detail, documentation, kind: 'method' }));

// Steps whose first argument is a predicate.
const PREDICATE_STEPS = /\b(?:Out|In|Both|Has|HasR|Save|SaveR|FollowRecursive)\(\s*(["'])(<?)([^"'<>]*)$/;

/**
 * What may be typed at offset in a Gizmo script: a step after "g." or a path's ".", or one of
 * predicates (the graph's, as <iri>) inside the first string argument of a step that takes one.
 * explicit: asked for (Ctrl+Space) rather than opened by typing.
 */
export function gizmoCompletionsAt(text: string, offset: number, predicates: readonly string[], explicit = false): Completions {
  const before = text.slice(0, offset);
  const arg = PREDICATE_STEPS.exec(before);
  if (arg) {
    const typed = arg[3].toLowerCase();
    const from = offset - arg[2].length - arg[3].length;
    const items = predicates
      .filter((p) => p.toLowerCase().startsWith(typed) || p.toLowerCase().includes(':' + typed))
      .map((p) => ({ label: `<${p}>`, detail: 'predicate', kind: 'value' }));
    return { from, to: offset, items };
  }
  // After "g." the graph's steps; after a step's ")." a path's; after another name's "." (a path in
  // a variable) a path's when asked for (Ctrl+Space): while typing, "1." or "Math." is no path.
  const step = /(\)|[A-Za-z_$][\w$]*)\.([A-Za-z]*)$/.exec(before);
  const none = { from: offset, to: offset, items: [] };
  if (!step) return none;
  const typed = step[2].toLowerCase();
  const graph = step[1] === 'g' || step[1] === 'graph';
  if (!graph && step[1] !== ')' && !explicit) return none;
  const steps = graph ? GIZMO_GRAPH_STEPS : GIZMO_PATH_STEPS;
  return { from: offset - step[2].length, to: offset, items: steps.filter((c) => c.label.toLowerCase().startsWith(typed)) };
}

/** The predicates in a graph, asked of it with Gizmo (for completion). */
export const PREDICATES_QUERY = 'g.V().OutPredicates().Unique().All()';

/**
 * The predicate ids of PREDICATES_QUERY's answer ({id: "<iri>"} rows), as shown (well-known IRIs
 * compacted: rdf:type, which Gizmo takes as "<rdf:type>"), sorted.
 */
export function predicatesOf(data: unknown): string[] {
  if (!Array.isArray(data)) return [];
  const out = new Set<string>();
  for (const r of data) {
    const id = (r as { id?: unknown })?.id;
    if (typeof id === 'string') out.add(compactIri(id.replace(/^<(.*)>$/, '$1')));
  }
  return [...out].sort();
}

export interface ErrorPosition {
  line: number;
  column: number;
}

/** Where a −32010 query error (GraphQL or Gizmo) says the problem is, if it does. */
export function errorPositionOf(e: unknown): ErrorPosition | undefined {
  const rpc = rpcErrorOf(e);
  const d = rpc?.data as { line?: unknown; column?: unknown; errors?: { locations?: ErrorPosition[] }[] } | undefined;
  if (!d) return undefined;
  if (typeof d.line === 'number' && typeof d.column === 'number') return { line: d.line, column: d.column };
  const loc = d.errors?.[0]?.locations?.[0];
  return loc && typeof loc.line === 'number' ? { line: loc.line, column: loc.column } : undefined;
}

/** The query's line at an error position and a caret under its column, for display. */
export function errorExcerpt(text: string, pos: ErrorPosition): { lineText: string; caret: string } {
  const lineText = text.split('\n')[pos.line - 1] ?? '';
  return { lineText, caret: ' '.repeat(Math.max(0, Math.min(pos.column - 1, lineText.length))) + '^' };
}

// ---- Results ----

export type Row = Record<string, unknown>;

export interface ResultTable {
  /** Where the list is in the data ("statements.items"), "" for the data itself. */
  path: string;
  columns: string[];
  rows: Row[];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An object's scalar leaves as dotted columns; lists of scalars joined, lists of objects counted. */
function flatten(v: unknown, prefix: string, out: Row): void {
  if (isObject(v)) {
    for (const [k, x] of Object.entries(v)) flatten(x, prefix ? prefix + '.' + k : k, out);
  } else if (Array.isArray(v)) {
    out[prefix] = v.every((x) => !isObject(x) && !Array.isArray(x)) ? v.map((x) => String(x)).join(', ') : `${v.length} items`;
  } else {
    out[prefix || 'value'] = v;
  }
}

function tableOf(path: string, items: unknown[]): ResultTable {
  const rows = items.map((it) => {
    const r: Row = {};
    flatten(it, '', r);
    return r;
  });
  const columns: string[] = [];
  for (const r of rows) for (const k of Object.keys(r)) if (!columns.includes(k)) columns.push(k);
  return { path, columns, rows };
}

/**
 * The tables a result offers: each list in GraphQL data (depth first, outer lists only), or the
 * data itself as one row when it has no list. Gizmo data is a list already.
 */
export function resultTables(data: unknown): ResultTable[] {
  if (Array.isArray(data)) return [tableOf('', data)];
  const out: ResultTable[] = [];
  const walk = (v: unknown, path: string) => {
    if (Array.isArray(v)) {
      if (v.length === 0 || v.some(isObject)) out.push(tableOf(path, v));
      return;
    }
    if (isObject(v)) for (const [k, x] of Object.entries(v)) walk(x, path ? path + '.' + k : k);
  };
  walk(data, '');
  if (out.length === 0 && isObject(data)) out.push(tableOf('', [data]));
  return out;
}

// Columns that name graph nodes: a Node's id, a Statement's subject and object, a Gizmo tag.
const NODE_COLUMN = /(^|\.)(id|subject|object|source|target)$/;

/**
 * The order fields were asked for, by path ("statements.items" → [subject, predicate, ...]): the
 * hub answers GraphQL data as JSON objects with their keys sorted, so the columns follow the query.
 */
export function selectionOrder(query: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const walk = (set: SelectionSetNode | undefined, path: string) => {
    if (!set) return;
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        const key = sel.alias?.value ?? sel.name.value;
        const list = out.get(path) ?? [];
        if (!list.includes(key)) list.push(key);
        out.set(path, list);
        walk(sel.selectionSet, path ? path + '.' + key : key);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        walk(sel.selectionSet, path);
      }
    }
  };
  try {
    for (const def of parse(query).definitions) if (def.kind === Kind.OPERATION_DEFINITION) walk(def.selectionSet, '');
  } catch {
    /* a query the hub answered parses; if not, the columns keep the answer's order */
  }
  return out;
}

/** A table's columns in the order its query asked for them (unknown ones after, as they were). */
export function orderColumns(t: ResultTable, order: Map<string, string[]>): ResultTable {
  const rank = (col: string): number[] => {
    const parts = col.split('.');
    let path = t.path;
    return parts.map((p) => {
      const i = order.get(path)?.indexOf(p) ?? -1;
      path = path ? path + '.' + p : p;
      return i < 0 ? Number.MAX_SAFE_INTEGER : i;
    });
  };
  const cols = t.columns.map((c, i) => ({ c, r: rank(c), i }));
  cols.sort((a, b) => {
    for (let k = 0; k < Math.max(a.r.length, b.r.length); k++) {
      const d = (a.r[k] ?? -1) - (b.r[k] ?? -1);
      if (d !== 0) return d;
    }
    return a.i - b.i;
  });
  return { ...t, columns: cols.map((x) => x.c) };
}

/** Node ids in a table: from node-naming columns; Gizmo gives IRIs as "<iri>". */
export function nodeIdsOf(t: ResultTable, language: QueryLanguage): string[] {
  const ids = new Set<string>();
  for (const r of t.rows) {
    for (const [k, v] of Object.entries(r)) {
      if (typeof v !== 'string' || v === '') continue;
      if (language === 'gizmo') {
        const m = /^<(.+)>$/.exec(v);
        if (m) ids.add(m[1]);
      } else if (NODE_COLUMN.test(k)) {
        ids.add(v);
      }
    }
  }
  return [...ids];
}

const METADATA_LABELS: Record<string, string> = {
  elapsedMs: 'time',
  statementCount: 'statements',
  resultCount: 'results',
  rows: 'rows',
  nodes: 'nodes',
  changeId: 'as of change',
};

/** Time first, then the counts, then whatever else the hub reports (the JSON comes sorted by key). */
function metadataRank(k: string): number {
  const i = Object.keys(METADATA_LABELS).indexOf(k);
  return i < 0 ? 100 : i;
}

function metadataText(k: string, v: unknown): string {
  if (k === 'elapsedMs' && typeof v === 'number') return v < 10 ? `${v.toFixed(2)} ms` : `${Math.round(v)} ms`;
  return cellText(v);
}

/**
 * The line above a result: the hub's metadata, and the rows and nodes of the table on screen. The
 * hub's nodeCount counts the Node objects the query read (0 for a statements query), not the nodes
 * the result names: beside "Show in graph (8)" it read as a contradiction, so the nodes counted are
 * the ones Show in graph shows. Gizmo's results are its rows.
 */
export function metadataLine(meta: Record<string, unknown>, shown: { rows: number; nodes: number }): string {
  const all: Record<string, unknown> = { ...meta, nodes: shown.nodes };
  delete all.queryLanguage;
  delete all.nodeCount;
  if (!('resultCount' in all)) all.rows = shown.rows;
  return Object.entries(all)
    .sort(([a], [b]) => metadataRank(a) - metadataRank(b))
    .map(([k, v]) => `${METADATA_LABELS[k] ?? k}: ${metadataText(k, v)}`)
    .join(' · ');
}

/** A cell's text. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

// ---- History ----

export interface HistoryEntry {
  language: QueryLanguage;
  query: string;
  at: number;
}

export const HISTORY_LIMIT = 50;

export function historyKey(agent?: string): string {
  return 'agenthub.kg.history.' + (agent || 'hub');
}

export function loadHistory(agent?: string, storage: Storage = localStorage): HistoryEntry[] {
  try {
    const v = JSON.parse(storage.getItem(historyKey(agent)) ?? '[]');
    return Array.isArray(v) ? v.filter((e) => typeof e?.query === 'string' && (e.language === 'graphql' || e.language === 'gizmo')) : [];
  } catch {
    return [];
  }
}

/** Records a query at the top of the agent's history (a repeat moves up), newest first, bounded. */
export function pushHistory(entry: HistoryEntry, agent?: string, storage: Storage = localStorage): HistoryEntry[] {
  const list = [entry, ...loadHistory(agent, storage).filter((e) => e.query !== entry.query || e.language !== entry.language)].slice(0, HISTORY_LIMIT);
  try {
    storage.setItem(historyKey(agent), JSON.stringify(list));
  } catch {
    /* storage full or refused: the history stays in memory for this session */
  }
  return list;
}

export const EXAMPLES: Record<QueryLanguage, string> = {
  graphql: `{
  statements(first: 20) {
    items { subject predicate object value datatype graph certainty }
    nextCursor
  }
}`,
  gizmo: `g.V().Tag("id").Out("<rdf:type>").Tag("type").Limit(20).All()`,
};

/** A run of the editor's text and how it is coloured (kgq-t-<kind> in kgconsole.css). */
export interface Token {
  text: string;
  kind: 'comment' | 'string' | 'iri' | 'keyword' | 'var' | 'number' | 'name' | 'method' | 'punct' | 'space';
}

const GRAPHQL_KEYWORDS = new Set(['query', 'mutation', 'subscription', 'fragment', 'on', 'true', 'false', 'null']);
const JS_KEYWORDS = new Set(['var', 'let', 'const', 'function', 'return', 'new', 'true', 'false', 'null', 'if', 'else', 'for', 'of', 'in', 'while']);

// One alternative per kind; the last catches any other character, so every character is in a token.
const GRAPHQL_TOKENS = /(#[^\n]*)|("""[\s\S]*?(?:"""|$)|"(?:\\.|[^"\\\n])*"?)|(\$[_A-Za-z][_0-9A-Za-z]*)|([_A-Za-z][_0-9A-Za-z]*)|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(\s+)|([\s\S])/g;
const GIZMO_TOKENS = /(\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$))|("(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?)|([A-Za-z_$][\w$]*)|(\d+(?:\.\d+)?)|(\s+)|([\s\S])/g;

/**
 * The editor's text as coloured runs, joined they give the text back exactly. GraphQL: keywords,
 * $variables, fields, strings, numbers, comments; Gizmo (JavaScript): keywords, steps after ".",
 * strings (an IRI "<…>" apart), numbers, comments. A lexer for colours only: wrong input is
 * coloured as far as it goes, never refused.
 */
export function highlight(text: string, language: QueryLanguage): Token[] {
  const out: Token[] = [];
  const push = (t: string, kind: Token['kind']) => {
    const last = out[out.length - 1];
    if (last && last.kind === kind) last.text += t;
    else out.push({ text: t, kind });
  };
  const re = language === 'graphql' ? GRAPHQL_TOKENS : GIZMO_TOKENS;
  re.lastIndex = 0;
  let prev = '';
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const t = m[0];
    if (language === 'graphql') {
      const [, comment, str, variable, name, num, space] = m;
      if (comment) push(t, 'comment');
      else if (str) push(t, 'string');
      else if (variable) push(t, 'var');
      else if (name) push(t, GRAPHQL_KEYWORDS.has(name) ? 'keyword' : 'name');
      else if (num) push(t, 'number');
      else if (space) push(t, 'space');
      else push(t, 'punct');
    } else {
      const [, comment, str, name, num, space] = m;
      if (comment) push(t, 'comment');
      else if (str) push(t, /^["']<[^<>]*>["']?$/.test(str) ? 'iri' : 'string');
      else if (name) push(t, JS_KEYWORDS.has(name) ? 'keyword' : prev === '.' ? 'method' : 'name');
      else if (num) push(t, 'number');
      else if (space) push(t, 'space');
      else push(t, 'punct');
    }
    if (!/^\s+$/.test(t)) prev = t;
  }
  return out;
}
