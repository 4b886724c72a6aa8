// A channel's events as the message list holds them: a contiguous run of sequences, newest last,
// grown at both ends (older pages above, live events below) without duplicates or gaps.
//
// The spec's channels/history only pages forward (sinceSequence, §7.2 and open question 1), and
// sequences never skip (§6): an older page is therefore asked for as "the pageSize events after
// oldest - 1 - pageSize".

import type { ChannelEvent, MemberEntry } from './model';

/** The hub's most per history page (spec §8). */
export const MAX_PAGE = 200;

/**
 * cur with incoming added: sorted by sequence, one event per sequence (events are immutable, so a
 * sequence already held keeps its event). Returns cur itself when nothing was new, so a React state
 * update can be skipped.
 */
export function mergeEvents(cur: ChannelEvent[], incoming: ChannelEvent[]): ChannelEvent[] {
  if (incoming.length === 0) return cur;
  const have = new Set(cur.map((e) => e.sequence));
  const fresh: ChannelEvent[] = [];
  for (const e of incoming) {
    if (have.has(e.sequence)) continue;
    have.add(e.sequence);
    fresh.push(e);
  }
  if (fresh.length === 0) return cur;
  fresh.sort((a, b) => a.sequence - b.sequence);
  // The usual cases: a live event after the newest, or an older page before the oldest.
  if (cur.length === 0) return fresh;
  if (fresh[0].sequence > cur[cur.length - 1].sequence) return cur.concat(fresh);
  if (fresh[fresh.length - 1].sequence < cur[0].sequence) return fresh.concat(cur);
  return cur.concat(fresh).sort((a, b) => a.sequence - b.sequence);
}

/**
 * The first hole in events, as the history params that fill it: the events after `after`, as many as
 * are missing (at most a page). null when events are contiguous.
 */
export function firstGap(events: ChannelEvent[]): { sinceSequence: number; pageSize: number } | null {
  for (let i = 1; i < events.length; i++) {
    const after = events[i - 1].sequence;
    const missing = events[i].sequence - after - 1;
    if (missing > 0) return { sinceSequence: after, pageSize: Math.min(missing, MAX_PAGE) };
  }
  return null;
}

/** The history params of the newest page of a channel whose newest event is lastSequence. */
export function newestPage(lastSequence: number, pageSize = 50): { sinceSequence: number; pageSize: number } {
  const size = Math.min(Math.max(1, pageSize), MAX_PAGE);
  return { sinceSequence: Math.max(0, lastSequence - size), pageSize: size };
}

/** The history params of the page just before `oldest` (the oldest sequence held); null at the start. */
export function olderPage(oldest: number, pageSize = MAX_PAGE): { sinceSequence: number; pageSize: number } | null {
  if (oldest <= 1) return null;
  const size = Math.min(Math.max(1, pageSize), MAX_PAGE, oldest - 1);
  return { sinceSequence: oldest - 1 - size, pageSize: size };
}

/**
 * Where the "new" divider goes: before the first event after lastRead that someone else wrote (what
 * the owner wrote is read by definition). -1 when there is none, or when nothing was read yet
 * (lastRead undefined: a channel opened for the first time has no divider), or when the first unread
 * event is older than the oldest held. newestAtOpen is the channel's newest sequence when it was opened.
 */
export function dividerIndex(events: ChannelEvent[], lastRead: number | undefined, me: string, newestAtOpen = Infinity): number {
  if (lastRead === undefined || events.length === 0) return -1;
  // The first unread event is older than what is held: the divider shows once that page is loaded.
  if (events[0].sequence > lastRead + 1) return -1;
  // Only what was there when the channel was opened is "new": what arrives while the owner
  // watches is read as it comes.
  return events.findIndex((e) => e.sequence > lastRead && e.sequence <= newestAtOpen && e.author !== me);
}

/** The unread count of a channel whose newest event is lastSequence: 0 when never opened (nothing to catch up on). */
export function unreadCount(lastSequence: number | undefined, lastRead: number | undefined): number {
  if (lastSequence === undefined || lastRead === undefined) return 0;
  return Math.max(0, lastSequence - lastRead);
}

/**
 * Where a channel's joins and leaves show among the events held: each before the first event newer
 * than it (by time), or after the newest event. A line older than the oldest event held is left out
 * until the start of the channel is held (atStart), as the events before it are.
 */
export function placeLines(events: ChannelEvent[], lines: MemberEntry[], atStart: boolean): { before: Map<number, MemberEntry[]>; after: MemberEntry[] } {
  const before = new Map<number, MemberEntry[]>();
  const after: MemberEntry[] = [];
  for (const l of lines) {
    const i = events.findIndex((e) => e.timestamp > l.at);
    if (i < 0) after.push(l);
    else if (i > 0 || atStart) {
      const seq = events[i].sequence;
      before.set(seq, [...(before.get(seq) ?? []), l]);
    }
  }
  return { before, after };
}
