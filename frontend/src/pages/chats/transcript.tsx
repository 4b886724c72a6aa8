// The lines of one conversation's transcript: the messages and artifacts (Bubble), a task's state
// line with its actions (TaskLine), and a failed call (ErrorNotice), with the pure helpers they
// rest on. They only render what ChatView hands them and call back; they hold no conversation state.

import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import type { ChatEntry, ChatError, TimelineEvent } from '../../api/types';
import { TASK_STATES } from '../../api/types';
import type { ComposerSend } from '../../components/Composer';
import { ErrorBox } from '../../components/ErrorBox';
import type { SurfaceAction } from '../../components/A2uiSurfaceView';
import { Parts } from '../../components/Parts';
import { Timeline } from '../../components/Timeline';
import { isActiveState, taskStateText, type ChatItem } from '../../lib/chat';
import { explain } from '../../lib/errors';
import { formatChatTime, formatDateTime, formatDuration, parseTime } from '../../lib/format';
import { hrefOf } from '../../lib/router';

const KNOWN_STATES = new Set<string>(TASK_STATES);

// The A2UI renderer (@a2ui/react and its core, ~200 kB) loads with the first surface a chat shows.
const A2uiSurfaceView = lazy(() => import('../../components/A2uiSurfaceView').then((m) => ({ default: m.A2uiSurfaceView })));

function errorLead(err: ChatError, agentName: string): string {
  switch (err.kind) {
    case 'auth':
      return `${agentName} refused the call: it needs credentials, or refused the ones saved.`;
    case 'network':
      return `Could not reach ${agentName}.`;
    case 'protocol':
      return `${agentName} answered something the hub could not understand.`;
    default:
      return `${agentName} returned an error.`;
  }
}

/** The owner's message a failed call was sending: the newest out entry before it. */
export function failedSend(entries: ChatEntry[], seq: number): ComposerSend | null {
  let out: ChatEntry | undefined;
  for (const e of entries) if (e.direction === 'out' && e.seq < seq && (!out || e.seq > out.seq)) out = e;
  const parts = out?.message?.parts;
  if (!out || !Array.isArray(parts)) return null;
  const text = parts.map((p) => (p?.kind === 'text' ? p.text : '')).join('');
  const files = parts.flatMap((p) =>
    p?.kind === 'file' && typeof p.bytes === 'string' ? [{ name: p.name || 'file', mediaType: p.mediaType || 'application/octet-stream', bytes: p.bytes }] : [],
  );
  if (!text && files.length === 0) return null;
  return { text, files, ...(out.taskId ? { taskId: out.taskId } : {}) };
}

export function ErrorNotice({
  item,
  agentId,
  agentName,
  onRetry,
}: {
  item: Extract<ChatItem, { type: 'error' }>;
  agentId: string;
  agentName: string;
  /** sends the failed message again */
  onRetry?: () => Promise<unknown>;
}) {
  const e = item.error;
  const [retrying, setRetrying] = useState(false);
  const fix = explain(e.message, 'send').fix;
  return (
    <li className={`chat-error kind-${e.kind}`} data-testid="chat-error" data-kind={e.kind}>
      <span className="chat-error-icon" aria-hidden="true">
        ⚠
      </span>
      <div>
        <p className="chat-error-lead">{errorLead(e, agentName)}</p>
        {fix && e.kind !== 'auth' && <p className="small chat-error-fix">{fix}</p>}
        <details className="error-details">
          <summary>Details</summary>
          <code className="break chat-error-detail">
            {e.message}
            {typeof e.code === 'number' ? ` (code ${e.code})` : ''}
          </code>
        </details>
        {e.kind === 'auth' && (
          <a className="btn btn-small" href={hrefOf({ area: 'agents', agentId, view: 'credentials' })}>
            Set credentials
          </a>
        )}
        {onRetry && e.kind !== 'auth' && (
          <button
            type="button"
            className="btn btn-small"
            disabled={retrying}
            onClick={() => {
              setRetrying(true);
              onRetry().finally(() => setRetrying(false));
            }}
          >
            {retrying ? 'Sending again…' : 'Retry'}
          </button>
        )}
      </div>
      {item.at && (
        <time className="muted small" dateTime={item.at} title={formatDateTime(item.at)}>
          {formatChatTime(item.at)}
        </time>
      )}
    </li>
  );
}

/** The recorded events of one task, as a timeline: what the agent sent, in order, with times. */
function taskTimeline(entries: ChatEntry[], taskId: string): TimelineEvent[] {
  return entries.filter((e) => e.taskId === taskId && e.direction === 'in').map((e) => ({ ...e, raw: undefined }));
}

export function TaskLine({
  item,
  agentId,
  entries,
  onCancel,
  onAnswer,
  took,
  onRetry,
}: {
  item: Extract<ChatItem, { type: 'task' }>;
  agentId: string;
  entries: ChatEntry[];
  onCancel: (taskId: string) => Promise<unknown>;
  /** set while the task asks a question the composer is not answering: answer it from here */
  onAnswer?: (taskId: string) => void;
  /** how long the task took, once it ended */
  took?: string;
  /** a failed (or interrupted) task: send the message that started it again */
  onRetry?: () => Promise<unknown>;
}) {
  const [canceling, setCanceling] = useState(false);
  const [error, setError] = useState('');
  const [showTimeline, setShowTimeline] = useState(false);
  const timelineRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (showTimeline) timelineRef.current?.scrollIntoView?.({ block: 'nearest' }); // it opens below the fold otherwise
  }, [showTimeline]);
  const active = isActiveState(item.state);
  useEffect(() => {
    if (item.ended) setCanceling(false);
  }, [item.ended]);
  return (
    <li className={`task-line state state-${KNOWN_STATES.has(item.state) ? item.state : 'unknown'}`} data-testid="task-state" data-task-id={item.taskId} data-state={item.state}>
      {active && <span className="working-dots" aria-hidden="true" />}
      <span className="task-line-text">{taskStateText(item.state)}</span>
      {took && <span className="muted small task-took">took {took}</span>}
      {item.at && (
        <time className="muted small" dateTime={item.at} title={formatDateTime(item.at)}>
          {formatChatTime(item.at)}
        </time>
      )}
      {item.state === 'auth-required' && (
        <a className="btn btn-small" href={hrefOf({ area: 'agents', agentId, view: 'credentials' })}>
          Set credentials
        </a>
      )}
      {!item.ended && (
        <button
          type="button"
          className="btn btn-small"
          aria-label="Cancel task"
          disabled={canceling}
          onClick={() => {
            setCanceling(true);
            setError('');
            onCancel(item.taskId).catch((e: Error) => {
              setCanceling(false);
              setError(e?.message || 'Could not cancel.');
            });
          }}
        >
          {canceling ? 'Canceling…' : 'Cancel'}
        </button>
      )}
      {onRetry && item.state === 'failed' && (
        <button
          type="button"
          className="btn btn-small"
          disabled={canceling}
          onClick={() => {
            setCanceling(true);
            onRetry().finally(() => setCanceling(false));
          }}
        >
          Retry
        </button>
      )}
      {onAnswer && (
        <button type="button" className="btn btn-small" onClick={() => onAnswer(item.taskId)}>
          Answer
        </button>
      )}
      <button type="button" className="btn btn-small" aria-expanded={showTimeline} onClick={() => setShowTimeline((v) => !v)}>
        Timeline
      </button>
      <a className="btn btn-small" href={hrefOf({ area: 'tasks', agent: agentId, taskId: item.taskId })}>
        Open in Tasks
      </a>
      {error && <ErrorBox message={error} context="agent" />}
      {showTimeline && (
        <div className="task-line-timeline" ref={timelineRef}>
          <Timeline events={taskTimeline(entries, item.taskId)} showRaw={false} />
        </div>
      )}
    </li>
  );
}

/** How an ended task finished: its final state and how long it took, e.g. "Completed · took 5.0s". */
export type Ended = Map<string, { state: string; took: string }>;

/** The ended tasks of a transcript, each timed from the message that started it to its final state. */
export function endedTasksOf(entries: ChatEntry[], tasks: { taskId: string; state?: string; ended: boolean; firstSeq: number; at: string }[]): Ended {
  const out: Ended = new Map();
  for (const t of tasks) {
    if (!t.ended || !t.state) continue;
    let start: string | undefined;
    for (const e of entries) if (e.direction === 'out' && e.seq < t.firstSeq) start = e.at;
    start ??= entries.find((e) => e.seq === t.firstSeq)?.at;
    const ms = parseTime(t.at) - parseTime(start ?? '');
    out.set(t.taskId, { state: t.state, took: Number.isFinite(ms) && ms >= 0 ? formatDuration(ms) : '' });
  }
  return out;
}

/** An agent's A2UI surface as a bubble; read-only once its task ended. */
export function SurfaceBubble({
  item,
  agentName,
  readOnly,
  onAction,
  onError,
}: {
  item: Extract<ChatItem, { type: 'surface' }>;
  agentName: string;
  readOnly: boolean;
  onAction?: (item: Extract<ChatItem, { type: 'surface' }>, action: SurfaceAction, dataModel?: Record<string, unknown>) => Promise<unknown>;
  onError?: (item: Extract<ChatItem, { type: 'surface' }>, error: { code: string; message: string; path?: string }) => void;
}) {
  return (
    <li className="bubble from-agent is-surface" data-testid="chat-surface" data-from="agent" data-task-id={item.taskId} data-surface-id={item.surfaceId}>
      <div className="bubble-head">
        <span className="bubble-who">{agentName}</span>
        <span className="tag">form</span>
        {item.at && (
          <time className="muted small" dateTime={item.at} title={formatDateTime(item.at)}>
            {formatChatTime(item.at)}
          </time>
        )}
      </div>
      <Suspense fallback={<p className="muted small">Loading the form…</p>}>
        <A2uiSurfaceView
          surfaceId={item.surfaceId}
          messages={item.messages}
          readOnly={readOnly}
          onAction={onAction ? (a, dm) => onAction(item, a, dm) : undefined}
          onError={onError ? (e) => onError(item, e) : undefined}
        />
      </Suspense>
    </li>
  );
}

/** What the owner did on a form, as one compact line: "You chose plan release (version: 2.0 · …)". */
export function ActionLine({ item }: { item: Extract<ChatItem, { type: 'action' }> }) {
  return (
    <li className="action-line muted small" data-testid="chat-action" data-task-id={item.taskId}>
      <span aria-hidden="true">↳ </span>
      {item.text}
      {item.at && (
        <time className="muted small" dateTime={item.at} title={formatDateTime(item.at)}>
          {' '}
          {formatChatTime(item.at)}
        </time>
      )}
    </li>
  );
}

export function Bubble({
  item,
  agentName,
  endedTasks,
  continued = false,
}: {
  item: Exclude<ChatItem, { type: 'task' } | { type: 'error' } | { type: 'surface' } | { type: 'action' }>;
  agentName: string;
  endedTasks: Ended;
  /** the same sender's bubble is right above: no sender line (still said to screen readers) */
  continued?: boolean;
}) {
  const from = item.from;
  // A progress bubble ("Working… 4/5") of a task that ended without a result (one with a result folds
  // away, see lib/chat.ts) is muted: its state line below says how it ended, once.
  const ended = item.type === 'status' && item.state === 'working' && item.taskId ? endedTasks.get(item.taskId) : undefined;
  const streaming = item.type === 'artifact' && !item.complete && !(item.taskId && endedTasks.has(item.taskId));
  const parts = item.type === 'artifact' ? item.artifact.parts : item.message.parts;
  const label = item.type === 'artifact' ? item.artifact.name : undefined;
  return (
    <li
      className={`bubble from-${from} ${item.type === 'status' ? `is-status status-${item.state}` : ''} ${streaming ? 'is-streaming' : ''} ${ended ? 'progress-ended' : ''} ${continued ? 'continued' : ''}`}
      data-testid={item.type === 'artifact' ? 'chat-artifact' : 'chat-message'}
      data-from={from}
      data-task-id={item.taskId}
      aria-busy={streaming || undefined}
    >
      <div className="bubble-head">
        <span className={continued ? 'bubble-who sr-only' : 'bubble-who'}>{from === 'owner' ? 'You' : agentName}</span>
        {item.type === 'status' && item.state === 'input-required' && <span className="tag tag-accent">asks</span>}
        {label && <span className="muted small artifact-name">{label}</span>}
        {item.at && (
          <time className="muted small" dateTime={item.at} title={formatDateTime(item.at)}>
            {formatChatTime(item.at)}
          </time>
        )}
      </div>
      <Parts parts={parts} from={from} />
      {streaming && (
        <span className="stream-caret" aria-label="still arriving">
          ▍
        </span>
      )}
    </li>
  );
}
