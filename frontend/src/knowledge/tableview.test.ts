import { describe, expect, it } from 'vitest';
import { filterRows, pageRows, schemaOf, shortTerm, sortRows, tableOf } from './tableview';

const EX = 'http://example.org/';
const nodes = [
  { id: EX + 'b', attributes: [{ predicate: EX + 'name', value: 'Bob' }, { predicate: EX + 'age', value: 9 }] },
  { id: EX + 'a', attributes: [{ predicate: EX + 'name', value: 'Alice' }, { predicate: EX + 'age', value: 30 }, { predicate: EX + 'nick', value: 'Al' }, { predicate: EX + 'nick', value: 'Ally' }] },
  { id: EX + 'c', attributes: [{ predicate: EX + 'name', value: 'Carol' }] },
];

describe('tableOf', () => {
  it('makes a column per literal predicate, the most common first, and joins repeated values', () => {
    const t = tableOf(nodes);
    expect(t.columns).toEqual([EX + 'name', EX + 'age', EX + 'nick']);
    expect(t.rows[1]).toEqual({ id: EX + 'a', cells: { [EX + 'name']: 'Alice', [EX + 'age']: '30', [EX + 'nick']: 'Al, Ally' } });
    expect(t.rows[2].cells[EX + 'age']).toBeUndefined();
  });
});

describe('sortRows', () => {
  const rows = tableOf(nodes).rows;
  it('compares numbers as numbers and puts empty cells last both ways', () => {
    expect(sortRows(rows, EX + 'age', 'asc').map((r) => r.id)).toEqual([EX + 'b', EX + 'a', EX + 'c']);
    expect(sortRows(rows, EX + 'age', 'desc').map((r) => r.id)).toEqual([EX + 'a', EX + 'b', EX + 'c']);
  });
  it('sorts text and ids', () => {
    expect(sortRows(rows, EX + 'name', 'desc').map((r) => r.cells[EX + 'name'])).toEqual(['Carol', 'Bob', 'Alice']);
    expect(sortRows(rows, 'id', 'asc').map((r) => r.id)).toEqual([EX + 'a', EX + 'b', EX + 'c']);
  });
});

describe('filterRows', () => {
  const rows = tableOf(nodes).rows;
  it('keeps rows whose id or a cell contains the text, ignoring case', () => {
    expect(filterRows(rows, 'ALLY').map((r) => r.id)).toEqual([EX + 'a']);
    expect(filterRows(rows, '/c').map((r) => r.id)).toEqual([EX + 'c']);
    expect(filterRows(rows, '  ')).toHaveLength(3);
    expect(filterRows(rows, 'zzz')).toHaveLength(0);
  });
});

describe('pageRows', () => {
  it('clamps the page and slices', () => {
    const xs = Array.from({ length: 7 }, (_, i) => i);
    expect(pageRows(xs, 1, 3)).toEqual({ page: 1, pages: 3, rows: [3, 4, 5] });
    expect(pageRows(xs, 9, 3)).toEqual({ page: 2, pages: 3, rows: [6] });
    expect(pageRows([], 0, 3)).toEqual({ page: 0, pages: 1, rows: [] });
  });
});

describe('schemaOf', () => {
  const T = 'rdf:type';
  it('counts types, links by the types at their ends and literals per type', () => {
    const types = [
      { subject: 'a', predicate: T, object: 'Person' },
      { subject: 'b', predicate: T, object: 'Person' },
      { subject: 'b', predicate: T, object: 'Person' },
      { subject: 'x', predicate: T, object: 'Company' },
    ];
    const all = [
      ...types,
      { subject: 'a', predicate: 'worksFor', object: 'x' },
      { subject: 'b', predicate: 'worksFor', object: 'x' },
      { subject: 'a', predicate: 'knows', object: 'b' },
      { subject: 'a', predicate: 'name', object: null },
      { subject: 'b', predicate: 'name' },
      { subject: 'u', predicate: 'links', object: 'a' },
    ];
    const s = schemaOf(types, all, T);
    expect(s.types).toEqual([
      { id: 'Person', count: 2 },
      { id: 'Company', count: 1 },
    ]);
    expect(s.links).toEqual([
      { predicate: 'worksFor', from: 'Person', to: 'Company', count: 2 },
      { predicate: 'knows', from: 'Person', to: 'Person', count: 1 },
      { predicate: 'links', from: '', to: 'Person', count: 1 },
    ]);
    expect(s.literals).toEqual({ Person: [{ predicate: 'name', count: 2 }] });
  });
});

describe('shortTerm', () => {
  it('keeps compact names and shortens full IRIs to their last segment', () => {
    expect(shortTerm('a2a:Skill')).toBe('a2a:Skill');
    expect(shortTerm('http://example.org/tbl/Person')).toBe('Person');
    expect(shortTerm('<http://example.org/v#worksFor>')).toBe('worksFor');
    expect(shortTerm('https://example.org/')).toBe('example.org');
  });
});
