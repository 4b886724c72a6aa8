import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AgentInfo, Conversation } from '../api/types';
import { hub, renderWithHub } from '../test/hub';
import { Welcome, welcomeKey } from './Welcome';

const hubAgent: AgentInfo = {
  id: 'hub',
  name: 'AgentHub',
  description: '',
  kind: 'hub',
  url: 'http://127.0.0.1:47470/a2a',
  cardUrl: 'http://127.0.0.1:47470/.well-known/agent-card.json',
  online: true,
  protocolVersions: ['1.0'],
  card: {},
  problems: [],
};
const demo: AgentInfo = {
  ...hubAgent,
  id: 'demo',
  name: 'AgentHub demo agent',
  kind: 'local',
  url: 'http://127.0.0.1:47471/a2a',
  cardUrl: 'http://127.0.0.1:47471/.well-known/agent-card.json',
};
// the demo agent once added by its URL, as the welcome does
const demoRemote: AgentInfo = { ...demo, id: 'r-demo', kind: 'remote' };
const other: AgentInfo = { ...hubAgent, id: 'r-other', name: 'Travel agent', kind: 'remote', url: 'https://travel.example/a2a', cardUrl: 'https://travel.example/.well-known/agent-card.json' };
const conv: Conversation = { id: 'c1', agentId: 'r-demo', agentName: 'AgentHub demo agent', title: '', createdAt: '', updatedAt: '' } as Conversation;

async function open(opts: { dataDir?: string; agents?: AgentInfo[]; conversations?: Conversation[] } = {}) {
  window.location.hash = '#/agents';
  const r = await renderWithHub(<Welcome />);
  await hub(() => {
    r.socket.replyAll('hub.info', { version: 't', dataDir: opts.dataDir ?? '/data/one', uiUrl: '', agents: null });
    r.socket.replyAll('agents.list', { agents: opts.agents ?? [hubAgent, demo] });
    r.socket.replyAll('inbox.list', { tasks: [], unread: 0 });
  });
  await hub(() => r.socket.replyAll('chats.list', { conversations: opts.conversations ?? [] }));
  return r;
}

function step(name: RegExp) {
  return screen.getByText(name).closest('li')!;
}

describe('Welcome', () => {
  beforeEach(() => localStorage.clear());

  it('on a fresh hub shows the three steps; one click adds the demo agent by its URL and opens a chat with it', async () => {
    const { socket } = await open();
    const card = screen.getByTestId('welcome');
    expect(within(card).getAllByRole('listitem')).toHaveLength(3);
    for (const s of [/Chat with the demo agent\./, /Open your inbox\./, /Add an agent by its URL\./]) expect(step(s).hasAttribute('data-done')).toBe(false);

    await userEvent.click(within(card).getByRole('button', { name: 'Chat with the demo agent' }));
    const add = socket.request('agents.add');
    expect(add.params).toEqual({ url: demo.cardUrl });
    await hub(() => socket.reply(add.id, demoRemote));
    const start = socket.request('chats.start');
    expect(start.params).toEqual({ agentId: 'r-demo' });
    await hub(() => socket.reply(start.id, conv));
    expect(window.location.hash).toBe('#/chats/c1');
  });

  it('chats with the demo agent already added instead of adding it twice', async () => {
    const { socket } = await open({ agents: [hubAgent, demo, demoRemote] });
    await userEvent.click(screen.getByRole('button', { name: 'Chat with the demo agent' }));
    expect(socket.request('chats.start').params).toEqual({ agentId: 'r-demo' });
    expect(socket.sent.some((f) => f.method === 'agents.add')).toBe(false);
    // the demo agent added this way is not "an agent added by URL"
    expect(step(/Add an agent by its URL\./).hasAttribute('data-done')).toBe(false);
  });

  it('ticks the steps from the hub (a conversation, another agent) and the inbox visit, then goes away for good', async () => {
    const r = await open({ agents: [hubAgent, demo, demoRemote, other], conversations: [conv] });
    expect(step(/Chat with the demo agent\./).hasAttribute('data-done')).toBe(true);
    expect(step(/Add an agent by its URL\./).hasAttribute('data-done')).toBe(true);
    expect(step(/Open your inbox\./).hasAttribute('data-done')).toBe(false);

    await hub(() => (window.location.hash = '#/inbox'));
    expect(JSON.parse(localStorage.getItem(welcomeKey('/data/one'))!)).toMatchObject({ inbox: true });
    await hub(() => (window.location.hash = '#/agents'));
    await hub(() => r.socket.replyAll('chats.list', { conversations: [conv] }));
    expect(screen.queryByTestId('welcome')).toBeNull();
    expect(JSON.parse(localStorage.getItem(welcomeKey('/data/one'))!)).toMatchObject({ hidden: true });
  });

  it('Hide keeps it hidden for this data dir only', async () => {
    const first = await open({ dataDir: '/data/one' });
    await userEvent.click(screen.getByRole('button', { name: 'Hide' }));
    expect(screen.queryByTestId('welcome')).toBeNull();
    first.unmount();

    const again = await open({ dataDir: '/data/one' });
    expect(screen.queryByTestId('welcome')).toBeNull();
    again.unmount();

    await open({ dataDir: '/data/two' });
    expect(screen.queryByTestId('welcome')).not.toBeNull();
  });
});
