import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { hub, renderWithHub } from '../test/hub';
import type { Ext } from './api';
import { ChannelView, EventRow } from './ChannelView';
import type { ChannelEvent } from './model';
import { channelSurfaces } from './surfaces';

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

describe('ChannelView A2UI', () => {
  const MT = 'application/a2ui+json';
  const form = (surfaceId: string) => [
    { type: 'text', text: 'Fill in the form.' },
    { type: 'data', data: { version: 'v0.9', createSurface: { surfaceId, catalogId: 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json' } }, metadata: { mimeType: MT } },
    {
      type: 'data',
      data: { version: 'v0.9', updateComponents: { surfaceId, components: [{ id: 'root', component: 'Button', child: 'l', action: { event: { name: 'go' } } }, { id: 'l', component: 'Text', text: 'Go' }] } },
      metadata: { mimeType: MT },
    },
  ];
  const event = (author: string): ChannelEvent => ({
    id: 'e1', channelId: 'c1', sequence: 1, timestamp: 1, author, parts: form('s1'), kind: 'messageEvent',
    metadata: { agenthub: { bridge: { taskId: 't1', state: 'input-required', hop: 0 } } },
  });
  const row = (ev: ChannelEvent, remoteHub: boolean, onAct: ReturnType<typeof vi.fn>) => {
    const surfaces = channelSurfaces([ev]);
    return render(<EventRow ev={ev} agents={[]} members={[]} asks surfaces={surfaces.shown.get(1)} remoteHub={remoteHub} onAct={onAct as never} />);
  };

  it('renders a bridged agent’s form without its A2UI parts as data, and sends its action with the surface for bridge.act', async () => {
    const onAct = vi.fn(async () => undefined);
    row(event('remote://peer'), false, onAct);
    const button = await screen.findByRole('button', { name: 'Go' }, { timeout: 5000 });
    expect(button.closest('fieldset:disabled')).toBeNull();
    expect(screen.getByText('Fill in the form.')).toBeTruthy();
    expect(document.body.textContent).not.toContain('createSurface');
    fireEvent.click(button);
    await vi.waitFor(() => expect(onAct).toHaveBeenCalled());
    const [s, messages] = onAct.mock.calls[0] as unknown as [{ author: string; taskId: string; surfaceId: string }, unknown[]];
    expect([s.author, s.taskId, s.surfaceId]).toEqual(['remote://peer', 't1', 's1']);
    expect(messages).toEqual([expect.objectContaining({ version: 'v0.9', action: expect.objectContaining({ name: 'go', surfaceId: 's1' }) })]);
  });

  it('shows another hub’s form read-only, saying why, and sends nothing', async () => {
    const onAct = vi.fn(async () => undefined);
    row(event('remote://peer'), true, onAct);
    const button = await screen.findByRole('button', { name: 'Go' }, { timeout: 5000 });
    expect(button.closest('fieldset:disabled')).toBeTruthy();
    expect(screen.getByTestId('channel-surface-readonly').textContent).toMatch(/no way to send your answer to that member alone/);
    fireEvent.click(button);
    expect(onAct).not.toHaveBeenCalled();
  });
});
