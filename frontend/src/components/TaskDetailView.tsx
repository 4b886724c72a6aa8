import { useEffect, useMemo, useRef, useState } from 'react';
import { isTerminal } from '../api/types';
import { openingMessages } from '../lib/conversation';
import { formatDateTime, formatDuration, parseTime } from '../lib/format';
import { artifactsOf, prettyJson } from '../lib/parts';
import { hrefOf } from '../lib/router';
import { channelLabel } from '../lib/tasklist';
import { saveFile, utf8ToBase64 } from '../native';
import { agentName, useHub } from '../state/hub';
import { useTask } from '../state/useTask';
import { CopyButton } from './CopyButton';
import { ErrorBox } from './ErrorBox';
import { WireLog } from './WireLog';
import { EmptyState } from './EmptyState';
import { Parts } from './Parts';
import { PushLine } from './PushLine';
import { StateBadge } from './StateBadge';
import { UnreadableNotice } from './Unreadable';
import { Timeline } from './Timeline';

function fileNameFor(title: string, id: string): string {
  const base = (title || 'task').replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'task';
  return `${base}-${id.slice(0, 8)}.json`;
}

/** A task: header, artifacts and its live timeline. */
export function TaskDetailView({ agent, taskId }: { agent: string; taskId: string }) {
  const { agents, client } = useHub();
  const [canceling, setCanceling] = useState(false);
  const [cancelError, setCancelError] = useState('');
  const [showLog, setShowLog] = useState(false);
  const logRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (showLog) logRef.current?.scrollIntoView?.({ block: 'start' });
  }, [showLog]);
  const view = useTask(agent, taskId);
  const [showRaw, setShowRaw] = useState(false);
  const [note, setNote] = useState('');
  const s = view.summary;
  const artifacts = useMemo(() => artifactsOf(view.events, view.detail?.artifacts), [view.events, view.detail]);
  const opening = useMemo(() => openingMessages(view.detail?.history, view.events), [view.events, view.detail]);

  if (view.error && !view.detail) {
    return (
      <EmptyState title="Could not open this task" icon="!">
        <p>{view.error}</p>
        <button type="button" className="btn" onClick={view.reload}>
          Try again
        </button>
      </EmptyState>
    );
  }
  if (!s) return <p className="muted pad">Loading task…</p>;

  const ended = isTerminal(s.state);
  const start = parseTime(s.createdAt);
  const end = ended ? parseTime(s.updatedAt) : Date.now();
  const took = Number.isFinite(start) && Number.isFinite(end) ? formatDuration(end - start) : '';

  const exportJson = () => {
    const doc = { summary: s, task: view.detail?.raw ?? null, events: view.events };
    void saveFile(fileNameFor(s.title, s.id), utf8ToBase64(JSON.stringify(doc, null, 2))).then(
      (r) => setNote(r.saved ? (r.path ? `Saved to ${r.path}` : 'Downloaded') : ''),
      (e: Error) => setNote(`Could not save: ${e.message}`),
    );
  };

  return (
    <article className="detail task-detail" data-testid="task-detail" aria-labelledby="task-title">
      <header className="detail-head column">
        <div className="title-row">
          <h2 id="task-title">{s.title || '(no text)'}</h2>
          <StateBadge state={s.state} />
          {!ended && s.state !== 'unknown' && (
            <span className="live" title="Updating live">
              <span className="live-dot" aria-hidden="true" /> live
            </span>
          )}
        </div>
        <dl className="meta-line">
          <div>
            <dt>Agent</dt>
            <dd>{agentName(agents, s.agent)}</dd>
          </div>
          <div>
            <dt>Direction</dt>
            <dd>
              {s.direction === 'incoming'
                ? 'Incoming (sent to you or your agents)'
                : s.direction === 'outgoing'
                  ? 'Outgoing (sent by you)'
                  : s.direction === 'channel'
                    ? `From ${channelLabel(s)}`
                    : s.direction}
            </dd>
          </div>
          <div>
            <dt>Dialect</dt>
            <dd>A2A {s.dialect}</dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>
              <time dateTime={s.createdAt}>{formatDateTime(s.createdAt)}</time>
            </dd>
          </div>
          <div>
            <dt>{ended ? 'Took' : 'Running for'}</dt>
            <dd>{took}</dd>
          </div>
          <div>
            <dt>Task</dt>
            <dd className="task-id">
              {/* the whole id, selectable at a click; wraps rather than being cut */}
              <code className="break select-all" data-testid="task-id">
                {s.id}
              </code>{' '}
              <CopyButton text={s.id} label="Copy task ID" />
            </dd>
          </div>
        </dl>
        <div className="toolbar">
          <label className="switch">
            <input type="checkbox" checked={showRaw} onChange={(e) => setShowRaw(e.target.checked)} />
            <span>Show raw JSON</span>
          </label>
          <span className="spacer" />
          {s.conversationId && (
            <a className="btn" href={hrefOf({ area: 'chats', conversationId: s.conversationId })}>
              Open its chat
            </a>
          )}
          {s.channelId && (
            <a className="btn" href={hrefOf({ area: 'chats', channelId: s.channelId })}>
              Open {s.channelName ? '#' + s.channelName : 'its channel'}
            </a>
          )}
          {s.waitingForOwner && (
            <a className="btn btn-primary" href={hrefOf({ area: 'inbox', taskId: s.id })}>
              Answer in Inbox
            </a>
          )}
          {!ended && s.state !== 'unknown' && !s.waitingForOwner && s.agent !== 'hub' && (
            <button
              type="button"
              className="btn btn-danger"
              disabled={canceling}
              onClick={() => {
                setCanceling(true);
                setCancelError('');
                client.call('tasks.cancel', { agent: s.agent, id: s.id }).then(
                  () => setCanceling(false),
                  (e: Error) => {
                    setCanceling(false);
                    setCancelError(e?.message || 'Could not cancel.');
                  },
                );
              }}
            >
              {canceling ? 'Canceling…' : 'Cancel task'}
            </button>
          )}
          <button type="button" className="btn" aria-pressed={showLog} onClick={() => setShowLog((v) => !v)}>
            Raw log
          </button>
          <button type="button" className="btn" onClick={exportJson}>
            Export JSON
          </button>
        </div>
        <UnreadableNotice task={s} />
        <PushLine agent={agent} taskId={taskId} initial={view.detail?.push} />
        {cancelError && <ErrorBox message={cancelError} context="agent" />}
        {note && (
          <p className="muted small" role="status">
            {note}
          </p>
        )}
      </header>

      {artifacts.length > 0 && (
        <section className="section" aria-labelledby="artifacts-h">
          <h3 id="artifacts-h">Artifacts ({artifacts.length})</h3>
          <ul className="artifacts">
            {artifacts.map((a) => (
              <li key={a.id} className="artifact" data-testid="artifact">
                <div className="artifact-head">
                  <strong>{a.name || 'Artifact'}</strong>
                  {a.description && <span className="muted small"> — {a.description}</span>}
                </div>
                <Parts parts={a.parts} />
              </li>
            ))}
          </ul>
        </section>
      )}

      <section className="section" aria-labelledby="timeline-h">
        <h3 id="timeline-h">
          Timeline <span className="muted small">({view.events.length} events)</span>
        </h3>
        {view.events.length === 0 ? <p className="muted">No events recorded yet.</p> : <Timeline events={view.events} showRaw={showRaw} opening={opening} />}
      </section>

      {showLog && (
        // what went over the wire with the task's agent about this task, scrolled to: it opens below the timeline
        <div ref={logRef} className="task-log">
          <WireLog agentId={s.agent} title="Raw log of this task" task={{ id: s.id, since: s.createdAt }} />
        </div>
      )}

      {showRaw && view.detail && (
        <section className="section" aria-labelledby="rawtask-h">
          <h3 id="rawtask-h">Stored task (A2A v1.0 JSON)</h3>
          <pre className="raw-json">{prettyJson(view.detail.raw)}</pre>
        </section>
      )}
    </article>
  );
}
