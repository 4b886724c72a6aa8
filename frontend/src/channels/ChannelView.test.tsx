import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { hub, renderWithHub } from '../test/hub';
import type { Ext } from './api';
import { ChannelView } from './ChannelView';

const member = (principalId: string, role = 'member') => ({ principalId, role, joinedAt: 1 });

describe('ChannelView', () => {
  it('reads the channel again when this hub pushes a members change, so the member list follows', async () => {
    let members = [member('user://owner', 'owner'), member('remote://peer')];
    const ext: Ext = {
      call: vi.fn(async (method: string) => {
        if (method === 'channels/get')
          return { channel: { id: 'c1', name: 'ops', visibility: 'private', createdAt: 1, createdBy: 'user://owner', members, version: members.length, kind: 'channel', lastSequence: 0 } };
        return { events: [] };
      }),
      stream: vi.fn(() => () => {}),
    };
    const onChannel = vi.fn();
    const { socket } = await renderWithHub(<ChannelView ext={ext} channelId="c1" lastRead={0} onRead={() => {}} onChannel={onChannel} onGone={() => {}} />);
    await hub(() => socket.replyAll('agents.list', { agents: [] }));
    expect(await screen.findByText('2 members')).toBeTruthy();

    // The added agent was removed from the registry: it left the channel.
    members = [member('user://owner', 'owner')];
    await hub(() => socket.push({ topic: 'channel', data: { channelId: 'other', change: 'members' } }));
    expect(screen.getByText('2 members')).toBeTruthy();
    await hub(() => socket.push({ topic: 'channel', data: { channelId: 'c1', change: 'members' } }));
    expect(await screen.findByText('1 member')).toBeTruthy();
    expect(onChannel).toHaveBeenLastCalledWith(expect.objectContaining({ id: 'c1', members }));
  });
});
