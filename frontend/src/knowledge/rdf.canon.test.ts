// The import/export mapping of rdf.ts checked by an independent path: jsonld.js's URDNA2015
// canonicalization (rdf-canonize) of the file read in, against that of what rdf.ts writes out,
// through the statements the hub is sent and answers (the hub's own round trip is
// backend/interop/knowledge_rdf_test.go). rdf.ts uses n3 to read N-Quads and jsonld to read and
// write JSON-LD, but writes N-Quads itself and maps every term itself: that mapping is under test.
import jsonld from 'jsonld';
import { describe, expect, it } from 'vitest';
import { parseRdf, serializeRdf } from './rdf';

// Language tags, lexical forms a number would lose, escapes, blank nodes (also as a graph name),
// named graphs, an IRI of an unknown scheme. A double in XSD's canonical form ("2.5E-1") becomes a
// number, another ("0.25") stays text: jsonld.js rewrites every xsd:double it reads from JSON-LD to
// the canonical form, so that one goes through N-Quads only.
const DATASET = `<http://example.org/acme> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://schema.org/Organization> .
<http://example.org/acme> <http://www.w3.org/2000/01/rdf-schema#label> "Acme Widgets" .
<http://example.org/cat> <http://www.w3.org/2000/01/rdf-schema#label> "chat"@fr .
<http://example.org/cat> <http://www.w3.org/2000/01/rdf-schema#label> "chat"@en .
<http://example.org/cat> <http://www.w3.org/2000/01/rdf-schema#label> "chat" .
<http://example.org/acme> <http://example.org/employees> "042"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://example.org/acme> <http://example.org/staff> "42"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://example.org/acme> <http://example.org/rating> "1.50"^^<http://www.w3.org/2001/XMLSchema#decimal> .
<http://example.org/acme> <http://example.org/ratio> "2.5E-1"^^<http://www.w3.org/2001/XMLSchema#double> .
<http://example.org/acme> <http://example.org/share> "0.25"^^<http://www.w3.org/2001/XMLSchema#double> .
<http://example.org/acme> <http://example.org/listed> "true"^^<http://www.w3.org/2001/XMLSchema#boolean> .
<http://example.org/acme> <http://example.org/open> "1"^^<http://www.w3.org/2001/XMLSchema#boolean> .
<http://example.org/acme> <http://purl.org/dc/terms/created> "1999-01-01"^^<http://www.w3.org/2001/XMLSchema#date> .
<http://example.org/acme> <http://example.org/motto> "Zoë says \\"hi\\"\\nand\\tleaves \\\\ now" .
<http://example.org/acme> <http://xmlns.com/foaf/0.1/based_near> _:place .
_:place <http://example.org/city> "Zürich" .
<http://example.org/acme> <http://example.org/owns> <http://example.org/bolt> <http://example.org/graphs/inventory> .
<http://example.org/bolt> <http://example.org/size> "M8" _:scratch .
<ex:thing> <http://example.org/p> <urn:isbn:0451450523> .
`;

const canonNQuads = (nq: string) => jsonld.canonize(nq, { algorithm: 'URDNA2015', inputFormat: 'application/n-quads', format: 'application/n-quads' });

describe('rdf.ts round trip, checked by jsonld’s canonical form', () => {
  it('N-Quads → statements → N-Quads loses nothing', async () => {
    const sts = await parseRdf(DATASET, 'nquads', { blankPrefix: 'i1_' });
    expect(sts).toHaveLength(19);
    const objectOf = (p: string) => sts.find((s) => s.predicate.id === 'http://example.org/' + p)?.object;
    expect([objectOf('ratio')?.value, objectOf('share')?.value, objectOf('employees')?.value, objectOf('staff')?.value]).toEqual([0.25, '0.25', '042', 42]);
    expect(await canonNQuads(await serializeRdf(sts, 'nquads'))).toBe(await canonNQuads(DATASET));
  });

  it('N-Quads → statements → JSON-LD → statements → N-Quads loses nothing', async () => {
    const dataset = DATASET.replace(/.*"0\.25".*\n/, '');
    const doc = await serializeRdf(await parseRdf(dataset, 'nquads'), 'jsonld');
    // jsonld's own reading of the JSON-LD rdf.ts wrote …
    const fromDoc = (await jsonld.toRDF(JSON.parse(doc), { format: 'application/n-quads' })) as unknown as string;
    expect(await canonNQuads(fromDoc)).toBe(await canonNQuads(dataset));
    // … and rdf.ts's, written back as N-Quads.
    const back = await serializeRdf(await parseRdf(doc, 'jsonld', { blankPrefix: 'i2_' }), 'nquads');
    expect(await canonNQuads(back)).toBe(await canonNQuads(dataset));
  });
});
