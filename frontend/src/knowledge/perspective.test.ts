import { describe, expect, it } from 'vitest';
import { typeStyle } from './graph';
import {
  DEFAULT_SIZE,
  deletePerspective,
  generatePerspective,
  loadPerspectives,
  perspectiveLegend,
  predicatesOf,
  savePerspective,
  styleOf,
  validPerspective,
  type Perspective,
} from './perspective';
import type { KVStorage } from './views';

const AGE = 'http://schema.org/age';
const PERSON = 'http://schema.org/Person';

function memory(): KVStorage {
  const map = new Map<string, string>();
  return { getItem: (k) => map.get(k) ?? null, setItem: (k, v) => void map.set(k, v) };
}

const node = (type: string, props?: Record<string, unknown[]>, label = 'n') => ({ types: type ? [type] : [], type, label, props });

describe('perspective rules', () => {
  const p: Perspective = {
    name: 'ages',
    rules: [
      { match: { kind: 'type', type: PERSON }, color: '#112233' },
      { match: { kind: 'range', predicate: AGE, min: 0, max: 30 }, size: 16 },
      { match: { kind: 'range', predicate: AGE, min: 30 }, size: 48, shape: 'diamond' },
      { match: { kind: 'predicate', predicate: 'ex:nick' }, caption: 'ex:nick' },
    ],
  };

  it('styles by type, by a numeric range, and by a predicate, later rules winning', () => {
    expect(styleOf(p, node(PERSON, { [AGE]: [12] }))).toEqual({ color: '#112233', shape: typeStyle(PERSON).shape, size: 16, caption: 'n' });
    expect(styleOf(p, node(PERSON, { [AGE]: ['30'] }))).toMatchObject({ size: 48, shape: 'diamond' });
    expect(styleOf(p, node(PERSON, { [AGE]: ['old'] })).size).toBe(DEFAULT_SIZE);
    expect(styleOf(p, node('ex:Dog', { 'ex:nick': ['Rex'] }, 'dog-1'))).toEqual({ ...typeStyle('ex:Dog'), size: DEFAULT_SIZE, caption: 'Rex' });
  });

  it('falls back to the type look with no perspective, and lists the predicates to read', () => {
    expect(styleOf(null, node('ex:T'))).toEqual({ ...typeStyle('ex:T'), size: DEFAULT_SIZE, caption: 'n' });
    expect(predicatesOf(p).sort()).toEqual([AGE, 'ex:nick'].sort());
  });

  it('matches a CURIE or an http://schema.org IRI against the ids the hub stores', () => {
    const q: Perspective = { name: 'q', rules: [{ match: { kind: 'range', predicate: 'schema:age', max: 30 }, size: 10 }, { match: { kind: 'type', type: 'rdfs:Class' }, color: '#000000' }] };
    expect(styleOf(q, node('', { 'https://schema.org/age': [3] })).size).toBe(10);
    expect(styleOf({ name: 'h', rules: [{ match: { kind: 'predicate', predicate: 'http://schema.org/age' }, size: 9 }] }, node('', { 'https://schema.org/age': [3] })).size).toBe(9);
    expect(styleOf(q, node('http://www.w3.org/2000/01/rdf-schema#Class')).color).toBe('#000000');
  });

  it('is generated from the graph types with the legend colours, so nothing looks different', () => {
    const g = generatePerspective(['b:T', 'a:T', '', 'a:T']);
    expect(g.rules.map((r) => r.match)).toEqual([
      { kind: 'type', type: 'a:T' },
      { kind: 'type', type: 'b:T' },
    ]);
    for (const t of ['a:T', 'b:T']) expect(styleOf(g, node(t))).toEqual({ ...typeStyle(t), size: DEFAULT_SIZE, caption: 'n' });
    const legend = perspectiveLegend(g, [node('a:T'), node('a:T'), node('')]);
    expect(legend.map((l) => [l.text, l.count, l.color])).toEqual([
      ['T', 2, typeStyle('a:T').color],
      ['untyped', 1, typeStyle('').color],
    ]);
  });

  it('says the prefix of types that share a local name, in rules and in the rest alike', () => {
    const owl = 'http://www.w3.org/2002/07/owl#Class';
    const rdfs = 'http://www.w3.org/2000/01/rdf-schema#Class';
    const g = generatePerspective([owl]);
    const legend = perspectiveLegend(g, [node(owl), node(rdfs), node(rdfs), node('ex:Person')]);
    expect(legend.map((l) => [l.text, l.count])).toEqual([
      ['owl:Class', 1],
      ['Person', 1],
      ['rdfs:Class', 2],
    ]);
  });

  it('keeps only well-formed rules from storage or a file, per agent', () => {
    expect(validPerspective({ name: '', rules: [] })).toBeNull();
    expect(validPerspective('x')).toBeNull();
    const v = validPerspective({
      name: ' p ',
      rules: [{ match: { kind: 'type', type: 'a' }, color: 'red;}', size: 1e9, shape: 'star' }, { match: { kind: 'bogus' } }, null, { match: { kind: 'range', predicate: AGE, min: 'x', max: 3 } }],
    });
    expect(v).toEqual({ name: 'p', rules: [{ match: { kind: 'type', type: 'a' } }, { match: { kind: 'range', predicate: AGE, max: 3 } }] });
    const s = memory();
    savePerspective(s, undefined, p);
    savePerspective(s, 'demo', { ...p, name: 'other' });
    expect(loadPerspectives(s).map((x) => x.name)).toEqual(['ages']);
    expect(loadPerspectives(s, 'demo').map((x) => x.name)).toEqual(['other']);
    expect(deletePerspective(s, undefined, 'ages')).toEqual([]);
  });
});
