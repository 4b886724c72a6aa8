import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { AgentInfo } from '../api/types';
import { hub, renderWithHub } from '../test/hub';
import { AgentsPage } from './AgentsPage';

const remote: AgentInfo = {
  id: 'r1',
  name: 'Remote One',
  description: 'Far away',
  kind: 'remote',
  url: 'https://one.example.com/a2a',
  cardUrl: 'https://one.example.com/.well-known/agent-card.json',
  online: true,
  protocolVersions: ['1.0', '0.3'],
  card: { name: 'Remote One', capabilities: { streaming: true } },
  problems: [],
  dialect: '0.3',
  streaming: true,
  auth: { schemes: [{ name: 'key', kind: 'apiKey', in: 'header', paramName: 'X-Api-Key', saved: false }], alternatives: [['key']], required: true, satisfied: false, store: 'keyring' },
};

async function open(view?: 'log' | 'credentials') {
  window.location.hash = view ? `#/agents/r1/${view}` : '#/agents/r1';
  const r = await renderWithHub(<AgentsPage agentId="r1" view={view} />);
  await hub(() => r.socket.replyAll('agents.list', { agents: [remote] }));
  return r;
}

describe('a remote agent in the Agents page', () => {
  it('shows the dialect in use, whether it streams, and its credentials', async () => {
    await open();
    expect(screen.getByTestId('agent-dialect').textContent).toBe('A2A 0.3');
    expect(screen.getByTestId('agent-streaming').textContent).toBe('yes');
    expect(screen.getByRole('heading', { name: 'Credentials' })).toBeTruthy();
    expect(screen.getByRole('form', { name: 'Credentials for key' })).toBeTruthy();
    const tabs = screen.getByRole('navigation', { name: 'Agent views' });
    expect(within(tabs).getByRole('link', { name: 'Overview' }).getAttribute('aria-current')).toBe('page');
    expect(within(tabs).getByRole('link', { name: 'Raw log' }).getAttribute('href')).toBe('#/agents/r1/log');
  });

  it('starts a chat with the Chat button and opens it', async () => {
    const { socket } = await open();
    await userEvent.click(screen.getByRole('button', { name: 'Chat' }));
    const req = socket.request('chats.start');
    expect(req.params).toEqual({ agentId: 'r1' });
    await hub(() =>
      socket.reply(req.id, { id: 'c9', agentId: 'r1', agentName: 'Remote One', title: '', createdAt: '2025-01-01T00:00:00Z', updatedAt: '2025-01-01T00:00:00Z', busy: false }),
    );
    expect(window.location.hash).toBe('#/chats/c9');
  });

  it('shows the raw log at #/agents/<id>/log', async () => {
    const { socket } = await open('log');
    expect(socket.request('wire.list').params).toEqual({ agentId: 'r1', limit: 100 });
    expect(screen.getByRole('heading', { name: 'Raw log' })).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Credentials' })).toBeNull();
    expect(within(screen.getByRole('navigation', { name: 'Agent views' })).getByRole('link', { name: 'Raw log' }).getAttribute('aria-current')).toBe('page');
  });

  it('#/agents/<id>/credentials focuses the credentials', async () => {
    await open('credentials');
    expect(document.activeElement).toBe(screen.getByRole('heading', { name: 'Credentials' }));
  });
});

const demo: AgentInfo = {
  id: 'demo',
  name: 'AgentHub demo agent',
  description: 'A demo',
  kind: 'local',
  url: 'http://127.0.0.1:47471',
  cardUrl: 'http://127.0.0.1:47471/.well-known/agent-card.json',
  online: true,
  protocolVersions: ['1.0'],
  card: { name: 'AgentHub demo agent', skills: [{ id: 'echo', name: 'Echo', examples: ['hello there'] }] },
  problems: [],
  canChat: true,
};

describe('the demo agent in the Agents page', () => {
  it('has Chat on its card and in its detail, and no Refresh or Remove', async () => {
    window.location.hash = '#/agents';
    const r = await renderWithHub(<AgentsPage />);
    await hub(() => r.socket.replyAll('agents.list', { agents: [demo] }));
    expect(screen.getByRole('button', { name: 'Chat with AgentHub demo agent' })).toBeTruthy();
    r.unmount();

    window.location.hash = '#/agents/demo';
    const d = await renderWithHub(<AgentsPage agentId="demo" />);
    await hub(() => d.socket.replyAll('agents.list', { agents: [demo] }));
    expect(screen.getByRole('button', { name: 'Chat' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Remove' })).toBeNull();
  });

  it('"Try it" on a skill example opens a new chat and sends the example', async () => {
    window.location.hash = '#/agents/demo';
    const { socket } = await renderWithHub(<AgentsPage agentId="demo" />);
    await hub(() => socket.replyAll('agents.list', { agents: [demo] }));
    await userEvent.click(screen.getByRole('button', { name: 'Try “hello there” in a new chat' }));
    const start = socket.request('chats.start');
    expect(start.params).toEqual({ agentId: 'demo' });
    await hub(() => socket.reply(start.id, { id: 'c1', agentId: 'demo', agentName: 'AgentHub demo agent', title: '', createdAt: '', updatedAt: '', busy: false }));
    expect(window.location.hash).toBe('#/chats/c1');
    expect(socket.request('chats.send').params).toEqual({ id: 'c1', text: 'hello there' });
  });
});
