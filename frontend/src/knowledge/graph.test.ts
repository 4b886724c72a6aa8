import { describe, expect, it } from 'vitest';
import {
  idsFromLabel,
  authorshipIds,
  authorshipText,
  changeEffect,
  collapseTargets,
  edgeId,
  hiddenLinks,
  isLink,
  isTypePredicate,
  RDF_TYPE,
  laterChangeId,
  legendOf,
  neighbourhoodElements,
  nodeElement,
  parseLiteral,
  primaryType,
  ringPositions,
  shortId,
  summariesOf,
  summariesQuery,
  toKG,
  typeStyle,
  UNTYPED,
  withAuthor,
  type GNodeDetail,
} from './graph';
import type { ChangeEvent } from './kg';

// The hub's sample graph as node(id: "agenthub:hub") answers it.
const hub: GNodeDetail = {
  id: 'agenthub:hub',
  types: ['a2a:Agent'],
  label: 'AgentHub',
  degree: 3,
  attributes: [{ subject: 'agenthub:hub', predicate: 'rdfs:label', value: 'AgentHub', certainty: 1 }],
  out: [
    { subject: 'agenthub:hub', predicate: 'rdf:type', object: 'a2a:Agent', certainty: 1 },
    { subject: 'agenthub:hub', predicate: 'a2a:hasSkill', object: 'agenthub:skill/inbox', certainty: 1 },
    { subject: 'agenthub:hub', predicate: 'agenthub:hosts', object: 'agenthub:agent/demo', certainty: 0.8 },
  ],
  in: [],
};

describe('GraphQL result → cytoscape elements', () => {
  it('draws the node, its neighbours and its links, types as looks rather than edges', () => {
    const els = neighbourhoodElements(hub, [{ id: 'agenthub:skill/inbox', types: ['a2a:Skill'], label: 'Inbox', degree: 1 }]);
    const nodes = els.filter((e) => e.group === 'nodes').map((e) => e.data);
    const edges = els.filter((e) => e.group === 'edges').map((e) => e.data);
    expect(nodes.map((n) => [n.id, n.label, n.type])).toEqual([
      ['agenthub:hub', 'AgentHub', 'a2a:Agent'],
      ['agenthub:skill/inbox', 'Inbox', 'a2a:Skill'],
      // not in the summaries: drawn from its id alone
      ['agenthub:agent/demo', 'demo', ''],
    ]);
    expect(edges).toEqual([
      {
        id: edgeId('agenthub:hub', 'a2a:hasSkill', 'agenthub:skill/inbox'),
        source: 'agenthub:hub',
        target: 'agenthub:skill/inbox',
        predicate: 'a2a:hasSkill',
        label: 'hasSkill',
        graph: '',
        certainty: 1,
      },
      {
        id: edgeId('agenthub:hub', 'agenthub:hosts', 'agenthub:agent/demo'),
        source: 'agenthub:hub',
        target: 'agenthub:agent/demo',
        predicate: 'agenthub:hosts',
        label: 'hosts',
        graph: '',
        certainty: 0.8,
      },
    ]);
    expect(edges.some((e) => e.predicate === 'rdf:type')).toBe(false);
  });

  it('draws a link met both ways (out of one node, into the other) once', () => {
    const self: GNodeDetail = {
      id: 'ex:a',
      out: [{ subject: 'ex:a', predicate: 'ex:knows', object: 'ex:a' }],
      in: [{ subject: 'ex:a', predicate: 'ex:knows', object: 'ex:a' }],
    };
    expect(neighbourhoodElements(self, []).filter((e) => e.group === 'edges')).toHaveLength(1);
  });

  it('names nodes by label, else by the tail of their id', () => {
    expect(shortId('agenthub:skill/inbox')).toBe('inbox');
    expect(shortId('http://schema.org/Person#name')).toBe('name');
    expect(shortId('ex:alice')).toBe('alice');
    expect(shortId('plain')).toBe('plain');
    expect(nodeElement({ id: 'ex:a', label: '  ' }).data.label).toBe('a');
    // a blank node's id is a label made up per import: its type (or "blank node") reads better
    expect(nodeElement({ id: '_:i3f9a01c2_b0', types: ['https://schema.org/PostalAddress'] }).data.label).toBe('(PostalAddress)');
    expect(nodeElement({ id: '_:i3f9a01c2_b1' }).data.label).toBe('(blank node)');
    expect(nodeElement({ id: '_:i3f9a01c2_b2', label: 'Home' }).data.label).toBe('Home');
  });

  it('counts the links not shown, types aside', () => {
    expect(hiddenLinks(hub, 2)).toBe(0);
    expect(hiddenLinks({ ...hub, degree: 40 }, 2)).toBe(37);
  });

  it('asks for many nodes in one query by aliases and reads them back in order', () => {
    const q = summariesQuery(['ex:a', 'ex:b']);
    expect(q.query).toBe('query Summaries($n0: ID!, $n1: ID!) { n0: node(id: $n0) { id types label degree } n1: node(id: $n1) { id types label degree } }');
    expect(q.variables).toEqual({ n0: 'ex:a', n1: 'ex:b' });
    expect(summariesOf({ n0: null, n1: { id: 'ex:b' } }, ['ex:a', 'ex:b'])).toEqual([{ id: 'ex:b' }]);
  });
});

describe('style by type', () => {
  it('fixes the sample graph’s types and keeps any other type’s look stable and distinct from them', () => {
    expect(typeStyle('a2a:Agent')).toEqual({ color: '#5b6ee1', shape: 'ellipse' });
    expect(typeStyle('a2a:Skill')).toEqual({ color: '#2f9e6b', shape: 'round-rectangle' });
    expect(typeStyle('')).toEqual(UNTYPED);
    const p = typeStyle('ex:Person');
    expect(typeStyle('ex:Person')).toEqual(p);
    for (const t of ['ex:Person', 'ex:Place', 'schema:Event', 'foaf:Document']) {
      expect(typeStyle(t).color).not.toBe('#5b6ee1');
      expect(typeStyle(t).color).not.toBe('#2f9e6b');
    }
  });

  it('draws a node with several types by the first in name order', () => {
    expect(primaryType(['ex:Z', 'ex:A'])).toBe('ex:A');
    expect(nodeElement({ id: 'x', types: ['ex:Z', 'ex:A'] }).data).toMatchObject({ type: 'ex:A', types: ['ex:Z', 'ex:A'], ...typeStyle('ex:A') });
  });

  it('lists each type in view once in the legend, untyped last', () => {
    const nodes = [nodeElement({ id: 'a' }), nodeElement({ id: 'b', types: ['a2a:Skill'] }), nodeElement({ id: 'c', types: ['a2a:Skill'] }), nodeElement({ id: 'd', types: ['a2a:Agent'] })];
    expect(legendOf(nodes.map((n) => n.data)).map((l) => [l.type, l.count, l.shape])).toEqual([
      ['a2a:Agent', 1, 'ellipse'],
      ['a2a:Skill', 2, 'round-rectangle'],
      ['', 1, 'ellipse'],
    ]);
  });
});

describe('expand and collapse', () => {
  it('collapsing hides the neighbours nothing else keeps in view', () => {
    const g = {
      nodes: ['hub', 'a', 'b', 'c', 'd'],
      edges: [
        { source: 'hub', target: 'a' },
        { source: 'hub', target: 'b' },
        { source: 'b', target: 'c' }, // b is linked to c too: stays
        { source: 'd', target: 'hub' },
      ],
    };
    expect(collapseTargets(g, 'hub', new Set()).sort()).toEqual(['a', 'd']);
    expect(collapseTargets(g, 'hub', new Set(['d']))).toEqual(['a']); // d is pinned or expanded
  });

  it('places new neighbours in rings around the node, after those placed before', () => {
    const first = ringPositions(0, 0, 8);
    expect(first).toHaveLength(8);
    for (const p of first) expect(Math.round(Math.hypot(p.x, p.y))).toBe(90);
    const next = ringPositions(0, 0, 2, 8);
    for (const p of next) expect(Math.round(Math.hypot(p.x, p.y))).toBe(180);
    expect(new Set([...first, ...next].map((p) => `${Math.round(p.x)},${Math.round(p.y)}`)).size).toBe(10);
  });
});

describe('live changes', () => {
  const change = (op: ChangeEvent['op'], s: string, p: string, o: { id?: string; value?: string }): ChangeEvent => ({
    op,
    statement: { subject: { id: s }, predicate: { id: p }, object: o },
    changeId: '7',
    timestamp: '2026-01-01T00:00:00Z',
  });
  const visible = new Set(['ex:a', 'ex:b']);

  it('adds or removes a link between shown nodes and refreshes both', () => {
    const add = changeEffect(change('add', 'ex:a', 'ex:knows', { id: 'ex:b' }), visible);
    expect(add.touches).toBe(true);
    expect(add.addEdge?.data).toMatchObject({ source: 'ex:a', target: 'ex:b', predicate: 'ex:knows' });
    expect(add.refresh).toEqual(['ex:a', 'ex:b']);
    const rm = changeEffect(change('remove', 'ex:a', 'ex:knows', { id: 'ex:b' }), visible);
    expect(rm.removeEdge).toBe(edgeId('ex:a', 'ex:knows', 'ex:b'));
    expect(rm.addEdge).toBeUndefined();
  });

  it('brings a new neighbour of an expanded node into view, not of a node merely shown', () => {
    const c = change('add', 'ex:new', 'ex:knows', { id: 'ex:a' });
    expect(changeEffect(c, visible).addNode).toBeUndefined();
    const e = changeEffect(c, visible, new Set(['ex:a']));
    expect(e.addNode).toBe('ex:new');
    expect(e.addEdge?.data).toMatchObject({ source: 'ex:new', target: 'ex:a' });
    expect(e.refresh).toEqual(['ex:a']);
  });

  it('refreshes a shown node whose literal changed, and ignores what is not shown', () => {
    expect(changeEffect(change('replace', 'ex:a', 'rdfs:label', { value: 'A' }), visible)).toEqual({ touches: true, refresh: ['ex:a'] });
    expect(changeEffect(change('add', 'ex:z', 'ex:knows', { id: 'ex:y' }), visible)).toEqual({ touches: false, refresh: [] });
    // a new type of a shown node is not an edge
    expect(changeEffect(change('add', 'ex:a', 'rdf:type', { id: 'ex:b' }), visible).addEdge).toBeUndefined();
  });

  it('resumes after the latest change id seen', () => {
    expect(laterChangeId(undefined, '5')).toBe('5');
    expect(laterChangeId('10', '9')).toBe('10');
    expect(laterChangeId('9', '10')).toBe('10');
  });
});

describe('statements as the spec writes them', () => {
  it('turns a GraphQL statement back into a KGStatement, with its certainty, provenance and datatype', () => {
    expect(
      toKG({ subject: 'ex:a', predicate: 'ex:age', value: 4, datatype: 'xsd:integer', certainty: 0.5, provenance: { sourceAgentId: 'agent://x' }, graph: null }),
    ).toEqual({ subject: { id: 'ex:a' }, predicate: { id: 'ex:age' }, object: { value: 4, type: 'xsd:integer' }, certainty: 0.5, provenance: { sourceAgentId: 'agent://x' } });
    expect(toKG({ subject: 'ex:a', predicate: 'ex:knows', object: 'ex:b', graph: 'ex:g' })).toEqual({
      subject: { id: 'ex:a' },
      predicate: { id: 'ex:knows' },
      object: { id: 'ex:b' },
      graph: 'ex:g',
    });
  });

  it('keeps a literal’s kind when the typed text parses as it', () => {
    expect(parseLiteral('42', 7)).toBe(42);
    expect(parseLiteral('forty', 7)).toBe('forty');
    expect(parseLiteral('false', true)).toBe(false);
    expect(parseLiteral('12', 'x')).toBe('12');
  });
});

describe('authorshipText', () => {
  const at = '2026-11-28T10:00:00Z';
  it('names the author, and what the provenance claims when that is someone else', () => {
    expect(authorshipText({ subject: 's', predicate: 'p', author: 'agent://bob', provenance: { sourceAgentId: 'agent://alice', timestamp: at } })).toMatch(
      /^by agent:\/\/bob \(says agent:\/\/alice\) · /,
    );
    expect(authorshipText({ subject: 's', predicate: 'p', author: 'agent://bob', provenance: { sourceAgentId: 'agent://bob' } })).toBe('by agent://bob');
  });
  it('says who by name when told how (You, an agent, a key), the ids left for a tooltip', () => {
    const nameOf = (id: string) => ({ 'user://owner': 'You', 'agent://bob': 'bob' })[id] ?? id;
    const st = { subject: 's', predicate: 'p', author: 'user://owner', provenance: { sourceAgentId: 'agent://bob' } };
    expect(authorshipText(st, nameOf)).toBe('by You (says bob)');
    expect(authorshipIds(st)).toBe('user://owner, agent://bob');
  });
  it('falls back on the provenance for a graph that does not say who wrote it', () => {
    expect(authorshipText({ subject: 's', predicate: 'p', provenance: { sourceAgentId: 'agent://alice' } })).toBe('by agent://alice');
    expect(authorshipText({ subject: 's', predicate: 'p' })).toBe('');
  });
});

describe('withAuthor', () => {
  it('asks for author, and again without it when the schema has no such field', async () => {
    const asked: string[] = [];
    const run = async (fields: string) => {
      asked.push(fields);
      if (fields.includes('author')) throw new Error('Cannot query field "author" on type "Statement".');
      return 'ok';
    };
    await expect(withAuthor(run)).resolves.toBe('ok');
    expect(asked.map((f) => f.includes('author'))).toEqual([true, false]);
  });
  it('passes any other error on', async () => {
    await expect(withAuthor(async () => Promise.reject(new Error('knowledge graph unreachable')))).rejects.toThrow('unreachable');
  });
});

describe('idsFromLabel', () => {
  it('makes readable ids from a name, the next ones numbered', () => {
    expect(idsFromLabel('Carol Jones', 3)).toEqual(['urn:agenthub:node:carol-jones', 'urn:agenthub:node:carol-jones-2', 'urn:agenthub:node:carol-jones-3']);
    expect(idsFromLabel('  Ça va? Über-Straße! ', 1)).toEqual(['urn:agenthub:node:ca-va-uber-straße']);
    expect(idsFromLabel('东京 tower', 1)).toEqual(['urn:agenthub:node:东京-tower']);
    expect(idsFromLabel('…', 1)).toEqual(['urn:agenthub:node:node']);
  });
});

describe('types', () => {
  it('reads rdf:type as the hub answers it (the full IRI) and as an older hub did (the CURIE): never drawn as a link', () => {
    expect(RDF_TYPE).toBe('http://www.w3.org/1999/02/22-rdf-syntax-ns#type');
    expect(isTypePredicate(RDF_TYPE) && isTypePredicate('rdf:type')).toBe(true);
    expect(isTypePredicate('ex:type')).toBe(false);
    expect(isLink({ subject: 'ex:a', predicate: RDF_TYPE, object: 'https://schema.org/Person' })).toBe(false);
    expect(isLink({ subject: 'ex:a', predicate: 'ex:knows', object: 'ex:b' })).toBe(true);
    const detail: GNodeDetail = { id: 'ex:a', degree: 3, out: [{ subject: 'ex:a', predicate: RDF_TYPE, object: 'ex:T' }] };
    expect(hiddenLinks(detail, 1)).toBe(1);
  });
});
