// Round trip of an RDF dataset through two hubs, checked with independent RDF libraries: N3.js
// parses and writes N-Quads, jsonld.js reads and writes JSON-LD and canonicalizes datasets
// (URDNA2015, via rdf-canonize). Nothing of the hub's own code (Go or frontend) converts here: the
// mapping between RDF terms and the extension's statements is the wire's, written out below.
//
// The input (N-Quads, or JSON-LD expanded or compacted) is imported into hub A through
// knowledge/update, exported through knowledge/query's statements, written in the same format,
// read back, imported into hub B and exported again. Each hub's statements from before the import
// (its own sample graph) are left out of its export. Blank nodes are scoped to their import: each
// import relabels them with a prefix of its own.
//
// Usage: node kg-rdf-roundtrip.mjs < {"hubs": [{"url", "key"}, {"url", "key"}], "format": "nquads" | "jsonld-expanded" | "jsonld-compacted"
// (or "<format>-from-nquads": an N-Quads input, files in <format>), "input": "…", "context": {…}}
// Prints one JSON line: the canonical N-Quads of the input, of hub A's export and of hub B's, the
// statements each export held, and the files written.
import jsonld from 'jsonld';
import N3 from 'n3';

const { DataFactory: F } = N3;
const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';

const cfg = JSON.parse(await new Response(process.stdin).text());

async function call(hub, method, params) {
  const res = await fetch(hub.url + '/a2a', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Api-Key': hub.key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

// ---- RDF terms ↔ the wire's statements ----

function idOf(term, scope) {
  if (term.termType === 'NamedNode') return term.value;
  if (term.termType === 'BlankNode') return '_:' + scope + term.value.replace(/^_:/, ''); // jsonld's labels start with _:
  throw new Error(`a ${term.termType} is not a subject, predicate or graph`);
}

function statementOf(q, scope) {
  const st = { subject: { id: idOf(q.subject, scope) }, predicate: { id: idOf(q.predicate, scope) }, certainty: 1 };
  const o = q.object;
  if (o.termType === 'Literal') {
    st.object = o.language ? { value: o.value, language: o.language } : { value: o.value, type: o.datatype.value };
  } else {
    st.object = { id: idOf(o, scope) };
  }
  if (q.graph.termType !== 'DefaultGraph') st.graph = idOf(q.graph, scope);
  return st;
}

function termOfId(id) {
  return id.startsWith('_:') ? F.blankNode(id.slice(2)) : F.namedNode(id);
}

function quadOfRow(r) {
  let object;
  if (r.object) object = termOfId(r.object);
  else if (r.language) object = F.literal(String(r.value), r.language);
  else object = F.literal(String(r.value), F.namedNode(r.datatype ?? XSD_STRING));
  return F.quad(termOfId(r.subject), F.namedNode(r.predicate), object, r.graph ? termOfId(r.graph) : F.defaultGraph());
}

// ---- The hub ----

const ROWS = `query($after: String) { statements(first: 1000, after: $after) {
  items { subject predicate object value datatype language graph } nextCursor } }`;

async function rows(hub) {
  const out = [];
  for (let after; ; ) {
    const res = await call(hub, 'knowledge/query', { query: ROWS, variables: after ? { after } : {} });
    out.push(...res.data.statements.items);
    after = res.data.statements.nextCursor;
    if (!after) return out;
  }
}

async function roundTrip(hub, quads, scope) {
  const before = new Set((await rows(hub)).map((r) => JSON.stringify(r)));
  const mutations = quads.map((q) => ({ op: 'add', statement: statementOf(q, scope) }));
  await call(hub, 'knowledge/update', { mutations, justification: 'RDF round trip' });
  return (await rows(hub)).filter((r) => !before.has(JSON.stringify(r))).map(quadOfRow);
}

// ---- Files ----

async function parse(text, format) {
  if (format === 'nquads') return new N3.Parser({ format: 'N-Quads' }).parse(text);
  return await jsonld.toRDF(JSON.parse(text), { documentLoader: noRemote });
}

async function write(quads, format) {
  if (format === 'nquads') return new N3.Writer({ format: 'N-Quads' }).quadsToString(quads);
  const expanded = await jsonld.fromRDF(quads.map(blankGraphForJsonld));
  if (format === 'jsonld-expanded') return JSON.stringify(expanded, null, 2);
  return JSON.stringify(await jsonld.compact(expanded, cfg.context ?? {}, { documentLoader: noRemote }), null, 2);
}

// jsonld.fromRDF names a graph by its term's value as it is, where it prefixes a blank node subject
// or object with "_:": a graph that is a blank node would become a relative IRI (and its statements
// dropped on reading), so its value is given with the prefix.
function blankGraphForJsonld(q) {
  if (q.graph.termType !== 'BlankNode') return q;
  return { subject: q.subject, predicate: q.predicate, object: q.object, graph: { termType: 'BlankNode', value: '_:' + q.graph.value } };
}

async function noRemote(url) {
  throw new Error(`remote context ${url} is not loaded`);
}

const canon = (quads) =>
  jsonld.canonize(new N3.Writer({ format: 'N-Quads' }).quadsToString(quads.map(n3Quad)), {
    algorithm: 'URDNA2015',
    inputFormat: 'application/n-quads',
    format: 'application/n-quads',
  });

// A quad as N3's own terms (jsonld gives plain objects, whose blank nodes are labelled "_:b0").
function n3Quad(q) {
  const t = (x) => {
    switch (x.termType) {
      case 'NamedNode':
        return F.namedNode(x.value);
      case 'BlankNode':
        return F.blankNode(x.value.replace(/^_:/, ''));
      case 'Literal':
        return x.language ? F.literal(x.value, x.language) : F.literal(x.value, F.namedNode(x.datatype?.value ?? XSD_STRING));
      default:
        return F.defaultGraph();
    }
  };
  return F.quad(t(q.subject), t(q.predicate), t(q.object), t(q.graph));
}

// "jsonld-compacted-from-nquads": the input is N-Quads, the files written are compacted JSON-LD.
const [outFormat, inFormat = outFormat] = cfg.format.split('-from-');
const input = await parse(cfg.input, inFormat);
const fromA = await roundTrip(cfg.hubs[0], input, 'a1_');
const fileA = await write(fromA, outFormat);
const fromB = await roundTrip(cfg.hubs[1], await parse(fileA, outFormat), 'b1_');
const fileB = await write(fromB, outFormat);
console.log(JSON.stringify({
  input: await canon(input),
  hubA: await canon(fromA),
  hubB: await canon(fromB),
  statements: [input.length, fromA.length, fromB.length],
  fileA,
  fileB,
}));
