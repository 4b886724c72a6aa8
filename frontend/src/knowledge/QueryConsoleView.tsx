// The Knowledge page's "Query" tab: GraphQL (with completion from the hub's introspected schema) or
// Gizmo, run with Ctrl+Enter through knowledge/query; results as a table, "Show in graph", the
// query's metadata, errors at their line and column, and a per-agent history of past queries.

import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { GraphQLSchema } from 'graphql';
import { kgErrorText, queryIn, type QueryLanguage, type QueryResult } from './kg';
import {
  cellText,
  completionsAt,
  errorExcerpt,
  gizmoCompletionsAt,
  highlight,
  PREDICATES_QUERY,
  predicatesOf,
  errorPositionOf,
  EXAMPLES,
  INTROSPECTION_QUERY,
  loadHistory,
  metadataLine,
  nodeIdsOf,
  offsetAt,
  orderColumns,
  positionAt,
  selectionOrder,
  pushHistory,
  resultTables,
  schemaFromIntrospection,
  type Completions,
  type ErrorPosition,
  type HistoryEntry,
} from './console';
import { QueryDocs } from './QueryDocs';
import { rpcErrorOf } from './rpc';
import { displayTerm } from './rdf';
import './kgconsole.css';

const LANGUAGES: { id: QueryLanguage; label: string }[] = [
  { id: 'graphql', label: 'GraphQL' },
  { id: 'gizmo', label: 'Gizmo' },
];

// The editor's metrics (kgconsole.css): the completion list opens under the caret.
const LINE_HEIGHT = 20;
const PAD = 8;
const GUTTER = 41; // .kgq-gutter-clip's width with its border

/** Rows shown at once; the rest are counted (a query may return up to 1000). */
const MAX_ROWS = 500;

interface Failure {
  message: string;
  code?: number;
  position?: ErrorPosition;
  /** The query as it was run (the editor may have changed since). */
  query: string;
}

/**
 * A column's resize handle: drag it, or focus it and use ← →, to set the column's width; a cell
 * narrower than its text is cut with an ellipsis, the whole text on hover.
 */
function ColumnResizer({ column, width, onWidth }: { column: string; width?: number; onWidth: (w: number) => void }) {
  const widthOf = (el: HTMLElement) => width ?? el.parentElement?.getBoundingClientRect().width ?? 120;
  // A focusable separator says its value: the column's width as drawn.
  const ref = useRef<HTMLSpanElement>(null);
  const [drawn, setDrawn] = useState(0);
  useLayoutEffect(() => setDrawn(Math.round(ref.current?.parentElement?.getBoundingClientRect().width ?? 0)), [width]);
  return (
    <span
      ref={ref}
      className="kgq-col-resize"
      role="separator"
      aria-orientation="vertical"
      aria-label={`Resize the column ${column}`}
      aria-valuenow={Math.round(width ?? drawn)}
      aria-valuemin={MIN_COLUMN}
      aria-valuemax={MAX_COLUMN}
      tabIndex={0}
      onPointerDown={(e) => {
        e.preventDefault();
        const el = e.currentTarget;
        const start = e.clientX;
        const from = widthOf(el);
        el.setPointerCapture(e.pointerId);
        const move = (m: PointerEvent) => onWidth(Math.min(MAX_COLUMN, Math.max(MIN_COLUMN, from + m.clientX - start)));
        const up = () => {
          el.removeEventListener('pointermove', move);
          el.removeEventListener('pointerup', up);
        };
        el.addEventListener('pointermove', move);
        el.addEventListener('pointerup', up);
      }}
      onKeyDown={(e) => {
        if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
        e.preventDefault();
        onWidth(Math.min(MAX_COLUMN, Math.max(MIN_COLUMN, widthOf(e.currentTarget) + (e.key === 'ArrowRight' ? 16 : -16))));
      }}
    />
  );
}

const MIN_COLUMN = 48;
const MAX_COLUMN = 2000;

export function QueryConsoleView({ agent, onShowInGraph }: { agent?: string; onShowInGraph?: (nodeIds: string[]) => void }) {
  const [language, setLanguage] = useState<QueryLanguage>('graphql');
  const [texts, setTexts] = useState<Record<QueryLanguage, string>>({ ...EXAMPLES });
  const text = texts[language];
  const [schema, setSchema] = useState<GraphQLSchema | null>(null);
  const [schemaError, setSchemaError] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const [result, setResult] = useState<{ res: QueryResult; language: QueryLanguage; query: string } | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [tableIndex, setTableIndex] = useState(0);
  const [history, setHistory] = useState<HistoryEntry[]>(() => loadHistory(agent));
  const [completions, setCompletions] = useState<Completions | null>(null);
  // The graph's predicates for Gizmo's completion: asked once per agent, when Gizmo is first used.
  const [predicates, setPredicates] = useState<string[] | null>(null);
  const [docsOpen, setDocsOpen] = useState(false);
  // Column widths the person dragged (px), by column name; the others fit their content.
  const [widths, setWidths] = useState<Record<string, number>>({});
  const [selected, setSelected] = useState(0);
  const [scrollTop, setScrollTop] = useState(0);
  const [caret, setCaret] = useState(0);
  const editor = useRef<HTMLTextAreaElement>(null);
  const hlRef = useRef<HTMLPreElement>(null);
  const runSeq = useRef(0);
  // Where the caret goes once an accepted completion is in the editor: set in the same commit that
  // writes the text, before the next keystroke (a later frame would move the caret back over what
  // was typed in between).
  const pendingCaret = useRef<number | null>(null);

  // The schema, for completion: introspection through knowledge/query, again for another agent.
  useEffect(() => {
    let live = true;
    setSchema(null);
    setSchemaError(null);
    setHistory(loadHistory(agent));
    setPredicates(null);
    queryIn(agent, 'graphql', INTROSPECTION_QUERY).then(
      (r) => {
        if (!live) return;
        try {
          setSchema(schemaFromIntrospection(r.data));
        } catch (e) {
          setSchemaError((e as Error).message);
        }
      },
      (e) => live && setSchemaError(kgErrorText(e)),
    );
    return () => {
      live = false;
    };
  }, [agent]);

  useEffect(() => {
    if (language !== 'gizmo' || predicates !== null) return;
    let live = true;
    queryIn(agent, 'gizmo', PREDICATES_QUERY).then(
      (r) => live && setPredicates(predicatesOf(r.data)),
      () => live && setPredicates([]), // steps still complete; predicates are a convenience
    );
    return () => {
      live = false;
    };
  }, [agent, language, predicates]);

  const setText = useCallback((t: string) => setTexts((prev) => ({ ...prev, [language]: t })), [language]);

  const run = useCallback(async () => {
    const q = texts[language];
    if (!q.trim() || running) return;
    const seq = ++runSeq.current;
    setRunning(true);
    setCompletions(null);
    setHistory(pushHistory({ language, query: q, at: Date.now() }, agent));
    try {
      const res = await queryIn(agent, language, q);
      if (seq !== runSeq.current) return;
      setResult({ res, language, query: q });
      setFailure(null);
      setTableIndex(0);
    } catch (e) {
      if (seq !== runSeq.current) return;
      setFailure({ message: kgErrorText(e), code: rpcErrorOf(e)?.code, position: errorPositionOf(e), query: q });
      setResult(null);
    } finally {
      if (seq === runSeq.current) setRunning(false);
    }
  }, [agent, language, running, texts]);

  const complete = useCallback(
    (t: string, offset: number, explicit: boolean) => {
      const before = t.slice(0, offset);
      let c: Completions;
      if (language === 'gizmo') {
        // While typing: after a step's "." and inside a step's predicate argument.
        if (!explicit && !/\.[A-Za-z]*$/.test(before) && !/\(\s*["']<?[^"'<>]*$/.test(before)) return setCompletions(null);
        c = gizmoCompletionsAt(t, offset, predicates ?? [], explicit);
      } else {
        if (!schema) return setCompletions(null);
        // While typing, open only within a word; Ctrl+Space opens anywhere.
        if (!explicit && !/[_A-Za-z][_0-9A-Za-z]*$/.test(before)) return setCompletions(null);
        c = completionsAt(schema, t, offset);
      }
      setCompletions(c.items.length > 0 ? c : null);
      setSelected(0);
    },
    [language, schema, predicates],
  );

  const accept = (i: number) => {
    const c = completions;
    const el = editor.current;
    if (!c || !el) return;
    const item = c.items[i];
    const t = text.slice(0, c.from) + item.label + text.slice(c.to);
    setText(t);
    setCompletions(null);
    const pos = c.from + item.label.length;
    if (t === text) {
      // Nothing to write: no commit follows, so the caret moves now.
      el.setSelectionRange(pos, pos);
      setCaret(pos);
    } else {
      pendingCaret.current = pos;
    }
  };

  useLayoutEffect(() => {
    const pos = pendingCaret.current;
    const el = editor.current;
    if (pos === null || !el) return;
    pendingCaret.current = null;
    el.focus();
    el.setSelectionRange(pos, pos);
    setCaret(pos);
  }, [text]);

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void run();
      return;
    }
    if (e.key === ' ' && e.ctrlKey) {
      e.preventDefault();
      complete(text, e.currentTarget.selectionStart, true);
      return;
    }
    if (!completions) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const n = completions.items.length;
      setSelected((s) => (s + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
    } else if (e.key === 'Enter' || e.key === 'Tab') {
      e.preventDefault();
      accept(selected);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      setCompletions(null);
    }
  };

  const goTo = (pos: ErrorPosition) => {
    const el = editor.current;
    if (!el) return;
    const off = offsetAt(text, pos.line, pos.column);
    el.focus();
    el.setSelectionRange(off, off);
    el.scrollTop = Math.max(0, (pos.line - 3) * LINE_HEIGHT);
  };

  const switchLanguage = (to: QueryLanguage) => {
    setCompletions(null);
    if (to === language) return;
    setLanguage(to);
    // A result or an error is about the other language's query: it goes with it.
    runSeq.current++;
    setRunning(false);
    setResult(null);
    setFailure(null);
  };

  const pickHistory = (i: number) => {
    const h = history[i];
    if (!h) return;
    switchLanguage(h.language);
    setTexts((prev) => ({ ...prev, [h.language]: h.query }));
    setCompletions(null);
  };

  const tables = useMemo(() => {
    if (!result) return [];
    const ts = resultTables(result.res.data);
    if (result.language !== 'graphql') return ts;
    const order = selectionOrder(result.query);
    return ts.map((t) => orderColumns(t, order));
  }, [result]);
  const table = tables[Math.min(tableIndex, tables.length - 1)];
  const nodeIds = useMemo(() => (table && result ? nodeIdsOf(table, result.language) : []), [table, result]);
  const meta = result?.res.queryMetadata ?? null;
  const lines = text.split('\n').length;
  const tokens = useMemo(() => highlight(text, language), [text, language]);
  const caretLine = text.slice(0, caret).split('\n').length - 1;
  const errorLine = failure?.position && failure.query === text ? failure.position.line : undefined;

  return (
    <div className={'kgq' + (docsOpen && language === 'graphql' && schema ? ' kgq-with-docs' : '')} data-testid="query-console">
      {docsOpen && language === 'graphql' && schema && <QueryDocs schema={schema} />}
      <div className="kgq-bar">
        <div className="kgq-langs" role="radiogroup" aria-label="Query language">
          {LANGUAGES.map((l) => (
            <button
              key={l.id}
              type="button"
              role="radio"
              aria-checked={language === l.id}
              className={'btn btn-small' + (language === l.id ? ' kgq-lang-on' : '')}
              onClick={() => switchLanguage(l.id)}
            >
              {l.label}
            </button>
          ))}
        </div>
        <select
          className="kgq-history"
          aria-label="History"
          value=""
          onChange={(e) => pickHistory(Number(e.target.value))}
          disabled={history.length === 0}
        >
          <option value="">{history.length ? `History (${history.length})` : 'No history yet'}</option>
          {history.map((h, i) => (
            <option key={i} value={i}>
              {(h.language === 'gizmo' ? 'Gizmo: ' : '') + h.query.replace(/\s+/g, ' ').slice(0, 80)}
            </option>
          ))}
        </select>
        <span className="kgq-spacer" />
        <span className="muted small kgq-schema">
          {language === 'graphql'
            ? schema
              ? 'Ctrl+Space completes'
              : schemaError
                ? 'No completion: ' + schemaError
                : 'Loading schema…'
            : 'Ctrl+Space completes · ids work as shown: g.V("ex:alice")'}
        </span>
        {language === 'graphql' && schema && (
          <button type="button" className="btn btn-small" aria-pressed={docsOpen} onClick={() => setDocsOpen((o) => !o)} title="The schema's types and fields">
            Docs
          </button>
        )}
        <button type="button" className="btn btn-primary" onClick={() => void run()} disabled={running || !text.trim()} title="Ctrl+Enter">
          {running ? 'Running…' : 'Run'}
        </button>
      </div>

      <div className="kgq-editor">
        <div className="kgq-gutter-clip" aria-hidden="true">
          <div className="kgq-gutter" style={{ transform: `translateY(${-scrollTop}px)` }}>
            {Array.from({ length: lines }, (_, i) => (
              <div key={i} className={i + 1 === errorLine ? 'kgq-gutter-error' : undefined}>
                {i + 1}
              </div>
            ))}
          </div>
        </div>
        <div className="kgq-code">
        {/* the text coloured, under the textarea (whose own text is transparent): same font, same
            padding, scrolled with it */}
        <pre className="kgq-hl" aria-hidden="true" ref={hlRef}>
          {tokens.map((t, i) => (
            <span key={i} className={`kgq-t-${t.kind}`}>
              {t.text}
            </span>
          ))}
          {'\n'}
        </pre>
        <textarea
          ref={editor}
          className="kgq-text"
          aria-label={language === 'graphql' ? 'GraphQL query' : 'Gizmo query'}
          spellCheck={false}
          autoCapitalize="off"
          autoComplete="off"
          value={text}
          rows={Math.min(18, Math.max(6, lines + 1))}
          onChange={(e) => {
            setText(e.target.value);
            setCaret(e.target.selectionStart);
            complete(e.target.value, e.target.selectionStart, false);
          }}
          onKeyDown={onKeyDown}
          onClick={(e) => {
            setCaret(e.currentTarget.selectionStart);
            setCompletions(null);
          }}
          onBlur={() => setTimeout(() => setCompletions(null), 150)}
          onScroll={(e) => {
            setScrollTop(e.currentTarget.scrollTop);
            if (hlRef.current) {
              hlRef.current.scrollTop = e.currentTarget.scrollTop;
              hlRef.current.scrollLeft = e.currentTarget.scrollLeft;
            }
          }}
        />
        </div>
        {completions && (
          <ul
            className="kgq-completions"
            role="listbox"
            aria-label="Completions"
            // Under the word being completed: the list uses the editor's monospace font, so ch counts columns.
            style={{ top: PAD + (caretLine + 1) * LINE_HEIGHT - scrollTop, left: `calc(${GUTTER + PAD}px + ${positionAt(text, completions.from).character}ch)` }}
          >
            {completions.items.slice(0, 50).map((c, i) => (
              <li
                key={c.label}
                role="option"
                aria-selected={i === selected}
                className={i === selected ? 'kgq-completion-on' : undefined}
                onMouseDown={(e) => {
                  e.preventDefault();
                  accept(i);
                }}
                title={c.documentation}
              >
                <span className="kgq-completion-label">{c.label}</span>
                {c.detail && <span className="kgq-completion-detail">{c.detail}</span>}
              </li>
            ))}
          </ul>
        )}
      </div>

      {failure && (
        <div className="kgq-error" role="alert" data-testid="query-error">
          <p>
            {failure.position && (
              <button type="button" className="kgq-error-pos" onClick={() => failure.position && goTo(failure.position)} title="Go to the error">
                Line {failure.position.line}, column {failure.position.column}
              </button>
            )}
            {failure.position ? ': ' : ''}
            {failure.message}
            {failure.code !== undefined && <span className="muted small"> ({failure.code})</span>}
          </p>
          {failure.position && (
            <pre className="kgq-excerpt" data-testid="error-excerpt">
              {(() => {
                const x = errorExcerpt(failure.query, failure.position);
                const n = String(failure.position.line);
                return `${n} | ${x.lineText}\n${' '.repeat(n.length)} | ${x.caret}`;
              })()}
            </pre>
          )}
        </div>
      )}

      {result && (
        <div className="kgq-result" data-testid="query-result">
          <div className="kgq-result-bar">
            {meta && (
              <span className="kgq-meta small muted" data-testid="query-metadata">
                {metadataLine(meta, { rows: table?.rows.length ?? 0, nodes: nodeIds.length })}
              </span>
            )}
            <span className="kgq-spacer" />
            {tables.length > 1 && (
              <select aria-label="List" value={tableIndex} onChange={(e) => setTableIndex(Number(e.target.value))}>
                {tables.map((t, i) => (
                  <option key={t.path} value={i}>
                    {t.path || 'result'} ({t.rows.length})
                  </option>
                ))}
              </select>
            )}
            {onShowInGraph && (
              <button type="button" className="btn btn-small" disabled={nodeIds.length === 0} onClick={() => onShowInGraph(nodeIds)}>
                Show in graph{nodeIds.length ? ` (${nodeIds.length})` : ''}
              </button>
            )}
          </div>
          {!table || table.rows.length === 0 ? (
            <p className="muted">No rows.</p>
          ) : (
            // it scrolls (sideways too): reachable with the keyboard, named for it
            <div className="kgq-table-wrap" tabIndex={0} role="region" aria-label="Result rows">
              <table className="kgq-table">
                <thead>
                  <tr>
                    {table.columns.map((c) => (
                      <th key={c} style={widths[c] ? { width: widths[c], minWidth: widths[c], maxWidth: widths[c] } : undefined}>
                        {c}
                        <ColumnResizer column={c} width={widths[c]} onWidth={(w) => setWidths((cur) => ({ ...cur, [c]: w }))} />
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {table.rows.slice(0, MAX_ROWS).map((r, i) => (
                    <tr key={i}>
                      {table.columns.map((c) => {
                        const t = cellText(r[c]);
                        // IRIs are answered in full and shown compacted (rdf:type), the full IRI on hover
                        const shown = typeof r[c] === 'string' ? displayTerm(t) : t;
                        // an ID (or any one word) stays on one line; text wraps between its words
                        return (
                          <td
                            key={c}
                            className={(/\s/.test(t.trim()) ? 'kgq-text' : '') + (widths[c] ? ' kgq-cut' : '') || undefined}
                            style={widths[c] ? { maxWidth: widths[c] } : undefined}
                            title={shown !== t || widths[c] ? t : undefined}
                          >
                            {shown}
                          </td>
                        );
                      })}
                    </tr>
                  ))}
                </tbody>
              </table>
              {table.rows.length > MAX_ROWS && (
                <p className="muted small">
                  {MAX_ROWS} of {table.rows.length} rows shown.
                </p>
              )}
            </div>
          )}
        </div>
      )}
    </div>
  );
}
