// Loads the hub's knowledge-graph GraphQL schema with the reference GraphQL implementation
// (npm graphql): runs its introspection query through knowledge/query, rebuilds the schema with
// buildClientSchema, then builds a query from what it learned (every scalar field of Node), checks
// it against the schema, and runs it. Prints one JSON line: the SDL, the query and its data.
// Usage: node kg-introspect.mjs HUB_BASE_URL API_KEY
import { getIntrospectionQuery, buildClientSchema, printSchema, parse, validate, getNamedType, isScalarType } from 'graphql';

const [base, key] = process.argv.slice(2);

async function query(q) {
  const res = await fetch(base + '/a2a', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Api-Key': key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'knowledge/query', params: { query: q, queryLanguage: 'graphql' } }),
  });
  const body = await res.json();
  if (body.error) throw new Error(JSON.stringify(body.error));
  return body.result.data;
}

const schema = buildClientSchema(await query(getIntrospectionQuery()));
const node = schema.getQueryType().getFields().node;
const scalars = Object.values(getNamedType(node.type).getFields())
  .filter((f) => isScalarType(getNamedType(f.type)) && f.args.length === 0)
  .map((f) => f.name);
const text = `{ node(id: "agenthub:hub") { ${scalars.join(' ')} } }`;
const errors = validate(schema, parse(text));
if (errors.length > 0) throw new Error('the built query does not validate: ' + errors.map((e) => e.message).join('; '));
console.log(JSON.stringify({ sdl: printSchema(schema), query: text, data: await query(text) }));
