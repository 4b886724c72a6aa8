// The sidebar's "Agents" section: the conversations with agents, filtered, each with its title,
// preview, state and when it last changed. It renders the list it is given; the list itself is
// useConversations', and the channels' sections above it are channels/Sidebar.tsx's.

import type { Conversation } from '../../api/types';
import { StateBadge } from '../../components/StateBadge';
import { formatDateTime, formatRelative, plainTitle } from '../../lib/format';
import { hrefOf } from '../../lib/router';
import { titleOf } from './titles';

export function ConversationList({
  shown,
  total,
  loaded,
  error,
  filter,
  selected,
  unread,
  now,
}: {
  /** the conversations that pass the filter */
  shown: Conversation[];
  /** how many conversations there are, filtered or not */
  total: number;
  loaded: boolean;
  error: string | null;
  filter: string;
  /** the open conversation's id */
  selected?: string;
  unread: (c: Conversation) => boolean;
  /** the time "5 min ago" counts from */
  now: number;
}) {
  return (
    <section className="side-section" aria-labelledby="side-agents">
      <div className="side-head">
        <h2 id="side-agents">Agents</h2>
      </div>
      <ul className="inbox-list chat-list" aria-label="Conversations">
        {shown.map((c) => (
          <li key={c.id}>
            <a
              href={hrefOf({ area: 'chats', conversationId: c.id })}
              className={`inbox-item chat-item ${c.id === selected ? 'selected' : ''} ${unread(c) ? 'unread' : ''}`}
              data-testid="chat-item"
              data-conversation-id={c.id}
              data-unread={unread(c) ? 'true' : undefined}
              aria-current={c.id === selected ? 'true' : undefined}
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
        {loaded && shown.length === 0 && total > 0 && <li className="muted pad">No chat matches “{filter}”.</li>}
        {!loaded && !error && <li className="muted pad">Loading…</li>}
        {loaded && total === 0 && <li className="muted small side-empty">No conversations with agents yet.</li>}
      </ul>
    </section>
  );
}
