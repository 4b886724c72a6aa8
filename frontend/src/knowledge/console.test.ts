import { describe, expect, it } from 'vitest';
import {
  completionsAt,
  gizmoCompletionsAt,
  highlight,
  predicatesOf,
  errorExcerpt,
  errorPositionOf,
  INTROSPECTION_QUERY,
  loadHistory,
  metadataLine,
  nodeIdsOf,
  offsetAt,
  orderColumns,
  selectionOrder,
  pushHistory,
  resultTables,
  schemaFromIntrospection,
} from './console';
import recordedQuery from './testdata/introspection-query.graphql?raw';
import introspection from './testdata/introspection.json';

// The hub's answer to INTROSPECTION_QUERY through knowledge/query, recorded by the Go test
// backend/knowledge TestIntrospectionAnswersTheConsole (which fails when the schema changes).
const schema = schemaFromIntrospection(introspection);

function complete(withCursor: string) {
  const offset = withCursor.indexOf('|');
  const text = withCursor.replace('|', '');
  const c = completionsAt(schema, text, offset);
  return { ...c, labels: c.items.map((i) => i.label) };
}

describe('schema-aware completion', () => {
  it('sends the introspection query the hub’s answer was recorded for', () => {
    expect(INTROSPECTION_QUERY).toBe(recordedQuery);
  });

  it('offers the Query type’s fields at the top level, with their types', () => {
    const c = complete('{ |');
    expect(c.labels).toEqual(expect.arrayContaining(['node', 'search', 'nodes', 'statements']));
    expect(c.items.find((i) => i.label === 'statements')?.detail).toBe('StatementPage!');
  });

  it('filters by the word being typed and replaces just that word', () => {
    const c = complete('{\n  sta|');
    expect(c.labels).toEqual(['statements']);
    expect(c.from).toBe(4);
    expect(c.to).toBe(7);
  });

  it('offers the fields of the type in scope (Statement inside statements.items)', () => {
    const c = complete('{ statements(first: 5) { items { sub| } } }');
    expect(c.labels).toEqual(['subject', 'subjectNode']);
    const all = complete('{ statements { items { | } } }').labels;
    expect(all).toEqual(
      expect.arrayContaining(['subject', 'predicate', 'object', 'value', 'datatype', 'graph', 'certainty', 'provenance', 'author', 'updatedAt', 'objectNode']),
    );
    expect(all).not.toContain('nextCursor');
  });

  it('offers a field’s arguments inside its parentheses', () => {
    expect(complete('{ statements(| ) { nextCursor } }').labels).toEqual(
      expect.arrayContaining(['subject', 'predicate', 'object', 'graph', 'minCertainty', 'first', 'after']),
    );
    expect(complete('{ node(id: "x") { out(p| ) { subject } } }').labels).toEqual(['predicate']);
  });

  it('offers input object fields (AttributeFilter in nodes(where:))', () => {
    expect(complete('{ nodes(where: [{ predicate: "p", con| }]) { nextCursor } }').labels).toEqual(['contains']);
  });
});

describe('error position', () => {
  const query = '{\n  statements {\n    items { subjekt }\n  }\n}';

  it('reads line and column from a −32010 error (data.line/column, else the first GraphQL location)', () => {
    const err = Object.assign(new Error('graphql: Cannot query field "subjekt"'), {
      code: 'rpc_error',
      rpc: { code: -32010, message: 'graphql: Cannot query field "subjekt" on type "Statement".', data: { line: 3, column: 13, errors: [] } },
    });
    expect(errorPositionOf(err)).toEqual({ line: 3, column: 13 });
    const fromLocations = { rpc: { code: -32010, message: 'x', data: { errors: [{ message: 'x', locations: [{ line: 2, column: 3 }] }] } } };
    expect(errorPositionOf(fromLocations)).toEqual({ line: 2, column: 3 });
    expect(errorPositionOf(new Error('disconnected'))).toBeUndefined();
  });

  it('shows the line with a caret under the column, and finds the offset to put the cursor at', () => {
    expect(errorExcerpt(query, { line: 3, column: 13 })).toEqual({ lineText: '    items { subjekt }', caret: '            ^' });
    expect(query.slice(offsetAt(query, 3, 13)).startsWith('subjekt')).toBe(true);
  });
});

describe('result tables', () => {
  it('makes rows of each list in GraphQL data, flattening nested objects', () => {
    const data = {
      statements: {
        items: [
          { subject: 'ex:a', predicate: 'ex:p', object: 'ex:b', value: null, provenance: { sourceAgentId: 'user://owner' } },
          { subject: 'ex:a', predicate: 'rdfs:label', object: null, value: 'A' },
        ],
        nextCursor: null,
      },
    };
    const [t] = resultTables(data);
    expect(t.path).toBe('statements.items');
    expect(t.columns).toEqual(['subject', 'predicate', 'object', 'value', 'provenance.sourceAgentId']);
    expect(t.rows[0]['provenance.sourceAgentId']).toBe('user://owner');
    expect(nodeIdsOf(t, 'graphql')).toEqual(['ex:a', 'ex:b']);
  });

  it('offers every list, and a lone object as one row', () => {
    const data = { search: [{ id: 'ex:a', label: 'A', types: ['ex:T', 'ex:U'] }], node: { id: 'ex:b', out: [{ object: 'ex:c' }] } };
    const ts = resultTables(data);
    expect(ts.map((t) => t.path)).toEqual(['search', 'node.out']);
    expect(ts[0].rows[0].types).toBe('ex:T, ex:U');
    expect(resultTables({ node: { id: 'ex:b', label: 'B' } })).toEqual([{ path: '', columns: ['node.id', 'node.label'], rows: [{ 'node.id': 'ex:b', 'node.label': 'B' }] }]);
  });

  it('orders the columns as the query asked for them (the hub sorts JSON keys)', () => {
    const query = '{ s: statements(first: 2) { items { subject predicate provenance { timestamp sourceAgentId } value } } }';
    const data = { s: { items: [{ predicate: 'ex:p', provenance: { sourceAgentId: 'x', timestamp: 't' }, subject: 'ex:a', value: 1 }] } };
    const [t] = resultTables(data).map((t) => orderColumns(t, selectionOrder(query)));
    expect(t.columns).toEqual(['subject', 'predicate', 'provenance.timestamp', 'provenance.sourceAgentId', 'value']);
  });

  it('makes rows of Gizmo results and finds the IRIs among them', () => {
    const [t] = resultTables([{ id: '<ex:a>', type: '<a2a:Agent>' }, { id: '<ex:b>', name: 'plain text' }]);
    expect(t.columns).toEqual(['id', 'type', 'name']);
    expect(nodeIdsOf(t, 'gizmo')).toEqual(['ex:a', 'a2a:Agent', 'ex:b']);
  });
});

describe('history', () => {
  it('keeps each agent’s queries apart, newest first, a repeat moving up', () => {
    localStorage.clear();
    pushHistory({ language: 'graphql', query: 'q1', at: 1 });
    pushHistory({ language: 'gizmo', query: 'g.V().All()', at: 2 });
    pushHistory({ language: 'graphql', query: 'q1', at: 3 });
    pushHistory({ language: 'graphql', query: 'remote', at: 4 }, 'agent-7');
    expect(loadHistory().map((e) => [e.query, e.at])).toEqual([
      ['q1', 3],
      ['g.V().All()', 2],
    ]);
    expect(loadHistory('agent-7').map((e) => e.query)).toEqual(['remote']);
  });
});

describe('metadataLine', () => {
  it('counts the rows and the nodes on screen, not the Node objects the hub read', () => {
    expect(metadataLine({ elapsedMs: 1.5, statementCount: 20, nodeCount: 0, queryLanguage: 'graphql', changeId: '4' }, { rows: 20, nodes: 8 })).toBe(
      'time: 1.50 ms · statements: 20 · rows: 20 · nodes: 8 · as of change: 4',
    );
    // Gizmo's results are its rows
    expect(metadataLine({ elapsedMs: 12.4, resultCount: 3, queryLanguage: 'gizmo' }, { rows: 3, nodes: 5 })).toBe('time: 12 ms · results: 3 · nodes: 5');
  });
});

describe('Gizmo completion', () => {
  const predicates = ['rdf:type', 'rdfs:label', 'schema:name', 'agenthub:speaks'];
  function gizmo(withCursor: string, explicit = false) {
    const offset = withCursor.indexOf('|');
    const text = withCursor.replace('|', '');
    const c = gizmoCompletionsAt(text, offset, predicates, explicit);
    return { ...c, labels: c.items.map((i) => i.label), text };
  }

  it('offers the graph’s steps after "g." and a path’s after a step', () => {
    expect(gizmo('g.|').labels).toEqual(['V', 'M', 'Emit']);
    const c = gizmo('g.V().O|');
    expect(c.labels).toEqual(['Out', 'Or', 'OutPredicates', 'Order']);
    expect(c.from).toBe('g.V().'.length);
    expect(c.items[0].documentation).toMatch(/objects/);
  });

  it('offers the graph’s predicates inside a step’s first argument, as IRIs', () => {
    const c = gizmo('g.V().Out("|');
    expect(c.labels).toEqual(['<rdf:type>', '<rdfs:label>', '<schema:name>', '<agenthub:speaks>']);
    expect(c.from).toBe('g.V().Out("'.length);
    // typed with or without "<", by prefix or by the name after the colon
    expect(gizmo('g.V().Has("<rdf|').labels).toEqual(['<rdf:type>', '<rdfs:label>']);
    expect(gizmo("g.V().In('na|").labels).toEqual(['<schema:name>']);
    expect(gizmo('g.V().Has("<rdf|').from).toBe('g.V().Has("'.length);
  });

  it('stays closed where no step or predicate fits', () => {
    expect(gizmo('g.V().Limit(1.|').labels).toEqual([]);
    expect(gizmo('g.V("ex:a").Tag("|').labels).toEqual([]);
    expect(gizmo('var p = g.V(); p.|').labels).toEqual([]);
    expect(gizmo('var p = g.V(); p.|', true).labels).toContain('Out');
  });

  it('reads the predicates from the Gizmo answer', () => {
    expect(predicatesOf([{ id: '<https://schema.org/name>' }, { id: '<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>' }, { id: '<rdf:type>' }, { x: 1 }])).toEqual([
      'rdf:type',
      'schema:name',
    ]);
    expect(predicatesOf(null)).toEqual([]);
  });
});

describe('highlight', () => {
  const kinds = (text: string, language: 'graphql' | 'gizmo') =>
    highlight(text, language)
      .filter((t) => t.kind !== 'space')
      .map((t) => `${t.kind}:${t.text}`);
  it('colours GraphQL and gives the text back whole', () => {
    const q = 'query Q($id: ID!) { # who\n  node(id: $id) { label out(first: 3) { object } }\n  search(text: "a \\"b\\"") { id }\n}';
    expect(highlight(q, 'graphql').map((t) => t.text).join('')).toBe(q);
    expect(kinds('query Q($id: ID!) { node(id: $id) { label } } # x', 'graphql')).toEqual([
      'keyword:query',
      'name:Q',
      'punct:(',
      'var:$id',
      'punct::',
      'name:ID',
      'punct:!)',
      'punct:{',
      'name:node',
      'punct:(',
      'name:id',
      'punct::',
      'var:$id',
      'punct:)',
      'punct:{',
      'name:label',
      'punct:}',
      'punct:}',
      'comment:# x',
    ]);
  });
  it('colours Gizmo: steps, IRIs apart from strings, comments', () => {
    const q = 'g.V("<ex:a>").Out("knows").Limit(20).All() // two';
    expect(highlight(q, 'gizmo').map((t) => t.text).join('')).toBe(q);
    expect(kinds(q, 'gizmo')).toEqual([
      'name:g',
      'punct:.',
      'method:V',
      'punct:(',
      'iri:"<ex:a>"',
      'punct:).',
      'method:Out',
      'punct:(',
      'string:"knows"',
      'punct:).',
      'method:Limit',
      'punct:(',
      'number:20',
      'punct:).',
      'method:All',
      'punct:()',
      'comment:// two',
    ]);
  });
  it('colours unfinished input as far as it goes', () => {
    for (const [t, l] of [['{ search(text: "open', 'graphql'], ['g.V("<ex:', 'gizmo'], ['/* never closed', 'gizmo']] as const) {
      expect(highlight(t, l).map((x) => x.text).join('')).toBe(t);
    }
  });
});
