import { describe, expect, it } from 'vitest';
import type { TaskSummary } from '../api/types';
import { appendPage, matchesFilter, upsertTask, upsertTasks } from './tasklist';

const t = (id: string, minute: number, extra: Partial<TaskSummary> = {}): TaskSummary => ({
  agent: 'demo',
  id,
  contextId: 'c',
  state: 'working',
  dialect: '1.0',
  direction: 'outgoing',
  title: id,
  createdAt: `2025-01-01T00:${String(minute).padStart(2, '0')}:00.000000000Z`,
  updatedAt: `2025-01-01T00:${String(minute).padStart(2, '0')}:00.000000000Z`,
  waitingForOwner: false,
  ...extra,
});

describe('task list', () => {
  const list = [t('c', 30), t('b', 20), t('a', 10)];

  it('inserts a new task in creation order (newest first)', () => {
    expect(upsertTask(list, t('d', 40)).map((x) => x.id)).toEqual(['d', 'c', 'b', 'a']);
    expect(upsertTask(list, t('m', 15)).map((x) => x.id)).toEqual(['c', 'b', 'm', 'a']);
  });

  it('updates a known task in place', () => {
    const out = upsertTask(list, t('b', 20, { state: 'completed' }));
    expect(out.map((x) => x.id)).toEqual(['c', 'b', 'a']);
    expect(out[1].state).toBe('completed');
    expect(list[1].state).toBe('working'); // not mutated
  });

  it('drops a task that leaves the filter, ignores one that does not match', () => {
    const working = matchesFilter({ state: 'working' });
    expect(upsertTask(list, t('b', 20, { state: 'completed' }), working).map((x) => x.id)).toEqual(['c', 'a']);
    expect(upsertTask(list, t('z', 50, { state: 'failed' }), working)).toBe(list);
    expect(matchesFilter({ agent: 'hub' })(t('x', 1))).toBe(false);
  });

  it('treats the same id on another agent as another task', () => {
    expect(upsertTask(list, t('a', 50, { agent: 'hub' }))).toHaveLength(4);
  });

  it('applies a batch with updates, inserts and repeats of one task', () => {
    const out = upsertTasks(list, [t('d', 40), t('a', 10, { state: 'failed' }), t('d', 40, { state: 'completed' })]);
    expect(out.map((x) => `${x.id}:${x.state}`)).toEqual(['d:completed', 'c:working', 'b:working', 'a:failed']);
  });

  it('appends an older page without duplicates', () => {
    expect(appendPage(list, [t('a', 10), t('0', 5)]).map((x) => x.id)).toEqual(['c', 'b', 'a', '0']);
  });

  it('handles 10,000 rows', () => {
    const big = Array.from({ length: 10_000 }, (_, i) => t(`t${i}`, 0, { createdAt: new Date(Date.UTC(2025, 0, 1) - i * 1000).toISOString() }));
    let cur = big;
    for (let i = 0; i < 50; i++) cur = upsertTasks(cur, [t(`t${i * 100}`, 0, { createdAt: big[i * 100].createdAt, state: 'completed' }), t(`new${i}`, 59)]);
    expect(cur).toHaveLength(10_050);
    expect(cur.slice(0, 50).every((x) => x.id.startsWith('new'))).toBe(true); // same creation time: all on top
    expect(cur.filter((x) => x.state === 'completed')).toHaveLength(50);
    for (let i = 1; i < cur.length; i++) expect(cur[i - 1].createdAt >= cur[i].createdAt).toBe(true);
  });
});
