// The Knowledge page's Table and Schema tabs, their pure parts: a type's nodes as rows with their
// literal attributes as columns (sorted, filtered, paged in the browser), and the graph's types and
// predicates counted from the statements read.

/** A node as the table's query answers it. */
export interface TableNode {
  id: string;
  label?: string | null;
  attributes: { predicate: string; value: unknown }[];
}

export interface TableRow {
  id: string;
  /** Column (predicate IRI, or "label") → the cell's text; several values are joined with ", ". */
  cells: Record<string, string>;
}

export interface Table {
  /** Predicate IRIs of the literal attributes, by how many rows have them, then by name. */
  columns: string[];
  rows: TableRow[];
}

function text(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** The rows and columns of a type's nodes. */
export function tableOf(nodes: TableNode[]): Table {
  const seen = new Map<string, number>();
  const rows = nodes.map((n) => {
    const values = new Map<string, string[]>();
    for (const a of n.attributes) {
      const l = values.get(a.predicate) ?? [];
      l.push(text(a.value));
      values.set(a.predicate, l);
    }
    const cells: Record<string, string> = {};
    for (const [p, vs] of values) {
      cells[p] = vs.join(', ');
      seen.set(p, (seen.get(p) ?? 0) + 1);
    }
    return { id: n.id, cells };
  });
  const columns = [...seen.keys()].sort((a, b) => (seen.get(b) ?? 0) - (seen.get(a) ?? 0) || a.localeCompare(b));
  return { columns, rows };
}

export type SortDir = 'asc' | 'desc';

/** The column "id" sorts by the node's id. Numbers compare as numbers; empty cells go last either way. */
export function sortRows(rows: TableRow[], column: string, dir: SortDir): TableRow[] {
  const cell = (r: TableRow) => (column === 'id' ? r.id : (r.cells[column] ?? ''));
  const sign = dir === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = cell(a);
    const y = cell(b);
    if (x === '' || y === '') return x === y ? 0 : x === '' ? 1 : -1;
    const nx = Number(x);
    const ny = Number(y);
    const c = !Number.isNaN(nx) && !Number.isNaN(ny) ? nx - ny : x.localeCompare(y);
    return c * sign || a.id.localeCompare(b.id);
  });
}

/** The rows whose id or any cell contains text, ignoring case (every row for blank text). */
export function filterRows(rows: TableRow[], text: string): TableRow[] {
  const t = text.trim().toLowerCase();
  if (!t) return rows;
  return rows.filter((r) => r.id.toLowerCase().includes(t) || Object.values(r.cells).some((c) => c.toLowerCase().includes(t)));
}

/** Page index (0-based) clamped to the pages there are, and that page's rows. */
export function pageRows<T>(rows: T[], page: number, size: number): { page: number; pages: number; rows: T[] } {
  const pages = Math.max(1, Math.ceil(rows.length / size));
  const p = Math.min(Math.max(0, page), pages - 1);
  return { page: p, pages, rows: rows.slice(p * size, p * size + size) };
}

// ---- Schema ----

/** A statement as the schema's query answers it: object for a resource, null for a literal. */
export interface SchemaStatement {
  subject: string;
  predicate: string;
  object?: string | null;
}

export interface Schema {
  types: { id: string; count: number }[];
  /** Predicates between resources, by subject type and object type ("" for an untyped end). */
  links: { predicate: string; from: string; to: string; count: number }[];
  /** Literal predicates per subject type ("" for untyped subjects). */
  literals: Record<string, { predicate: string; count: number }[]>;
}

/**
 * Counts types (from the rdf:type statements) and predicates by the types at their ends (from the
 * other statements); a subject with several types counts under each.
 */
export function schemaOf(typeStatements: SchemaStatement[], statements: SchemaStatement[], rdfType: string): Schema {
  const typesOf = new Map<string, string[]>();
  const typeCount = new Map<string, number>();
  for (const s of typeStatements) {
    if (!s.object) continue;
    const l = typesOf.get(s.subject) ?? [];
    if (l.includes(s.object)) continue;
    l.push(s.object);
    typesOf.set(s.subject, l);
    typeCount.set(s.object, (typeCount.get(s.object) ?? 0) + 1);
  }
  const ends = (id: string) => typesOf.get(id) ?? [''];
  const links = new Map<string, { predicate: string; from: string; to: string; count: number }>();
  const literals = new Map<string, Map<string, number>>();
  for (const s of statements) {
    if (s.predicate === rdfType) continue;
    for (const from of ends(s.subject)) {
      if (s.object) {
        for (const to of ends(s.object)) {
          const k = JSON.stringify([s.predicate, from, to]);
          const l = links.get(k) ?? { predicate: s.predicate, from, to, count: 0 };
          l.count++;
          links.set(k, l);
        }
      } else {
        const m = literals.get(from) ?? new Map<string, number>();
        m.set(s.predicate, (m.get(s.predicate) ?? 0) + 1);
        literals.set(from, m);
      }
    }
  }
  const byCount = <T extends { count: number }>(a: T, b: T, ka: string, kb: string) => b.count - a.count || ka.localeCompare(kb);
  return {
    types: [...typeCount].map(([id, count]) => ({ id, count })).sort((a, b) => byCount(a, b, a.id, b.id)),
    links: [...links.values()].sort((a, b) => byCount(a, b, a.predicate, b.predicate)),
    literals: Object.fromEntries(
      [...literals].map(([t, m]) => [t, [...m].map(([predicate, count]) => ({ predicate, count })).sort((a, b) => byCount(a, b, a.predicate, b.predicate))]),
    ),
  };
}

/** A term short enough for a drawing: its compact form, or a full IRI's last path segment or fragment. */
export function shortTerm(compact: string): string {
  if (!/^<?[a-z][a-z0-9+.-]*:\/\//i.test(compact)) return compact;
  const s = compact.replace(/^<|>$/g, '').replace(/[/#]+$/, '');
  return s.slice(Math.max(s.lastIndexOf('/'), s.lastIndexOf('#')) + 1) || s;
}
