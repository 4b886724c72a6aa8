// An inbox task as a conversation: what the sender wrote and what the owner answered, in order.

import type { Artifact, Message, TaskDetail, TimelineEvent } from '../api/types';
import { mergeArtifacts } from './parts';

export type ConversationItem =
  | { key: string; type: 'message'; from: 'sender' | 'owner'; message: Message; at?: string }
  | { key: string; type: 'artifact'; from: 'owner'; artifact: Artifact; at?: string }
  | { key: string; type: 'state'; state: string; at?: string };

/** States worth a line in the conversation (the others are the normal flow). */
const NOTABLE = new Set(['input-required', 'completed', 'rejected', 'canceled', 'failed', 'auth-required']);

function fromOf(m: Message): 'sender' | 'owner' {
  // In an inbox task the sender is the A2A "user"; everything the hub says is the owner's.
  return m.role === 'user' ? 'sender' : 'owner';
}

/** The stored history's messages that no log entry carries: the ones the task was created with. */
export function openingMessages(history: Message[] | null | undefined, events: readonly TimelineEvent[]): Message[] {
  const inEvents = new Set<string>();
  for (const e of events) {
    if (e.message?.id) inEvents.add(e.message.id);
    if (e.status?.message?.id) inEvents.add(e.status.message.id);
  }
  return (Array.isArray(history) ? history : []).filter((m) => m && typeof m === 'object' && !(m.id && inEvents.has(m.id)));
}

/**
 * Builds the conversation from the task's log. Messages of the stored history that no log entry
 * carries (the ones the task was created with) come first; then, in log order, messages, status
 * messages, artifacts (owner's answers; chunks of one artifact folded together) and notable state
 * changes. Messages are shown once even when several places carry them.
 */
/** The state item standing for the hub's delivery note. */
export const DELIVERED = 'delivered';

/** The inbox's status note to a sender (inbox.WaitingMessage). */
export function isDeliveryNote(m: Message): boolean {
  const parts = Array.isArray(m.parts) ? m.parts : [];
  return parts.length === 1 && parts[0]?.kind === 'text' && typeof parts[0].text === 'string' && parts[0].text.startsWith("Delivered to the owner's inbox;");
}

export function buildConversation(detail: Pick<TaskDetail, 'history'> | null, events: readonly TimelineEvent[]): ConversationItem[] {
  const seen = new Set<string>();
  const out: ConversationItem[] = [];
  const addMessage = (m: Message | undefined, at: string | undefined, key: string) => {
    if (!m || typeof m !== 'object') return;
    if (m.id) {
      if (seen.has(m.id)) return;
      seen.add(m.id);
    }
    // The hub's automatic note to the sender ("Delivered to the owner's inbox…") is not the owner's
    // word: it is shown as what happened, once.
    if (fromOf(m) === 'owner' && isDeliveryNote(m)) {
      if (!out.some((it) => it.type === 'state' && it.state === DELIVERED)) out.push({ key, type: 'state', state: DELIVERED, at });
      return;
    }
    out.push({ key, type: 'message', from: fromOf(m), message: m, at });
  };

  // The opening messages arrived with the task: they share the time of its first log entry.
  const openedAt = events.length && events[0].kind === 'task' ? events[0].at : undefined;
  openingMessages(detail?.history, events).forEach((m, i) => addMessage(m, openedAt, `h:${m.id || i}`));

  const artifactIndex = new Map<string, number>(); // artifact id -> index in out
  let lastState: string | undefined;
  for (const e of events) {
    switch (e.kind) {
      case 'message':
        addMessage(e.message, e.at, `e:${e.seq}`);
        break;
      case 'artifact': {
        const a = e.artifact;
        if (!a) break;
        const idx = a.id ? artifactIndex.get(a.id) : undefined;
        if (idx !== undefined && a.append) {
          const prev = out[idx] as Extract<ConversationItem, { type: 'artifact' }>;
          out[idx] = { ...prev, artifact: mergeArtifacts([prev.artifact, a])[0] };
        } else {
          if (a.id) artifactIndex.set(a.id, out.length);
          out.push({ key: `e:${e.seq}`, type: 'artifact', from: 'owner', artifact: mergeArtifacts([a])[0], at: e.at });
        }
        break;
      }
      case 'task':
      case 'status': {
        addMessage(e.status?.message ?? e.message, e.at, `e:${e.seq}`);
        const s = e.state ?? e.status?.state;
        if (s && s !== lastState && NOTABLE.has(s)) out.push({ key: `s:${e.seq}`, type: 'state', state: s, at: e.at });
        if (s) lastState = s;
        break;
      }
    }
  }
  return out;
}
