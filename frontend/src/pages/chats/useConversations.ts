// The owner's conversations with agents, as the Chats page lists them: loaded with chats.list, kept
// live by the 'chat' topic, newest activity first, and which ones changed since the owner last saw
// them (remembered in localStorage, see lib/chatseen.ts). It holds the list only; opening,
// sending and deleting are ChatView's.

import { useCallback, useEffect, useState } from 'react';
import type { Conversation } from '../../api/types';
import { adopt, isUnread, loadSeen, markSeen, saveSeen, type Seen } from '../../lib/chatseen';
import { parseTime } from '../../lib/format';
import { navigate } from '../../lib/router';
import { isDisconnect, useHub, useTopic } from '../../state/hub';

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

/** The conversations list; `conversationId` is the open one (seen as it changes, never unread). */
export function useConversations(conversationId?: string) {
  const { client, refreshKey } = useHub();
  const [list, setList] = useState<Conversation[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
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
  return { list, loaded, error, upsert, removed, unread };
}
