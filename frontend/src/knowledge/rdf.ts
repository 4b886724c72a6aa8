// RDF files ↔ the knowledge-graph extension's statements and patches, for import and export.
//
// The hub stores IRIs as full IRIs (it expands the well-known CURIEs, PREFIXES here, on the way in),
// so an import sends the file's IRIs as they are and an export writes what the hub answers; only
// display compacts them (compactIri). A blank node is stored as "_:label", and each import gets
// labels of its own (freshBlankPrefix): two imports of "_:b0" are two nodes. An id that is neither a
// clean absolute IRI nor a blank node (say "Alice" or "a b") cannot be written in N-Quads as it is:
// it travels as <urn:agenthub:id:ENCODED> and is decoded on import, so export → import gives it back
// unchanged.
//
// Literals: a KGObject has a value (string, number, boolean) and a datatype. Numbers and booleans
// become JSON values when they fit exactly (an integer beyond 2^53 stays text); a language-tagged
// string keeps its tag as the datatype "@tag" (the hub also answers it as `language`).

import type { KGPatch, KGStatement } from './kg';

export type { KGPatch, KGStatement };

/** An RDF term as the RDF/JS data model has it (n3 and jsonld both produce these). */
export interface Term {
  termType: string; // NamedNode | BlankNode | Literal | DefaultGraph | Variable | Quad
  value: string;
  language?: string;
  datatype?: { termType?: string; value: string };
}

export interface Quad {
  subject: Term;
  predicate: Term;
  object: Term;
  graph: Term;
}

export const PREFIXES: Record<string, string> = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  owl: 'http://www.w3.org/2002/07/owl#',
  schema: 'https://schema.org/',
  foaf: 'http://xmlns.com/foaf/0.1/',
  skos: 'http://www.w3.org/2004/02/skos/core#',
  dcterms: 'http://purl.org/dc/terms/',
};

const XSD = PREFIXES.xsd;
const RDF_LANGSTRING = PREFIXES.rdf + 'langString';
const LOCAL_ID = 'urn:agenthub:id:';

/** The id an IRI of a file is stored as: the IRI itself, or a local id decoded. */
export function idOfIri(iri: string): string {
  if (iri.startsWith(LOCAL_ID)) {
    try {
      return decodeURIComponent(iri.slice(LOCAL_ID.length));
    } catch {
      return iri;
    }
  }
  return iri;
}

/** An id for display: a CURIE for the PREFIXES vocabularies ("rdf:type"), local ids decoded. */
export function compactIri(iri: string): string {
  iri = idOfIri(iri);
  for (const [p, ns] of Object.entries(PREFIXES)) {
    if (iri.startsWith(ns) && iri.length > ns.length) return p + ':' + iri.slice(ns.length);
  }
  return iri;
}

/** A result's text for display: a full IRI (also Gizmo's "<IRI>") of PREFIXES compacted, anything else as it is. */
export function displayTerm(text: string): string {
  if (text.length > 2 && text.startsWith('<') && text.endsWith('>') && !text.startsWith('<urn:agenthub:id:')) {
    return '<' + displayTerm(text.slice(1, -1)) + '>';
  }
  return text.startsWith(LOCAL_ID) ? text : compactIri(text);
}

// A scheme, then no character N-Quads forbids in an IRI.
const CLEAN_IRI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\u0000-\u0020<>"{}|^`\\]*$/;
// A blank node label that N-Quads (and every other syntax) takes as it is.
const CLEAN_LABEL = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?$/;

/**
 * An id as the hub stores it (backend/knowledge/terms.go): a CURIE of PREFIXES as its full IRI, a
 * schema.org IRI under https://; anything else as given.
 */
export function expandCurie(id: string): string {
  const colon = id.indexOf(':');
  const ns = colon > 0 ? PREFIXES[id.slice(0, colon)] : undefined;
  if (ns && colon < id.length - 1 && !id.startsWith('//', colon + 1)) return ns + id.slice(colon + 1);
  if (id.startsWith('http://schema.org/') && id.length > 'http://schema.org/'.length) return PREFIXES.schema + id.slice('http://schema.org/'.length);
  return id;
}

/** The IRI an id is written as (never a blank node: see termOfId). */
export function expandId(id: string): string {
  const colon = id.indexOf(':');
  if (colon > 0) {
    const ns = PREFIXES[id.slice(0, colon)];
    if (ns && CLEAN_IRI.test(ns + id.slice(colon + 1))) return ns + id.slice(colon + 1);
  }
  if (CLEAN_IRI.test(id) && !id.startsWith('_:') && !id.startsWith(LOCAL_ID)) return id;
  return LOCAL_ID + encodeURIComponent(id);
}

/** The term an id is written as: a blank node for "_:label", else an IRI. */
export function termOfId(id: string): Term {
  if (id.startsWith('_:') && CLEAN_LABEL.test(id.slice(2))) return { termType: 'BlankNode', value: id.slice(2) };
  return { termType: 'NamedNode', value: expandId(id) };
}

export interface ImportOptions {
  /** Prepended to every blank node label ("" keeps the file's labels). */
  blankPrefix?: string;
}

function idOfTerm(t: Term, where: string, o: ImportOptions): string {
  switch (t.termType) {
    case 'NamedNode':
      return idOfIri(t.value);
    case 'BlankNode':
      return '_:' + (o.blankPrefix ?? '') + t.value.replace(/^_:/, '');
    default:
      throw new Error(`${where}: a ${t.termType} cannot be the ${where} of a statement here`);
  }
}

const INTEGER_TYPES = new Set(
  [
    'integer', 'int', 'long', 'short', 'byte', 'nonNegativeInteger', 'nonPositiveInteger', 'positiveInteger',
    'negativeInteger', 'unsignedLong', 'unsignedInt', 'unsignedShort', 'unsignedByte',
  ].map((t) => XSD + t),
);
const DECIMAL_TYPES = new Set(['decimal', 'double', 'float'].map((t) => XSD + t));

/** A literal as a KGObject: a JSON value when the lexical form maps to one exactly. */
export function literalToObject(t: Term): KGStatement['object'] {
  const dt = t.datatype?.value ?? XSD + 'string';
  if (t.language) return { value: t.value, type: '@' + t.language.toLowerCase() };
  if (dt === RDF_LANGSTRING) return { value: t.value };
  const type = idOfIri(dt);
  if (type === XSD + 'string') return { value: t.value };
  // A JSON value only where the file's text is the one export writes back: "042" or "1.50" stay text.
  const lex = t.value;
  if (type === XSD + 'boolean' && (lex === 'true' || lex === 'false')) return { value: lex === 'true', type };
  if (INTEGER_TYPES.has(type) && /^-?\d+$/.test(lex)) {
    const n = Number(lex);
    if (Number.isSafeInteger(n) && numberLexical(n, type) === lex) return { value: n, type };
  }
  if (DECIMAL_TYPES.has(type) && /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(lex)) {
    const n = Number(lex);
    if (Number.isFinite(n) && numberLexical(n, type) === lex) return { value: n, type };
  }
  return { value: t.value, type };
}

/** One parsed quad as a statement. */
export function quadToStatement(q: Quad, o: ImportOptions = {}): KGStatement {
  if (q.predicate.termType !== 'NamedNode') throw new Error('predicate: must be an IRI');
  const st: KGStatement = {
    subject: { id: idOfTerm(q.subject, 'subject', o) },
    predicate: { id: idOfIri(q.predicate.value) },
    object: q.object.termType === 'Literal' ? literalToObject(q.object) : { id: idOfTerm(q.object, 'object', o) },
  };
  if (q.graph.termType !== 'DefaultGraph') st.graph = idOfTerm(q.graph, 'graph', o);
  return st;
}

export function statementsToPatches(sts: KGStatement[], op: KGPatch['op'] = 'add'): KGPatch[] {
  return sts.map((statement) => ({ op, statement }));
}

/** The datatype the hub stores for a literal (its backend's defaults when none is given). */
export function storedDatatype(o: KGStatement['object']): string | undefined {
  if (o.id !== undefined && o.id !== null && o.id !== '') return undefined;
  if (o.type) return o.type.startsWith('@') ? o.type.toLowerCase() : expandCurie(o.type);
  if (typeof o.value === 'boolean') return XSD + 'boolean';
  if (typeof o.value === 'number') return Number.isInteger(o.value) ? XSD + 'integer' : XSD + 'double';
  return XSD + 'string';
}

/** What identifies a statement for the hub: subject, predicate, object (with datatype) and graph, as it stores them. */
export function statementKey(s: KGStatement): string {
  const obj = s.object.id ? ['id', expandCurie(s.object.id)] : ['value', s.object.value, storedDatatype(s.object)];
  return JSON.stringify([expandCurie(s.subject.id), expandCurie(s.predicate.id), obj, expandCurie(s.graph ?? '')]);
}

/** A statement's triple and graph as given (no certainty or provenance): what a file holds. */
export function bareStatement(s: KGStatement): KGStatement {
  const out: KGStatement = { subject: { id: s.subject.id }, predicate: { id: s.predicate.id }, object: {} };
  if (s.object.id) out.object.id = s.object.id;
  else {
    out.object.value = s.object.value;
    out.object.type = storedDatatype(s.object);
  }
  if (s.graph) out.graph = s.graph;
  return out;
}

// ---- Batching ----

/** The hub's default maximum patch size (backend/knowledge/rules.go DefaultRules().MaxPatchSize). */
export const DEFAULT_MAX_PATCH = 1000;
/** A batch's JSON stays below this: the gateway takes 12 MiB frames and another agent's hub 8 MiB bodies. */
export const MAX_BATCH_BYTES = 2 << 20;

/** The end (exclusive) of the batch starting at start: at most maxCount items and about maxBytes of JSON. */
export function batchEnd(items: unknown[], start: number, maxCount = DEFAULT_MAX_PATCH, maxBytes = MAX_BATCH_BYTES): number {
  let end = start;
  let size = 0;
  while (end < items.length && end - start < maxCount) {
    const n = JSON.stringify(items[end]).length + 1;
    if (end > start && size + n > maxBytes) break;
    size += n;
    end++;
  }
  return end;
}

/** Splits items into consecutive batches (see batchEnd). */
export function batches<T>(items: T[], maxCount = DEFAULT_MAX_PATCH, maxBytes = MAX_BATCH_BYTES): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; ) {
    const end = batchEnd(items, i, maxCount, maxBytes);
    out.push(items.slice(i, end));
    i = end;
  }
  return out;
}

/** The limit a "maximum patch size" refusal names (rules.go's message), or undefined. */
export function patchLimitOf(message: string): number | undefined {
  const m = /exceed the maximum patch size of (\d+)/.exec(message);
  const n = m ? Number(m[1]) : NaN;
  return n > 0 ? n : undefined;
}

// ---- Serialization ----

function escapeIri(iri: string): string {
  // expandId only yields clean IRIs; a foreign one is escaped rather than trusted.
  return iri.replace(/[\u0000-\u0020<>"{}|^`\\]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

function escapeString(s: string): string {
  return s.replace(/["\\\n\r]/g, (c) => ({ '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r' })[c] as string);
}

function termToNQuads(t: Term): string {
  switch (t.termType) {
    case 'BlankNode':
      return '_:' + t.value;
    case 'Literal': {
      const lit = '"' + escapeString(t.value) + '"';
      if (t.language) return lit + '@' + t.language;
      const dt = t.datatype?.value;
      return dt && dt !== XSD + 'string' ? lit + '^^<' + escapeIri(dt) + '>' : lit;
    }
    default:
      return '<' + escapeIri(t.value) + '>';
  }
}

/** The lexical form of a number for a datatype (xsd:integer and xsd:decimal take no exponent; doubles are canonical). */
function numberLexical(n: number, type: string): string {
  // A double or float in XSD's canonical form ("2.5E-1"), which jsonld.js also writes for every
  // xsd:double it reads from JSON-LD: the same text either way, so N-Quads and JSON-LD agree.
  if (type === XSD + 'double' || type === XSD + 'float') return n.toExponential(15).replace(/(\d)0*e\+?/, '$1E');
  const s = String(n);
  if (!/e/i.test(s) || !(INTEGER_TYPES.has(type) || type === XSD + 'decimal')) return s;
  if (Math.abs(n) >= 1) return BigInt(n).toString(); // String() uses an exponent from 1e21: integers there
  return n.toFixed(100).replace(/0+$/, '');
}

/** A KGObject's literal as an RDF term. */
export function objectToLiteral(o: KGStatement['object']): Term {
  const type = storedDatatype(o) ?? XSD + 'string';
  const v = o.value;
  if (type.startsWith('@')) return { termType: 'Literal', value: String(v), language: type.slice(1), datatype: { value: RDF_LANGSTRING } };
  const lex = typeof v === 'number' ? numberLexical(v, type) : typeof v === 'boolean' ? String(v) : String(v ?? '');
  return { termType: 'Literal', value: lex, datatype: { value: expandId(type) } };
}

/** A statement as knowledge/query's GraphQL Statement type gives it. */
export interface StatementRow {
  subject: string;
  predicate: string;
  object?: string | null;
  value?: string | number | boolean | null;
  datatype?: string | null;
  graph?: string | null;
}

/** The GraphQL fields export reads for each statement. */
export const STATEMENT_ROW_FIELDS = 'subject predicate object value datatype graph';

export function rowToStatement(r: StatementRow): KGStatement {
  const st: KGStatement = {
    subject: { id: r.subject },
    predicate: { id: r.predicate },
    object: r.object ? { id: r.object } : { value: r.value ?? '', type: r.datatype ?? undefined },
  };
  if (r.graph) st.graph = r.graph;
  return st;
}

export function statementToQuad(s: KGStatement): Quad {
  return {
    subject: termOfId(s.subject.id),
    predicate: { termType: 'NamedNode', value: expandId(s.predicate.id) },
    object: s.object.id ? termOfId(s.object.id) : objectToLiteral(s.object),
    graph: s.graph ? termOfId(s.graph) : { termType: 'DefaultGraph', value: '' },
  };
}

export function quadToNQuads(q: Quad): string {
  const g = q.graph.termType === 'DefaultGraph' ? '' : ' ' + termToNQuads(q.graph);
  return `${termToNQuads(q.subject)} ${termToNQuads(q.predicate)} ${termToNQuads(q.object)}${g} .\n`;
}

export function statementsToNQuads(sts: KGStatement[]): string {
  return sts.map((s) => quadToNQuads(statementToQuad(s))).join('');
}

// ---- Files ----

export type RdfFormat = 'nquads' | 'jsonld';

/** The format a file's name says, or undefined. */
export function formatOfFileName(name: string): RdfFormat | undefined {
  const ext = name.toLowerCase().split('.').pop();
  if (ext === 'nq' || ext === 'nt') return 'nquads';
  if (ext === 'jsonld' || ext === 'json') return 'jsonld';
  return undefined;
}

/** A parse failure with the line it was found on, when known. */
export class RdfParseError extends Error {
  readonly line?: number;
  constructor(message: string, line?: number) {
    super(message);
    this.name = 'RdfParseError';
    this.line = line;
  }
}

/** Parses N-Quads (or N-Triples) text. n3 is loaded on first use: most sessions never import. */
export async function parseNQuads(text: string): Promise<Quad[]> {
  const { Parser } = await import('n3');
  // blankNodePrefix "" keeps the file's labels; ImportOptions decides what to make of them.
  const parser = new Parser({ format: 'N-Quads', blankNodePrefix: '' });
  try {
    return parser.parse(text) as unknown as Quad[];
  } catch (e) {
    const err = e as Error & { context?: { line?: number } };
    throw new RdfParseError(err.message, err.context?.line);
  }
}

/** A JSON-LD document loader that loads nothing: remote contexts are neither fetched nor trusted. */
async function noRemoteContexts(url: string): Promise<never> {
  throw new RdfParseError(`remote JSON-LD context ${url} is not loaded: put the context inline`);
}

/** Parses JSON-LD text into quads. jsonld is loaded on first use. */
export async function parseJsonLd(text: string): Promise<Quad[]> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new RdfParseError('not JSON: ' + (e as Error).message);
  }
  const jsonld = (await import('jsonld')).default;
  try {
    return (await jsonld.toRDF(doc as object, { documentLoader: noRemoteContexts })) as Quad[];
  } catch (e) {
    if (e instanceof RdfParseError) throw e;
    const err = e as Error & { details?: { cause?: Error } };
    const cause = err.details?.cause;
    throw new RdfParseError(cause instanceof RdfParseError ? cause.message : 'JSON-LD: ' + err.message);
  }
}

export async function parseRdf(text: string, format: RdfFormat, o: ImportOptions = {}): Promise<KGStatement[]> {
  const quads = format === 'nquads' ? await parseNQuads(text) : await parseJsonLd(text);
  return quads.map((q, i) => {
    try {
      return quadToStatement(q, o);
    } catch (e) {
      throw new RdfParseError(`statement ${i + 1}: ${(e as Error).message}`);
    }
  });
}

/** A literal as RDF/JS has it (its datatype a NamedNode term), for jsonld. */
function withTermTypes(t: Term): Term {
  return t.termType === 'Literal' && t.datatype ? { ...t, datatype: { termType: 'NamedNode', value: t.datatype.value } } : t;
}

/** The context exported JSON-LD is compacted with. */
export const EXPORT_CONTEXT: Record<string, string> = { ...PREFIXES };

/** Statements as a JSON-LD document (compacted with EXPORT_CONTEXT; named graphs as @graph entries). */
export async function statementsToJsonLd(sts: KGStatement[]): Promise<string> {
  const jsonld = (await import('jsonld')).default;
  // The quads themselves, not N-Quads text: jsonld's own N-Quads reader takes ~1 s per 1000 lines.
  // jsonld.fromRDF prefixes a blank node subject or object with "_:" but names a graph by its value as
  // it is: a blank node graph would become a relative IRI, its statements dropped on reading.
  const graphFor = (g: Term): Term => (g.termType === 'BlankNode' ? { ...g, value: '_:' + g.value } : g);
  const dataset = sts.map(statementToQuad).map((q) => ({ ...q, object: withTermTypes(q.object), graph: graphFor(q.graph) }));
  const expanded = await jsonld.fromRDF(dataset);
  const doc = await jsonld.compact(expanded, { '@context': EXPORT_CONTEXT }, { documentLoader: noRemoteContexts });
  return JSON.stringify(doc, null, 2) + '\n';
}

export async function serializeRdf(sts: KGStatement[], format: RdfFormat): Promise<string> {
  return format === 'nquads' ? statementsToNQuads(sts) : statementsToJsonLd(sts);
}

/** A random label prefix for one import's blank nodes (they are that file's own). */
export function freshBlankPrefix(): string {
  const bytes = new Uint8Array(4);
  crypto.getRandomValues(bytes);
  return 'i' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('') + '_';
}
