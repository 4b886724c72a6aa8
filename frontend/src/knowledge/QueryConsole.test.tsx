import { act, fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { INTROSPECTION_QUERY } from './console';
import { QueryConsole } from './QueryConsole';
import introspection from './testdata/introspection.json';
import { RpcFailure, serveKg, type ExtHandler } from './testhub';

const STATEMENTS = {
  statements: {
    items: [
      { subject: 'agenthub:hub', predicate: 'rdf:type', object: 'a2a:Agent', value: null },
      { subject: 'agenthub:hub', predicate: 'rdfs:label', object: null, value: 'AgentHub' },
    ],
    nextCursor: null,
  },
};

/** The hub: the schema for introspection, else what answer says. */
function hub(answer: ExtHandler): ExtHandler {
  return (method, params, agent) => {
    if (method === 'knowledge/query' && params.query === INTROSPECTION_QUERY) return { data: introspection, queryMetadata: {} };
    return answer(method, params, agent);
  };
}

async function editor() {
  const ta = (await screen.findByLabelText('GraphQL query')) as HTMLTextAreaElement;
  await screen.findByText('Ctrl+Space completes');
  return ta;
}

describe('QueryConsole', () => {
  it('completes fields from the introspected schema as one types', async () => {
    await serveKg(hub(() => ({ data: {} })));
    render(<QueryConsole />);
    const ta = await editor();
    const user = userEvent.setup();
    await user.clear(ta);
    await user.type(ta, '{{ sta');
    const list = await screen.findByRole('listbox', { name: 'Completions' });
    expect(within(list).getAllByRole('option').map((o) => o.textContent)).toEqual(['statementsStatementPage!']);
    await user.keyboard('{Enter}');
    expect(ta.value).toBe('{ statements');
    await user.type(ta, '{{ items {{ ');
    await user.keyboard('{Control>} {/Control}');
    const fields = within(await screen.findByRole('listbox', { name: 'Completions' }))
      .getAllByRole('option')
      .map((o) => o.querySelector('.kgq-completion-label')?.textContent);
    expect(fields).toEqual(expect.arrayContaining(['subject', 'predicate', 'object', 'value', 'certainty']));
  });

  it('keeps what is typed right after accepting a completion where it was typed', async () => {
    await serveKg(hub(() => ({ data: {} })));
    render(<QueryConsole />);
    const ta = await editor();
    const user = userEvent.setup();
    await user.clear(ta);
    await user.type(ta, '{{ sta');
    await screen.findByRole('listbox', { name: 'Completions' });
    // Enter and the next key in one go, as a fast typist (or a slow machine) does; then frames pass.
    await user.keyboard('{Enter}(');
    await act(() => new Promise((r) => setTimeout(r, 50)));
    await user.keyboard('x');
    expect(ta.value).toBe('{ statements(x');
  });

  it('runs with Ctrl+Enter, shows the rows, the metadata, and shows the nodes in the graph', async () => {
    const { calls } = await serveKg(hub(() => ({ data: STATEMENTS, queryMetadata: { elapsedMs: 1.5, statementCount: 2, nodeCount: 0, queryLanguage: 'graphql' } })));
    const onShow = vi.fn();
    render(<QueryConsole agent="bob-hub" onShowInGraph={onShow} />);
    const ta = await editor();
    fireEvent.keyDown(ta, { key: 'Enter', ctrlKey: true });
    const table = await screen.findByRole('table');
    const rows = within(table).getAllByRole('row');
    expect(rows.map((r) => r.textContent)).toEqual(['subjectpredicateobjectvalue', 'agenthub:hubrdf:typea2a:Agent', 'agenthub:hubrdfs:labelAgentHub']);
    // the nodes counted are the ones Show in graph shows (the hub's nodeCount, the Node objects it read, is 0 here)
    expect(screen.getByTestId('query-metadata').textContent).toBe('time: 1.50 ms · statements: 2 · rows: 2 · nodes: 2');
    const run = calls.find((c) => c.params.query !== INTROSPECTION_QUERY);
    expect(run).toMatchObject({ agent: 'bob-hub', method: 'knowledge/query', params: { queryLanguage: 'graphql' } });
    await userEvent.setup().click(screen.getByRole('button', { name: 'Show in graph (2)' }));
    expect(onShow).toHaveBeenCalledWith(['agenthub:hub', 'a2a:Agent']);
  });

  it('shows a query error at its line and column, with the code, and goes there', async () => {
    await serveKg(
      hub(() => {
        throw new RpcFailure({
          code: -32010,
          message: 'graphql: Cannot query field "subjekt" on type "Statement".',
          data: { line: 3, column: 13, errors: [{ message: 'Cannot query field "subjekt" on type "Statement".', locations: [{ line: 3, column: 13 }] }] },
        });
      }),
    );
    render(<QueryConsole />);
    const ta = await editor();
    const query = '{\n  statements {\n    items { subjekt }\n  }\n}';
    fireEvent.change(ta, { target: { value: query } });
    await userEvent.setup().click(screen.getByRole('button', { name: 'Run' }));
    const alert = await screen.findByTestId('query-error');
    expect(alert.textContent).toBe('Line 3, column 13: graphql: Cannot query field "subjekt" on type "Statement". (-32010)3 |     items { subjekt }\n  |             ^');
    expect(document.querySelector('.kgq-gutter-error')?.textContent).toBe('3');
    await userEvent.setup().click(within(alert).getByRole('button', { name: 'Line 3, column 13' }));
    expect(ta.selectionStart).toBe(query.indexOf('subjekt'));
  });

  it('runs Gizmo and finds the nodes among its results', async () => {
    const { calls } = await serveKg(hub(() => ({ data: [{ id: '<agenthub:hub>', type: '<a2a:Agent>' }], queryMetadata: { changeId: '7', elapsedMs: 12.4, queryLanguage: 'gizmo', resultCount: 1 } })));
    const onShow = vi.fn();
    render(<QueryConsole onShowInGraph={onShow} />);
    await editor();
    const user = userEvent.setup();
    await user.click(screen.getByRole('radio', { name: 'Gizmo' }));
    const ta = screen.getByLabelText('Gizmo query') as HTMLTextAreaElement;
    expect(ta.value).toContain('g.V()');
    fireEvent.keyDown(ta, { key: 'Enter', ctrlKey: true });
    await screen.findByRole('table');
    expect(calls[calls.length - 1].params).toEqual({ query: ta.value, queryLanguage: 'gizmo' });
    expect(screen.getByTestId('query-metadata').textContent).toBe('time: 12 ms · results: 1 · nodes: 2 · as of change: 7');
    await user.click(screen.getByRole('button', { name: 'Show in graph (2)' }));
    expect(onShow).toHaveBeenCalledWith(['agenthub:hub', 'a2a:Agent']);
  });

  it('keeps a history per agent that brings a past query back', async () => {
    await serveKg(hub(() => ({ data: STATEMENTS, queryMetadata: {} })));
    const { unmount } = render(<QueryConsole agent="a1" />);
    const ta = await editor();
    fireEvent.change(ta, { target: { value: '{ search(text: "hub") { id } }' } });
    fireEvent.keyDown(ta, { key: 'Enter', ctrlKey: true });
    await screen.findByRole('table');
    fireEvent.change(ta, { target: { value: '{ }' } });
    const history = screen.getByLabelText('History') as HTMLSelectElement;
    expect(Array.from(history.options).map((o) => o.textContent)).toEqual(['History (1)', '{ search(text: "hub") { id } }']);
    fireEvent.change(history, { target: { value: '0' } });
    expect(ta.value).toBe('{ search(text: "hub") { id } }');
    unmount();

    render(<QueryConsole agent="a2" />);
    await editor();
    expect((screen.getByLabelText('History') as HTMLSelectElement).options[0].textContent).toBe('No history yet');
    await act(async () => {});
  });
});
