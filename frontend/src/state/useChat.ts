// Chats as React state: one conversation live (chats.get, then pushed "chat" entries merged by seq,
// refetched after a reconnect or a "lagged" push), and starting a new conversation.

import { useCallback, useEffect, useState } from 'react';
import { HubError } from '../api/client';
import type { ChatEntry, Conversation } from '../api/types';
import { mergeEntries } from '../lib/chat';
import { parseTime } from '../lib/format';
import { navigate } from '../lib/router';
import { isDisconnect, useHub, useTopic } from './hub';

function validConversation(c: unknown): c is Conversation {
  return !!c && typeof c === 'object' && typeof (c as Conversation).id === 'string';
}

/** The newer of two snapshots of a conversation (the incoming one unless it is older). */
export function newerConversation(cur: Conversation | null, incoming: unknown): Conversation | null {
  if (!validConversation(incoming)) return cur;
  if (!cur) return incoming;
  const a = parseTime(cur.updatedAt);
  const b = parseTime(incoming.updatedAt);
  return Number.isFinite(a) && Number.isFinite(b) && b < a ? cur : incoming;
}

export interface ConversationView {
  conversation: Conversation | null;
  entries: ChatEntry[];
  loaded: boolean;
  /** the hub could not give the conversation: {code, message} */
  error: { code: string; message: string } | null;
  /** it was deleted (here or in another window) while open */
  deleted: boolean;
  /** merges an entry a call returned (it may also arrive pushed: duplicates are ignored) */
  addEntry: (e: ChatEntry) => void;
  setConversation: (c: Conversation) => void;
  reload: () => void;
}

export function useConversation(id: string): ConversationView {
  const { client, refreshKey } = useHub();
  const [conversation, setConv] = useState<Conversation | null>(null);
  const [entries, setEntries] = useState<ChatEntry[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<{ code: string; message: string } | null>(null);
  const [deleted, setDeleted] = useState(false);
  const [nonce, setNonce] = useState(0);

  useEffect(() => {
    let live = true;
    client.call('chats.get', { id }).then(
      (r) => {
        if (!live) return;
        setConv((c) => newerConversation(c, r?.conversation));
        setEntries((cur) => mergeEntries(cur, Array.isArray(r?.entries) ? r.entries : []));
        setLoaded(true);
        setError(null);
      },
      (e: Error) => {
        if (!live || isDisconnect(e)) return;
        setError({ code: e instanceof HubError ? e.code : 'internal', message: e.message });
      },
    );
    return () => {
      live = false;
    };
  }, [client, id, refreshKey, nonce]);

  useTopic('chat', (u) => {
    if (!u || typeof u !== 'object' || u.conversationId !== id) return;
    if (!u.conversation) {
      setDeleted(true); // an update without the conversation: it is gone
      return;
    }
    setConv((c) => newerConversation(c, u.conversation));
    if (u.entry) setEntries((cur) => mergeEntries(cur, [u.entry!]));
  });

  const addEntry = useCallback((e: ChatEntry) => setEntries((cur) => mergeEntries(cur, [e])), []);
  const setConversation = useCallback((c: Conversation) => setConv((cur) => newerConversation(cur, c)), []);
  const reload = useCallback(() => setNonce((n) => n + 1), []);
  return { conversation, entries, loaded, error, deleted, addEntry, setConversation, reload };
}

/**
 * Starts a conversation with an agent (local only until the first send) and opens it. With text
 * (a skill's example, "Try it"), that is sent as the first message.
 */
export function useStartChat(): {
  start: (agentId: string, text?: string) => Promise<Conversation | null>;
  busy: boolean;
  error: string | null;
} {
  const { client } = useHub();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const start = useCallback(
    async (agentId: string, text?: string) => {
      setBusy(true);
      setError(null);
      try {
        const c = await client.call('chats.start', { agentId });
        if (!validConversation(c)) return null;
        navigate({ area: 'chats', conversationId: c.id });
        // The conversation is open either way; a failed send shows there, like any other.
        if (text) await client.call('chats.send', { id: c.id, text }).catch(() => undefined);
        return c;
      } catch (e) {
        setError((e as Error)?.message || 'Could not start the chat.');
        return null;
      } finally {
        setBusy(false);
      }
    },
    [client],
  );
  return { start, busy, error };
}
