// A conversation's log (ChatEntry[], numbered by seq) as the transcript on screen: the owner's messages,
// the agent's messages and status messages, streamed artifacts folded into one growing bubble each,
// failed calls, and one state line per task. Pure: the same entries always give the same transcript.
//
// Entries come from a remote agent through the hub, live and after reconnecting, so they may arrive out
// of order, twice, or make no sense (an artifact of a task never announced, a status after the task
// ended). Nothing here throws on them:
//   - entries are ordered by seq; an entry whose seq is already known is ignored (entries never change);
//   - entries without a numeric seq, and kinds this module does not know, are ignored (a local entry
//     with an error object is a failed call, whatever its kind);
//   - a message is shown once even when several entries carry it (same message id);
//   - artifact chunks are keyed by (taskId, artifact id): append adds the parts to the bubble (adjacent
//     text joined), no append replaces its parts in place, lastChunk marks it complete. A chunk that
//     appends to an artifact never seen starts a bubble; chunks after lastChunk are still added (nothing
//     an agent sent is hidden) and the bubble stays complete;
//   - once a task has ended (completed, canceled, failed, rejected) its state no longer changes; later
//     status entries still show their messages, except progress messages (working/submitted), which
//     would be stale;
//   - consecutive progress messages of one task (status working/submitted) update one bubble instead
//     of stacking up, and once the task has ended with a result its progress bubbles fold away.

import type { Artifact, ChatEntry, ChatError, Message, Part } from '../api/types';
import { isTerminal } from '../api/types';
import { a2uiMessagesOf, describeAction, isA2uiPart, messageKind, surfaceIdOf, versionOf, type A2uiMessage } from './a2ui';
import { joinParts, partsOf } from './parts';

export type Side = 'owner' | 'agent';

export type ChatItem =
  | { type: 'message'; key: string; from: Side; taskId?: string; message: Message; at: string; seq: number }
  | { type: 'status'; key: string; from: 'agent'; taskId?: string; state: string; message: Message; at: string; seq: number }
  | {
      type: 'artifact';
      key: string;
      from: 'agent';
      taskId?: string;
      artifact: Artifact;
      /** how many entries went into it */
      chunks: number;
      /** a chunk with lastChunk arrived */
      complete: boolean;
      at: string;
      seq: number;
    }
  | { type: 'error'; key: string; taskId?: string; error: ChatError; at: string; seq: number }
  /**
   * An A2UI surface the agent drew: one bubble per surface, at the place it was created; later
   * messages about it are appended (the bubble changes in place), deleteSurface removes it.
   */
  | { type: 'surface'; key: string; from: 'agent'; taskId?: string; surfaceId: string; messages: A2uiMessage[]; deleted?: boolean; at: string; seq: number }
  /** what the owner did on a surface (an A2UI action or error they sent), as one compact line */
  | { type: 'action'; key: string; from: 'owner'; taskId?: string; text: string; at: string; seq: number }
  | { type: 'task'; key: string; taskId: string; state: string; ended: boolean; at: string };

export interface ChatTask {
  taskId: string;
  /** the latest state reported, undefined while none was */
  state?: string;
  /** completed, canceled, failed or rejected: nothing changes it any more */
  ended: boolean;
  firstSeq: number;
  lastSeq: number;
  /** when the state was last reported */
  at: string;
  /** the agent's question while the task is input-required */
  question?: Message;
}

export interface Transcript {
  items: ChatItem[];
  /** the tasks the entries mention, in order of first appearance */
  tasks: ChatTask[];
  /** the task with the most recent entry */
  newest?: ChatTask;
  /**
   * The task the composer answers in place: the newest task when it is input-required and the owner has
   * not written a new message (one without a taskId) since.
   */
  answering?: { taskId: string; question?: Message };
}

function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function validEntry(e: unknown): e is ChatEntry {
  return isObj(e) && typeof e.seq === 'number' && Number.isFinite(e.seq);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function validMessage(m: unknown): m is Message {
  return isObj(m);
}

/** Union by seq, ascending. An entry already present is kept; returns `existing` itself when nothing is new. */
export function mergeEntries(existing: readonly ChatEntry[], incoming: readonly unknown[]): ChatEntry[] {
  const bySeq = new Map<number, ChatEntry>();
  let clean = true;
  for (const e of existing) {
    if (validEntry(e) && !bySeq.has(e.seq)) bySeq.set(e.seq, e);
    else clean = false;
  }
  let added = false;
  for (const e of incoming) {
    if (validEntry(e) && !bySeq.has(e.seq)) {
      bySeq.set(e.seq, e);
      added = true;
    }
  }
  if (!added && clean && isSorted(existing)) return existing as ChatEntry[];
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

function isSorted(list: readonly ChatEntry[]): boolean {
  for (let i = 1; i < list.length; i++) if (list[i - 1].seq >= list[i].seq) return false;
  return true;
}

/** The highest seq known (0 for none). */
export function lastEntrySeq(entries: readonly ChatEntry[]): number {
  let max = 0;
  for (const e of entries) if (validEntry(e) && e.seq > max) max = e.seq;
  return max;
}

const PROGRESS = new Set(['working', 'submitted']);

interface TaskAcc extends ChatTask {
  /** the task's state line goes before items[anchor] (after the task's newest item) */
  anchor: number;
  order: number;
}

/** Builds the transcript from entries in any order, with duplicates. */
export function buildTranscript(entries: readonly unknown[]): Transcript {
  const list = mergeEntries([], entries);
  const items: ChatItem[] = [];
  const seenMessages = new Set<string>();
  const artifactIndex = new Map<string, number>();
  const tasks = new Map<string, TaskAcc>();
  let lastFreshOut = 0;

  const taskOf = (e: ChatEntry): TaskAcc | undefined => {
    const id = str(e.taskId);
    if (!id) return undefined;
    let t = tasks.get(id);
    if (!t) {
      t = { taskId: id, ended: false, firstSeq: e.seq, lastSeq: e.seq, at: str(e.at) ?? '', anchor: items.length, order: tasks.size };
      tasks.set(id, t);
    }
    t.lastSeq = Math.max(t.lastSeq, e.seq);
    return t;
  };
  /** The task's newest content is items[index]: its state line goes after it. */
  const anchorAt = (t: TaskAcc | undefined, index: number) => {
    if (t) t.anchor = Math.max(t.anchor, index + 1);
  };
  const pushItem = (t: TaskAcc | undefined, item: ChatItem) => {
    items.push(item);
    anchorAt(t, items.length - 1);
  };
  /** Marks a message id as shown; false when it already was. */
  const firstSight = (m: Message): boolean => {
    const id = str(m.id);
    if (!id) return true;
    if (seenMessages.has(id)) return false;
    seenMessages.add(id);
    return true;
  };

  // A2UI: the surfaces drawn so far → index in items, by task and id (a surface id is unique only
  // among a renderer's live surfaces: another task of the conversation may reuse it), and the newest
  // by id alone, for an update sent from another task of the context.
  const surfaces = new Map<string, number>();
  const newestSurface = new Map<string, number>();
  const applySurfaces = (msgs: A2uiMessage[], t: TaskAcc | undefined, at: string, seq: number) => {
    for (const m of msgs) {
      const id = surfaceIdOf(m);
      const kind = messageKind(m);
      const scoped = `${t?.taskId ?? ''}\u0000${id}`;
      // v0.8 has no create message: a surface not seen in this task starts with any of its messages
      const v08 = versionOf(m) === 'v0.8';
      const idx = surfaces.get(scoped) ?? (kind === 'createSurface' || (v08 && kind !== 'deleteSurface') ? undefined : newestSurface.get(id));
      const item = idx !== undefined ? (items[idx] as Extract<ChatItem, { type: 'surface' }>) : undefined;
      if (kind === 'deleteSurface') {
        if (idx !== undefined && item) {
          items[idx] = { ...item, deleted: true };
          for (const [k, v] of surfaces) if (v === idx) surfaces.delete(k);
          if (newestSurface.get(id) === idx) newestSurface.delete(id);
        }
      } else if (item && idx !== undefined && !item.deleted) {
        items[idx] = { ...item, messages: [...item.messages, m], at: at || item.at };
        anchorAt(t, idx);
      } else if (kind === 'createSurface' || m.version !== 'v0.9') {
        // a new surface: a v0.9 createSurface, any v0.8 message, or one of a version not rendered (its
        // bubble says so)
        surfaces.set(scoped, items.length);
        newestSurface.set(id, items.length);
        pushItem(t, { type: 'surface', key: `u:${seq}:${id}`, from: 'agent', taskId: t?.taskId, surfaceId: id, messages: [m], at, seq });
      }
      // an update of a surface never created is dropped
    }
  };
  /** parts without their A2UI parts */
  const plainParts = (parts: Part[] | null | undefined): Part[] => (Array.isArray(parts) ? parts.filter((p) => !isA2uiPart(p)) : []);

  for (const e of list) {
    const at = str(e.at) ?? '';
    // a failed call is kind "error"; one that says so only by its error object is one too
    const kind = e.direction === 'local' && isObj(e.error) ? 'error' : e.kind;
    switch (kind) {
      case 'message': {
        const t = taskOf(e);
        const m = e.message;
        if (e.direction === 'out' && !t) lastFreshOut = e.seq;
        if (!validMessage(m) || !firstSight(m)) break;
        const from: Side = e.direction === 'out' ? 'owner' : e.direction === 'in' ? 'agent' : m.role === 'user' ? 'owner' : 'agent';
        const a2 = a2uiMessagesOf(m.parts);
        if (a2.length === 0) {
          pushItem(t, { type: 'message', key: `m:${e.seq}`, from, taskId: t?.taskId, message: m, at, seq: e.seq });
          break;
        }
        const rest = plainParts(m.parts);
        if (from === 'owner') {
          a2.forEach((x, i) => pushItem(t, { type: 'action', key: `ua:${e.seq}:${i}`, from: 'owner', taskId: t?.taskId, text: describeAction(x), at, seq: e.seq }));
          if (rest.length) pushItem(t, { type: 'message', key: `m:${e.seq}`, from, taskId: t?.taskId, message: { ...m, parts: rest }, at, seq: e.seq });
        } else {
          if (rest.length) pushItem(t, { type: 'message', key: `m:${e.seq}`, from, taskId: t?.taskId, message: { ...m, parts: rest }, at, seq: e.seq });
          applySurfaces(a2, t, at, e.seq);
        }
        break;
      }
      case 'task':
      case 'status': {
        const t = taskOf(e);
        const state = str(e.state) ?? str(isObj(e.status) ? e.status.state : undefined);
        const wasEnded = t?.ended ?? false;
        if (t && state && !t.ended) {
          t.state = state;
          t.at = at || t.at;
          t.ended = isTerminal(state);
          if (state !== 'input-required') t.question = undefined;
        }
        const candidates: Message[] = [];
        if (isObj(e.status) && validMessage(e.status.message)) candidates.push(e.status.message);
        // the task as first reported may carry the owner's own message back: that one is shown already
        if (validMessage(e.message) && !(e.kind === 'task' && e.message.role === 'user')) candidates.push(e.message);
        for (const full of candidates) {
          const progress = !state || PROGRESS.has(state);
          if (wasEnded && progress) continue; // a stale progress report of a task that has ended
          // the question may have been shown already, as the agent's message (AgentVault asks that way)
          if (t && state === 'input-required' && !wasEnded) t.question = full;
          if (!firstSight(full)) continue;
          // A2UI parts draw (or change) surfaces; the rest of the message is a bubble as usual
          const a2 = a2uiMessagesOf(full.parts);
          const m = a2.length ? { ...full, parts: plainParts(full.parts) } : full;
          if (a2.length) {
            if ((m.parts ?? []).length) pushItem(t, { type: 'status', key: `s:${e.seq}:${candidates.indexOf(full)}`, from: 'agent', taskId: t?.taskId, state: state ?? 'unknown', message: m, at, seq: e.seq });
            applySurfaces(a2, t, at, e.seq);
            continue;
          }
          const last = items[items.length - 1];
          if (progress && t && last?.type === 'status' && last.taskId === t.taskId && PROGRESS.has(last.state)) {
            // one progress bubble per run of progress reports: it shows the latest
            items[items.length - 1] = { ...last, state: state ?? last.state, message: m, at, seq: e.seq };
            anchorAt(t, items.length - 1);
            continue;
          }
          pushItem(t, { type: 'status', key: `s:${e.seq}:${candidates.indexOf(full)}`, from: 'agent', taskId: t?.taskId, state: state ?? 'unknown', message: m, at, seq: e.seq });
        }
        break;
      }
      case 'artifact': {
        const a = e.artifact;
        if (!isObj(a)) break;
        const t = taskOf(e);
        const id = str(a.id);
        const key = id ? `${t?.taskId ?? ''}\u0000${id}` : undefined;
        const idx = key !== undefined ? artifactIndex.get(key) : undefined;
        const all: Part[] = partsOf(a);
        const a2 = a2uiMessagesOf(all);
        const parts = a2.length ? plainParts(all) : all;
        if (a2.length) applySurfaces(a2, t, at, e.seq);
        if (a2.length && parts.length === 0 && idx === undefined) break; // an artifact that only draws
        if (idx !== undefined) {
          const prev = items[idx] as Extract<ChatItem, { type: 'artifact' }>;
          const merged = a.append ? joinParts(partsOf(prev.artifact), parts) : parts;
          items[idx] = {
            ...prev,
            artifact: {
              ...prev.artifact,
              name: str(a.name) ?? prev.artifact.name,
              description: str(a.description) ?? prev.artifact.description,
              parts: merged,
              lastChunk: prev.complete || !!a.lastChunk,
            },
            chunks: prev.chunks + 1,
            complete: prev.complete || !!a.lastChunk,
          };
          anchorAt(t, idx);
        } else {
          const item: ChatItem = {
            type: 'artifact',
            key: `a:${e.seq}`,
            from: 'agent',
            taskId: t?.taskId,
            artifact: { ...a, id: id ?? `#${e.seq}`, parts: joinParts([], parts), append: false, lastChunk: !!a.lastChunk },
            chunks: 1,
            complete: !!a.lastChunk,
            at,
            seq: e.seq,
          };
          if (key !== undefined) artifactIndex.set(key, items.length);
          pushItem(t, item);
        }
        break;
      }
      case 'error': {
        const t = taskOf(e);
        const err: Record<string, unknown> = isObj(e.error) ? e.error : {};
        const error: ChatError = {
          kind: str(err.kind) ?? 'remote',
          message: str(err.message) ?? 'The call to the agent failed.',
          ...(typeof err.code === 'number' ? { code: err.code } : {}),
        };
        pushItem(t, { type: 'error', key: `x:${e.seq}`, taskId: t?.taskId, error, at, seq: e.seq });
        break;
      }
      default:
        break; // a kind from a newer hub: nothing to show
    }
  }

  // A finished reply folds its progress away: once a task has ended with a result (an artifact, or a
  // message or non-progress status of the agent), its progress bubbles ("Working… 3/4") would only
  // stand between the question and the answer. Its state line says how it ended; its timeline keeps
  // every report. A task that ended without a result keeps its last progress: it says how far it got.
  const resulted = new Set<string>();
  for (const i of items) {
    if (!i.taskId) continue;
    if (i.type === 'artifact' || i.type === 'surface' || (i.type === 'message' && i.from === 'agent') || (i.type === 'status' && !PROGRESS.has(i.state))) resulted.add(i.taskId);
  }
  // a deleted surface goes too
  const folds = (i: ChatItem) =>
    (i.type === 'surface' && !!i.deleted) || (i.type === 'status' && PROGRESS.has(i.state) && !!i.taskId && !!tasks.get(i.taskId)?.ended && resulted.has(i.taskId));
  if (items.some(folds)) {
    // the state lines go after their task's newest item: count it among what is left
    const kept: ChatItem[] = [];
    const moved = new Map<number, number>();
    items.forEach((it, idx) => {
      moved.set(idx, kept.length);
      if (!folds(it)) kept.push(it);
    });
    moved.set(items.length, kept.length);
    for (const t of tasks.values()) t.anchor = moved.get(Math.min(t.anchor, items.length)) ?? kept.length;
    items.splice(0, items.length, ...kept);
  }

  // One state line per task, after its newest item.
  const lines = [...tasks.values()].filter((t) => t.state !== undefined).sort((a, b) => b.anchor - a.anchor || b.order - a.order);
  for (const t of lines) {
    items.splice(Math.min(t.anchor, items.length), 0, { type: 'task', key: `t:${t.taskId}`, taskId: t.taskId, state: t.state!, ended: t.ended, at: t.at });
  }

  const all = [...tasks.values()].sort((a, b) => a.order - b.order);
  const out: ChatTask[] = all.map(({ anchor: _a, order: _o, ...t }) => t);
  let newest: ChatTask | undefined;
  for (const t of out) if (!newest || t.lastSeq > newest.lastSeq) newest = t;
  const answering =
    newest && newest.state === 'input-required' && newest.lastSeq > lastFreshOut ? { taskId: newest.taskId, question: newest.question } : undefined;
  return { items, tasks: out, newest, answering };
}

/** Words for a task's state line. */
export function taskStateText(state: string): string {
  switch (state) {
    case 'submitted':
      return 'Submitted…';
    case 'working':
      return 'Working…';
    case 'input-required':
      return 'Waiting for your answer';
    case 'auth-required':
      return 'The agent needs authentication';
    case 'completed':
      return 'Completed';
    case 'canceled':
      return 'Canceled';
    case 'failed':
      return 'Failed';
    case 'rejected':
      return 'Rejected';
    default:
      return state || 'Unknown state';
  }
}

/** True while the agent is visibly at work on a task (an animated indicator). */
export function isActiveState(state: string | undefined): boolean {
  return state === 'working' || state === 'submitted';
}

/** How close in time two messages of one sender are to be shown as one group (Slack: 5 minutes). */
export const GROUP_WINDOW_MS = 5 * 60 * 1000;

/**
 * Whether items[i] continues the group of the bubble before it: a message, status or artifact of the
 * same sender right after another, within GROUP_WINDOW_MS. Its bubble then shows no sender line.
 */
export function continuesGroup(items: readonly ChatItem[], i: number): boolean {
  const it = items[i];
  const prev = items[i - 1];
  const bubble = (x: ChatItem | undefined): x is Extract<ChatItem, { from: Side }> =>
    !!x && (x.type === 'message' || x.type === 'status' || x.type === 'artifact');
  if (!bubble(it) || !bubble(prev) || it.from !== prev.from) return false;
  const gap = Date.parse(it.at) - Date.parse(prev.at);
  return Number.isFinite(gap) && gap >= 0 && gap <= GROUP_WINDOW_MS;
}
