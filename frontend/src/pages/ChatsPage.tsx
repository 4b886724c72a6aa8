import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import type { AgentInfo, ChatEntry, ChatError, Conversation, TimelineEvent } from '../api/types';
import { TASK_STATES } from '../api/types';
import { Composer, type ComposerSend } from '../components/Composer';
import { Dialog } from '../components/Dialog';
import { Parts } from '../components/Parts';
import { EmptyState } from '../components/EmptyState';
import { StateBadge } from '../components/StateBadge';
import { Timeline } from '../components/Timeline';
import { buildTranscript, isActiveState, taskStateText, type ChatItem } from '../lib/chat';
import { formatChatTime, formatDateTime, formatDuration, formatRelative, parseTime, plainTitle } from '../lib/format';
import { adopt, isUnread, loadSeen, markSeen, saveSeen, type Seen } from '../lib/chatseen';
import { hrefOf, navigate } from '../lib/router';
import { useListKeys } from '../lib/useListKeys';
import { isDisconnect, useHub, useTopic } from '../state/hub';
import { useConversation, useStartChat } from '../state/useChat';
import { explain } from '../lib/errors';
import { ErrorBox } from '../components/ErrorBox';
import { WireLog } from '../components/WireLog';
import { extOf } from '../channels/api';
import { ChannelView } from '../channels/ChannelView';
import type { Channel } from '../channels/model';
import { NewChannelDialog, NewDirectDialog } from '../channels/NewDialogs';
import { adoptMarks, channelKey, loadMarks, markRead, saveMarks, safeStorage, type ReadMarks } from '../channels/readmarks';
import { ChannelSections } from '../channels/Sidebar';
import { useChannelList } from '../channels/useChannelList';

const KNOWN_STATES = new Set<string>(TASK_STATES);

/** Agents the owner can chat with: this hub's own (the demo agent, the hub itself), then added ones by name. */
export function chatAgents(agents: AgentInfo[]): AgentInfo[] {
  const rank = (a: AgentInfo) => (a.kind === 'local' ? 0 : a.kind === 'hub' ? 1 : 2);
  return agents
    .filter((a) => a.canChat || a.kind === 'remote')
    .sort((a, b) => rank(a) - rank(b) || (a.name || a.id).localeCompare(b.name || b.id));
}

function titleOf(c: Pick<Conversation, 'title' | 'agentName' | 'agentId'>): string {
  return plainTitle(c.title ?? '') || `New chat with ${c.agentName || c.agentId}`;
}

function byActivity(a: Conversation, b: Conversation): number {
  const ta = parseTime(a.updatedAt);
  const tb = parseTime(b.updatedAt);
  if (Number.isFinite(ta) && Number.isFinite(tb) && ta !== tb) return tb - ta;
  return (b.updatedAt || '').localeCompare(a.updatedAt || '');
}

function safeLocalStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** Re-renders every 30 s so that "5 min ago" stays true. */
function useNow(ms = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

// ---------------------------------------------------------------- picking an agent

function NewChatDialog({ onClose }: { onClose: () => void }) {
  const { agents, agentsLoaded } = useHub();
  const { start, busy, error } = useStartChat();
  const list = chatAgents(agents);
  return (
    <Dialog title="New chat" onClose={onClose}>
      {list.length === 0 ? (
        <p>
          {agentsLoaded ? 'There is no agent to chat with yet. ' : 'Loading agents… '}
          <a href="#/agents" onClick={onClose}>
            Add one by its URL on the Agents page
          </a>
          .
        </p>
      ) : (
        <>
          <p className="muted small">Pick the agent to talk to. Everything you exchange is recorded on this computer.</p>
          <ul className="agent-pick" aria-label="Agents to chat with">
            {list.map((a) => (
              <li key={a.id}>
                <button
                  type="button"
                  className="agent-pick-btn"
                  aria-label={`Chat with ${a.name || a.id}`}
                  disabled={busy}
                  onClick={() =>
                    void start(a.id).then((c) => {
                      if (c) onClose();
                    })
                  }
                >
                  <span className="avatar" aria-hidden="true">
                    {(a.name || a.id || '?').trim().charAt(0).toUpperCase()}
                  </span>
                  <span className="agent-pick-text">
                    <span className="agent-pick-name">{a.name || a.id}</span>
                    {a.description && <span className="muted small agent-pick-desc">{a.description}</span>}
                  </span>
                  <span className={`online ${a.online ? 'is-online' : 'is-offline'}`}>
                    <span className="dot" aria-hidden="true" />
                    {a.online ? 'online' : 'offline'}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      {error && <ErrorBox message={error} context="agent" />}
    </Dialog>
  );
}

// ---------------------------------------------------------------- the transcript

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

function ErrorNotice({
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

function TaskLine({
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
type Ended = Map<string, { state: string; took: string }>;

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

function Bubble({ item, agentName, endedTasks }: { item: Exclude<ChatItem, { type: 'task' } | { type: 'error' }>; agentName: string; endedTasks: Ended }) {
  const from = item.from;
  // A progress bubble ("Working… 4/5") of a task that has ended shows how it ended, not its last tick.
  const ended = item.type === 'status' && item.state === 'working' && item.taskId ? endedTasks.get(item.taskId) : undefined;
  const streaming = item.type === 'artifact' && !item.complete && !(item.taskId && endedTasks.has(item.taskId));
  const parts = item.type === 'artifact' ? item.artifact.parts : item.message.parts;
  const label = item.type === 'artifact' ? item.artifact.name : undefined;
  return (
    <li
      className={`bubble from-${from} ${item.type === 'status' ? `is-status status-${item.state}` : ''} ${streaming ? 'is-streaming' : ''} ${ended ? 'progress-ended' : ''}`}
      data-testid={item.type === 'artifact' ? 'chat-artifact' : 'chat-message'}
      data-from={from}
      data-task-id={item.taskId}
      aria-busy={streaming || undefined}
    >
      <div className="bubble-head">
        <span className="bubble-who">{from === 'owner' ? 'You' : agentName}</span>
        {item.type === 'status' && item.state === 'input-required' && <span className="tag tag-accent">asks</span>}
        {label && <span className="muted small artifact-name">{label}</span>}
        {item.at && (
          <time className="muted small" dateTime={item.at} title={formatDateTime(item.at)}>
            {formatChatTime(item.at)}
          </time>
        )}
      </div>
      {ended && (
        <p className="progress-final" data-testid="progress-final">
          {taskStateText(ended.state)}
          {ended.took ? ` · took ${ended.took}` : ''}
        </p>
      )}
      <Parts parts={parts} from={from} />
      {streaming && (
        <span className="stream-caret" aria-label="still arriving">
          ▍
        </span>
      )}
    </li>
  );
}

// ---------------------------------------------------------------- one conversation

function TitleEditor({ conversation, onDone }: { conversation: Conversation; onDone: (c?: Conversation) => void }) {
  const { client } = useHub();
  const [title, setTitle] = useState(conversation.title);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!title.trim() || busy) return;
    setBusy(true);
    try {
      const c = await client.call('chats.rename', { id: conversation.id, title: title.trim() });
      onDone(c);
    } catch (err) {
      setError((err as Error)?.message || 'Could not rename.');
      setBusy(false);
    }
  };
  return (
    <form className="title-editor" aria-label="Rename the conversation" onSubmit={submit}>
      <input
        type="text"
        aria-label="Title"
        value={title}
        autoFocus
        maxLength={200}
        onChange={(e) => setTitle(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            onDone();
          }
        }}
      />
      <button type="submit" className="btn btn-primary btn-small" disabled={busy || !title.trim()}>
        Save
      </button>
      <button type="button" className="btn btn-small" onClick={() => onDone()}>
        Cancel
      </button>
      {error && (
        <span className="reply-error small" role="alert">
          {error}
        </span>
      )}
    </form>
  );
}

function ChatView({
  id,
  onConversation,
  onDeleted,
  logOpen = false,
  onToggleLog,
}: {
  id: string;
  onConversation: (c: Conversation) => void;
  onDeleted: (id: string) => void;
  /** the raw log shows beside the conversation */
  logOpen?: boolean;
  onToggleLog?: () => void;
}) {
  const { client, agents, agentsLoaded } = useHub();
  const view = useConversation(id);
  const { conversation, entries } = view;
  const { start, busy: starting, error: startError } = useStartChat();
  const [renaming, setRenaming] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [deleteError, setDeleteError] = useState('');
  const transcript = useMemo(() => buildTranscript(entries), [entries]);
  const endedTasks = useMemo(() => endedTasksOf(entries, transcript.tasks), [entries, transcript]);
  // A question the owner chose to answer from its task line (an older one, or one set aside).
  const [target, setTarget] = useState<{ taskId: string; key: number } | null>(null);
  const targetTask = target ? transcript.tasks.find((t) => t.taskId === target.taskId && t.state === 'input-required') : undefined;
  const answering = targetTask ? { taskId: targetTask.taskId, question: targetTask.question } : transcript.answering;

  useEffect(() => {
    if (conversation) onConversation(conversation);
  }, [conversation, onConversation]);

  // Follow the conversation while the person is at its end; leave them alone when they scrolled up.
  const scrollRef = useRef<HTMLOListElement>(null);
  const stick = useRef(true);
  const [away, setAway] = useState(false); // scrolled up: offer "Jump to latest"
  const onScroll = () => {
    const el = scrollRef.current;
    if (el) stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 160;
    setAway(!stick.current);
  };
  useEffect(() => {
    const el = scrollRef.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [entries, conversation?.busy]);
  const jump = () => {
    const el = scrollRef.current;
    if (el) el.scrollTop = el.scrollHeight;
    stick.current = true;
    setAway(false);
  };

  const send = useCallback(
    async ({ text, files, taskId }: ComposerSend) => {
      const entry = await client.call('chats.send', {
        id,
        ...(text ? { text } : {}),
        ...(files.length ? { files } : {}),
        ...(taskId ? { taskId } : {}),
      });
      if (entry && typeof entry === 'object') view.addEntry(entry);
      if (taskId) setTarget(null);
      stick.current = true;
    },
    [client, id, view.addEntry], // eslint-disable-line react-hooks/exhaustive-deps
  );
  const cancel = useCallback((taskId: string) => client.call('chats.cancel', { id, taskId }), [client, id]);
  // Retry on a failed send: the same message again (only the newest failure offers it).
  const lastError = useMemo(() => Math.max(-1, ...transcript.items.filter((i) => i.type === 'error').map((i) => (i as { seq: number }).seq)), [transcript]);
  // Retry on a failed task (the agent failed it, or it was interrupted): the message that started it.
  const retryTask = (taskId: string) => {
    const t = transcript.tasks.find((x) => x.taskId === taskId);
    const msg = t && t.state === 'failed' ? failedSend(entries, t.firstSeq) : null;
    return msg ? () => send({ ...msg, taskId: undefined }).catch(() => undefined) : undefined;
  };
  const retryOf = (seq: number) => {
    if (seq !== lastError) return undefined;
    const msg = failedSend(entries, seq);
    return msg ? () => send(msg).catch(() => undefined) : undefined;
  };

  if (view.deleted) {
    return (
      <EmptyState title="This conversation was deleted" icon="○">
        <p>
          It was deleted in another window. <a href="#/chats">Back to all chats</a>.
        </p>
      </EmptyState>
    );
  }
  if (view.error && !conversation) {
    return view.error.code === 'not_found' ? (
      <EmptyState title="Conversation not found" icon="?">
        <p>
          It may have been deleted. <a href="#/chats">Back to all chats</a>.
        </p>
      </EmptyState>
    ) : (
      <EmptyState title="Could not open this conversation" icon="!">
        <p>{view.error.message}</p>
        <button type="button" className="btn" onClick={view.reload}>
          Try again
        </button>
      </EmptyState>
    );
  }
  if (!conversation) return <p className="muted pad">Loading…</p>;

  const agent = agents.find((a) => a.id === conversation.agentId);
  const agentName = agent?.name || conversation.agentName || conversation.agentId;
  const blocked = agentsLoaded && !agent ? `${agentName} was removed from this hub: this conversation can be read, not continued.` : undefined;
  const anyActive = transcript.tasks.some((t) => !t.ended && isActiveState(t.state));
  const newest = transcript.newest;

  const remove = async () => {
    setDeleteError('');
    try {
      await client.call('chats.delete', { id });
      setConfirmDelete(false);
      onDeleted(id);
    } catch (e) {
      setDeleteError((e as Error)?.message || 'Could not delete.');
    }
  };

  return (
    <article className="detail chat-view" data-testid="chat-view" aria-labelledby="chat-title">
      <header className="detail-head column chat-head">
        {renaming ? (
          <TitleEditor
            conversation={conversation}
            onDone={(c) => {
              setRenaming(false);
              if (c) view.setConversation(c);
            }}
          />
        ) : (
          <div className="title-row">
            <h2 id="chat-title">{titleOf(conversation)}</h2>
            {conversation.state && <StateBadge state={conversation.state} />}
          </div>
        )}
        <div className="chat-meta">
          <span className="muted small">
            with{' '}
            <a href={hrefOf({ area: 'agents', agentId: conversation.agentId })} data-testid="chat-agent-link">
              {agentName}
            </a>
            {conversation.dialect && <> · A2A {conversation.dialect}</>} · started {formatRelative(conversation.createdAt)}
          </span>
          <span className="spacer" />
          <button type="button" className="btn btn-small" disabled={!!blocked || starting} onClick={() => void start(conversation.agentId)}>
            New conversation
          </button>
          {onToggleLog && (
            <button type="button" className="btn btn-small" aria-pressed={logOpen} onClick={onToggleLog}>
              Raw log
            </button>
          )}
          <button type="button" className="btn btn-small" onClick={() => setRenaming(true)} disabled={renaming}>
            Rename
          </button>
          <button type="button" className="btn btn-small btn-danger" onClick={() => setConfirmDelete(true)}>
            Delete
          </button>
        </div>
        {startError && <ErrorBox message={startError} context="agent" />}
      </header>

      <ol className="conversation chat-transcript" aria-label="Transcript" ref={scrollRef} onScroll={onScroll} tabIndex={0}>
        {transcript.items.length === 0 && view.loaded && (
          <li className="chat-empty muted">
            Say hello to {agentName}. The first message opens the conversation with the agent; each new conversation is a new context.
          </li>
        )}
        {transcript.items.map((it) =>
          it.type === 'task' ? (
            <TaskLine
              key={it.key}
              item={it}
              agentId={conversation.agentId}
              entries={entries}
              onCancel={cancel}
              took={endedTasks.get(it.taskId)?.took}
              onRetry={retryTask(it.taskId)}
              onAnswer={
                it.state === 'input-required' && answering?.taskId !== it.taskId ? (taskId) => setTarget((t) => ({ taskId, key: (t?.key ?? 0) + 1 })) : undefined
              }
            />
          ) : it.type === 'error' ? (
            <ErrorNotice
              key={it.key}
              item={it}
              agentId={conversation.agentId}
              agentName={agentName}
              onRetry={retryOf(it.seq)}
            />
          ) : (
            <Bubble key={it.key} item={it} agentName={agentName} endedTasks={endedTasks} />
          ),
        )}
        {conversation.busy && !anyActive && (
          <li className="typing" data-testid="chat-busy">
            <span className="working-dots" aria-hidden="true" />
            Waiting for {agentName}…
          </li>
        )}
      </ol>
      {away && (
        <button type="button" className="btn btn-small jump-latest" onClick={jump} data-testid="jump-latest">
          ↓ Jump to latest
        </button>
      )}
      <p className="sr-only" role="status" aria-live="polite">
        {newest?.state ? `${agentName}: ${taskStateText(newest.state)}` : ''}
      </p>

      <Composer
        agentName={agentName}
        answering={answering}
        answerKey={target?.key}
        blocked={blocked}
        onSend={send}
        autoFocus={view.loaded && transcript.items.length === 0}
      />

      {confirmDelete && (
        <Dialog title="Delete this conversation?" onClose={() => setConfirmDelete(false)}>
          <p>This forgets the conversation on this computer. {agentName} keeps whatever it recorded.</p>
          {deleteError && (
            <p className="reply-error" role="alert">
              {deleteError}
            </p>
          )}
          <div className="reply-actions">
            <span className="spacer" />
            <button type="button" className="btn" onClick={() => setConfirmDelete(false)}>
              Keep
            </button>
            <button type="button" className="btn btn-danger" onClick={() => void remove()}>
              Delete conversation
            </button>
          </div>
        </Dialog>
      )}
    </article>
  );
}

// ---------------------------------------------------------------- the page

export function ChatsPage({ conversationId, channelId, channelAgent }: { conversationId?: string; channelId?: string; channelAgent?: string }) {
  const { client, refreshKey, agents } = useHub();
  // Channels and direct chats (the channels extension, through the gateway's ext.call).
  const ext = useMemo(() => extOf(client), [client]);
  const [source, setSource] = useState<string | undefined>(channelAgent);
  useEffect(() => {
    if (channelId) setSource(channelAgent);
  }, [channelId, channelAgent]);
  const chans = useChannelList(ext, client, source, refreshKey);
  const [dialog, setDialog] = useState<'channel' | 'direct' | null>(null);
  // How far each channel was read: remembered in localStorage (see channels/readmarks.ts for why).
  const [marks, setMarks] = useState<ReadMarks>(() => loadMarks(safeStorage()));
  const updateMarks = useCallback((f: (m: ReadMarks) => ReadMarks) => {
    setMarks((cur) => {
      const next = f(cur);
      if (next !== cur) saveMarks(safeStorage(), next);
      return next;
    });
  }, []);
  useEffect(() => {
    if (!chans.loaded) return;
    const all = [...chans.channels, ...chans.directs].map((c) => ({ key: channelKey(c.id, source), lastSequence: chans.last[c.id] ?? c.lastSequence ?? 0 }));
    updateMarks((m) => adoptMarks(m, all));
  }, [chans.loaded, chans.channels, chans.directs, source]); // eslint-disable-line react-hooks/exhaustive-deps
  const openKey = channelId ? channelKey(channelId, channelAgent) : '';
  const onRead = useCallback((seq: number) => openKey && updateMarks((m) => markRead(m, openKey, seq)), [openKey, updateMarks]);
  const onChannel = useCallback((c: Channel) => chans.upsert(c), [chans.upsert]); // eslint-disable-line react-hooks/exhaustive-deps
  const [list, setList] = useState<Conversation[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [filter, setFilter] = useState('');
  const [picking, setPicking] = useState(false);
  const now = useNow();
  // Conversations that changed while the owner was elsewhere are marked until opened.
  const [seen, setSeen] = useState<Seen>(() => loadSeen(safeLocalStorage()));
  useEffect(() => {
    setSeen((cur) => {
      let next = adopt(cur, list);
      const open = conversationId ? list.find((c) => c.id === conversationId) : undefined;
      if (open) next = markSeen(next, open);
      if (next !== cur) saveSeen(safeLocalStorage(), next);
      return next;
    });
  }, [list, conversationId]);

  useEffect(() => {
    let live = true;
    client.call('chats.list', {}).then(
      (r) => {
        if (!live) return;
        const fetched = Array.isArray(r?.conversations) ? r.conversations.filter((c) => c && typeof c.id === 'string') : [];
        setList(fetched.sort(byActivity));
        setLoaded(true);
        setError(null);
      },
      (e: Error) => live && !isDisconnect(e) && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [client, refreshKey]);

  const upsert = useCallback((c: Conversation) => {
    if (!c || typeof c.id !== 'string') return;
    setList((cur) => {
      const i = cur.findIndex((x) => x.id === c.id);
      if (i >= 0 && cur[i] === c) return cur;
      const next = i >= 0 ? cur.map((x) => (x.id === c.id ? c : x)) : [c, ...cur];
      return next.sort(byActivity);
    });
  }, []);
  useTopic('chat', (u) => {
    if (!u || typeof u !== 'object' || typeof u.conversationId !== 'string') return;
    if (u.conversation) upsert(u.conversation);
    else setList((cur) => cur.filter((c) => c.id !== u.conversationId)); // deleted
  });
  const removed = useCallback((id: string) => {
    setList((cur) => cur.filter((c) => c.id !== id));
    navigate('#/chats');
  }, []);

  const unread = (c: Conversation) => c.id !== conversationId && isUnread(seen, c);
  const [logOpen, setLogOpen] = useState(false);
  const logAgent = conversationId ? list.find((c) => c.id === conversationId)?.agentId : undefined;
  const shown = useMemo(() => {
    const f = filter.trim().toLowerCase();
    if (!f) return list;
    return list.filter((c) => [c.title, c.agentName, c.agentId].some((s) => (s || '').toLowerCase().includes(f)));
  }, [list, filter]);

  useListKeys(
    useMemo(() => shown.map((c) => hrefOf({ area: 'chats', conversationId: c.id })), [shown]),
    shown.findIndex((c) => c.id === conversationId),
  );

  return (
    <div className={`page ${conversationId || channelId ? 'has-detail' : ''} ${conversationId && logOpen && logAgent ? 'log-open' : ''}`}>
      <header className="page-head">
        <h1>Chats</h1>
        <span className="muted">{loaded ? `${list.length} conversation${list.length === 1 ? '' : 's'}` : 'Loading…'}</span>
        <span className="spacer" />
        <button type="button" className="btn btn-primary" onClick={() => setPicking(true)}>
          New chat
        </button>
        <input
          id="page-filter"
          className="filter"
          type="search"
          aria-label="Filter conversations"
          placeholder="Filter chats  /"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
        />
      </header>
      {error && (
        <p className="error-line" role="alert">
          Could not load the chats: {error}
        </p>
      )}
      {loaded && list.length === 0 && !conversationId && !channelId && chans.channels.length === 0 && chans.directs.length === 0 ? (
        <div className="page-scroll">
          <EmptyState title="No chats yet" icon="❝">
            <p>Talk to any agent you added: streaming answers, files, data, and questions the agent asks back. Everything is recorded on this computer.</p>
            <p>
              <button type="button" className="btn btn-primary" onClick={() => setPicking(true)}>
                Start a chat
              </button>{' '}
              <button type="button" className="btn" onClick={() => setDialog('channel')}>
                Create a channel
              </button>
            </p>
          </EmptyState>
        </div>
      ) : (
        <div className="two-pane">
          <div className="pane-list chats-side">
            <ChannelSections
              list={chans}
              agents={agents}
              agent={source}
              onAgent={(a) => {
                setSource(a);
                if (channelId) navigate('#/chats');
              }}
              selected={channelId}
              marks={marks}
              onNewChannel={() => setDialog('channel')}
              onNewDirect={() => setDialog('direct')}
            />
            <section className="side-section" aria-labelledby="side-agents">
            <div className="side-head">
              <h2 id="side-agents">Agents</h2>
            </div>
            <ul className="inbox-list chat-list" aria-label="Conversations">
              {shown.map((c) => (
                <li key={c.id}>
                  <a
                    href={hrefOf({ area: 'chats', conversationId: c.id })}
                    className={`inbox-item chat-item ${c.id === conversationId ? 'selected' : ''} ${unread(c) ? 'unread' : ''}`}
                    data-testid="chat-item"
                    data-conversation-id={c.id}
                    data-unread={unread(c) ? 'true' : undefined}
                    aria-current={c.id === conversationId ? 'true' : undefined}
                  >
                    <div className="inbox-item-top">
                      {unread(c) && <span className="unread-dot" role="img" aria-label="new activity" />}
                      <span className="task-title">{titleOf(c)}</span>
                      {c.busy && (
                        <span className="working-dots" role="img" aria-label="busy" />
                      )}
                      {c.state && <StateBadge state={c.state} />}
                    </div>
                    {c.preview?.text && (
                      <p className="preview muted small" data-testid="chat-preview">
                        {c.preview.from === 'you' ? 'You: ' : ''}
                        {plainTitle(c.preview.text)}
                      </p>
                    )}
                    <div className="muted small inbox-item-bottom">
                      <span className="chat-item-agent">{c.agentName || c.agentId}</span>
                      <span aria-hidden="true">·</span>
                      <time dateTime={c.updatedAt} title={formatDateTime(c.updatedAt)}>
                        {formatRelative(c.updatedAt, now)}
                      </time>
                    </div>
                  </a>
                </li>
              ))}
              {loaded && shown.length === 0 && list.length > 0 && <li className="muted pad">No chat matches “{filter}”.</li>}
              {!loaded && !error && <li className="muted pad">Loading…</li>}
              {loaded && list.length === 0 && <li className="muted small side-empty">No conversations with agents yet.</li>}
            </ul>
            </section>
          </div>
          <div className={`pane-detail ${conversationId || channelId ? 'chat-pane' : ''}`}>
            {channelId ? (
              <>
                <a className="back-link" href="#/chats">
                  ← Chats
                </a>
                <ChannelView
                  key={openKey}
                  ext={ext}
                  channelId={channelId}
                  agent={channelAgent}
                  lastRead={marks[openKey]}
                  onRead={onRead}
                  onChannel={onChannel}
                  onGone={() => {
                    chans.reload();
                    navigate('#/chats');
                  }}
                />
              </>
            ) : conversationId ? (
              <>
                <a className="back-link" href="#/chats">
                  ← Chats
                </a>
                <div className={`chat-with-log ${logOpen && logAgent ? 'log-open' : ''}`}>
                  <ChatView
                    key={conversationId}
                    id={conversationId}
                    onConversation={upsert}
                    onDeleted={removed}
                    logOpen={logOpen}
                    onToggleLog={() => setLogOpen((o) => !o)}
                  />
                  {logOpen && logAgent && (
                    <aside className="chat-log" aria-label="Raw log beside the conversation">
                      <WireLog agentId={logAgent} title="Raw log of this agent" />
                    </aside>
                  )}
                </div>
              </>
            ) : (
              <div className="pane-placeholder muted">
                <p>Select a channel or a conversation, or start a new chat.</p>
              </div>
            )}
          </div>
        </div>
      )}
      {picking && <NewChatDialog onClose={() => setPicking(false)} />}
      {dialog === 'channel' && (
        <NewChannelDialog
          ext={ext}
          agent={source}
          onClose={() => setDialog(null)}
          onCreated={(c) => {
            setDialog(null);
            chans.upsert(c);
            updateMarks((m) => markRead(m, channelKey(c.id, source), c.lastSequence ?? 0));
            navigate({ area: 'chats', channelId: c.id, agent: source });
          }}
        />
      )}
      {dialog === 'direct' && (
        <NewDirectDialog
          ext={ext}
          onClose={() => setDialog(null)}
          onOpened={(id) => {
            setDialog(null);
            chans.reload();
            navigate({ area: 'chats', channelId: id });
          }}
        />
      )}
    </div>
  );
}
