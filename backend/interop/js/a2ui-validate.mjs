// Validates A2UI v0.9 message lists against the official JSON schemas shipped in @a2ui/web_core
// (src/v0_9/schemas), with ajv (JSON Schema 2020-12) and ajv-formats. Used by ../a2ui_test.go.
//
//   node a2ui-validate.mjs < input.json
//
// input: [{"schema": "server_to_client_list" | "client_to_server_list" | "client_capabilities" |
//          "client_data_model", "data": <value>}, ...]
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

const input = JSON.parse(readFileSync(0, 'utf8'));
for (const { schema, data } of input) {
  const validate = ajv.getSchema(`https://a2ui.org/specification/v0_9/${schema}.json`);
  if (!validate) {
    console.log(JSON.stringify({ ok: false, errors: [`no schema ${schema}`] }));
    continue;
  }
  const ok = validate(data);
  console.log(JSON.stringify(ok ? { ok } : { ok, errors: validate.errors.slice(0, 8).map((e) => `${e.instancePath} ${e.message}`) }));
}
