import { useCallback, useEffect, useId, useMemo, useState } from 'react';
import type { WireEntry } from '../api/types';
import { formatClock, formatDateTime, formatDuration } from '../lib/format';
import { headerRows, MAX_BODY_SHOWN, mergeWire, prettyBody } from '../lib/wire';
import { isDisconnect, useHub, useTopic } from '../state/hub';
import { CopyButton } from './CopyButton';

const PAGE = 100;

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
        <code className="wire-method">{entry.method || '—'}</code>
        <span className={`wire-status ${typeof entry.status === 'number' && entry.status >= 400 ? 'no' : ''}`}>
          {typeof entry.status === 'number' && entry.status > 0 ? entry.status : ''}
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

/**
 * Every request the hub sent to one remote agent and everything that came back (responses, streamed
 * events, failures), newest first; the hub masks secrets before they get here.
 */
export function WireLog({ agentId }: { agentId: string }) {
  const { client, refreshKey } = useHub();
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

  return (
    <section className="section wire-log" aria-labelledby="wire-h">
      <h3 id="wire-h">Raw log</h3>
      <p className="small muted">Every request the hub sent to this agent and what came back, newest first. Secrets are masked (•••).</p>
      {error && (
        <p className="error-line" role="alert">
          Could not load the log: {error}
        </p>
      )}
      {!loaded && !error && <p className="muted">Loading…</p>}
      {loaded && entries.length === 0 && <p className="muted">Nothing yet: the log fills as soon as the hub calls this agent.</p>}
      {entries.length > 0 && (
        <ol className="wire-list" aria-label="Raw log entries">
          {entries.map((e) => (
            <WireRow key={String(e.id)} entry={e} />
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
