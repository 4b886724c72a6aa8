import { beforeEach, describe, expect, it } from 'vitest';
import { FakeSocket, socketFactory } from '../test/fakeSocket';
import { extCall, extStream, HubClient, HubError } from './client';

const flush = () => new Promise((r) => setTimeout(r, 0));

async function openClient() {
  const c = new HubClient({
    resolveUrl: () => 'ws://hub/ui/ws?token=t',
    socketFactory,
    backoff: { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0 },
    requestTimeoutMs: 5000,
  });
  c.start();
  await flush();
  const s = FakeSocket.last();
  s.open();
  return { c, s };
}

beforeEach(() => FakeSocket.reset());

describe('extCall', () => {
  it('sends the spec method and params, with the agent only when one is named', async () => {
    const { c, s } = await openClient();
    const local = extCall(c, 'channels/get', { channelId: 'chan:1' });
    const remote = extCall(c, 'knowledge/query', { query: '{}' }, 'bob-hub');
    expect(s.sent.map((f) => f.params)).toEqual([
      { method: 'channels/get', params: { channelId: 'chan:1' } },
      { agent: 'bob-hub', method: 'knowledge/query', params: { query: '{}' } },
    ]);
    s.reply(s.sent[0].id, { channel: { id: 'chan:1' } });
    s.reply(s.sent[1].id, { data: {} });
    await expect(local).resolves.toEqual({ channel: { id: 'chan:1' } });
    await expect(remote).resolves.toEqual({ data: {} });
  });

  it("rejects with the extension's JSON-RPC error code", async () => {
    const { c, s } = await openClient();
    const p = extCall(c, 'channels/get', { channelId: 'nope' });
    s.push({ id: s.request('ext.call').id, error: { code: 'rpc_error', message: 'channel not found', rpc: { code: -32020, message: 'channel not found' } } });
    const err = (await p.catch((e) => e)) as HubError;
    expect(err).toBeInstanceOf(HubError);
    expect(err.code).toBe('rpc_error');
    expect(err.rpc).toEqual({ code: -32020, message: 'channel not found' });
  });
});

describe('extStream', () => {
  it('delivers its own results in order, then its error and end, and ignores other streams', async () => {
    const { c, s } = await openClient();
    const got: unknown[] = [];
    const errors: unknown[] = [];
    let ends = 0;
    const opening = extStream(c, 'channels/stream', { channelId: 'chan:1' }, (r) => got.push(r), {
      onError: (e) => errors.push(e),
      onEnd: () => ends++,
    });
    s.reply(s.request('ext.stream').id, { stream: 's1' });
    await opening;
    s.push({ topic: 'ext', data: { stream: 's1', result: { n: 1 } } });
    s.push({ topic: 'ext', data: { stream: 's2', result: { n: 'other' } } });
    s.push({ topic: 'ext', data: { stream: 's1', result: { n: 2 } } });
    s.push({ topic: 'ext', data: { stream: 's1', error: { code: -32020, message: 'gone' } } });
    s.push({ topic: 'ext', data: { stream: 's1', end: true } });
    s.push({ topic: 'ext', data: { stream: 's1', result: { n: 3 } } });
    expect(got).toEqual([{ n: 1 }, { n: 2 }]);
    expect(errors).toEqual([{ code: -32020, message: 'gone' }]);
    expect(ends).toBe(1);
  });

  it('closes on the hub when the UI closes it, and then hears nothing more', async () => {
    const { c, s } = await openClient();
    const got: unknown[] = [];
    const opening = extStream(c, 'knowledge/subscribe', {}, (r) => got.push(r));
    s.reply(s.request('ext.stream').id, { stream: 's7' });
    const close = await opening;
    close();
    expect(s.request('ext.close').params).toEqual({ stream: 's7' });
    s.push({ topic: 'ext', data: { stream: 's7', result: { late: true } } });
    expect(got).toEqual([]);
  });

  it('ends with a lost-connection error when the socket drops (the hub closed it too)', async () => {
    const { c, s } = await openClient();
    const errors: { code: number }[] = [];
    let ends = 0;
    const opening = extStream(c, 'channels/stream', { channelId: 'chan:1' }, () => {}, {
      onError: (e) => errors.push(e),
      onEnd: () => ends++,
    });
    s.reply(s.request('ext.stream').id, { stream: 's1' });
    await opening;
    s.drop();
    expect(errors.map((e) => e.code)).toEqual([0]);
    expect(ends).toBe(1);
  });

  it('rejects when the stream cannot open, and opens none', async () => {
    const { c, s } = await openClient();
    const opening = extStream(c, 'channels/stream', { channelId: 'nope' }, () => {});
    s.push({ id: s.request('ext.stream').id, error: { code: 'rpc_error', message: 'not found', rpc: { code: -32020, message: 'not found' } } });
    const err = (await opening.catch((e) => e)) as HubError;
    expect(err.rpc?.code).toBe(-32020);
  });
});
