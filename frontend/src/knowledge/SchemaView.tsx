// The Knowledge page's "Schema" tab: the graph's types (with how many nodes have each) and its
// predicates (an arrow from the subject's type to the object's type, with how many statements), drawn
// in plain SVG on a circle; literal predicates are listed per type. Clicking a type opens it in the
// Table tab. The tab counts at most SAMPLE statements of each kind in the browser at once, saying so,
// and the hub's count of every statement (GraphQL `schema`) replaces that when it comes; a graph
// that cannot count (an agent without that field, or a count past the query's time limit) keeps the
// sample, and the tab says why.

import { useEffect, useState } from 'react';
import { kgErrorText, queryIn } from './kg';
import { displayTerm } from './rdf';
import { schemaOf, shortTerm, type Schema, type SchemaStatement } from './tableview';

const SAMPLE = 1000;
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const EXACT_QUERY = `{ schema { types { id count } links { predicate from to count } literals { type predicate count } } }`;
const SCHEMA_QUERY = `{ types: statements(predicate: "rdf:type", first: ${SAMPLE}) { items { subject predicate object } }
  all: statements(first: ${SAMPLE}) { items { subject predicate object } nextCursor } }`;

/** The hub's counted schema (Query.schema) as the tab draws it; null when the answer has none. */
export function exactSchema(data: unknown): Schema | null {
  const d = (data as { schema?: { types?: unknown; links?: unknown; literals?: unknown } } | null)?.schema;
  if (!d || !Array.isArray(d.types) || !Array.isArray(d.links) || !Array.isArray(d.literals)) return null;
  const literals: Schema['literals'] = {};
  for (const l of d.literals as { type: string; predicate: string; count: number }[]) {
    (literals[l.type] ??= []).push({ predicate: l.predicate, count: l.count });
  }
  return { types: d.types as Schema['types'], links: d.links as Schema['links'], literals };
}

const W = 640;
const H = 420;

export function SchemaView({ agent, onOpenType }: { agent?: string; onOpenType: (type: string) => void }) {
  const [schema, setSchema] = useState<Schema | null>(null);
  const [partial, setPartial] = useState(false);
  // The hub's count of every statement: under way, done, not offered by this graph, or too slow.
  const [counting, setCounting] = useState<'counting' | 'done' | 'unsupported' | 'slow'>('counting');
  const [error, setError] = useState('');

  useEffect(() => {
    let live = true;
    let exactDone = false;
    setSchema(null);
    setCounting('counting');
    // The sample shows at once; the hub's count of every statement replaces it when it comes (on a
    // graph of a million statements it may take seconds, or pass the query's time limit).
    queryIn(agent, 'graphql', SCHEMA_QUERY)
      .then((r) => {
        const d = r.data as { types?: { items?: SchemaStatement[] }; all?: { items?: SchemaStatement[]; nextCursor?: string | null } };
        if (!live || exactDone) return;
        setSchema(schemaOf(d?.types?.items ?? [], d?.all?.items ?? [], RDF_TYPE));
        setPartial(!!d?.all?.nextCursor || (d?.types?.items?.length ?? 0) >= SAMPLE);
      })
      .catch((e) => live && !exactDone && setError(kgErrorText(e)));
    queryIn(agent, 'graphql', EXACT_QUERY)
      .then((r) => {
        const exact = exactSchema(r.data);
        if (!live) return;
        if (!exact) return setCounting('unsupported');
        exactDone = true;
        setError('');
        setSchema(exact);
        setPartial(false);
        setCounting('done');
      })
      .catch((e) => live && setCounting(/ran out of time/.test(kgErrorText(e)) ? 'slow' : 'unsupported'));
    return () => {
      live = false;
    };
  }, [agent]);

  if (error)
    return (
      <p className="error" role="alert">
        {error}
      </p>
    );
  if (!schema) return <p className="muted kg-placeholder">Loading…</p>;
  if (schema.types.length === 0) return <p className="muted kg-placeholder">No typed nodes in this graph yet.</p>;

  const ids = schema.types.map((t) => t.id);
  const max = Math.max(...schema.types.map((t) => t.count));
  const pos = new Map(
    ids.map((id, i) => {
      const a = (2 * Math.PI * i) / ids.length - Math.PI / 2;
      const r = ids.length === 1 ? 0 : Math.min(W, H) / 2 - 70;
      return [id, { x: W / 2 + r * Math.cos(a), y: H / 2 + r * Math.sin(a) }];
    }),
  );
  const radius = (c: number) => 18 + 22 * Math.sqrt(c / max);
  const count = new Map(schema.types.map((t) => [t.id, t.count]));
  const links = schema.links.filter((l) => pos.has(l.from) && pos.has(l.to));

  return (
    <div className="kgs">
      {partial && (
        <p className="muted" role="status">
          Counted from the first {SAMPLE} statements
          {counting === 'counting' ? '; counting all of them…' : counting === 'slow' ? ': counting all of them took longer than the hub allows.' : '.'}
        </p>
      )}
      <svg className="kgs-graph" viewBox={`0 0 ${W} ${H}`} role="group" aria-label="Types and the predicates between them">
        <defs>
          <marker id="kgs-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M0,0 L10,5 L0,10 z" fill="currentColor" />
          </marker>
        </defs>
        {links.map((l, i) => {
          const a = pos.get(l.from)!;
          const b = pos.get(l.to)!;
          const label = `${shortTerm(displayTerm(l.predicate))} (${l.count})`;
          if (l.from === l.to) {
            const r = radius(count.get(l.from) ?? 1);
            return (
              <g key={i} className="kgs-link" data-predicate={l.predicate}>
                <title>{displayTerm(l.predicate)}</title>
                <path d={`M${a.x - 8},${a.y - r} C${a.x - 40},${a.y - r - 60} ${a.x + 40},${a.y - r - 60} ${a.x + 8},${a.y - r}`} fill="none" stroke="currentColor" markerEnd="url(#kgs-arrow)" />
                <text x={a.x} y={a.y - r - 48} textAnchor="middle">
                  {label}
                </text>
              </g>
            );
          }
          const dx = b.x - a.x;
          const dy = b.y - a.y;
          const d = Math.hypot(dx, dy) || 1;
          const ra = radius(count.get(l.from) ?? 1);
          const rb = radius(count.get(l.to) ?? 1) + 2;
          const x1 = a.x + (dx / d) * ra;
          const y1 = a.y + (dy / d) * ra;
          const x2 = b.x - (dx / d) * rb;
          const y2 = b.y - (dy / d) * rb;
          return (
            <g key={i} className="kgs-link" data-predicate={l.predicate}>
              <title>{displayTerm(l.predicate)}</title>
              <line x1={x1} y1={y1} x2={x2} y2={y2} stroke="currentColor" markerEnd="url(#kgs-arrow)" />
              <text x={(x1 + x2) / 2} y={(y1 + y2) / 2 - 4} textAnchor="middle">
                {label}
              </text>
            </g>
          );
        })}
        {schema.types.map((t) => {
          const p = pos.get(t.id)!;
          const name = shortTerm(displayTerm(t.id));
          return (
            <g
              key={t.id}
              className="kgs-type"
              data-type={t.id}
              role="button"
              tabIndex={0}
              onClick={() => onOpenType(t.id)}
              onKeyDown={(e) => {
                if (e.key === 'Enter' || e.key === ' ') {
                  e.preventDefault();
                  onOpenType(t.id);
                }
              }}
            >
              <circle cx={p.x} cy={p.y} r={radius(t.count)} />
              <text x={p.x} y={p.y - 2} textAnchor="middle">
                {name}
              </text>
              <text x={p.x} y={p.y + 13} textAnchor="middle">
                {t.count}
              </text>
            </g>
          );
        })}
      </svg>
      <h2 className="kgs-h">Types</h2>
      <ul className="kgs-types">
        {schema.types.map((t) => (
          <li key={t.id}>
            <button type="button" className="btn btn-small" onClick={() => onOpenType(t.id)}>
              {displayTerm(t.id)} ({t.count})
            </button>
            {(schema.literals[t.id] ?? []).length > 0 && (
              <span className="muted"> literals: {(schema.literals[t.id] ?? []).map((l) => `${displayTerm(l.predicate)} (${l.count})`).join(', ')}</span>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
