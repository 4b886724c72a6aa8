import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeSocket, socketFactory } from '../test/fakeSocket';
import { backoffDelay, HubClient, HubError, type StateInfo } from './client';

const flush = () => new Promise((r) => setTimeout(r, 0));

function makeClient(extra: Partial<ConstructorParameters<typeof HubClient>[0]> = {}) {
  return new HubClient({
    resolveUrl: () => 'ws://hub/ui/ws?token=t',
    socketFactory,
    backoff: { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0 },
    requestTimeoutMs: 5000,
    ...extra,
  });
}

beforeEach(() => FakeSocket.reset());
afterEach(() => vi.useRealTimers());

describe('HubClient', () => {
  it('matches replies to requests by id, whatever the order', async () => {
    const c = makeClient();
    c.start();
    await flush();
    const s = FakeSocket.last();
    expect(s.url).toBe('ws://hub/ui/ws?token=t');
    s.open();
    const a = c.call('tasks.get', { agent: 'demo', id: 'a' });
    const b = c.call('tasks.get', { agent: 'demo', id: 'b' });
    expect(s.sent.map((f) => f.params)).toEqual([
      { agent: 'demo', id: 'a' },
      { agent: 'demo', id: 'b' },
    ]);
    const [fa, fb] = s.sent;
    expect(fa.id).not.toBe(fb.id);
    s.reply(fb.id, { which: 'b' });
    s.reply(fa.id, { which: 'a' });
    await expect(a).resolves.toEqual({ which: 'a' });
    await expect(b).resolves.toEqual({ which: 'b' });
  });

  it('rejects with the hub error code and message', async () => {
    const c = makeClient();
    c.start();
    await flush();
    const s = FakeSocket.last();
    s.open();
    const p = c.call('inbox.act', { id: 'x', action: 'answer', text: 'hi' });
    s.fail(s.request('inbox.act').id, 'conflict', 'task is not waiting');
    const err = await p.catch((e) => e);
    expect(err).toBeInstanceOf(HubError);
    expect(err.code).toBe('conflict');
    expect(err.message).toBe('task is not waiting');
  });

  it('queues calls made before the connection opens and sends them on open', async () => {
    const c = makeClient();
    c.start();
    const p = c.call('hub.info', {});
    await flush();
    const s = FakeSocket.last();
    expect(s.sent).toHaveLength(0);
    s.open();
    expect(s.sent.map((f) => f.method)).toEqual(['hub.info']);
    s.reply(s.sent[0].id, { version: '1' });
    await expect(p).resolves.toEqual({ version: '1' });
  });

  it('dispatches pushed topics to their subscribers only, and stops after unsubscribe', async () => {
    const c = makeClient();
    const tasks: unknown[] = [];
    const inbox: unknown[] = [];
    const off = c.on('task', (d) => tasks.push(d));
    c.on('inbox', (d) => inbox.push(d));
    c.start();
    await flush();
    const s = FakeSocket.last();
    s.open();
    s.push({ topic: 'task', data: { taskId: '1' } });
    s.push({ topic: 'inbox', data: { unread: 2, waiting: 1 } });
    s.push({ topic: 'nobody-listens', data: {} });
    s.push('not even an object');
    off();
    s.push({ topic: 'task', data: { taskId: '2' } });
    expect(tasks).toEqual([{ taskId: '1' }]);
    expect(inbox).toEqual([{ unread: 2, waiting: 1 }]);
  });

  it('a throwing subscriber does not stop the others', async () => {
    const c = makeClient();
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    const got: unknown[] = [];
    c.on('lagged', () => {
      throw new Error('boom');
    });
    c.on('lagged', (d) => got.push(d));
    c.start();
    await flush();
    FakeSocket.last().open();
    FakeSocket.last().push({ topic: 'lagged', data: {} });
    expect(got).toEqual([{}]);
    expect(err).toHaveBeenCalled();
  });

  it('reconnects with exponential backoff, rejects in-flight calls, and counts connections', async () => {
    vi.useFakeTimers();
    const c = makeClient();
    const states: StateInfo[] = [];
    c.onState((s) => states.push(s));
    c.start();
    await vi.advanceTimersByTimeAsync(0);
    const s1 = FakeSocket.last();
    s1.open();
    expect(c.state).toMatchObject({ state: 'open', connectionId: 1 });

    const inflight = c.call('tasks.list', {});
    const caught = inflight.catch((e) => e);
    s1.drop();
    expect((await caught).code).toBe('disconnected');
    expect(c.state.state).toBe('reconnecting');

    // attempt 1 after 100 ms: fails without opening
    await vi.advanceTimersByTimeAsync(99);
    expect(FakeSocket.all).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(FakeSocket.all).toHaveLength(2);
    FakeSocket.last().drop();
    // attempt 2 after 200 ms
    await vi.advanceTimersByTimeAsync(199);
    expect(FakeSocket.all).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(FakeSocket.all).toHaveLength(3);
    FakeSocket.last().drop();
    // attempt 3 after 400 ms, which succeeds
    await vi.advanceTimersByTimeAsync(400);
    expect(FakeSocket.all).toHaveLength(4);
    FakeSocket.last().open();
    expect(c.state).toMatchObject({ state: 'open', connectionId: 2 });
    // backoff starts over after a success
    FakeSocket.last().drop();
    await vi.advanceTimersByTimeAsync(100);
    expect(FakeSocket.all).toHaveLength(5);
    expect(states.map((s) => s.state)).toContain('reconnecting');
    c.stop();
  });

  it('stops retrying when the probe says the token is refused', async () => {
    vi.useFakeTimers();
    const probe = vi.fn(async () => true);
    const c = makeClient({ probeUnauthorized: probe });
    c.start();
    await vi.advanceTimersByTimeAsync(0);
    FakeSocket.last().drop(); // never opened
    await vi.advanceTimersByTimeAsync(0);
    expect(probe).toHaveBeenCalledTimes(1);
    expect(c.state.state).toBe('unauthorized');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(FakeSocket.all).toHaveLength(1);
  });

  it('reconnect() starts over at once, also after the token was refused', async () => {
    vi.useFakeTimers();
    let token = 'old';
    const c = makeClient({ resolveUrl: () => `ws://hub/ui/ws?token=${token}`, probeUnauthorized: async () => token === 'old' });
    c.start();
    await vi.advanceTimersByTimeAsync(0);
    FakeSocket.last().drop();
    await vi.advanceTimersByTimeAsync(0);
    expect(c.state.state).toBe('unauthorized');
    token = 'new';
    c.reconnect();
    await vi.advanceTimersByTimeAsync(0);
    expect(FakeSocket.last().url).toBe('ws://hub/ui/ws?token=new');
    FakeSocket.last().open();
    expect(c.state).toMatchObject({ state: 'open', connectionId: 1 });
    // on an open connection it replaces the socket
    const before = FakeSocket.last();
    c.reconnect();
    await vi.advanceTimersByTimeAsync(0);
    expect(before.closed).toBe(true);
    expect(FakeSocket.last()).not.toBe(before);
    c.stop();
  });

  it('ignores a slow probe answer once a newer attempt started', async () => {
    vi.useFakeTimers();
    let answer: (refused: boolean) => void = () => {};
    const c = makeClient({ probeUnauthorized: () => new Promise<boolean>((r) => (answer = r)) });
    c.start();
    await vi.advanceTimersByTimeAsync(0);
    FakeSocket.last().drop(); // the probe starts and hangs
    c.reconnect(); // a new token arrived meanwhile
    await vi.advanceTimersByTimeAsync(0);
    FakeSocket.last().open();
    answer(true); // the old token was refused, but that no longer matters
    await vi.advanceTimersByTimeAsync(0);
    expect(c.state.state).toBe('open');
    c.stop();
  });

  it('times out a call that gets no reply', async () => {
    vi.useFakeTimers();
    const c = makeClient({ requestTimeoutMs: 1000 });
    c.start();
    await vi.advanceTimersByTimeAsync(0);
    FakeSocket.last().open();
    const p = c.call('hub.info', {}).catch((e) => e);
    await vi.advanceTimersByTimeAsync(1000);
    expect((await p).code).toBe('timeout');
    // a late reply is ignored
    FakeSocket.last().reply(FakeSocket.last().sent[0].id, {});
  });

  it('retryNow skips the wait', async () => {
    vi.useFakeTimers();
    const c = makeClient({ backoff: { initialMs: 10_000, maxMs: 10_000, factor: 2, jitter: 0 } });
    c.start();
    await vi.advanceTimersByTimeAsync(0);
    FakeSocket.last().drop();
    expect(FakeSocket.all).toHaveLength(1);
    c.retryNow();
    await vi.advanceTimersByTimeAsync(0);
    expect(FakeSocket.all).toHaveLength(2);
  });

  it('a stop during start leaves no socket behind (React strict mode)', async () => {
    const c = makeClient();
    c.start();
    c.stop();
    c.start();
    await flush();
    expect(FakeSocket.all).toHaveLength(1);
    c.stop();
  });
});

describe('backoffDelay', () => {
  it('grows by the factor up to the maximum, reduced by jitter', () => {
    const b = { initialMs: 500, maxMs: 10_000, factor: 2, jitter: 0.2 };
    expect([0, 1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, b, () => 0))).toEqual([500, 1000, 2000, 4000, 8000, 10000, 10000]);
    expect(backoffDelay(0, b, () => 1)).toBe(400);
  });
});
