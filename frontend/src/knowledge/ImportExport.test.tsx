import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { KGPatch } from './kg';
import { ImportExport } from './ImportExport';
import { RpcFailure, serveKg } from './testhub';

function nquads(n: number, subject = (i: number) => `http://example.org/s${i}`): string {
  let out = '';
  for (let i = 0; i < n; i++) out += `<${subject(i)}> <http://example.org/n> "${i}"^^<http://www.w3.org/2001/XMLSchema#integer> .\n`;
  return out;
}

async function chooseFile(name: string, text: string) {
  const input = screen.getByTestId('import-file') as HTMLInputElement;
  // As a person may (the dialog's filter offers "All files" too): the input's accept does not decide.
  await userEvent.setup({ applyAccept: false }).upload(input, new File([text], name));
}

describe('ImportExport: import', () => {
  it('gives each import blank nodes of its own (two imports of _:b0 are two nodes), unless asked to keep the labels', async () => {
    const sent: KGPatch[][] = [];
    await serveKg((_method, params) => {
      sent.push(params.mutations as KGPatch[]);
      return { success: true, statementsAffected: (params.mutations as KGPatch[]).length };
    });
    const file = '_:b0 <http://example.org/city> "Paris" .\n<http://example.org/a> <http://example.org/home> _:b0 .\n';
    render(<ImportExport />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Justification'), 'twice');
    const importOnce = async () => {
      await chooseFile('homes.nq', file);
      await user.click(await screen.findByRole('button', { name: 'Import 2 statements' }));
      await screen.findByTestId('import-done');
    };
    await importOnce();
    await importOnce();
    const labels = sent.map((b) => [b[0].statement.subject.id, b[1].statement.object.id]);
    expect(labels[0][0]).toMatch(/^_:i[0-9a-f]{8}_b0$/);
    expect(labels[0][1]).toBe(labels[0][0]); // one node within an import
    expect(labels[1][0]).toBe(labels[1][1]);
    expect(labels[1][0]).not.toBe(labels[0][0]); // another node in the next
    await user.click(screen.getByRole('checkbox', { name: /Keep the file’s blank node labels/ }));
    await user.click(await screen.findByRole('button', { name: 'Import 2 statements' }));
    await waitFor(() => expect(sent).toHaveLength(3));
    expect(sent[2][0].statement.subject.id).toBe('_:b0');
  });

  it('"Show what I imported" offers the import\'s nodes up to the canvas\'s limit of 10,000, saying which', async () => {
    await serveKg((_method, params) => ({ success: true, statementsAffected: (params.mutations as KGPatch[]).length }));
    const shown: string[][] = [];
    const user = userEvent.setup();
    const importFile = async (n: number) => {
      await chooseFile('many.nq', nquads(n));
      await user.click(await screen.findByRole('button', { name: `Import ${n} statements` }));
      await screen.findByTestId('import-done');
    };
    render(<ImportExport onShowInGraph={(ids) => shown.push(ids)} />);
    await user.type(screen.getByLabelText('Justification'), 'many');
    await importFile(3);
    expect(screen.getByText(/in Explore$/).textContent).toBe('its 3 nodes, with the links among them, in Explore');
    await user.click(screen.getByRole('button', { name: 'Show what I imported' }));
    expect(shown[0]).toEqual(['http://example.org/s0', 'http://example.org/s1', 'http://example.org/s2']);
    await importFile(10_001);
    expect(screen.getByText(/in Explore$/).textContent).toBe('its first 10,000 nodes (the most the canvas shows), with the links among them, in Explore');
    await user.click(screen.getByRole('button', { name: 'Show what I imported' }));
    expect(shown[1]).toHaveLength(10_000);
    expect(shown[1][9_999]).toBe('http://example.org/s9999');
  });

  it('sends the file as add patches in batches with the justification, the progress bar reaching the end', async () => {
    const sent: KGPatch[][] = [];
    const { calls } = await serveKg((method, params) => {
      expect(method).toBe('knowledge/update');
      sent.push(params.mutations as KGPatch[]);
      return { success: true, statementsAffected: (params.mutations as KGPatch[]).length };
    });
    render(<ImportExport agent="bob-hub" />);
    await chooseFile('people.nq', nquads(1200));
    const button = await screen.findByRole('button', { name: 'Import 1200 statements' });
    expect((button as HTMLButtonElement).disabled).toBe(true); // no justification yet
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Justification'), 'census 2026');
    await user.click(button);
    expect((await screen.findByTestId('import-done')).textContent).toBe('Imported 1200 statements.');
    const bar = screen.getByTestId('import-progress') as HTMLProgressElement;
    expect([bar.value, bar.max]).toEqual([1200, 1200]);
    expect(screen.getByTestId('import-count').textContent).toBe('1200 / 1200 statements');
    expect(sent.map((b) => b.length)).toEqual([1000, 200]);
    expect(sent[1][199]).toEqual({
      op: 'add',
      statement: { subject: { id: 'http://example.org/s1199' }, predicate: { id: 'http://example.org/n' }, object: { value: 1199, type: 'http://www.w3.org/2001/XMLSchema#integer' } },
    });
    expect(calls.every((c) => c.agent === 'bob-hub' && c.params.justification === 'census 2026')).toBe(true);
  });

  it('stops at a refused batch, with the error and how many statements were imported', async () => {
    let n = 0;
    await serveKg(() => {
      if (++n === 2) {
        const why = 'mutations[3]: namespace agenthub: is read-only';
        throw new RpcFailure({ code: -32013, message: 'alignment violation: ' + why, data: { verificationStatus: 'Rejected - Alignment Violation', verificationDetails: why } });
      }
      return { success: true };
    });
    render(<ImportExport />);
    await chooseFile('g.nt', nquads(1500));
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Justification'), 'x');
    await user.click(await screen.findByRole('button', { name: 'Import 1500 statements' }));
    expect((await screen.findByTestId('import-error')).textContent).toBe(
      'Stopped: alignment violation: mutations[3]: namespace agenthub: is read-only (-32013). 1000 of 1500 statements were imported (the batches before the refused one).',
    );
    expect(screen.getByTestId('import-count').textContent).toBe('1000 / 1500 statements');
  });

  it('imports JSON-LD, and says where an unreadable N-Quads file is wrong', async () => {
    const sent: KGPatch[][] = [];
    await serveKg((_, params) => {
      sent.push(params.mutations as KGPatch[]);
      return { success: true };
    });
    render(<ImportExport />);
    await chooseFile('bad.nq', '<http://a/b> <http://a/c> "x" .\n<http://a/b> <http://a/c> .\n');
    expect((await screen.findByRole('alert')).textContent).toMatch(/^bad\.nq could not be read \(line 2\): /);
    await chooseFile('bob.jsonld', JSON.stringify({ '@context': { ex: 'http://example.org/' }, '@id': 'ex:bob', 'ex:name': 'Bob' }));
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Justification'), 'x');
    await user.click(await screen.findByRole('button', { name: 'Import 1 statements' }));
    await screen.findByTestId('import-done');
    expect(sent).toEqual([[{ op: 'add', statement: { subject: { id: 'http://example.org/bob' }, predicate: { id: 'http://example.org/name' }, object: { value: 'Bob' } } }]]);
  });

  it('refuses a file of another kind', async () => {
    await serveKg(() => ({}));
    render(<ImportExport />);
    await chooseFile('graph.ttl', '@prefix ex: <http://example.org/> .');
    expect((await screen.findByRole('alert')).textContent).toBe('graph.ttl: choose an N-Quads (.nq, .nt) or JSON-LD (.jsonld, .json) file.');
  });
});

describe('ImportExport: export', () => {
  it('pages through the statements and downloads them as N-Quads', async () => {
    const rows = Array.from({ length: 1500 }, (_, i) => ({ subject: `ex:s${i}`, predicate: 'rdfs:label', object: null, value: `n${i}`, datatype: 'xsd:string', graph: null }));
    const { calls } = await serveKg((method, params) => {
      expect(method).toBe('knowledge/query');
      const vars = params.variables as { first: number; after?: string };
      const start = vars.after ? Number(vars.after) : 0;
      const items = rows.slice(start, start + vars.first);
      return { data: { statements: { items, nextCursor: start + vars.first < rows.length ? String(start + vars.first) : null } } };
    });
    const created: Blob[] = [];
    URL.createObjectURL = vi.fn((b: Blob) => {
      created.push(b);
      return 'blob:x';
    }) as typeof URL.createObjectURL;
    URL.revokeObjectURL = vi.fn();
    const names: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      names.push(this.download);
    });
    render(<ImportExport />);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Export' }));
    expect((await screen.findByTestId('export-done')).textContent).toBe('Exported 1500 statements.');
    expect(calls.map((c) => (c.params.variables as { after?: string }).after)).toEqual([undefined, '1000']);
    expect(names).toEqual(['knowledge.nq']);
    const text = await created[0].text();
    expect(text.split('\n')).toHaveLength(1501);
    expect(text.startsWith('<ex:s0> <http://www.w3.org/2000/01/rdf-schema#label> "n0" .\n')).toBe(true);
  });

  it('exports one named graph as JSON-LD', async () => {
    const { calls } = await serveKg(() => ({
      data: { statements: { items: [{ subject: 'ex:a', predicate: 'ex:p', object: 'ex:b', value: null, datatype: null, graph: 'ex:g' }], nextCursor: null } },
    }));
    const created: Blob[] = [];
    URL.createObjectURL = vi.fn((b: Blob) => {
      created.push(b);
      return 'blob:x';
    }) as typeof URL.createObjectURL;
    URL.revokeObjectURL = vi.fn();
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    render(<ImportExport />);
    const user = userEvent.setup();
    await user.selectOptions(screen.getByLabelText('Export format'), 'jsonld');
    await user.click(screen.getByRole('radio', { name: 'Named graph' }));
    await user.type(screen.getByLabelText('Graph id'), 'ex:g');
    await user.click(screen.getByRole('button', { name: 'Export' }));
    await screen.findByTestId('export-done');
    expect(calls[0].params.variables).toEqual({ first: 1000, graph: 'ex:g' });
    await waitFor(() => expect(created).toHaveLength(1));
    expect(JSON.parse(await created[0].text())).toEqual({
      '@context': expect.objectContaining({ rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#' }),
      '@id': 'ex:g',
      '@graph': [{ '@id': 'ex:a', 'ex:p': { '@id': 'ex:b' } }],
    });
  });
});
