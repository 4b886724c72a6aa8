import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { TaskSummary } from '../api/types';
import { hub, renderWithHub } from '../test/hub';
import { TasksPage } from './TasksPage';

const sent: TaskSummary = {
  agent: 'r1', id: 't1', contextId: '', state: 'completed', dialect: '0.3', direction: 'outgoing', title: 'hello far agent',
  createdAt: '2025-01-01T00:00:00Z', updatedAt: '2025-01-01T00:00:01Z', waitingForOwner: false, conversationId: 'c1',
};

describe('the Tasks page', () => {
  it('offers the agents tasks.agents names in its filter, added agents included', async () => {
    window.location.hash = '#/tasks';
    const { socket } = await renderWithHub(<TasksPage />);
    await hub(() => {
      socket.replyAll('tasks.agents', { agents: [{ id: 'hub', name: 'AgentHub' }, { id: 'r1', name: 'Far agent' }] });
      socket.replyAll('tasks.list', { tasks: [sent] });
    });
    const filter = within(screen.getByRole('group', { name: 'Task filters' })).getByLabelText('Agent');
    expect(within(filter).getAllByRole('option').map((o) => o.textContent)).toEqual(['All agents', 'AgentHub', 'Far agent']);
    expect(screen.getByText('1 shown')).toBeTruthy(); // the rows themselves are virtual: jsdom lays out none
  });
});
