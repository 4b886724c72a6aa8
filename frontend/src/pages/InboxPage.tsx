import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { InboxAction, InboxItem, OutgoingFile } from '../api/types';
import { CodeBlock, CopyButton } from '../components/CopyButton';
import { EmptyState } from '../components/EmptyState';
import { Parts } from '../components/Parts';
import { ReplyBox } from '../components/ReplyBox';
import { StateBadge } from '../components/StateBadge';
import { UnreadableNotice, UnreadableTag } from '../components/Unreadable';
import { buildConversation, type ConversationItem } from '../lib/conversation';
import { rpcEndpoint } from '../lib/card';
import { baseUrlOf, curlExample, sdkExample } from '../lib/examples';
import { formatClock, formatRelative } from '../lib/format';
import { textOf } from '../lib/parts';
import { hrefOf } from '../lib/router';
import { useListKeys } from '../lib/useListKeys';
import { isDisconnect, useHub, useTopic } from '../state/hub';
import { useTask } from '../state/useTask';

const EXAMPLE = 'Can you approve the deployment of v2.3 to staging?';

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

function Bubble({ item }: { item: ConversationItem }) {
  if (item.type === 'state') {
    const text: Record<string, string> = {
      'input-required': 'You asked back — waiting for the sender',
      completed: 'Completed',
      rejected: 'Rejected',
      canceled: 'Canceled by the sender',
      failed: 'Failed',
      'auth-required': 'Waiting for the sender to authenticate',
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
        <span className="bubble-who">{from === 'sender' ? 'Sender' : 'You'}</span>
        {item.type === 'artifact' && item.artifact.name && item.artifact.name !== 'answer' && <span className="muted small">{item.artifact.name}</span>}
        {item.at && (
          <time className="muted small" dateTime={item.at}>
            {formatClock(item.at)}
          </time>
        )}
      </div>
      <Parts parts={item.type === 'message' ? item.message.parts : item.artifact.parts} />
    </li>
  );
}

function InboxDetail({ agent, id, onActed }: { agent: string; id: string; onActed: () => void }) {
  const { client } = useHub();
  const view = useTask(agent, id);
  const items = useMemo(() => buildConversation(view.detail, view.events), [view.detail, view.events]);
  const endRef = useRef<HTMLLIElement>(null);
  useEffect(() => {
    endRef.current?.scrollIntoView?.({ block: 'nearest' });
  }, [items.length]);
  const s = view.summary;

  const act = useCallback(
    async (action: InboxAction, text: string, files: OutgoingFile[]) => {
      await client.call('inbox.act', { id, action, text, ...(files.length ? { files } : {}) });
      onActed();
    },
    [client, id, onActed],
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
          <h2 id="inbox-title">{s.title || '(no text)'}</h2>
          <StateBadge state={s.state} />
        </div>
        <p className="muted small">
          Received {formatRelative(s.createdAt)} · A2A {s.dialect} ·{' '}
          <a href={hrefOf({ area: 'tasks', agent: s.agent, taskId: s.id })}>Open the task’s timeline</a>
        </p>
        <UnreadableNotice task={s} />
      </header>
      <ol className="conversation" aria-label="Conversation">
        {items.map((it) => (
          <Bubble key={it.key} item={it} />
        ))}
        <li ref={endRef} aria-hidden="true" className="conv-end" />
      </ol>
      {!s.unreadable && <ReplyBox task={s} onAct={act} />}
    </article>
  );
}

export function InboxPage({ taskId }: { taskId?: string }) {
  const { client, refreshKey, agents, setUnread } = useHub();
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
  const waiting = items.filter((t) => t.waitingForOwner).length;

  return (
    <div className={`page ${taskId ? 'has-detail' : ''}`}>
      <header className="page-head">
        <h1>Inbox</h1>
        <span className="muted">{loaded ? `${waiting} waiting for you` : 'Loading…'}</span>
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
        <p className="error-line" role="alert">
          Could not load the inbox: {error}
        </p>
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
                      <span className="task-title">{t.title || '(no text)'}</span>
                      <StateBadge state={t.state} />
                    </div>
                    {t.lastMessage && <p className="preview muted small">{textOf(t.lastMessage) || '(attachment)'}</p>}
                    <div className="muted small inbox-item-bottom">
                      <time dateTime={t.updatedAt}>{formatRelative(t.updatedAt)}</time>
                      <UnreadableTag task={t} />
                      {t.waitingForOwner && <span className="tag tag-accent">waiting for you</span>}
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
                  <InboxDetail key={taskId} agent={detailAgent} id={taskId} onActed={refetchSoon} />
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
