// The Knowledge page's "Table" tab: a type's nodes as rows, their literal attributes as columns;
// sort by a column, filter by text, page through, and send the selected rows to the Explore canvas.
// Reads at most MAX_NODES nodes of the type; sorting, filtering and paging happen in the browser.

import { useEffect, useMemo, useState } from 'react';
import { kgErrorText, queryIn } from './kg';
import { displayTerm } from './rdf';
import { filterRows, pageRows, sortRows, tableOf, type SortDir, type TableNode } from './tableview';
import './kgconsole.css';

const MAX_NODES = 500;
const PAGE = 25;

const TYPES_QUERY = `{ statements(predicate: "rdf:type", first: 1000) { items { object } } }`;
const NODES_QUERY = `query($type: ID!, $first: Int) { nodes(type: $type, first: $first) { items { id attributes { predicate value } } } }`;

export function TableView({ agent, type, onType, onShowInGraph }: { agent?: string; type: string; onType: (t: string) => void; onShowInGraph: (ids: string[]) => void }) {
  const [types, setTypes] = useState<string[]>([]);
  const [nodes, setNodes] = useState<TableNode[]>([]);
  const [error, setError] = useState('');
  const [loading, setLoading] = useState(false);
  const [sort, setSort] = useState<{ column: string; dir: SortDir }>({ column: 'id', dir: 'asc' });
  const [filter, setFilter] = useState('');
  const [page, setPage] = useState(0);
  const [selected, setSelected] = useState<Set<string>>(new Set());

  useEffect(() => {
    let live = true;
    queryIn(agent, 'graphql', TYPES_QUERY)
      .then((r) => {
        const items = (r.data as { statements?: { items?: { object?: string | null }[] } })?.statements?.items ?? [];
        if (live) setTypes([...new Set(items.map((i) => i.object ?? '').filter(Boolean))].sort());
      })
      .catch((e) => live && setError(kgErrorText(e)));
    return () => {
      live = false;
    };
  }, [agent]);

  useEffect(() => {
    setSelected(new Set());
    setPage(0);
    if (!type) {
      setNodes([]);
      return;
    }
    let live = true;
    setLoading(true);
    setError('');
    queryIn(agent, 'graphql', NODES_QUERY, { type, first: MAX_NODES })
      .then((r) => {
        if (live) setNodes((r.data as { nodes?: { items?: TableNode[] } })?.nodes?.items ?? []);
      })
      .catch((e) => live && setError(kgErrorText(e)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [agent, type]);

  const table = useMemo(() => tableOf(nodes), [nodes]);
  const shown = useMemo(() => sortRows(filterRows(table.rows, filter), sort.column, sort.dir), [table, filter, sort]);
  const paged = pageRows(shown, page, PAGE);
  const columns = ['id', ...table.columns];
  const allOnPage = paged.rows.length > 0 && paged.rows.every((r) => selected.has(r.id));
  const toggle = (id: string) =>
    setSelected((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });
  const sortBy = (c: string) => setSort((s) => ({ column: c, dir: s.column === c && s.dir === 'asc' ? 'desc' : 'asc' }));

  return (
    <div className="kgt">
      <div className="kgt-bar">
        <label className="select-label">
          Type
          <select value={type} onChange={(e) => onType(e.target.value)}>
            <option value="">Choose a type…</option>
            {[...new Set([...types, ...(type ? [type] : [])])].map((t) => (
              <option key={t} value={t}>
                {displayTerm(t)}
              </option>
            ))}
          </select>
        </label>
        <label className="select-label">
          Filter
          <input type="search" value={filter} onChange={(e) => (setFilter(e.target.value), setPage(0))} placeholder="text in any column" />
        </label>
        <button type="button" className="btn btn-small" disabled={selected.size === 0} onClick={() => onShowInGraph([...selected])}>
          Send to graph ({selected.size})
        </button>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {type && !loading && (
        <p className="muted" aria-live="polite">
          {shown.length} of {table.rows.length} nodes{nodes.length >= MAX_NODES ? ` (the first ${MAX_NODES})` : ''}
        </p>
      )}
      {type && table.rows.length > 0 && (
        <div className="kgq-table-wrap">
          <table className="kgq-table kgt-table" aria-label={`Nodes of ${displayTerm(type)}`}>
            <thead>
              <tr>
                <th scope="col">
                  <input type="checkbox" aria-label="Select the rows of this page" checked={allOnPage} onChange={() => setSelected((s) => {
                    const n = new Set(s);
                    for (const r of paged.rows) {
                      if (allOnPage) n.delete(r.id);
                      else n.add(r.id);
                    }
                    return n;
                  })} />
                </th>
                {columns.map((c) => (
                  <th key={c} scope="col" aria-sort={sort.column === c ? (sort.dir === 'asc' ? 'ascending' : 'descending') : undefined}>
                    <button type="button" className="kgt-sort" onClick={() => sortBy(c)} title={c}>
                      {c === 'id' ? 'id' : displayTerm(c)}
                      {sort.column === c ? (sort.dir === 'asc' ? ' ▲' : ' ▼') : ''}
                    </button>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {paged.rows.map((r) => (
                <tr key={r.id} aria-selected={selected.has(r.id)}>
                  <td>
                    <input type="checkbox" aria-label={`Select ${displayTerm(r.id)}`} checked={selected.has(r.id)} onChange={() => toggle(r.id)} />
                  </td>
                  {columns.map((c) => (
                    <td key={c} className="kgq-text">
                      {c === 'id' ? displayTerm(r.id) : (r.cells[c] ?? '')}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {paged.pages > 1 && (
        <nav className="kgt-pages" aria-label="Pages">
          <button type="button" className="btn btn-small" disabled={paged.page === 0} onClick={() => setPage(paged.page - 1)}>
            Previous
          </button>
          <span>
            Page {paged.page + 1} of {paged.pages}
          </span>
          <button type="button" className="btn btn-small" disabled={paged.page >= paged.pages - 1} onClick={() => setPage(paged.page + 1)}>
            Next
          </button>
        </nav>
      )}
    </div>
  );
}
