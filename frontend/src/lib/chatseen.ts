// Which conversations changed since the owner last looked at them, remembered per browser
// (localStorage): a conversation first seen here counts as read at its current activity, so only
// what changes in the background afterwards is marked.

import type { Conversation } from '../api/types';
import { parseTime } from './format';

export const SEEN_KEY = 'agenthub.chatSeen';

export type Seen = Record<string, string>; // conversation id -> updatedAt last looked at

export function loadSeen(storage: Storage | null): Seen {
  try {
    const v = JSON.parse(storage?.getItem(SEEN_KEY) || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Seen) : {};
  } catch {
    return {};
  }
}

export function saveSeen(storage: Storage | null, seen: Seen): void {
  try {
    storage?.setItem(SEEN_KEY, JSON.stringify(seen));
  } catch {
    /* a full or missing storage: markers last for this page only */
  }
}

/** Seen with every conversation not known yet taken as read now; the same object when nothing is new. */
export function adopt(seen: Seen, list: Conversation[]): Seen {
  const fresh = list.filter((c) => !(c.id in seen));
  if (fresh.length === 0) return seen;
  const next = { ...seen };
  for (const c of fresh) next[c.id] = c.updatedAt;
  return next;
}

/** The conversation changed after the owner last looked at it. */
export function isUnread(seen: Seen, c: Conversation): boolean {
  const at = seen[c.id];
  if (at === undefined) return false;
  const a = parseTime(at);
  const b = parseTime(c.updatedAt);
  return Number.isFinite(a) && Number.isFinite(b) ? b > a : false;
}

/** Seen with c looked at now. */
export function markSeen(seen: Seen, c: Conversation): Seen {
  return seen[c.id] === c.updatedAt ? seen : { ...seen, [c.id]: c.updatedAt };
}
