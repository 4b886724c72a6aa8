// The raw wire log of the hub's calls to one remote agent: entries newest first, without duplicates,
// and bodies made readable.

import type { WireEntry } from '../api/types';
import { parseTime } from './format';

function valid(e: unknown): e is WireEntry {
  return !!e && typeof e === 'object' && (typeof (e as WireEntry).id === 'number' || typeof (e as WireEntry).id === 'string');
}

function newerFirst(a: WireEntry, b: WireEntry): number {
  if (typeof a.id === 'number' && typeof b.id === 'number') return b.id - a.id;
  const ta = parseTime(a.at);
  const tb = parseTime(b.at);
  if (Number.isFinite(ta) && Number.isFinite(tb) && ta !== tb) return tb - ta;
  return String(b.id).localeCompare(String(a.id));
}

/** Union by id, newest first; returns `existing` itself when nothing is new. */
export function mergeWire(existing: readonly WireEntry[], incoming: readonly unknown[]): WireEntry[] {
  const byId = new Map<string, WireEntry>();
  for (const e of existing) byId.set(String(e.id), e);
  let added = false;
  for (const e of incoming) {
    if (valid(e) && !byId.has(String(e.id))) {
      byId.set(String(e.id), e);
      added = true;
    }
  }
  if (!added) return existing as WireEntry[];
  return [...byId.values()].sort(newerFirst);
}

/** Bodies larger than this are cut for display (copying gives the whole body). */
export const MAX_BODY_SHOWN = 200_000;

/**
 * A body for reading: pretty-printed when it is JSON, else as is. Server-sent event streams
 * ("data: {...}" lines) get each data line's JSON pretty-printed.
 */
export function prettyBody(body: unknown): { json: boolean; text: string } {
  const s = typeof body === 'string' ? body : body === undefined || body === null ? '' : String(body);
  const trimmed = s.trim();
  if (trimmed === '') return { json: false, text: '' };
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return { json: true, text: JSON.stringify(JSON.parse(trimmed), null, 2) };
    } catch {
      /* not JSON after all */
    }
  }
  if (/^data:/m.test(s)) {
    let any = false;
    const text = s
      .split('\n')
      .map((line) => {
        const m = /^data:\s?(.*)$/.exec(line);
        if (!m) return line;
        try {
          const pretty = JSON.stringify(JSON.parse(m[1]), null, 2);
          any = true;
          return `data: ${pretty}`;
        } catch {
          return line;
        }
      })
      .join('\n');
    return { json: any, text };
  }
  return { json: false, text: s };
}

/** Header names in a stable order for display. */
export function headerRows(header: Record<string, string> | null | undefined): [string, string][] {
  if (!header || typeof header !== 'object') return [];
  return Object.entries(header)
    .filter(([, v]) => typeof v === 'string' || typeof v === 'number')
    .map(([k, v]) => [k, String(v)] as [string, string])
    .sort((a, b) => a[0].toLowerCase().localeCompare(b[0].toLowerCase()));
}

/** The JSON-RPC objects a body carries: the body itself, or each `data:` line of an event stream. */
function jsonObjects(body: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const add = (s: string) => {
    try {
      const v = JSON.parse(s);
      if (v && typeof v === 'object' && !Array.isArray(v)) out.push(v as Record<string, unknown>);
    } catch {
      /* not JSON */
    }
  };
  const t = (body || '').trim();
  if (t.startsWith('{')) add(t);
  else for (const m of t.matchAll(/^data:\s?(.*)$/gm)) add(m[1]);
  return out;
}

const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const strOf = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** "TASK_STATE_INPUT_REQUIRED" (v1.0) or "input-required" (v0.3) → "input-required". */
export function stateName(s: unknown): string | undefined {
  const v = strOf(s);
  if (!v) return undefined;
  return v.replace(/^TASK_STATE_/, '').toLowerCase().replace(/_/g, '-');
}

export interface WireSummary {
  /** what the entry is: the method called, or the kind of result ("status-update", "task", …), or the error */
  what: string;
  /** the task state it reports, if any */
  state?: string;
  /** the task it concerns, if it names one */
  taskId?: string;
}

/** What one wire entry says, read from its JSON-RPC body: its kind of event and state, its task. */
export function describeWire(e: Pick<WireEntry, 'kind' | 'method' | 'body'>): WireSummary {
  const objs = jsonObjects(e.body);
  const rpc = objs[objs.length - 1];
  if (!rpc) return { what: e.kind === 'request' ? e.method || 'request' : e.kind || 'entry' };
  const err = obj(rpc.error);
  if (err) return { what: `error ${typeof err.code === 'number' ? err.code : ''}${strOf(err.message) ? `: ${err.message}` : ''}`.trim() };
  if (strOf(rpc.method)) {
    const params = obj(rpc.params);
    const msg = obj(params?.message) ?? obj(params?.request);
    return { what: String(rpc.method), taskId: strOf(msg?.taskId) ?? strOf(params?.id) ?? strOf(params?.taskId) ?? strOf(params?.name)?.replace(/^tasks\//, '') };
  }
  const result = obj(rpc.result) ?? rpc;
  // v1.0 wraps the payload in a oneof: {task} | {message} | {statusUpdate} | {artifactUpdate}
  const wrapped: [string, string][] = [
    ['statusUpdate', 'status-update'],
    ['artifactUpdate', 'artifact-update'],
    ['task', 'task'],
    ['message', 'message'],
  ];
  for (const [key, name] of wrapped) {
    const inner = obj(result[key]);
    if (inner) return { what: name, state: stateName(obj(inner.status)?.state), taskId: strOf(inner.taskId) ?? (name === 'task' ? strOf(inner.id) : undefined) };
  }
  const kind = strOf(result.kind); // v0.3 and the v0.1 draft say what they are
  if (kind) return { what: kind, state: stateName(obj(result.status)?.state), taskId: strOf(result.taskId) ?? (kind === 'task' ? strOf(result.id) : undefined) };
  if (obj(result.status)) return { what: 'task', state: stateName(obj(result.status)?.state), taskId: strOf(result.id) };
  return { what: e.kind === 'response' ? 'result' : e.kind || 'entry' };
}

export interface WireCall {
  callId: string;
  method: string;
  /** its entries, newest first */
  entries: WireEntry[];
  taskIds: string[];
}

/** Entries grouped by the call they belong to, the newest call first (entries stay newest first). */
export function groupWire(entries: readonly WireEntry[]): WireCall[] {
  const calls = new Map<string, WireCall>();
  for (const e of entries) {
    const key = e.callId || `entry-${e.id}`;
    let c = calls.get(key);
    if (!c) {
      c = { callId: key, method: e.method, entries: [], taskIds: [] };
      calls.set(key, c);
    }
    c.entries.push(e);
    const t = describeWire(e).taskId;
    if (t && !c.taskIds.includes(t)) c.taskIds.push(t);
  }
  return [...calls.values()];
}

/** Whether an entry matches the log's filters: its kind, and words in its method, summary or body. */
export function wireMatches(e: WireEntry, kind: string, search: string): boolean {
  if (kind && e.kind !== kind) return false;
  const q = search.trim().toLowerCase();
  if (!q) return true;
  const d = describeWire(e);
  return [e.method, d.what, d.state, d.taskId, e.url, e.body].some((s) => (s || '').toLowerCase().includes(q));
}

/**
 * The entries of the calls that concern a task, whole: a call is about the task when one of its
 * entries names it (a request in the task, a response or event of it). The request that created the
 * task names none yet; it comes with its call.
 */
export function taskEntries(entries: readonly WireEntry[], taskId: string): WireEntry[] {
  const calls = new Set<string>();
  for (const e of entries) if (describeWire(e).taskId === taskId) calls.add(e.callId || `entry-${e.id}`);
  return entries.filter((e) => calls.has(e.callId || `entry-${e.id}`));
}
