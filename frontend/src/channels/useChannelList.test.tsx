import { act, renderHook } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { HubClient } from '../api/client';
import { FakeSocket, socketFactory } from '../test/fakeSocket';
import { tick } from '../test/hub';
import type { Ext } from './api';
import { MAX_REMOTE_STREAMS, useChannelList } from './useChannelList';

const channel = (id: string, lastSequence = 0) => ({
  id,
  name: id,
  visibility: 'public',
  createdAt: 1,
  createdBy: 'agent://alice',
  members: [],
  version: 1,
  kind: 'channel',
  lastSequence,
});

/** A hub whose channels/list answers what `listed` holds when asked, and that counts the asks. */
function fakeHub(listed: { channels: ReturnType<typeof channel>[] }) {
  const asked: (string | undefined)[] = [];
  const ext: Ext = {
    call: vi.fn(async (method: string, _params: unknown, agent?: string) => {
      if (method === 'channels/list') {
        asked.push(agent);
        return { channels: [...listed.channels] };
      }
      throw new Error('ChannelNotFound');
    }),
    stream: vi.fn(() => () => {}),
  };
  return { ext, asked };
}

async function connect() {
  FakeSocket.reset();
  const client = new HubClient({ resolveUrl: () => 'ws://test/ui/ws?token=t', socketFactory, requestTimeoutMs: 60_000,
    backoff: { initialMs: 1, maxMs: 1, factor: 1, jitter: 0 } });
  client.start();
  await tick();
  const socket = FakeSocket.last();
  await act(async () => socket.open());
  await tick();
  return { client, socket };
}

const settle = () => act(() => new Promise<void>((r) => setTimeout(r, 150))); // arrivals are applied together

/** Lets the list be read: channels/list, then access.list (this hub's direct chats), answered. */
async function readList(socket: FakeSocket) {
  await settle();
  socket.replyAll('access.list', { principals: [] });
  await settle();
}

describe('useChannelList', () => {
  it("on this hub follows the channel topic, with no stream per channel and no poll", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const { client, socket } = await connect();
      const listed = { channels: Array.from({ length: 40 }, (_, i) => channel(`c${i}`, 1)) };
      const { ext, asked } = fakeHub(listed);
      const { result } = renderHook(() => useChannelList(ext, client, undefined, 0));
      await readList(socket);
      expect(result.current.channels).toHaveLength(40);
      expect(ext.stream).not.toHaveBeenCalled();
      const lists = asked.length;

      // An event in the 40th channel raises its newest sequence: every channel is live, not 32.
      await act(async () => socket.push({ topic: 'channel', data: { channelId: 'c39', sequence: 7, author: 'agent://alice' } }));
      await settle();
      expect(result.current.last.c39).toBe(7);
      expect(asked.length).toBe(lists);

      // A channel created (here, or a direct chat someone opened) is listed at once, without the poll.
      listed.channels.push(channel('new', 0));
      await act(async () => socket.push({ topic: 'channel', data: { channelId: 'new', change: 'created' } }));
      await readList(socket);
      expect(result.current.channels.map((c) => c.id)).toContain('new');

      // members, updated and deleted read the list again too; so does a lag.
      for (const change of ['members', 'updated', 'deleted']) {
        const before = asked.length;
        await act(async () => socket.push({ topic: 'channel', data: { channelId: 'new', change } }));
        await readList(socket);
        expect(asked.length).toBe(before + 1);
      }
      listed.channels[0] = channel('c0', 9);
      await act(async () => socket.push({ topic: 'lagged', data: {} }));
      await readList(socket);
      expect(result.current.last.c0).toBe(9);

      // No half-minute poll of this hub's list.
      const before = asked.length;
      await act(async () => vi.advanceTimersByTime(61_000));
      expect(asked.length).toBe(before);
    } finally {
      vi.useRealTimers();
    }
  });

  it('reads this hub\'s list again on reconnect, since pushes may have been missed', async () => {
    const { client, socket } = await connect();
    const listed = { channels: [channel('c0', 1)] };
    const { ext, asked } = fakeHub(listed);
    const { result } = renderHook(() => useChannelList(ext, client, undefined, 0));
    await readList(socket);
    const before = asked.length;
    listed.channels[0] = channel('c0', 4);
    await act(async () => socket.drop());
    await act(() => new Promise<void>((r) => setTimeout(r, 20))); // the client's first retry
    const next = FakeSocket.last();
    await act(async () => next.open());
    await readList(next);
    expect(asked.length).toBeGreaterThan(before);
    expect(result.current.last.c0).toBe(4);
  });

  it('on another hub opens at most 16 streams and keeps polling the list', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const { client } = await connect();
      const listed = { channels: Array.from({ length: 40 }, (_, i) => channel(`r${i}`, 1)) };
      const { ext, asked } = fakeHub(listed);
      renderHook(() => useChannelList(ext, client, 'peer', 0));
      await settle();
      expect(ext.stream).toHaveBeenCalledTimes(MAX_REMOTE_STREAMS);
      expect(MAX_REMOTE_STREAMS).toBe(16);
      const before = asked.length;
      await act(async () => vi.advanceTimersByTime(30_500));
      await settle();
      expect(asked.length).toBe(before + 1);
      expect(asked.every((a) => a === 'peer')).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
