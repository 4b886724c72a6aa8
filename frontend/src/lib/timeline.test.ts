import { describe, expect, it } from 'vitest';
import type { TimelineEvent } from '../api/types';
import { applyPushed, contiguousEnd, foldRepeats, hasGap, isFinished, lastSeq, mergeEvents, stateOf } from './timeline';

const ev = (seq: number, extra: Partial<TimelineEvent> = {}): TimelineEvent => ({
  seq,
  at: `2025-01-01T00:00:0${seq}.000000000Z`,
  kind: 'status',
  final: false,
  raw: {},
  ...extra,
});

describe('mergeEvents', () => {
  it('dedupes by seq and sorts ascending', () => {
    const merged = mergeEvents([ev(1), ev(3)], [ev(2), ev(3, { kind: 'artifact' }), ev(4)]);
    expect(merged.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(merged[2].kind).toBe('status'); // the entry already held wins: log entries never change
  });

  it('returns the same array when nothing is new', () => {
    const a = [ev(1), ev(2)];
    expect(mergeEvents(a, [ev(2)])).toBe(a);
  });

  it('ignores malformed entries', () => {
    const merged = mergeEvents([ev(1)], [null, undefined, { ...ev(2), seq: 'x' as unknown as number }]);
    expect(merged.map((e) => e.seq)).toEqual([1]);
  });
});

describe('gaps', () => {
  it('finds the end of the complete prefix', () => {
    expect(contiguousEnd([])).toBe(0);
    expect(contiguousEnd([ev(1), ev(2), ev(3)])).toBe(3);
    expect(contiguousEnd([ev(1), ev(2), ev(5)])).toBe(2);
    expect(contiguousEnd([ev(2), ev(3)])).toBe(0);
    expect(hasGap([ev(1), ev(2), ev(5)])).toBe(true);
    expect(hasGap([ev(1), ev(2)])).toBe(false);
    expect(lastSeq([ev(1), ev(7)])).toBe(7);
  });

  it('applyPushed appends the next entry, skips a duplicate and reports a gap', () => {
    const base = [ev(1), ev(2)];
    const a = applyPushed(base, ev(3));
    expect(a.outcome).toBe('appended');
    expect(a.events.map((e) => e.seq)).toEqual([1, 2, 3]);

    const d = applyPushed(a.events, ev(2));
    expect(d.outcome).toBe('duplicate');
    expect(d.events).toBe(a.events);

    const g = applyPushed(a.events, ev(6));
    expect(g.outcome).toBe('gap');
    expect(g.events.map((e) => e.seq)).toEqual([1, 2, 3, 6]);
    expect(contiguousEnd(g.events)).toBe(3); // ask tasks.events {after: 3}

    // the refetch fills the hole
    const filled = mergeEvents(g.events, [ev(4), ev(5), ev(6)]);
    expect(hasGap(filled)).toBe(false);
  });
});

describe('state of a log', () => {
  it('is the latest state carried, and finished once a final entry is there', () => {
    const log = [ev(1, { state: 'submitted' }), ev(2, { state: 'working' }), ev(3, { kind: 'artifact' })];
    expect(stateOf(log)).toBe('working');
    expect(isFinished(log)).toBe(false);
    const done = [...log, ev(4, { state: 'completed', final: true })];
    expect(stateOf(done)).toBe('completed');
    expect(isFinished(done)).toBe(true);
  });
});

describe('foldRepeats', () => {
  const st = (seq: number, state: string) => ({ seq, at: '', kind: 'status' as const, final: false, state, raw: {} });
  it('folds the middle of a run of same-state updates, keeping its first and last', () => {
    const evs = [{ seq: 1, at: '', kind: 'task' as const, final: false, raw: {} }, st(2, 'working'), st(3, 'working'), st(4, 'working'), st(5, 'working'), st(6, 'completed')];
    const rows = foldRepeats(evs);
    expect(rows.map((r) => (r.type === 'fold' ? `fold:${r.events.map((e) => e.seq).join(',')}` : r.ev.seq))).toEqual([1, 2, 'fold:3,4', 5, 6]);
  });
  it('leaves short runs alone', () => {
    expect(foldRepeats([st(1, 'working'), st(2, 'working'), st(3, 'working')]).every((r) => r.type === 'event')).toBe(true);
  });
});
