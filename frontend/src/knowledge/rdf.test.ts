import { describe, expect, it } from 'vitest';
import {
  bareStatement,
  batches,
  compactIri,
  expandId,
  formatOfFileName,
  parseRdf,
  patchLimitOf,
  RdfParseError,
  rowToStatement,
  serializeRdf,
  statementKey,
  statementsToNQuads,
  statementsToPatches,
  type KGStatement,
} from './rdf';

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';

const NQ = `<http://example.org/alice> <${RDF}type> <http://schema.org/Person> .
<http://example.org/alice> <http://www.w3.org/2000/01/rdf-schema#label> "Alice \\"Al\\"\\nSmith" .
<http://example.org/alice> <http://example.org/age> "42"^^<${XSD}integer> <http://example.org/g1> .
<http://example.org/alice> <http://example.org/score> "5.0E-1"^^<${XSD}double> .
<http://example.org/alice> <http://example.org/active> "true"^^<${XSD}boolean> .
<http://example.org/alice> <http://example.org/big> "123456789012345678901"^^<${XSD}integer> .
<http://example.org/alice> <http://example.org/born> "1980-01-02"^^<${XSD}date> .
<http://example.org/alice> <http://example.org/motto> "bonjour"@fr .
_:addr <http://example.org/city> "Paris" .
<http://example.org/alice> <http://example.org/address> _:addr .
`;

describe('N-Quads → statements and patches', () => {
  it('maps IRIs, literals, graphs and blank nodes the way the hub stores them', async () => {
    const sts = await parseRdf(NQ, 'nquads');
    expect(sts).toEqual([
      // IRIs are sent as they are: the hub stores full IRIs (schema.org's http:// ones under https://).
      { subject: { id: 'http://example.org/alice' }, predicate: { id: RDF + 'type' }, object: { id: 'http://schema.org/Person' } },
      { subject: { id: 'http://example.org/alice' }, predicate: { id: RDFS + 'label' }, object: { value: 'Alice "Al"\nSmith' } },
      {
        subject: { id: 'http://example.org/alice' },
        predicate: { id: 'http://example.org/age' },
        object: { value: 42, type: XSD + 'integer' },
        graph: 'http://example.org/g1',
      },
      { subject: { id: 'http://example.org/alice' }, predicate: { id: 'http://example.org/score' }, object: { value: 0.5, type: XSD + 'double' } },
      { subject: { id: 'http://example.org/alice' }, predicate: { id: 'http://example.org/active' }, object: { value: true, type: XSD + 'boolean' } },
      // Beyond 2^53 a number would change: it stays text, with its datatype.
      {
        subject: { id: 'http://example.org/alice' },
        predicate: { id: 'http://example.org/big' },
        object: { value: '123456789012345678901', type: XSD + 'integer' },
      },
      { subject: { id: 'http://example.org/alice' }, predicate: { id: 'http://example.org/born' }, object: { value: '1980-01-02', type: XSD + 'date' } },
      { subject: { id: 'http://example.org/alice' }, predicate: { id: 'http://example.org/motto' }, object: { value: 'bonjour', type: '@fr' } },
      { subject: { id: '_:addr' }, predicate: { id: 'http://example.org/city' }, object: { value: 'Paris' } },
      { subject: { id: 'http://example.org/alice' }, predicate: { id: 'http://example.org/address' }, object: { id: '_:addr' } },
    ]);
    const patches = statementsToPatches(sts);
    expect(patches).toHaveLength(10);
    expect(patches.every((p) => p.op === 'add')).toBe(true);
    expect(patches[2].statement.graph).toBe('http://example.org/g1');
  });

  it('gives blank nodes the import prefix when asked, consistently within the file', async () => {
    const sts = await parseRdf(NQ, 'nquads', { blankPrefix: 'i1234_' });
    expect(sts[8].subject.id).toBe('_:i1234_addr');
    expect(sts[9].object.id).toBe('_:i1234_addr');
  });

  it('reports a syntax error with its line', async () => {
    const err = await parseRdf('<http://a/b> <http://a/c> "x" .\n<http://a/b> <http://a/c> .\n', 'nquads').catch((e) => e);
    expect(err).toBeInstanceOf(RdfParseError);
    expect(err.line).toBe(2);
  });

  it('refuses a relative IRI (N-Quads has none)', async () => {
    await expect(parseRdf('<alice> <http://a/c> "x" .\n', 'nquads')).rejects.toThrow(/IRI/);
  });
});

describe('JSON-LD → statements', () => {
  it('expands the document with its inline context', async () => {
    const doc = {
      '@context': { ex: 'http://example.org/', name: 'http://schema.org/name', age: { '@id': 'ex:age', '@type': 'xsd:integer' }, xsd: XSD },
      '@id': 'ex:bob',
      '@type': 'ex:Person',
      name: { '@value': 'Bob', '@language': 'en' },
      age: '7',
      'ex:knows': { '@id': 'ex:alice' },
      'ex:tags': ['a', 'b'],
    };
    const sts = await parseRdf(JSON.stringify(doc), 'jsonld');
    const keys = sts.map(statementKey).sort();
    const want: KGStatement[] = [
      { subject: { id: 'http://example.org/bob' }, predicate: { id: 'rdf:type' }, object: { id: 'http://example.org/Person' } },
      { subject: { id: 'http://example.org/bob' }, predicate: { id: 'schema:name' }, object: { value: 'Bob', type: '@en' } },
      { subject: { id: 'http://example.org/bob' }, predicate: { id: 'http://example.org/age' }, object: { value: 7, type: XSD + 'integer' } },
      { subject: { id: 'http://example.org/bob' }, predicate: { id: 'http://example.org/knows' }, object: { id: 'http://example.org/alice' } },
      { subject: { id: 'http://example.org/bob' }, predicate: { id: 'http://example.org/tags' }, object: { value: 'a' } },
      { subject: { id: 'http://example.org/bob' }, predicate: { id: 'http://example.org/tags' }, object: { value: 'b' } },
    ];
    expect(keys).toEqual(want.map(statementKey).sort());
  });

  it('does not fetch a remote context', async () => {
    const doc = { '@context': 'https://schema.org/', '@id': 'http://example.org/x', name: 'X' };
    await expect(parseRdf(JSON.stringify(doc), 'jsonld')).rejects.toThrow(/remote JSON-LD context https:\/\/schema.org\/ is not loaded/);
  });

  it('says when the file is not JSON', async () => {
    await expect(parseRdf('{"@id": ', 'jsonld')).rejects.toThrow(/not JSON/);
  });
});

describe('batches', () => {
  it('splits by count, keeping order', () => {
    const items = Array.from({ length: 2501 }, (_, i) => i);
    const bs = batches(items, 1000);
    expect(bs.map((b) => b.length)).toEqual([1000, 1000, 501]);
    expect(bs.flat()).toEqual(items);
  });

  it('splits by size so that no batch exceeds the byte budget', () => {
    const items = Array.from({ length: 10 }, (_, i) => ({ i, text: 'x'.repeat(100) }));
    const one = JSON.stringify(items[0]).length + 1;
    const bs = batches(items, 1000, one * 3);
    expect(bs.map((b) => b.length)).toEqual([3, 3, 3, 1]);
  });

  it('reads the limit from the hub’s maximum-patch-size refusal', () => {
    expect(patchLimitOf('alignment violation: 1000 mutations exceed the maximum patch size of 250')).toBe(250);
    expect(patchLimitOf('alignment violation: mutations[3]: namespace agenthub: is read-only')).toBeUndefined();
  });
});

describe('export serialization', () => {
  it('writes N-Quads with expanded vocabularies, escapes, typed literals, graphs and blank nodes', () => {
    const sts: KGStatement[] = [
      { subject: { id: 'agenthub:hub' }, predicate: { id: 'rdf:type' }, object: { id: 'a2a:Agent' } },
      { subject: { id: 'agenthub:hub' }, predicate: { id: 'rdfs:label' }, object: { value: 'Hub "one"\n', type: 'xsd:string' } },
      { subject: { id: 'ex:n' }, predicate: { id: 'ex:count' }, object: { value: 3, type: XSD + 'integer' }, graph: 'ex:g' },
      { subject: { id: 'ex:n' }, predicate: { id: 'ex:ratio' }, object: { value: 0.25, type: XSD + 'double' } },
      { subject: { id: 'ex:n' }, predicate: { id: 'ex:ok' }, object: { value: false, type: XSD + 'boolean' } },
      { subject: { id: 'ex:n' }, predicate: { id: 'ex:motto' }, object: { value: 'salut', type: '@fr' } },
      { subject: { id: '_:b1' }, predicate: { id: 'ex:p' }, object: { id: 'Alice Smith' } },
    ];
    expect(statementsToNQuads(sts)).toBe(
      `<agenthub:hub> <${RDF}type> <a2a:Agent> .\n` +
        `<agenthub:hub> <http://www.w3.org/2000/01/rdf-schema#label> "Hub \\"one\\"\\n" .\n` +
        `<ex:n> <ex:count> "3"^^<${XSD}integer> <ex:g> .\n` +
        `<ex:n> <ex:ratio> "2.5E-1"^^<${XSD}double> .\n` +
        `<ex:n> <ex:ok> "false"^^<${XSD}boolean> .\n` +
        `<ex:n> <ex:motto> "salut"@fr .\n` +
        `_:b1 <ex:p> <urn:agenthub:id:Alice%20Smith> .\n`,
    );
  });

  it('maps ids to IRIs and back', () => {
    for (const id of ['rdf:type', 'schema:name', 'agenthub:hub', 'http://example.org/a#b', 'Alice', 'a b', 'urn:agenthub:id:x', 'x<y>']) {
      expect(compactIri(expandId(id))).toBe(id);
    }
  });

  it('reads the format from the file name', () => {
    expect(formatOfFileName('graph.nq')).toBe('nquads');
    expect(formatOfFileName('graph.NT')).toBe('nquads');
    expect(formatOfFileName('graph.jsonld')).toBe('jsonld');
    expect(formatOfFileName('graph.json')).toBe('jsonld');
    expect(formatOfFileName('graph.ttl')).toBeUndefined();
  });
});

// What knowledge/query's statements(first, after) gives for a graph holding a bit of everything: full IRIs.
const ROWS = [
  { subject: 'agenthub:hub', predicate: RDF + 'type', object: 'a2a:Agent', value: null, datatype: null, graph: null },
  { subject: 'agenthub:hub', predicate: RDFS + 'label', object: null, value: 'AgentHub', datatype: XSD + 'string', graph: null },
  { subject: 'ex:n', predicate: 'ex:count', object: null, value: 3, datatype: XSD + 'integer', graph: 'ex:g' },
  { subject: 'ex:n', predicate: 'ex:ratio', object: null, value: 0.25, datatype: XSD + 'double', graph: null },
  { subject: 'ex:n', predicate: 'ex:whole', object: null, value: 2, datatype: XSD + 'double', graph: null },
  { subject: 'ex:n', predicate: 'ex:tiny', object: null, value: 1e-7, datatype: XSD + 'decimal', graph: null },
  { subject: 'ex:n', predicate: 'ex:huge', object: null, value: '123456789012345678901', datatype: XSD + 'integer', graph: null },
  { subject: 'ex:n', predicate: 'ex:ok', object: null, value: true, datatype: XSD + 'boolean', graph: null },
  { subject: 'ex:n', predicate: 'ex:motto', object: null, value: 'salut\n"toi"', datatype: '@fr', graph: null },
  { subject: 'ex:n', predicate: 'ex:when', object: null, value: '2026-01-01', datatype: XSD + 'date', graph: null },
  { subject: 'Alice Smith', predicate: 'ex:knows', object: 'ex:n', value: null, datatype: null, graph: 'My graph' },
];

describe('round trip: export → import gives the same statements', () => {
  const exported = ROWS.map(rowToStatement);

  it('through N-Quads, blank nodes included', async () => {
    const withBlank = [
      ...exported,
      rowToStatement({ subject: '_:b7', predicate: 'ex:city', value: 'Paris', datatype: XSD + 'string' }),
      rowToStatement({ subject: 'ex:n', predicate: 'ex:address', object: '_:b7' }),
    ];
    const text = await serializeRdf(withBlank, 'nquads');
    const back = await parseRdf(text, 'nquads');
    expect(back.map(bareStatement)).toEqual(withBlank.map(bareStatement));
    expect(back.map(statementKey)).toEqual(withBlank.map(statementKey));
  });

  it('through JSON-LD', async () => {
    const text = await serializeRdf(exported, 'jsonld');
    const doc = JSON.parse(text);
    expect(doc['@context'].rdf).toBe(RDF);
    const back = await parseRdf(text, 'jsonld');
    expect(back.map(statementKey).sort()).toEqual(exported.map(statementKey).sort());
  });

  it('through JSON-LD keeps blank nodes blank and linked (jsonld relabels them)', async () => {
    const sts = [
      rowToStatement({ subject: '_:b7', predicate: 'ex:city', value: 'Paris', datatype: XSD + 'string' }),
      rowToStatement({ subject: 'ex:n', predicate: 'ex:address', object: '_:b7' }),
    ];
    const back = await parseRdf(await serializeRdf(sts, 'jsonld'), 'jsonld', { blankPrefix: 'i9_' });
    const city = back.find((s) => s.predicate.id === 'ex:city');
    const addr = back.find((s) => s.predicate.id === 'ex:address');
    expect(city?.subject.id).toMatch(/^_:i9_/);
    expect(addr?.object.id).toBe(city?.subject.id);
  });
});

describe('display', () => {
  it('compacts the full IRIs the hub answers to CURIEs, also in Gizmo’s <IRI> form, and leaves others', async () => {
    const { displayTerm } = await import('./rdf');
    expect(displayTerm(RDF + 'type')).toBe('rdf:type');
    expect(displayTerm('<' + RDFS + 'label>')).toBe('<rdfs:label>');
    expect(displayTerm('https://schema.org/Person')).toBe('schema:Person');
    expect(displayTerm('http://xmlns.com/foaf/0.1/knows')).toBe('foaf:knows');
    expect(displayTerm('http://example.org/a')).toBe('http://example.org/a');
    expect(displayTerm('agenthub:hub')).toBe('agenthub:hub');
    expect(displayTerm('Bonjour tout le monde')).toBe('Bonjour tout le monde');
  });
});
