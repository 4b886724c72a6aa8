// The Channels and Direct sections of the Chats sidebar (the Agents section is the page's list of
// conversations): each channel with its unread count, a "+" to create one, and in the Channels
// header a picker for whose channels to show (this hub, or another hub added as an agent).

import type { AgentInfo } from '../api/types';
import { hrefOf } from '../lib/router';
import { unreadCount } from './events';
import type { Channel } from './model';
import { channelTitle } from './names';
import { channelKey, type ReadMarks } from './readmarks';
import type { ChannelList } from './useChannelList';

/** Added agents whose card offers the channels extension: their hubs' channels can be shown here. */
export function channelSources(agents: AgentInfo[]): AgentInfo[] {
  return agents.filter((a) => {
    if (a.kind === 'hub') return false;
    const caps = (a.card as { capabilities?: { messaging?: { channels?: unknown } } } | null)?.capabilities;
    return !!caps?.messaging?.channels;
  });
}

function Item({ c, agent, agents, selected, unread }: { c: Channel; agent?: string; agents: AgentInfo[]; selected: boolean; unread: number }) {
  const title = channelTitle(c, agents);
  const direct = c.id.startsWith('chan:direct:');
  return (
    <li>
      <a
        href={hrefOf({ area: 'chats', channelId: c.id, agent })}
        className={`chan-item ${selected ? 'selected' : ''} ${unread ? 'unread' : ''}`}
        aria-current={selected ? 'true' : undefined}
        data-testid="channel-item"
        data-channel-id={c.id}
        data-unread={unread || undefined}
      >
        <span className="chan-item-mark" aria-hidden="true">
          {direct ? '@' : c.visibility === 'public' ? '#' : '🔒'}
        </span>
        <span className="chan-item-name">{title}</span>
        {unread > 0 && (
          <span className="unread-count" data-testid="unread-count" aria-label={`${unread} unread`}>
            {unread > 999 ? '999+' : unread}
          </span>
        )}
      </a>
    </li>
  );
}

export function ChannelSections({
  list,
  agents,
  agent,
  onAgent,
  selected,
  marks,
  onNewChannel,
  onNewDirect,
}: {
  list: ChannelList;
  agents: AgentInfo[];
  /** whose channels: undefined = this hub */
  agent?: string;
  onAgent: (agent: string | undefined) => void;
  selected?: string;
  marks: ReadMarks;
  onNewChannel: () => void;
  onNewDirect: () => void;
}) {
  const sources = channelSources(agents);
  const unread = (c: Channel) => (c.id === selected ? 0 : unreadCount(list.last[c.id] ?? c.lastSequence ?? 0, marks[channelKey(c.id, agent)]));
  return (
    <>
      <section className="side-section" aria-labelledby="side-channels">
        <div className="side-head">
          <h2 id="side-channels">Channels</h2>
          {sources.length > 0 && (
            <select className="side-source" aria-label="Whose channels" value={agent ?? ''} onChange={(e) => onAgent(e.target.value || undefined)}>
              <option value="">This hub</option>
              {sources.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name || a.id}
                </option>
              ))}
            </select>
          )}
          <button type="button" className="btn btn-ghost btn-small side-add" aria-label="New channel" title="New channel" onClick={onNewChannel}>
            +
          </button>
        </div>
        <ul className="chan-items" aria-label="Channels">
          {list.channels.map((c) => (
            <Item key={c.id} c={c} agent={agent} agents={agents} selected={c.id === selected} unread={unread(c)} />
          ))}
          {list.loaded && list.channels.length === 0 && !list.error && <li className="muted small side-empty">No channels yet.</li>}
          {list.error && (
            <li className="error-line small side-empty" role="alert">
              {list.error}
            </li>
          )}
        </ul>
      </section>
      {!agent && (
        <section className="side-section" aria-labelledby="side-direct">
          <div className="side-head">
            <h2 id="side-direct">Direct messages</h2>
            <button
              type="button"
              className="btn btn-ghost btn-small side-add"
              aria-label="New direct message"
              title="New direct message: to a person or an agent"
              onClick={onNewDirect}
            >
              +
            </button>
          </div>
          <ul className="chan-items" aria-label="Direct chats">
            {list.directs.map((c) => (
              <Item key={c.id} c={c} agents={agents} selected={c.id === selected} unread={unread(c)} />
            ))}
            {list.loaded && list.directs.length === 0 && <li className="muted small side-empty">No direct chats yet.</li>}
          </ul>
        </section>
      )}
    </>
  );
}
