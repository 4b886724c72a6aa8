// A task's timeline on screen: the log entries we have, kept in seq order without duplicates, and the
// rule for when to ask the hub for what we missed.

import type { TimelineEvent } from '../api/types';

function validSeq(e: TimelineEvent | null | undefined): e is TimelineEvent {
  return !!e && typeof e.seq === 'number' && Number.isFinite(e.seq);
}

/** Union by seq, ascending. An entry already present is kept (log entries never change). */
export function mergeEvents(existing: readonly TimelineEvent[], incoming: readonly (TimelineEvent | null | undefined)[]): TimelineEvent[] {
  const bySeq = new Map<number, TimelineEvent>();
  for (const e of existing) if (validSeq(e)) bySeq.set(e.seq, e);
  let added = false;
  for (const e of incoming) {
    if (validSeq(e) && !bySeq.has(e.seq)) {
      bySeq.set(e.seq, e);
      added = true;
    }
  }
  if (!added && existing.every(validSeq)) return existing as TimelineEvent[];
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

export function lastSeq(events: readonly TimelineEvent[]): number {
  return events.length ? events[events.length - 1].seq : 0;
}

/**
 * The highest seq up to which the log is complete. The log of a task is numbered 1, 2, 3...; a list
 * that starts later than 1 or skips a number has a hole the hub can fill.
 */
export function contiguousEnd(events: readonly TimelineEvent[]): number {
  let end = 0;
  for (const e of events) {
    if (e.seq === end + 1) end = e.seq;
    else if (e.seq > end + 1) break;
  }
  return end;
}

export function hasGap(events: readonly TimelineEvent[]): boolean {
  return contiguousEnd(events) < lastSeq(events);
}

export type PushOutcome = 'duplicate' | 'appended' | 'gap';

/**
 * Applies one pushed entry. The entry is kept either way; "gap" means entries before it are missing
 * and should be fetched with tasks.events {after: contiguousEnd(events)}.
 */
export function applyPushed(events: readonly TimelineEvent[], ev: TimelineEvent): { events: TimelineEvent[]; outcome: PushOutcome } {
  if (!validSeq(ev) || events.some((e) => e.seq === ev.seq)) {
    return { events: events as TimelineEvent[], outcome: 'duplicate' };
  }
  const merged = mergeEvents(events, [ev]);
  return { events: merged, outcome: hasGap(merged) ? 'gap' : 'appended' };
}

/** True once the log holds an entry that ends the task's stream. */
export function isFinished(events: readonly TimelineEvent[]): boolean {
  return events.some((e) => e.final);
}

/** The state the log ends in (the latest entry that carries a state). */
export function stateOf(events: readonly TimelineEvent[]): string | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    const s = e.state ?? e.status?.state;
    if (s) return s;
  }
  return undefined;
}

/** A timeline row: one event, or a run of repeated status updates folded into one row. */
export type TimelineRow = { type: 'event'; ev: TimelineEvent; index: number } | { type: 'fold'; key: string; state: string; events: TimelineEvent[] };

/**
 * Folds runs of consecutive status updates in the same state (a job's "working" ticks): the first and
 * the last of a run stay, the ones between become one fold row when there are at least `min` of them.
 */
export function foldRepeats(events: readonly TimelineEvent[], min = 2): TimelineRow[] {
  const out: TimelineRow[] = [];
  const stateOfEv = (e: TimelineEvent) => (e.kind === 'status' ? (e.state ?? e.status?.state ?? '') : '');
  let i = 0;
  while (i < events.length) {
    const st = stateOfEv(events[i]);
    let j = i + 1;
    if (st) while (j < events.length && stateOfEv(events[j]) === st) j++;
    const run = j - i;
    if (st && run - 2 >= min) {
      out.push({ type: 'event', ev: events[i], index: i });
      out.push({ type: 'fold', key: `f:${events[i + 1].seq}`, state: st, events: events.slice(i + 1, j - 1) });
      out.push({ type: 'event', ev: events[j - 1], index: j - 1 });
    } else {
      for (let k = i; k < j; k++) out.push({ type: 'event', ev: events[k], index: k });
    }
    i = j;
  }
  return out;
}
