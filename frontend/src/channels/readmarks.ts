// How far the owner has read each channel: the last-read sequence per channel, kept in this
// browser's localStorage, like the chats' unread marks (lib/chatseen.ts).
//
// Why localStorage and not the hub: it survives a restart of the app, because the page's origin is
// stable (the hub's fixed address, 127.0.0.1:PORT, in a browser; wails://wails, or
// http://wails.localhost on Windows, in the desktop window, whose web views keep local storage on
// disk, as the theme and the chats' unread marks already rely on); it needs no gateway method beyond
// the channels contract; and a read mark belongs to this screen: a remote member reads at their own
// pace. (A hub started on another port in a browser starts with fresh marks: nothing is lost but
// the dividers.)

export const READ_KEY = 'agenthub.channelRead';

/** channel key (channelKey) -> the highest sequence the owner has seen */
export type ReadMarks = Record<string, number>;

/** A channel of this hub is its id; one of another hub (read through an added agent) is "agent|id". */
export function channelKey(channelId: string, agent?: string): string {
  return agent ? `${agent}|${channelId}` : channelId;
}

export function loadMarks(storage: Storage | null): ReadMarks {
  try {
    const v = JSON.parse(storage?.getItem(READ_KEY) || '{}');
    if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
    const out: ReadMarks = {};
    for (const [k, n] of Object.entries(v)) if (typeof n === 'number' && Number.isFinite(n) && n >= 0) out[k] = n;
    return out;
  } catch {
    return {};
  }
}

export function saveMarks(storage: Storage | null, marks: ReadMarks): void {
  try {
    storage?.setItem(READ_KEY, JSON.stringify(marks));
  } catch {
    /* full or missing storage: marks last for this page only */
  }
}

/** marks with key read up to seq; a mark never goes back. The same object when nothing changed. */
export function markRead(marks: ReadMarks, key: string, seq: number): ReadMarks {
  const cur = marks[key];
  if (cur !== undefined && cur >= seq) return marks;
  return { ...marks, [key]: seq };
}

/** marks with every channel not seen before taken as read at its newest event (only later ones count as new). */
export function adoptMarks(marks: ReadMarks, channels: { key: string; lastSequence: number }[]): ReadMarks {
  const fresh = channels.filter((c) => !(c.key in marks));
  if (fresh.length === 0) return marks;
  const next = { ...marks };
  for (const c of fresh) next[c.key] = c.lastSequence;
  return next;
}

export function safeStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}
