// The task list on screen: newest first (by creation, as tasks.list pages them), one row per task,
// updated in place by pushed events.

import type { TaskSummary } from '../api/types';
import { parseTime } from './format';

export function taskKey(t: Pick<TaskSummary, 'agent' | 'id'>): string {
  return `${t.agent}\u0000${t.id}`;
}

/** Negative when a comes before b: newer creation first, then id descending (stable for ties). */
export function newestFirst(a: TaskSummary, b: TaskSummary): number {
  const ta = parseTime(a.createdAt);
  const tb = parseTime(b.createdAt);
  const na = Number.isFinite(ta) ? ta : 0;
  const nb = Number.isFinite(tb) ? tb : 0;
  if (na !== nb) return nb - na;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

function insertionIndex(list: readonly TaskSummary[], t: TaskSummary): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (newestFirst(list[mid], t) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Puts tasks' latest summaries into the list: replaced where they are, inserted in order when new, or
 * removed when they no longer match the filter. Returns the same array when nothing changed. Cheap
 * enough for a list of 10,000 rows: one index build and a binary search per new task.
 */
export function upsertTasks(
  list: readonly TaskSummary[],
  ts: readonly TaskSummary[],
  matches: (t: TaskSummary) => boolean = () => true,
): TaskSummary[] {
  if (ts.length === 0) return list as TaskSummary[];
  let next: TaskSummary[] | null = null;
  const index = new Map<string, number>();
  list.forEach((t, i) => index.set(taskKey(t), i));
  const removed = new Set<number>();
  const added = new Map<string, TaskSummary>();
  for (const t of ts) {
    if (!t || typeof t !== 'object') continue;
    const key = taskKey(t);
    const ok = matches(t);
    const i = index.get(key);
    if (i !== undefined) {
      if (ok) {
        next ??= [...list];
        next[i] = t;
        removed.delete(i);
      } else {
        removed.add(i);
      }
    } else if (ok) {
      added.set(key, t);
    } else {
      added.delete(key);
    }
  }
  if (!next && removed.size === 0 && added.size === 0) return list as TaskSummary[];
  let out = next ?? [...list];
  if (removed.size) out = out.filter((_, i) => !removed.has(i));
  for (const t of added.values()) out.splice(insertionIndex(out, t), 0, t);
  return out;
}

export function upsertTask(list: readonly TaskSummary[], t: TaskSummary, matches?: (t: TaskSummary) => boolean): TaskSummary[] {
  return upsertTasks(list, [t], matches);
}

/** Appends an older page (load more), skipping tasks already shown. */
export function appendPage(list: readonly TaskSummary[], page: readonly TaskSummary[]): TaskSummary[] {
  const have = new Set(list.map(taskKey));
  const add = page.filter((t) => t && !have.has(taskKey(t)));
  return add.length ? [...list, ...add] : (list as TaskSummary[]);
}

export interface TaskFilter {
  agent?: string;
  state?: string;
}

export function matchesFilter(f: TaskFilter): (t: TaskSummary) => boolean {
  return (t) => (!f.agent || t.agent === f.agent) && (!f.state || t.state === f.state);
}

/** "#name" of a task's channel ("a channel" when the owner can't see its name). */
export function channelLabel(t: Pick<TaskSummary, 'channelName'>): string {
  return t.channelName ? `#${t.channelName}` : 'a channel';
}
