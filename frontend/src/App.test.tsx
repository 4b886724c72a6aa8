import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from './App';
import type { AgentInfo, InboxItem, TaskDetail } from './api/types';
import { FakeSocket } from './test/fakeSocket';
import { hub, tick } from './test/hub';

const hubAgent: AgentInfo = {
  id: 'hub',
  name: 'AgentHub',
  description: 'The hub',
  kind: 'hub',
  url: 'http://127.0.0.1:47470/a2a',
  cardUrl: 'http://127.0.0.1:47470/.well-known/agent-card.json',
  online: true,
  protocolVersions: ['1.0', '0.3'],
  card: { name: 'AgentHub', skills: [{ id: 'inbox', name: 'Message the person at this desktop', examples: ['Approve?'] }], capabilities: { streaming: true } },
  problems: [],
};
const demo: AgentInfo = {
  ...hubAgent,
  id: 'demo',
  name: 'AgentHub demo agent',
  kind: 'local',
  card: { name: 'demo', skills: [{ id: 'slow', name: 'Slow job' }, { id: 'echo', name: 'Echo' }] },
};
const broken: AgentInfo = {
  ...hubAgent,
  id: 'bad',
  name: '<img src=x onerror=alert(1)>',
  kind: 'remote',
  card: { documentationUrl: 'javascript:alert(1)', skills: [{ name: 'NoId' }] },
  problems: [{ path: 'skills[0].id', message: 'is required' }],
};

const item: InboxItem = {
  agent: 'hub',
  id: 'in1',
  contextId: 'c',
  state: 'working',
  dialect: '1.0',
  direction: 'incoming',
  title: 'Approve the deploy?',
  createdAt: '2025-01-01T00:00:00.000000000Z',
  updatedAt: '2025-01-01T00:00:00.000000000Z',
  waitingForOwner: true,
  unread: true,
};

beforeEach(() => {
  FakeSocket.reset();
  vi.stubGlobal('WebSocket', FakeSocket);
});
afterEach(() => vi.unstubAllGlobals());

async function start(hash = '#/agents', inbox: InboxItem[] = [item]) {
  window.location.hash = hash;
  const boot = { mode: 'browser' as const, resolveUrl: async () => 'ws://127.0.0.1:47470/ui/ws?token=t' };
  render(<App boot={boot} />);
  await tick();
  const socket = FakeSocket.last();
  await hub(() => socket.open());
  await hub(() => {
    socket.push({ topic: 'hello', data: { version: '1.2.3', dataDir: '/data', uiUrl: 'http://127.0.0.1:47470/', agents: [hubAgent, demo, broken] } });
    socket.replyAll('agents.list', { agents: [hubAgent, demo, broken] });
    socket.replyAll('hub.info', { version: '1.2.3', dataDir: '/data', uiUrl: 'http://127.0.0.1:47470/', agents: [] });
  });
  await hub(() => socket.replyAll('inbox.list', { tasks: inbox, unread: inbox.length ? 3 : 0 }));
  return socket;
}

describe('the shell', () => {
  it('has a named navigation, an unread badge that follows the inbox topic, and agent cards', async () => {
    const socket = await start();
    const nav = screen.getByRole('navigation', { name: 'Main' });
    for (const name of ['Agents', 'Chats', 'Tasks', 'Inbox', 'Settings']) expect(within(nav).getByRole('link', { name: new RegExp(`^${name}`) })).toBeTruthy();
    expect(screen.getByLabelText('3 unread').textContent).toBe('3');
    await hub(() => socket.push({ topic: 'inbox', data: { unread: 1, waiting: 1 } }));
    expect(screen.getByLabelText('1 unread')).toBeTruthy();

    const cards = screen.getAllByTestId('agent-card');
    expect(cards).toHaveLength(3);
    expect(screen.getByRole('heading', { name: 'AgentHub demo agent' })).toBeTruthy();
    // hostile names are text, never markup
    expect(screen.getByRole('heading', { name: '<img src=x onerror=alert(1)>' })).toBeTruthy();
    expect(document.querySelector('img')).toBeNull();
    expect(screen.getByTestId('agent-problems-flag').textContent).toContain('1 problem');
  });

  it('shows an agent in detail: skills, problems, and no javascript: link', async () => {
    await start('#/agents/bad');
    expect(screen.getByTestId('agent-problems').textContent).toContain('skills[0].id');
    const detail = screen.getByTestId('agent-detail');
    expect(within(detail).getByText('javascript:alert(1)').closest('a')).toBeNull();
    expect(within(detail).getByRole('heading', { name: 'NoId' })).toBeTruthy();
  });

  it('says it is not connected while the hub is away, and comes back', async () => {
    const socket = await start();
    expect(screen.queryByTestId('connection-banner')).toBeNull();
    await hub(() => socket.drop());
    expect(screen.getByTestId('connection-banner').textContent).toContain('Not connected to the hub — retrying…');
    await userEvent.click(screen.getByRole('button', { name: 'Retry now' }));
    await tick();
    const again = FakeSocket.last();
    expect(again).not.toBe(socket);
    await hub(() => again.open());
    expect(screen.queryByTestId('connection-banner')).toBeNull();
    // and it refetches what it shows
    expect(again.request('agents.list')).toBeTruthy();
    expect(again.request('inbox.list')).toBeTruthy();
  });

  it('switches areas with g then a letter, and opens the shortcut help with ?', async () => {
    await start();
    await userEvent.keyboard('gt');
    expect(window.location.hash).toBe('#/tasks');
    await userEvent.keyboard('?');
    expect(screen.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeTruthy();
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});

describe('the inbox', () => {
  it('opens an item (marking it read), shows the conversation, and answers', async () => {
    const socket = await start('#/inbox');
    const row = screen.getByTestId('inbox-item');
    expect(within(row).getByLabelText('unread')).toBeTruthy();
    await userEvent.click(row);
    await tick();
    expect(window.location.hash).toBe('#/inbox/in1');

    const mark = socket.request('inbox.markRead');
    expect(mark.params).toEqual({ id: 'in1' });
    await hub(() => socket.reply(mark.id, { unread: 2 }));
    expect(screen.getByLabelText('2 unread')).toBeTruthy();

    const get = socket.request('tasks.get');
    expect(get.params).toEqual({ agent: 'hub', id: 'in1' });
    const detail: TaskDetail = {
      summary: item,
      history: [{ id: 'm1', role: 'user', parts: [{ kind: 'text', text: 'Can you approve\nthe deploy?' }] }],
      artifacts: [],
      status: { state: 'working' },
      events: [
        { seq: 1, at: '2025-01-01T00:00:00Z', kind: 'task', final: false, state: 'submitted', status: { state: 'submitted' }, raw: {} },
        { seq: 2, at: '2025-01-01T00:00:00.5Z', kind: 'status', final: false, state: 'working', status: { state: 'working' }, raw: {} },
      ],
      raw: {},
    };
    await hub(() => socket.reply(get.id, detail));
    const conv = screen.getByRole('list', { name: 'Conversation' });
    expect(within(conv).getByText(/Can you approve/).textContent).toBe('Can you approve\nthe deploy?');

    await userEvent.type(screen.getByLabelText('Reply'), 'Approved.');
    await userEvent.click(screen.getByRole('button', { name: 'Answer' }));
    const actReq = socket.request('inbox.act');
    expect(actReq.params).toEqual({ id: 'in1', action: 'answer', text: 'Approved.' });
    await hub(() => socket.reply(actReq.id, item));
    // the answer comes back as a pushed event and shows up in the conversation
    await hub(() =>
      socket.push({
        topic: 'task',
        data: {
          agent: 'hub',
          taskId: 'in1',
          summary: item,
          event: { seq: 3, at: '2025-01-01T00:00:05Z', kind: 'artifact', final: false, artifact: { id: 'a1', name: 'answer', parts: [{ kind: 'text', text: 'Approved.' }] }, raw: {} },
        },
      }),
    );
    // after acting the task is read again (whose turn it is changed with the action); the pushed
    // answer waits for it, then shows
    const reread = socket.request('tasks.get');
    await hub(() => socket.reply(reread.id, { ...detail, summary: { ...item, waitingForOwner: false } }));
    const owner = within(screen.getByRole('list', { name: 'Conversation' }))
      .getAllByTestId('conversation-message')
      .filter((li) => li.getAttribute('data-from') === 'owner');
    expect(owner.map((li) => li.textContent)).toEqual([expect.stringContaining('Approved.')]);
    expect(within(screen.getByTestId('inbox-detail')).getByText('Answered')).toBeTruthy();
  });

  it('explains how agents reach you when it is empty', async () => {
    await start('#/inbox', []);
    expect(screen.getByRole('heading', { name: 'Your inbox is empty' })).toBeTruthy();
    expect(screen.getAllByText(/inbox/).length).toBeGreaterThan(0);
    expect(screen.getAllByText('http://127.0.0.1:47470/a2a').length).toBeGreaterThan(0);
    expect(screen.getByRole('button', { name: 'Copy curl example' })).toBeTruthy();
  });
});

describe('no token', () => {
  it('tells the person to use the printed link', async () => {
    await act(async () => {
      render(<App boot={{ mode: 'no-token' }} />);
    });
    expect(screen.getByText(/Open the UI with the link/)).toBeTruthy();
  });
});
