import { act, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { AgentInfo } from '../api/types';
import { ChatsPage } from '../pages/ChatsPage';
import type { FakeSocket } from '../test/fakeSocket';
import { hub, renderWithHub } from '../test/hub';
import { READ_KEY } from './readmarks';
import { channelSources } from './Sidebar';

const channel = (id: string, name: string, lastSequence: number) => ({
  id,
  name,
  visibility: 'private',
  createdAt: 1,
  createdBy: 'user://owner',
  members: [{ principalId: 'user://owner', role: 'owner', joinedAt: 1 }],
  version: 1,
  kind: 'channel',
  lastSequence,
});

/** Answers the ext.call requests for one extension method. */
function replyExt(socket: FakeSocket, method: string, result: unknown) {
  for (const f of socket.sent) {
    if (f.method === 'ext.call' && (f.params as { method: string }).method === method && !socket.answered.has(f.id)) socket.reply(f.id, result);
  }
}

describe('the Chats sidebar', () => {
  it('shows Channels, Direct and Agents, and counts what arrives in a channel that is not open', async () => {
    localStorage.setItem(READ_KEY, JSON.stringify({ c2: 0 }));
    window.location.hash = '#/chats';
    const { socket } = await renderWithHub(<ChatsPage />);
    await hub(() => {
      socket.replyAll('agents.list', { agents: [] });
      socket.replyAll('chats.list', { conversations: [] });
      socket.replyAll('access.list', { principals: [] });
      replyExt(socket, 'channels/list', { channels: [channel('c1', 'general', 5), channel('c2', 'bulk', 2)] });
    });
    await hub(() => socket.replyAll('access.list', { principals: [] }));
    for (const name of ['Channels', 'Direct messages', 'Agents']) expect(screen.getByRole('heading', { name, level: 2 })).toBeTruthy();
    const items = within(screen.getByRole('list', { name: 'Channels' })).getAllByTestId('channel-item');
    expect(items.map((i) => i.textContent)).toEqual(['🔒general', '🔒bulk2']);
    // general was never seen here: taken as read at its newest event. bulk was read up to 0.
    expect(screen.getByLabelText('2 unread')).toBeTruthy();

    // No stream per channel on this hub: the gateway's channel topic carries every channel's events.
    expect(socket.sent.filter((f) => f.method === 'ext.stream')).toEqual([]);
    await hub(() => socket.push({ topic: 'channel', data: { channelId: 'c2', sequence: 3, author: 'agent://alice' } }));
    await act(() => new Promise((r) => setTimeout(r, 150))); // arrivals are applied together, a moment later
    expect(screen.getByLabelText('3 unread')).toBeTruthy();
    expect(within(items[0]).queryByTestId('unread-count')).toBeNull();
  });

  it('offers other hubs as sources only when their card has the channels extension', () => {
    const a = (id: string, card: unknown, kind = 'remote') => ({ id, name: id, kind, card }) as AgentInfo;
    const agents = [a('hub', { capabilities: { messaging: { channels: {} } } }, 'hub'), a('peer', { capabilities: { messaging: { channels: { version: '0.1' } } } }), a('plain', { capabilities: {} }), a('broken', null)];
    expect(channelSources(agents).map((x) => x.id)).toEqual(['peer']);
  });
});
