import { useCallback, useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { HubError } from '../api/client';
import type { WireEntry } from '../api/types';
import { formatClock, formatDateTime, formatDuration, parseTime } from '../lib/format';
import { describeWire, groupWire, headerRows, MAX_BODY_SHOWN, mergeWire, prettyBody, taskEntries, wireMatches } from '../lib/wire';
import { saveFile, utf8ToBase64 } from '../native';
import { StateBadge } from './StateBadge';
import { isDisconnect, useHub, useTopic } from '../state/hub';
import { CopyButton } from './CopyButton';

const PAGE = 100;

/** An answer that failed: an HTTP status of 400 or more, or a gRPC status other than OK. */
function failed(entry: WireEntry): boolean {
  if (typeof entry.status === 'number' && entry.status > 0) return entry.status >= 400;
  const grpc = entry.header?.['grpc-status'];
  return typeof grpc === 'string' && grpc !== 'OK';
}

function WireBody({ body }: { body: string }) {
  const pretty = useMemo(() => prettyBody(body), [body]);
  if (pretty.text === '') return <p className="muted small">(empty body)</p>;
  const cut = pretty.text.length > MAX_BODY_SHOWN;
  return (
    <div className="wire-body">
      <div className="raw-card-bar">
        <span className="muted small">{pretty.json ? 'JSON' : 'text'}</span>
        <CopyButton text={body} label="Copy body" />
      </div>
      <pre data-testid="wire-body">{cut ? pretty.text.slice(0, MAX_BODY_SHOWN) : pretty.text}</pre>
      {cut && <p className="muted small">Shown up to {MAX_BODY_SHOWN.toLocaleString()} characters; copy the body for all of it.</p>}
    </div>
  );
}

function WireRow({ entry }: { entry: WireEntry }) {
  const [open, setOpen] = useState(false);
  const detailId = useId();
  const headers = headerRows(entry.header);
  const kind = typeof entry.kind === 'string' ? entry.kind : 'unknown';
  const said = useMemo(() => describeWire(entry), [entry]);
  return (
    <li className={`wire-entry kind-${kind}`} data-testid="wire-entry" data-kind={kind}>
      <button type="button" className="wire-row" aria-expanded={open} aria-controls={detailId} onClick={() => setOpen((o) => !o)}>
        <span className="json-caret" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        <time dateTime={entry.at} title={formatDateTime(entry.at)} className="wire-time">
          {formatClock(entry.at)}
        </time>
        <span className={`badge wire-kind wire-${kind}`}>{kind}</span>
        {/* what this entry is: the method of a request, the kind of a streamed event, with its state */}
        <code className="wire-method">{entry.method || '—'}</code>
        {kind !== 'request' && said.what !== kind && (
          <span className="wire-what" data-testid="wire-what">
            {said.what}
          </span>
        )}
        {said.state && <StateBadge state={said.state} />}
        <span className={`wire-status ${failed(entry) ? 'no' : ''}`} data-testid="wire-status">
          {typeof entry.status === 'number' && entry.status > 0 ? entry.status : (entry.header?.['grpc-status'] ?? '')}
        </span>
        <span className="wire-duration muted">{typeof entry.durationMs === 'number' ? formatDuration(entry.durationMs) : ''}</span>
      </button>
      {open && (
        <div className="wire-detail" id={detailId}>
          <dl className="kv compact">
            <dt>URL</dt>
            <dd>
              <code className="break">{entry.url || '—'}</code>
            </dd>
            <dt>Call</dt>
            <dd>
              <code>{entry.callId || '—'}</code>
            </dd>
            <dt>Time</dt>
            <dd>{formatDateTime(entry.at)}</dd>
          </dl>
          {headers.length > 0 && (
            <table className="table wire-headers">
              <caption>Header</caption>
              <tbody>
                {headers.map(([k, v]) => (
                  <tr key={k}>
                    <th scope="row">{k}</th>
                    <td>
                      <code className="break">{v}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <WireBody body={entry.body} />
        </div>
      )}
    </li>
  );
}

/** Older pages a task's log loads by itself to reach the call that created the task (then Load older). */
const TASK_PAGES = 20;

// Methods a person may want to send by hand: v1.0's names, then v0.3's (the agent's dialect decides).
const RAW_METHODS = ['GetTask', 'ListTasks', 'SendMessage', 'CancelTask', 'GetExtendedAgentCard', 'tasks/get', 'message/send', 'tasks/cancel'];

/**
 * A JSON-RPC request written by hand (as a2a-inspector offers), sent through the hub's client
 * (agents.call): the agent's saved credentials go with it and the exchange lands in this log.
 */
function ByHand({ agentId }: { agentId: string }) {
  const { client } = useHub();
  const listId = useId();
  const [method, setMethod] = useState('GetTask');
  const [params, setParams] = useState('{\n  "id": ""\n}');
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<{ ok: boolean; text: string } | null>(null);
  const send = async (e: FormEvent) => {
    e.preventDefault();
    let parsed: unknown;
    try {
      parsed = params.trim() === '' ? {} : JSON.parse(params);
    } catch (err) {
      setAnswer({ ok: false, text: `The params are not JSON: ${(err as Error).message}` });
      return;
    }
    setBusy(true);
    setAnswer(null);
    try {
      const r = await client.call('agents.call', { id: agentId, method: method.trim(), params: parsed });
      setAnswer({ ok: true, text: JSON.stringify(r.result, null, 2) });
    } catch (err) {
      const rpc = err instanceof HubError ? err.rpc : undefined;
      setAnswer({ ok: false, text: rpc ? `JSON-RPC error ${rpc.code}: ${rpc.message}` : (err as Error).message });
    } finally {
      setBusy(false);
    }
  };
  return (
    <details className="wire-byhand">
      <summary>Send a request by hand</summary>
      <form onSubmit={(e) => void send(e)} aria-label="A request by hand">
        <div className="wire-byhand-field">
          <label className="field-label" htmlFor={`${listId}-m`}>
            Method
          </label>
          <input id={`${listId}-m`} className="filter" list={listId} value={method} onChange={(e) => setMethod(e.target.value)} spellCheck={false} />
          <datalist id={listId}>
            {RAW_METHODS.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </div>
        <div className="wire-byhand-field">
          <label className="field-label" htmlFor={`${listId}-p`}>
            Params (JSON)
          </label>
          <textarea id={`${listId}-p`} className="wire-byhand-params" rows={5} value={params} onChange={(e) => setParams(e.target.value)} spellCheck={false} />
        </div>
        <div className="reply-actions">
          <span className="muted small">Sent with this agent’s saved credentials; the exchange shows below.</span>
          <span className="spacer" />
          <button type="submit" className="btn btn-primary btn-small" disabled={busy || method.trim() === ''}>
            {busy ? 'Sending…' : 'Send request'}
          </button>
        </div>
      </form>
      {answer && (
        <div className={answer.ok ? 'wire-body' : 'error-line'} role={answer.ok ? 'status' : 'alert'} data-testid="byhand-answer">
          {answer.ok ? <pre>{answer.text}</pre> : answer.text}
        </div>
      )}
    </details>
  );
}

/**
 * Every request the hub sent to one remote agent and everything that came back (responses, streamed
 * events, failures), newest first; the hub masks secrets before they get here.
 *
 * With task, the log of that task: the calls that concern it, whole (the request that created the task
 * names no task yet), oldest first, so that it starts with that request. task.since (when the task was
 * created) tells how far back to load.
 */
export function WireLog({
  agentId,
  title = 'Raw log',
  initialSearch = '',
  task,
}: {
  agentId: string;
  title?: string;
  initialSearch?: string;
  task?: { id: string; since?: string };
}) {
  const { client, refreshKey } = useHub();
  const [kindFilter, setKindFilter] = useState('');
  const [search, setSearch] = useState(initialSearch);
  const [clearedAt, setClearedAt] = useState<number>(-1); // Clear hides what is there now
  const [note, setNote] = useState('');
  const headingId = useId();
  const [entries, setEntries] = useState<WireEntry[]>([]);
  const [next, setNext] = useState<number | undefined>(undefined);
  const [loaded, setLoaded] = useState(false);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    client.call('wire.list', { agentId, limit: PAGE }).then(
      (r) => {
        if (!live) return;
        setEntries((cur) => mergeWire(cur, Array.isArray(r?.entries) ? r.entries : []));
        // only the first load decides where older pages start; a refetch keeps pages already loaded
        setNext((n) => (loaded ? n : typeof r?.next === 'number' ? r.next : undefined));
        setLoaded(true);
        setError(null);
      },
      (e: Error) => live && !isDisconnect(e) && setError(e.message),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, agentId, refreshKey]);

  useTopic('wire', (u) => {
    if (!u || u.agentId !== agentId || !u.entry) return;
    setEntries((cur) => mergeWire(cur, [u.entry]));
  });

  const loadOlder = useCallback(() => {
    if (next === undefined || loadingOlder) return;
    setLoadingOlder(true);
    client.call('wire.list', { agentId, before: next, limit: PAGE }).then(
      (r) => {
        setEntries((cur) => mergeWire(cur, Array.isArray(r?.entries) ? r.entries : []));
        setNext(typeof r?.next === 'number' ? r.next : undefined);
        setLoadingOlder(false);
      },
      (e: Error) => {
        setLoadingOlder(false);
        if (!isDisconnect(e)) setError(e.message);
      },
    );
  }, [client, agentId, next, loadingOlder]);

  // A task's log loads older pages by itself until it reaches the task's creation (bounded).
  const [autoPages, setAutoPages] = useState(0);
  const since = task?.since ? parseTime(task.since) : NaN;
  const oldest = entries.length ? parseTime(entries[entries.length - 1].at) : NaN;
  const reachedStart = !task || (Number.isFinite(since) && Number.isFinite(oldest) && oldest < since);
  useEffect(() => {
    if (!task || !loaded || reachedStart || next === undefined || loadingOlder || autoPages >= TASK_PAGES) return;
    setAutoPages((n) => n + 1);
    loadOlder();
  }, [task, loaded, reachedStart, next, loadingOlder, autoPages, loadOlder]);

  const mine = useMemo(() => (task ? taskEntries(entries, task.id) : entries), [entries, task?.id]); // eslint-disable-line react-hooks/exhaustive-deps
  const shown = useMemo(
    () => mine.filter((e) => (typeof e.id !== 'number' || e.id > clearedAt) && wireMatches(e, kindFilter, search)),
    [mine, clearedAt, kindFilter, search],
  );
  const calls = useMemo(() => {
    const grouped = groupWire(shown);
    return task ? grouped.reverse().map((c) => ({ ...c, entries: [...c.entries].reverse() })) : grouped;
  }, [shown, task]);
  const exportLog = () => {
    const name = `raw-log-${agentId.slice(0, 12)}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
    void saveFile(name, utf8ToBase64(JSON.stringify(shown, null, 2))).then(
      (r) => setNote(r.saved ? (r.path ? `Saved to ${r.path}` : 'Downloaded') : ''),
      (e: Error) => setNote(`Could not save: ${e.message}`),
    );
  };

  return (
    <section className="section wire-log" aria-labelledby={headingId}>
      <h3 id={headingId}>{title}</h3>
      <p className="small muted">
        {task
          ? 'The calls about this task, oldest first: the request that created it, what came back, and every call since. Secrets are masked (•••).'
          : 'Every request the hub sent to this agent and what came back, newest first, by call. Secrets are masked (•••).'}
      </p>
      <div className="wire-tools" role="group" aria-label="Raw log tools">
        <label className="select-label">
          <span>Kind</span>
          <select value={kindFilter} onChange={(e) => setKindFilter(e.target.value)}>
            <option value="">All</option>
            <option value="request">Requests</option>
            <option value="response">Responses</option>
            <option value="event">Events</option>
            <option value="error">Errors</option>
          </select>
        </label>
        <input
          className="filter"
          type="search"
          aria-label="Search the raw log"
          placeholder="Search method, state, task, body"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        <span className="spacer" />
        <button type="button" className="btn btn-small" disabled={shown.length === 0} onClick={exportLog}>
          Export
        </button>
        <button
          type="button"
          className="btn btn-small"
          disabled={entries.length === 0}
          onClick={() => setClearedAt(Math.max(clearedAt, ...entries.map((e) => (typeof e.id === 'number' ? e.id : -1))))}
        >
          Clear
        </button>
      </div>
      {!task && <ByHand agentId={agentId} />}
      {note && (
        <p className="muted small" role="status">
          {note}
        </p>
      )}
      {error && (
        <p className="error-line" role="alert">
          Could not load the log: {error}
        </p>
      )}
      {!loaded && !error && <p className="muted">Loading…</p>}
      {loaded && mine.length === 0 && (
        <p className="muted">{task ? 'No call about this task in the log (yet).' : 'Nothing yet: the log fills as soon as the hub calls this agent.'}</p>
      )}
      {loaded && mine.length > 0 && shown.length === 0 && <p className="muted">Nothing matches{clearedAt >= 0 ? ' (cleared)' : ''}.</p>}
      {shown.length > 0 && (
        <ol className="wire-list" aria-label="Raw log entries">
          {calls.map((c) => (
            <li key={c.callId} className="wire-call" data-testid="wire-call">
              <div className="wire-call-head muted small">
                <code>{c.method || 'call'}</code>
                {c.taskIds.length > 0 && <span>task {c.taskIds.map((t) => t.slice(0, 8)).join(', ')}</span>}
                <span>
                  {c.entries.length} entr{c.entries.length === 1 ? 'y' : 'ies'}
                </span>
              </div>
              <ol className="wire-call-entries" aria-label={`Call ${c.method || c.callId}`}>
                {c.entries.map((e) => (
                  <WireRow key={String(e.id)} entry={e} />
                ))}
              </ol>
            </li>
          ))}
        </ol>
      )}
      {next !== undefined && (
        <button type="button" className="btn" disabled={loadingOlder} onClick={loadOlder}>
          {loadingOlder ? 'Loading…' : 'Load older'}
        </button>
      )}
    </section>
  );
}
