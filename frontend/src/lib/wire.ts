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
