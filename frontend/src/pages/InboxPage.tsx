import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { InboxAction, InboxItem, Message, OutgoingFile } from '../api/types';
import { CodeBlock, CopyButton } from '../components/CopyButton';
import { EmptyState } from '../components/EmptyState';
import { ErrorBox } from '../components/ErrorBox';
import { Parts } from '../components/Parts';
import { ReplyBox } from '../components/ReplyBox';
import { StateBadge } from '../components/StateBadge';
import { UnreadableNotice, UnreadableTag } from '../components/Unreadable';
import type { SurfaceAction } from '../components/A2uiSurfaceView';
import { a2uiMessagesOf, actionMessage, describeAction, isA2uiPart, messageKind, surfaceIdOf, versionOf, type A2uiMessage } from '../lib/a2ui';
import { buildConversation, DELIVERED, type ConversationItem } from '../lib/conversation';
import { rpcEndpoint } from '../lib/card';
import { baseUrlOf, curlExample, sdkExample } from '../lib/examples';
import { formatClock, formatRelative, plainTitle } from '../lib/format';
import { previewOf, textOf } from '../lib/parts';
import { hrefOf } from '../lib/router';
import { useListKeys } from '../lib/useListKeys';
import { isDisconnect, useHub, useTopic } from '../state/hub';
import { useTask } from '../state/useTask';

const EXAMPLE = 'Can you approve the deployment of v2.3 to staging?';

// The A2UI renderer loads with the first surface shown (as in Chats).
const A2uiSurfaceView = lazy(() => import('../components/A2uiSurfaceView').then((m) => ({ default: m.A2uiSurfaceView })));

/** The surfaces the sender drew in an inbox task: each surface's messages in order, by the item that created it. */
function surfacesOf(items: ConversationItem[]): Map<string, { surfaceId: string; messages: A2uiMessage[] }[]> {
  const byItem = new Map<string, { surfaceId: string; messages: A2uiMessage[] }[]>();
  const byId = new Map<string, { surfaceId: string; messages: A2uiMessage[] }>();
  for (const it of items) {
    if (it.type !== 'message' || it.from !== 'sender') continue;
    for (const m of a2uiMessagesOf(it.message.parts)) {
      const id = surfaceIdOf(m);
      if (!id) continue;
      let s = byId.get(id);
      // a v0.9 surface starts with createSurface, a v0.8 one with any of its messages but deleteSurface
      if (!s && (messageKind(m) === 'createSurface' || (versionOf(m) === 'v0.8' && messageKind(m) !== 'deleteSurface'))) {
        s = { surfaceId: id, messages: [] };
        byId.set(id, s);
        byItem.set(it.key, [...(byItem.get(it.key) ?? []), s]);
      }
      s?.messages.push(m);
    }
  }
  return byItem;
}

const ENDED = new Set(['completed', 'rejected', 'canceled', 'failed']);

function InboxEmpty() {
  const { agents } = useHub();
  const hub = agents.find((a) => a.kind === 'hub');
  const endpoint = hub ? rpcEndpoint(hub) : '';
  return (
    <EmptyState title="Your inbox is empty" icon="✉">
      <p>
        Agents can message you through the hub’s <strong>inbox</strong> skill. Their messages land here; you answer, ask back, complete or reject
        them, and the agent sees your answer at once.
      </p>
      {hub && endpoint ? (
        <>
          <p className="endpoint">
            The hub’s A2A endpoint: <code>{endpoint}</code> <CopyButton text={endpoint} label="Copy the hub's A2A endpoint" />
          </p>
          <CodeBlock label="curl example" code={curlExample(endpoint, EXAMPLE)} />
          <CodeBlock label="JavaScript SDK example" code={sdkExample(baseUrlOf(hub.url, hub.cardUrl), EXAMPLE)} />
        </>
      ) : (
        <p className="muted">The hub’s endpoint appears here once connected.</p>
      )}
    </EmptyState>
  );
}

/** An open task the owner answered: the sender's turn. */
const answered = (t: { state: string; waitingForOwner: boolean }) => !t.waitingForOwner && (t.state === 'working' || t.state === 'submitted');

function InboxState({ t }: { t: { state: string; waitingForOwner: boolean } }) {
  if (answered(t)) return <span className="badge state state-answered">Answered</span>;
  return <StateBadge state={t.state} />;
}

function Bubble({
  item,
  sender,
  surfaces,
  readOnly,
  onAction,
}: {
  item: ConversationItem;
  sender: string;
  surfaces?: { surfaceId: string; messages: A2uiMessage[] }[];
  readOnly?: boolean;
  onAction?: (a: SurfaceAction) => Promise<void>;
}) {
  if (item.type === 'state') {
    const text: Record<string, string> = {
      'input-required': 'You asked back — waiting for the sender',
      completed: 'Completed',
      rejected: 'Rejected',
      canceled: 'Canceled by the sender',
      failed: 'Failed',
      'auth-required': 'Waiting for the sender to authenticate',
      [DELIVERED]: 'Delivered to your inbox; the sender was told you answer when you can',
    };
    return (
      <li className="conv-state" data-testid="conversation-state">
        <span>{text[item.state] ?? item.state}</span>
        {item.at && <time dateTime={item.at}>{formatClock(item.at)}</time>}
      </li>
    );
  }
  const from = item.from;
  return (
    <li className={`bubble from-${from}`} data-testid="conversation-message" data-from={from}>
      <div className="bubble-head">
        <span className="bubble-who">{from === 'sender' ? sender : 'You'}</span>
        {item.type === 'artifact' && item.artifact.name && item.artifact.name !== 'answer' && <span className="muted small">{item.artifact.name}</span>}
        {item.at && (
          <time className="muted small" dateTime={item.at}>
            {formatClock(item.at)}
          </time>
        )}
      </div>
      {/* The sender's text is Markdown, as in Chats; the owner's is shown as typed. A2UI parts are
          drawn as their surfaces (the sender's) or said in words (the owner's actions). */}
      {(() => {
        const parts = item.type === 'message' ? item.message.parts : item.artifact.parts;
        const plain = (parts ?? []).filter((p) => !isA2uiPart(p));
        const actions = from === 'owner' ? a2uiMessagesOf(parts) : [];
        return (
          <>
            {plain.length > 0 && <Parts parts={plain} from={from === 'sender' ? 'agent' : 'owner'} />}
            {actions.map((m, i) => (
              <p key={i} className="action-line muted small" data-testid="inbox-action">
                ↳ {describeAction(m)}
              </p>
            ))}
          </>
        );
      })()}
      {surfaces?.map((s) => (
        <div key={s.surfaceId} className="is-surface" data-testid="inbox-surface" data-surface-id={s.surfaceId}>
          <Suspense fallback={<p className="muted small">Loading the form…</p>}>
            <A2uiSurfaceView surfaceId={s.surfaceId} messages={s.messages} readOnly={readOnly} onAction={onAction} />
          </Suspense>
        </div>
      ))}
    </li>
  );
}

function InboxDetail({ agent, id, sender, onActed }: { agent: string; id: string; sender: string; onActed: () => void }) {
  const { client } = useHub();
  const view = useTask(agent, id);
  const items = useMemo(() => buildConversation(view.detail, view.events), [view.detail, view.events]);
  const surfaces = useMemo(() => surfacesOf(items), [items]);
  const endRef = useRef<HTMLLIElement>(null);
  useEffect(() => {
    endRef.current?.scrollIntoView?.({ block: 'nearest' });
  }, [items.length]);
  const s = view.summary;

  const act = useCallback(
    async (action: InboxAction, text: string, files: OutgoingFile[]) => {
      await client.call('inbox.act', { id, action, text, ...(files.length ? { files } : {}) });
      onActed();
      view.reload(); // whose turn it is changed with the action, not with the task's last event
    },
    [client, id, onActed, view.reload],
  );

  // The owner acted on the sender's form: the action goes back to the sender as the answer.
  const onSurfaceAction = useCallback(
    async (a: SurfaceAction) => {
      await client.call('inbox.act', { id, action: 'answer', a2ui: [actionMessage(a)] });
      onActed();
      view.reload();
    },
    [client, id, onActed, view.reload],
  );

  if (view.error && !view.detail) {
    return (
      <EmptyState title="Could not open this message" icon="!">
        <p>{view.error}</p>
        <button type="button" className="btn" onClick={view.reload}>
          Try again
        </button>
      </EmptyState>
    );
  }
  if (!s) return <p className="muted pad">Loading…</p>;
  return (
    <article className="detail inbox-detail" data-testid="inbox-detail" aria-labelledby="inbox-title">
      <header className="detail-head column">
        <div className="title-row">
          <h2 id="inbox-title">{titleOf(s.title, view.detail?.history?.[0])}</h2>
          <InboxState t={s} />
        </div>
        <p className="muted small">
          From <strong data-testid="inbox-sender">{sender}</strong> · received {formatRelative(s.createdAt)} · A2A {s.dialect} ·{' '}
          <a href={hrefOf({ area: 'tasks', agent: s.agent, taskId: s.id })}>Open the task’s timeline</a>
        </p>
        <UnreadableNotice task={s} />
      </header>
      <ol className="conversation" aria-label="Conversation">
        {items.map((it) => (
          <Bubble
            key={it.key}
            item={it}
            sender={sender}
            surfaces={surfaces.get(it.key)}
            readOnly={ENDED.has(s.state) || !!s.unreadable}
            onAction={onSurfaceAction}
          />
        ))}
        <li ref={endRef} aria-hidden="true" className="conv-end" />
      </ol>
      {!s.unreadable && <ReplyBox task={s} onAct={act} />}
    </article>
  );
}

/** A title for a message without text: what it carries (data, files), not "(no text)". */
function titleOf(title: string | undefined, first: Message | undefined): string {
  if (title && title !== '(no text)') return plainTitle(title);
  return previewOf(first, 80) || '(empty message)';
}

export function InboxPage({ taskId }: { taskId?: string }) {
  const { client, refreshKey, agents, setUnread, inbox } = useHub();
  const [items, setItems] = useState<InboxItem[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [filter, setFilter] = useState('');
  const [nonce, setNonce] = useState(0);
  const hubId = agents.find((a) => a.kind === 'hub')?.id;

  useEffect(() => {
    let live = true;
    client.call('inbox.list', {}).then(
      (r) => {
        if (!live) return;
        setItems(Array.isArray(r?.tasks) ? r.tasks.filter((t) => t && typeof t.id === 'string') : []);
        if (typeof r?.unread === 'number') setUnread(r.unread);
        setLoaded(true);
        setError(null);
      },
      (e: Error) => live && !isDisconnect(e) && setError(e.message),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, refreshKey, nonce]);

  // The counts changed (a new message, or an action elsewhere): refetch, debounced.
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const refetchSoon = useCallback(() => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => setNonce((n) => n + 1), 150);
  }, []);
  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);
  useTopic('inbox', refetchSoon);
  useTopic('task', (u) => {
    if (!u?.summary) return;
    const known = items.some((t) => t.id === u.taskId && t.agent === u.agent);
    if (known) {
      setItems((cur) => cur.map((t) => (t.id === u.taskId && t.agent === u.agent ? { ...t, ...u.summary } : t)));
    } else if (u.agent === hubId && u.summary.direction === 'incoming' && u.event?.kind === 'task') {
      refetchSoon(); // perhaps a new message for the owner
    }
  });

  // Opening an unread item marks it read.
  const marked = useRef(new Set<string>());
  const selected = taskId ? items.find((t) => t.id === taskId) : undefined;
  useEffect(() => {
    if (!selected || !selected.unread || marked.current.has(selected.id)) return;
    marked.current.add(selected.id);
    setItems((cur) => cur.map((t) => (t.id === selected.id ? { ...t, unread: false } : t)));
    client.call('inbox.markRead', { id: selected.id }).then(
      (r) => typeof r?.unread === 'number' && setUnread(r.unread),
      () => marked.current.delete(selected.id),
    );
  }, [selected, client, setUnread]);

  const shown = useMemo(() => {
    const f = filter.trim().toLowerCase();
    const list = f ? items.filter((t) => (t.title || '').toLowerCase().includes(f) || textOf(t.lastMessage).toLowerCase().includes(f)) : items;
    return list;
  }, [items, filter]);

  useListKeys(
    useMemo(() => shown.map((t) => hrefOf({ area: 'inbox', taskId: t.id })), [shown]),
    shown.findIndex((t) => t.id === taskId),
  );

  const detailAgent = selected?.agent ?? hubId;
  // The same counts as the navigation's badge (the hub's "inbox" push), so the two always agree.
  const unreadCount = inbox?.unread ?? items.filter((t) => t.unread).length;
  const waiting = inbox?.waiting ?? items.filter((t) => t.waitingForOwner).length;

  return (
    <div className={`page ${taskId ? 'has-detail' : ''}`}>
      <header className="page-head">
        <h1>Inbox</h1>
        <span className="muted" data-testid="inbox-counts">
          {loaded ? `${unreadCount} unread · ${waiting} waiting for you` : 'Loading…'}
        </span>
        <span className="spacer" />
        <input
          id="page-filter"
          className="filter"
          type="search"
          aria-label="Filter inbox"
          placeholder="Filter messages  /"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
        />
      </header>
      {error && (
        <div className="page-errors">
          <ErrorBox message={`Could not load the inbox: ${error}`} onRetry={() => setNonce((n) => n + 1)} />
        </div>
      )}
      {loaded && items.length === 0 && !taskId ? (
        <div className="page-scroll">
          <InboxEmpty />
        </div>
      ) : (
        <div className="two-pane">
          <div className="pane-list">
            <ul className="inbox-list" aria-label="Inbox messages">
              {shown.map((t) => (
                <li key={t.id}>
                  <a
                    href={hrefOf({ area: 'inbox', taskId: t.id })}
                    className={`inbox-item ${t.id === taskId ? 'selected' : ''} ${t.unread ? 'unread' : ''}`}
                    data-testid="inbox-item"
                    data-task-id={t.id}
                    aria-current={t.id === taskId ? 'true' : undefined}
                  >
                    <div className="inbox-item-top">
                      {t.unread && (
                        <span className="unread-dot" role="img" aria-label="unread" />
                      )}
                      <span className="task-title">{titleOf(t.title, t.lastMessage)}</span>
                      <InboxState t={t} />
                    </div>
                    {t.lastMessage && <p className="preview muted small">{plainTitle(previewOf(t.lastMessage)) || '(empty message)'}</p>}
                    <div className="muted small inbox-item-bottom">
                      <span className="inbox-sender">{t.sender || 'Anonymous (this computer)'}</span>
                      <span aria-hidden="true">·</span>
                      <time dateTime={t.updatedAt}>{formatRelative(t.updatedAt)}</time>
                      <UnreadableTag task={t} />
                      {t.waitingForOwner && <span className="tag tag-accent">waiting for you</span>}
                      {answered(t) && <span className="tag">waiting for the sender</span>}
                    </div>
                  </a>
                </li>
              ))}
              {loaded && shown.length === 0 && <li className="muted pad">No message matches “{filter}”.</li>}
            </ul>
          </div>
          <div className="pane-detail">
            {taskId ? (
              <>
                <a className="back-link" href="#/inbox">
                  ← Inbox
                </a>
                {detailAgent ? (
                  <InboxDetail key={taskId} agent={detailAgent} id={taskId} sender={selected?.sender || 'Anonymous (this computer)'} onActed={refetchSoon} />
                ) : (
                  <p className="muted pad">Loading…</p>
                )}
              </>
            ) : (
              <div className="pane-placeholder muted">
                <p>Select a message to read and answer it.</p>
              </div>
            )}
          </div>
        </div>
      )}
    </div>
  );
}
