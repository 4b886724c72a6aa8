// The Knowledge area: this hub's knowledge graph, or an added agent's (?agent=ID), in three tabs:
// Explore (the graph, searched and edited by hand), Table (a type's nodes and their attributes), Schema
// (the types and predicates, counted), Query and Import / Export (h-kgconsole's).

import { lazy, Suspense, useRef, useState, type KeyboardEvent } from 'react';
import { bindKg } from '../knowledge/kg';
import { ImportExport } from '../knowledge/ImportExport';
import { QueryConsole } from '../knowledge/QueryConsole';
import { SchemaView } from '../knowledge/SchemaView';
import { TableView } from '../knowledge/TableView';
import { kgSources } from '../knowledge/sources';
import { navigate } from '../lib/router';
import { useHub } from '../state/hub';
import type { ShowRequest } from '../knowledge/Explorer';
import '../knowledge/knowledge.css';

// cytoscape and its extensions load with the page, not with the app.
const Explorer = lazy(() => import('../knowledge/Explorer').then((m) => ({ default: m.Explorer })));

type Tab = 'explore' | 'table' | 'schema' | 'query' | 'io';
const TABS: { id: Tab; label: string }[] = [
  { id: 'explore', label: 'Explore' },
  { id: 'table', label: 'Table' },
  { id: 'schema', label: 'Schema' },
  { id: 'query', label: 'Query' },
  { id: 'io', label: 'Import / Export' },
];

/** visible: false while another area is open (the page stays mounted, see App). */
export function KnowledgePage({ agent, visible = true }: { agent?: string; visible?: boolean }) {
  const { client, agents, conn } = useHub();
  bindKg(client);
  const [tab, setTab] = useState<Tab>('explore');
  // A tab is mounted the first time it is shown and then kept (the graph keeps its layout).
  const [seen, setSeen] = useState<Set<Tab>>(() => new Set(['explore']));
  const [show, setShow] = useState<ShowRequest | undefined>();
  const [tableType, setTableType] = useState('');
  const showInGraph = (ids: string[], links = false) => {
    setShow({ ids, links, nonce: Date.now() });
    choose('explore');
  };
  const tabRefs = useRef<Record<Tab, HTMLButtonElement | null>>({ explore: null, table: null, schema: null, query: null, io: null });
  const sources = kgSources(agents);
  const known = !agent || sources.some((s) => s.agent === agent);

  const choose = (t: Tab) => {
    setTab(t);
    setSeen((s) => (s.has(t) ? s : new Set([...s, t])));
  };
  const onTabKey = (e: KeyboardEvent) => {
    const i = TABS.findIndex((t) => t.id === tab);
    const next = e.key === 'ArrowRight' ? (i + 1) % TABS.length : e.key === 'ArrowLeft' ? (i - 1 + TABS.length) % TABS.length : -1;
    if (next < 0) return;
    e.preventDefault();
    choose(TABS[next].id);
    tabRefs.current[TABS[next].id]?.focus();
  };

  return (
    <div className="page kg-page" hidden={!visible}>
      <header className="page-head">
        <h1>Knowledge</h1>
        <label className="select-label">
          Graph
          <select value={agent ?? ''} onChange={(e) => navigate({ area: 'knowledge', agent: e.target.value || undefined })}>
            {sources.map((s) => (
              <option key={s.agent ?? ''} value={s.agent ?? ''}>
                {s.name}
              </option>
            ))}
            {!known && <option value={agent}>{agent}</option>}
          </select>
        </label>
        <div className="kg-tabs" role="tablist" aria-label="Knowledge" onKeyDown={onTabKey}>
          {TABS.map((t) => (
            <button
              key={t.id}
              ref={(el) => {
                tabRefs.current[t.id] = el;
              }}
              type="button"
              role="tab"
              id={`kg-tab-${t.id}`}
              aria-controls={`kg-panel-${t.id}`}
              aria-selected={tab === t.id}
              tabIndex={tab === t.id ? 0 : -1}
              className="kg-tab"
              onClick={() => choose(t.id)}
            >
              {t.label}
            </button>
          ))}
        </div>
      </header>
      {TABS.map((t) => (
        <div
          key={t.id}
          role="tabpanel"
          id={`kg-panel-${t.id}`}
          aria-labelledby={`kg-tab-${t.id}`}
          hidden={tab !== t.id}
          className={`kg-panel kg-panel-${t.id}`}
        >
          {seen.has(t.id) && t.id === 'explore' && (
            <Suspense fallback={<p className="muted kg-placeholder">Loading…</p>}>
              <Explorer key={agent ?? ''} agent={agent} active={visible && tab === 'explore'} show={show} connectionId={conn.connectionId} connected={conn.state === 'open'} />
            </Suspense>
          )}
          {seen.has(t.id) && t.id === 'query' && (
            <QueryConsole agent={agent} onShowInGraph={showInGraph} />
          )}
          {seen.has(t.id) && t.id === 'table' && <TableView key={agent ?? ''} agent={agent} type={tableType} onType={setTableType} onShowInGraph={showInGraph} />}
          {seen.has(t.id) && t.id === 'schema' && (
            <SchemaView
              key={agent ?? ''}
              agent={agent}
              onOpenType={(ty) => {
                setTableType(ty);
                choose('table');
              }}
            />
          )}
          {seen.has(t.id) && t.id === 'io' && (
            <ImportExport agent={agent} onShowInGraph={(ids) => showInGraph(ids, true)} />
          )}
        </div>
      ))}
    </div>
  );
}
