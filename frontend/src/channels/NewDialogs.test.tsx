import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { hub, renderWithHub } from '../test/hub';
import type { Ext } from './api';
import { NewChannelDialog } from './NewDialogs';

const agent = (id: string, name: string, kind: string) => ({ id, name, kind, description: '', url: '', cardUrl: '', online: true, protocolVersions: [], card: {}, problems: [] });

describe('NewChannelDialog', () => {
  it('creates the channel with the agents picked in it (never the hub itself)', async () => {
    const call = vi.fn(async () => ({ channel: { id: 'c1', name: 'research', members: [] } }));
    const ext: Ext = { call, stream: () => () => {} };
    const onCreated = vi.fn();
    const { socket } = await renderWithHub(<NewChannelDialog ext={ext} onCreated={onCreated} onClose={() => {}} />);
    await hub(() => socket.replyAll('agents.list', { agents: [agent('hub', 'This hub', 'hub'), agent('demo', 'AgentHub demo agent', 'local'), agent('w1', 'Weather', 'remote')] }));
    const agents = screen.getByRole('group', { name: 'Agents in it' });
    expect(agents.textContent).not.toContain('This hub');
    await userEvent.type(screen.getByLabelText('Name'), 'research');
    await userEvent.click(screen.getByRole('checkbox', { name: /Weather/ }));
    await userEvent.click(screen.getByRole('button', { name: 'Create channel' }));
    expect(call).toHaveBeenCalledWith('channels/create', { name: 'research', visibility: 'private', members: ['remote://w1'] }, undefined);
    expect(onCreated).toHaveBeenCalled();
  });
});
