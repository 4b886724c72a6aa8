// The Chats page: a sidebar (the channels' sections from channels/Sidebar.tsx, then the
// conversations with agents) beside the open view (a channel, or a conversation with an agent).
// It composes them and wires what they share: the read marks of channels, the conversations list,
// and the dialogs that start something new. Each piece lives in its own file under ./chats.

import { useCallback, useEffect, useMemo, useState } from 'react';
import { EmptyState } from '../components/EmptyState';
import { hrefOf, navigate } from '../lib/router';
import { useListKeys } from '../lib/useListKeys';
import { useHub } from '../state/hub';
import { WireLog } from '../components/WireLog';
import { extOf } from '../channels/api';
import { ChannelView } from '../channels/ChannelView';
import type { Channel } from '../channels/model';
import { NewChannelDialog, NewDirectDialog } from '../channels/NewDialogs';
import { adoptMarks, channelKey, loadMarks, markRead, saveMarks, safeStorage, type ReadMarks } from '../channels/readmarks';
import { ChannelSections } from '../channels/Sidebar';
import { useChannelList } from '../channels/useChannelList';
import { ChatView } from './chats/ChatView';
import { ConversationList } from './chats/ConversationList';
import { NewChatDialog } from './chats/NewChatDialog';
import { useConversations } from './chats/useConversations';

// Kept importable from here: tests and other pages know them as the Chats page's.
export { chatAgents } from './chats/NewChatDialog';
export { endedTasksOf, failedSend } from './chats/transcript';

/** Re-renders every 30 s so that "5 min ago" stays true (in the list and the open conversation). */
function useNow(ms = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

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
  const { list, loaded, error, upsert, removed, unread } = useConversations(conversationId);
  const [filter, setFilter] = useState('');
  const [picking, setPicking] = useState(false);
  const now = useNow();
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
              </button>{' '}
              <button type="button" className="btn" onClick={() => setDialog('direct')}>
                New direct message
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
            <ConversationList
              shown={shown}
              total={list.length}
              loaded={loaded}
              error={error}
              filter={filter}
              selected={conversationId}
              unread={unread}
              now={now}
            />
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
