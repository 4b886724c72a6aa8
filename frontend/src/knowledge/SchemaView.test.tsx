import { render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';

const queryIn = vi.fn();
vi.mock('./kg', () => ({ queryIn: (...a: unknown[]) => queryIn(...a), kgErrorText: (e: Error) => e.message }));

const { SchemaView, exactSchema } = await import('./SchemaView');

const ex = 'http://example.org/';

describe('the Schema tab', () => {
  it('reads the hub’s counted schema: types, links, literals per type', () => {
    expect(
      exactSchema({
        schema: {
          types: [{ id: ex + 'Person', count: 1500 }],
          links: [{ predicate: ex + 'worksFor', from: ex + 'Person', to: '', count: 1500 }],
          literals: [
            { type: ex + 'Person', predicate: ex + 'name', count: 1500 },
            { type: '', predicate: ex + 'note', count: 2 },
          ],
        },
      }),
    ).toEqual({
      types: [{ id: ex + 'Person', count: 1500 }],
      links: [{ predicate: ex + 'worksFor', from: ex + 'Person', to: '', count: 1500 }],
      literals: { [ex + 'Person']: [{ predicate: ex + 'name', count: 1500 }], '': [{ predicate: ex + 'note', count: 2 }] },
    });
    expect(exactSchema({ nodes: [] })).toBeNull();
  });

  const sample = (n: number) => {
    const items = Array.from({ length: n }, (_, i) => ({ subject: `${ex}p${i}`, predicate: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type', object: ex + 'Person' }));
    return { data: { types: { items }, all: { items, nextCursor: 'more' } } };
  };

  it('shows a sample at once, saying so, and the exact counts when the hub has them', async () => {
    queryIn.mockReset();
    let answer: (v: unknown) => void = () => {};
    queryIn.mockImplementation((_agent: unknown, _lang: unknown, q: string) =>
      q.includes('{ schema') ? new Promise((ok) => (answer = ok)) : Promise.resolve(sample(1000)),
    );
    render(<SchemaView onOpenType={() => {}} />);
    expect(await screen.findByText('Counted from the first 1000 statements; counting all of them…')).toBeTruthy();
    expect(screen.getByRole('button', { name: /Person \(1000\)/ })).toBeTruthy();
    answer({ data: { schema: { types: [{ id: ex + 'Person', count: 1500 }], links: [], literals: [] } } });
    expect(await screen.findByRole('button', { name: /Person \(1500\)/ })).toBeTruthy();
    expect(screen.queryByText(/Counted from the first/)).toBeNull();
  });

  it('keeps the sample, and says why, where the agent has no schema query or the count is too slow', async () => {
    for (const [error, note] of [
      ['Cannot query field "schema" on type "Query".', 'Counted from the first 1000 statements.'],
      ['graphql: the query ran out of time (5s)', 'Counted from the first 1000 statements: counting all of them took longer than the hub allows.'],
    ]) {
      queryIn.mockReset();
      queryIn.mockImplementation(async (_agent: unknown, _lang: unknown, q: string) => {
        if (q.includes('{ schema')) throw new Error(error);
        return sample(1000);
      });
      const { unmount } = render(<SchemaView onOpenType={() => {}} />);
      expect(await screen.findByText(note)).toBeTruthy();
      expect(screen.getByRole('button', { name: /Person \(1000\)/ })).toBeTruthy();
      unmount();
    }
  });
});
