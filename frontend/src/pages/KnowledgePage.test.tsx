import { act, fireEvent, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { AgentInfo } from '../api/types';
import { hub, renderWithHub } from '../test/hub';
import { KnowledgePage } from './KnowledgePage';

// The explorer draws with cytoscape (a canvas jsdom lacks) and the console is h-kgconsole's: stand-ins
// that show what the page hands them.
vi.mock('../knowledge/Explorer', () => ({
  Explorer: ({ agent, active, show }: { agent?: string; active: boolean; show?: { ids: string[] } }) => (
    <p data-testid="explorer">
      explorer of {agent ?? 'this hub'} {active ? 'on screen' : 'hidden'} {show ? `showing ${show.ids.join(',')}` : ''}
    </p>
  ),
}));
vi.mock('../knowledge/QueryConsole', () => ({
  QueryConsole: ({ onShowInGraph }: { onShowInGraph?: (ids: string[]) => void }) => (
    <button type="button" onClick={() => onShowInGraph?.(['ex:a', 'ex:b'])}>
      Show in graph
    </button>
  ),
}));

const agent = (id: string, name: string, kg: boolean): AgentInfo =>
  ({ id, name, kind: 'remote', card: { capabilities: { knowledgeGraph: kg } }, description: '', url: '', cardUrl: '', online: true, protocolVersions: null, problems: null }) as AgentInfo;

describe('Knowledge page', () => {
  it('offers this hub’s graph and each added agent’s that has one, and opens the one chosen', async () => {
    const r = await renderWithHub(<KnowledgePage />);
    await hub(() => r.socket.replyAll('agents.list', { agents: [agent('kb', 'Knowledge bot', true), agent('plain', 'Plain agent', false)] }));
    const picker = screen.getByRole('combobox', { name: 'Graph' });
    expect([...picker.querySelectorAll('option')].map((o) => o.textContent)).toEqual(['This hub', 'Knowledge bot']);
    expect((await screen.findByTestId('explorer')).textContent).toContain('explorer of this hub on screen');
    await act(async () => fireEvent.change(picker, { target: { value: 'kb' } }));
    expect(window.location.hash).toBe('#/knowledge?agent=kb');
  });

  it('passes ?agent= to the explorer, even for an agent not (yet) listed', async () => {
    await renderWithHub(<KnowledgePage agent="elsewhere" />);
    expect((await screen.findByTestId('explorer')).textContent).toContain('explorer of elsewhere');
    expect((screen.getByRole('combobox', { name: 'Graph' }) as HTMLSelectElement).value).toBe('elsewhere');
  });

  it('switches tabs by click and arrow keys, keeps the explorer, and brings the console’s nodes into it', async () => {
    await renderWithHub(<KnowledgePage />);
    await screen.findByTestId('explorer');
    const query = screen.getByRole('tab', { name: 'Query' });
    await act(async () => fireEvent.click(query));
    expect(query.getAttribute('aria-selected')).toBe('true');
    expect(screen.getByTestId('explorer').textContent).toContain('hidden');
    await act(async () => fireEvent.keyDown(query, { key: 'ArrowRight' }));
    expect(screen.getByRole('tab', { name: 'Import / Export' }).getAttribute('aria-selected')).toBe('true');
    expect(document.activeElement).toBe(screen.getByRole('tab', { name: 'Import / Export' }));
    await act(async () => fireEvent.click(screen.getByRole('tab', { name: 'Query' })));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Show in graph' })));
    expect(screen.getByRole('tab', { name: 'Explore' }).getAttribute('aria-selected')).toBe('true');
    expect(screen.getByTestId('explorer').textContent).toContain('on screen showing ex:a,ex:b');
  });
});
