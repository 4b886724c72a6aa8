import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { TaskSummary, TimelineEvent } from '../api/types';
import { Timeline } from '../components/Timeline';
import { FakeSocket } from '../test/fakeSocket';
import { hub, renderWithHub } from '../test/hub';
import { useTask } from './useTask';

const T0 = Date.UTC(2025, 0, 1, 12, 0, 0);
const at = (ms: number) => new Date(T0 + ms).toISOString().replace('Z', '123456Z');
const summary = (state: string): TaskSummary => ({
  agent: 'demo',
  id: 't1',
  contextId: 'c1',
  state,
  dialect: '1.0',
  direction: 'outgoing',
  title: 'slow 5',
  createdAt: at(0),
  updatedAt: at(0),
  waitingForOwner: false,
});
const ev = (seq: number, ms: number, text: string, state = 'working', final = false): TimelineEvent => ({
  seq,
  at: at(ms),
  kind: seq === 1 ? 'task' : 'status',
  final,
  state,
  status: { state, message: { id: `m${seq}`, role: 'agent', parts: [{ kind: 'text', text }] } },
  raw: { seq },
});

function Probe() {
  const v = useTask('demo', 't1');
  return (
    <div>
      <span data-testid="state">{v.summary?.state ?? 'loading'}</span>
      {/* the events the hook holds (the Timeline folds repeated "working" rows) */}
      <span data-testid="seqs">{v.events.map((e) => e.seq).join(',')}</span>
      <Timeline events={v.events} showRaw={false} />
    </div>
  );
}

const seqs = () => (screen.queryByTestId('seqs')?.textContent || '').split(',').filter(Boolean).map(Number);

describe('useTask: a live timeline', () => {
  it('loads, appends pushed events, fills gaps and catches up after "lagged"', async () => {
    const { socket } = await renderWithHub(<Probe />);
    const get = socket.request('tasks.get');
    expect(get.params).toEqual({ agent: 'demo', id: 't1' });
    await hub(() =>
      socket.reply(get.id, { summary: summary('working'), history: [], artifacts: [], status: { state: 'working' }, events: [ev(1, 0, 'start', 'submitted'), ev(2, 1200, 'step 1')], raw: {} }),
    );
    expect(seqs()).toEqual([1, 2]);
    expect(screen.getByText('+1.2s')).toBeTruthy();

    const push = (e: TimelineEvent, state = 'working') => socket.push({ topic: 'task', data: { agent: 'demo', taskId: 't1', summary: summary(state), event: e } });

    // the next event is appended
    await hub(() => push(ev(3, 2200, 'step 2')));
    expect(seqs()).toEqual([1, 2, 3]);
    expect(screen.getByText('step 2')).toBeTruthy();

    // events of other tasks are not ours
    await hub(() => socket.push({ topic: 'task', data: { agent: 'demo', taskId: 'other', summary: summary('working'), event: ev(4, 2300, 'not mine') } }));
    expect(screen.queryByText('not mine')).toBeNull();

    // a duplicate changes nothing
    await hub(() => push(ev(2, 1200, 'step 1')));
    expect(seqs()).toEqual([1, 2, 3]);

    // seq 6 after 3: a gap, so the hook asks for what follows 3
    const before = socket.sent.length;
    await hub(() => push(ev(6, 5200, 'done', 'completed', true), 'completed'));
    const fill = socket.request('tasks.events');
    expect(socket.sent.length).toBe(before + 1);
    expect(fill.params).toEqual({ agent: 'demo', id: 't1', after: 3 });
    await hub(() => socket.reply(fill.id, { events: [ev(4, 3200, 'step 3'), ev(5, 4200, 'step 4'), ev(6, 5200, 'done', 'completed', true)] }));
    expect(seqs()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(screen.getByTestId('state').textContent).toBe('completed');

    // the hub dropped pushes for this client: ask for anything after the last seq
    await hub(() => socket.push({ topic: 'lagged', data: {} }));
    const after = socket.request('tasks.events');
    expect(after.id).not.toBe(fill.id);
    expect(after.params).toEqual({ agent: 'demo', id: 't1', after: 6 });
    await hub(() => socket.reply(after.id, { events: [] }));
    expect(seqs()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('keeps events pushed while tasks.get is in flight', async () => {
    const { socket } = await renderWithHub(<Probe />);
    const get = socket.request('tasks.get');
    await hub(() => socket.push({ topic: 'task', data: { agent: 'demo', taskId: 't1', summary: summary('working'), event: ev(3, 2000, 'early') } }));
    await hub(() =>
      socket.reply(get.id, { summary: summary('working'), history: [], artifacts: [], status: { state: 'working' }, events: [ev(1, 0, 'a', 'submitted'), ev(2, 1000, 'b')], raw: {} }),
    );
    expect(seqs()).toEqual([1, 2, 3]);
  });

  it('refetches on reconnection, keeping what it had', async () => {
    const { socket, client } = await renderWithHub(<Probe />);
    const get = socket.request('tasks.get');
    await hub(() =>
      socket.reply(get.id, { summary: summary('working'), history: [], artifacts: [], status: { state: 'working' }, events: [ev(1, 0, 'a', 'submitted')], raw: {} }),
    );
    expect(seqs()).toEqual([1]);
    await hub(() => socket.drop());
    await hub(() => client.retryNow());
    const again = FakeSocket.last();
    expect(again).not.toBe(socket);
    await hub(() => again.open());
    const get2 = again.request('tasks.get');
    await hub(() =>
      again.reply(get2.id, {
        summary: summary('completed'),
        history: [],
        artifacts: [],
        status: { state: 'completed' },
        events: [ev(1, 0, 'a', 'submitted'), ev(2, 900, 'b', 'completed', true)],
        raw: {},
      }),
    );
    expect(seqs()).toEqual([1, 2]);
    expect(screen.getByTestId('state').textContent).toBe('completed');
  });
});
