// Validates A2UI v0.9 message lists and v0.8 messages against the official JSON schemas shipped in
// @a2ui/web_core (src/v0_9/schemas, src/v0_8/schemas), with ajv (JSON Schema 2020-12) and ajv-formats.
// Used by ../a2ui_test.go.
//
//   node a2ui-validate.mjs < input.json
//
// input: [{"schema": "server_to_client_list" | "client_to_server_list" | "client_capabilities" |
//          "client_data_model" | "v0_8/server_to_client_with_standard_catalog" | "v0_8/client_to_server" |
//          "v0_8/a2ui_client_capabilities_schema", "data": <value>}, ...]
// (v0.8 has no list schema: a v0.8 message is one object, checked one at a time.)
// output: one JSON line per input: {"ok": true} or {"ok": false, "errors": [...]}.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'node_modules', '@a2ui', 'web_core', 'src', 'v0_9', 'schemas');
const load = (f) => JSON.parse(readFileSync(join(dir, f), 'utf8'));

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
for (const f of ['common_types.json', 'server_to_client.json', 'server_to_client_list.json', 'client_to_server.json',
  'client_to_server_list.json', 'client_capabilities.json', 'client_data_model.json']) {
  const s = load(f);
  s.$id ??= `https://a2ui.org/specification/v0_9/${f}`;
  ajv.addSchema(s);
}
// server_to_client.json refers to "catalog.json" (the catalog in use): the basic catalog, as shipped.
const catalog = load('catalogs/basic/catalog.json');
catalog.$id = 'https://a2ui.org/specification/v0_9/catalog.json';
ajv.addSchema(catalog);

// v0.8: each message on its own, with the standard catalog's components inlined in the schema.
const dir08 = join(dir, '..', '..', 'v0_8', 'schemas');
for (const f of ['server_to_client_with_standard_catalog.json', 'client_to_server.json', 'catalog_description_schema.json',
  'a2ui_client_capabilities_schema.json']) {
  const s = JSON.parse(readFileSync(join(dir08, f), 'utf8'));
  s.$id = `https://a2ui.org/specification/v0_8/${f}`;
  ajv.addSchema(s);
}

const input = JSON.parse(readFileSync(0, 'utf8'));
for (const { schema, data } of input) {
  const validate = ajv.getSchema(schema.startsWith('v0_8/')
    ? `https://a2ui.org/specification/${schema}.json`
    : `https://a2ui.org/specification/v0_9/${schema}.json`);
  if (!validate) {
    console.log(JSON.stringify({ ok: false, errors: [`no schema ${schema}`] }));
    continue;
  }
  const ok = validate(data);
  console.log(JSON.stringify(ok ? { ok } : { ok, errors: validate.errors.slice(0, 8).map((e) => `${e.instancePath} ${e.message}`) }));
}
