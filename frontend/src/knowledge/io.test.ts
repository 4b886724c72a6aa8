import { describe, expect, it } from 'vitest';
import { HubError } from '../api/client';
import type { KGPatch, QueryResult, UpdateResult } from './kg';
import { Cancelled, exportQuery, exportStatements, importStatements } from './io';
import { expandCurie, parseRdf, serializeRdf, statementKey, storedDatatype, type KGStatement, type StatementRow } from './rdf';

/**
 * A hub's knowledge graph as far as import and export see it: knowledge/update's all-or-nothing
 * adds under the rules' maximum patch size and read-only namespaces (rules.go, with its messages),
 * and knowledge/query's statements(first, after, graph) paging by row id (graphql.go); like the hub
 * it stores the well-known CURIEs as full IRIs (terms.go).
 */
class FakeHub {
  rows: (StatementRow & { id: number })[] = [];
  keys = new Set<string>();
  calls: number[] = [];
  nextId = 1;
  constructor(
    public maxPatch = 1000,
    public readOnly = 'agenthub:',
  ) {}

  update = async (patches: KGPatch[], justification: string): Promise<UpdateResult> => {
    this.calls.push(patches.length);
    expect(justification).toBe('seed the graph');
    const refuse = (why: string) => {
      throw new HubError('rpc_error', 'alignment violation: ' + why, { code: -32013, message: 'alignment violation: ' + why });
    };
    if (patches.length > this.maxPatch) refuse(`${patches.length} mutations exceed the maximum patch size of ${this.maxPatch}`);
    patches.forEach((p, i) => p.statement.subject.id.startsWith(this.readOnly) && refuse(`mutations[${i}]: namespace ${this.readOnly} is read-only`));
    for (const p of patches) {
      const s = p.statement;
      const row: StatementRow = {
        subject: expandCurie(s.subject.id),
        predicate: expandCurie(s.predicate.id),
        object: s.object.id ? expandCurie(s.object.id) : null,
        value: s.object.id ? null : (s.object.value ?? null),
        datatype: storedDatatype(s.object) ?? null,
        graph: s.graph ? expandCurie(s.graph) : null,
      };
      const k = JSON.stringify([row.subject, row.predicate, row.object, row.value, row.datatype, row.graph]);
      if (!this.keys.has(k)) this.rows.push({ ...row, id: this.nextId++ });
      this.keys.add(k);
    }
    return { success: true, statementsAffected: patches.length, verificationStatus: 'Verified' };
  };

  query = async (graphql: string, vars: Record<string, unknown>): Promise<QueryResult> => {
    expect(graphql).toBe(exportQuery(vars.graph as string | undefined));
    const first = vars.first as number;
    const after = vars.after === undefined ? 0 : Number(vars.after);
    const rows = this.rows.filter((r) => r.id > after && (vars.graph === undefined || (r.graph ?? '') === vars.graph));
    const items = rows.slice(0, first);
    const next = rows.length > first ? String(items[items.length - 1].id) : null;
    return { data: { statements: { items: items.map(({ id: _, ...r }) => r), nextCursor: next } }, queryMetadata: {} };
  };
}

function statements(n: number, subject = (i: number) => `ex:s${i}`): KGStatement[] {
  return Array.from({ length: n }, (_, i) => ({ subject: { id: subject(i) }, predicate: { id: 'ex:p' }, object: { value: i } }));
}

describe('import', () => {
  it('sends add patches in batches of the hub’s maximum, reporting progress to the end', async () => {
    const hub = new FakeHub();
    const progress: [number, number][] = [];
    const out = await importStatements(statements(2500), { update: hub.update, justification: 'seed the graph', onProgress: (s, t) => progress.push([s, t]) });
    expect(out).toEqual({ imported: 2500, total: 2500, batchSize: 1000 });
    expect(hub.calls).toEqual([1000, 1000, 500]);
    expect(progress).toEqual([
      [0, 2500],
      [1000, 2500],
      [2000, 2500],
      [2500, 2500],
    ]);
    expect(hub.rows).toHaveLength(2500);
  });

  it('follows a smaller maximum patch size the hub’s refusal names', async () => {
    const hub = new FakeHub(300);
    const out = await importStatements(statements(1000), { update: hub.update, justification: 'seed the graph' });
    expect(out).toEqual({ imported: 1000, total: 1000, batchSize: 300 });
    expect(hub.calls).toEqual([1000, 300, 300, 300, 100]);
  });

  it('stops at a refused batch with the error, saying how many statements were imported', async () => {
    const hub = new FakeHub();
    const sts = statements(2500, (i) => (i === 1500 ? 'agenthub:hub' : `ex:s${i}`));
    const out = await importStatements(sts, { update: hub.update, justification: 'seed the graph', errorText: (e) => (e as HubError).rpc?.message ?? '' });
    expect(out.imported).toBe(1000);
    expect(out.error).toEqual({ code: -32013, message: 'alignment violation: mutations[500]: namespace agenthub: is read-only' });
    expect(hub.rows).toHaveLength(1000);
    expect(hub.calls).toEqual([1000, 1000]);
  });

  it('stops between batches when cancelled', async () => {
    const hub = new FakeHub();
    const ac = new AbortController();
    const out = await importStatements(statements(3000), {
      update: hub.update,
      justification: 'seed the graph',
      signal: ac.signal,
      onProgress: (sent) => sent === 1000 && ac.abort(),
    });
    expect(out).toEqual({ imported: 1000, total: 3000, cancelled: true, batchSize: 1000 });
    expect(hub.rows).toHaveLength(1000);
  });
});

describe('export', () => {
  it('pages through statements(first, after) to the last page', async () => {
    const hub = new FakeHub();
    await importStatements(statements(2345), { update: hub.update, justification: 'seed the graph' });
    const read: number[] = [];
    const sts = await exportStatements({ query: hub.query, onProgress: (n) => read.push(n) });
    expect(sts).toHaveLength(2345);
    expect(read).toEqual([1000, 2000, 2345]);
    expect(sts[2344]).toEqual({ subject: { id: 'ex:s2344' }, predicate: { id: 'ex:p' }, object: { value: 2344, type: 'http://www.w3.org/2001/XMLSchema#integer' } });
  });

  it('exports one named graph when asked', async () => {
    const hub = new FakeHub();
    const sts = statements(4).map((s, i) => (i % 2 ? { ...s, graph: 'ex:g' } : s));
    await importStatements(sts, { update: hub.update, justification: 'seed the graph' });
    expect((await exportStatements({ query: hub.query, graph: 'ex:g' })).map((s) => s.subject.id)).toEqual(['ex:s1', 'ex:s3']);
    expect((await exportStatements({ query: hub.query, graph: '' })).map((s) => s.subject.id)).toEqual(['ex:s0', 'ex:s2']);
  });

  it('stops when cancelled', async () => {
    const hub = new FakeHub();
    await importStatements(statements(2500), { update: hub.update, justification: 'seed the graph' });
    const ac = new AbortController();
    await expect(exportStatements({ query: hub.query, signal: ac.signal, onProgress: () => ac.abort() })).rejects.toBeInstanceOf(Cancelled);
  });
});

describe('round trip: a hub’s statements exported, then imported into another hub, are the same', () => {
  const mixed: KGStatement[] = [
    { subject: { id: 'ex:alice' }, predicate: { id: 'rdf:type' }, object: { id: 'schema:Person' } },
    { subject: { id: 'ex:alice' }, predicate: { id: 'rdfs:label' }, object: { value: 'Alice "A."\nLiddell' } },
    { subject: { id: 'ex:alice' }, predicate: { id: 'ex:age' }, object: { value: 7 } },
    { subject: { id: 'ex:alice' }, predicate: { id: 'ex:height' }, object: { value: 1.25 } },
    { subject: { id: 'ex:alice' }, predicate: { id: 'ex:curious' }, object: { value: true } },
    { subject: { id: 'ex:alice' }, predicate: { id: 'ex:motto' }, object: { value: 'curiouser', type: '@en' } },
    { subject: { id: 'ex:alice' }, predicate: { id: 'ex:born' }, object: { value: '1852-05-04', type: 'xsd:date' } },
    { subject: { id: 'ex:alice' }, predicate: { id: 'ex:knows' }, object: { id: 'White Rabbit' }, graph: 'ex:wonderland' },
    { subject: { id: 'ex:alice' }, predicate: { id: 'ex:address' }, object: { id: '_:home' } },
    { subject: { id: '_:home' }, predicate: { id: 'ex:city' }, object: { value: 'Oxford' } },
    ...statements(1500),
  ];

  for (const format of ['nquads', 'jsonld'] as const) {
    it(`through ${format}`, async () => {
      const a = new FakeHub();
      await importStatements(mixed, { update: a.update, justification: 'seed the graph' });
      const exported = await exportStatements({ query: a.query });
      const file = await serializeRdf(exported, format);

      const b = new FakeHub();
      const parsed = await parseRdf(file, format, { blankPrefix: '' });
      const out = await importStatements(parsed, { update: b.update, justification: 'seed the graph' });
      expect(out.imported).toBe(mixed.length);
      const again = await exportStatements({ query: b.query });
      // JSON-LD relabels blank nodes (jsonld's own b0, b1…): compare them by position in the graph.
      const key = (s: KGStatement) => statementKey(s).replace(/"_:[^"]*"/g, '"_:"');
      expect(again.map(key).sort()).toEqual(exported.map(key).sort());
      if (format === 'nquads') expect(again).toEqual(exported);
      const home = again.find((s) => s.predicate.id === 'ex:address')?.object.id;
      expect(again.find((s) => s.predicate.id === 'ex:city')?.subject.id).toBe(home);
    });
  }
});
