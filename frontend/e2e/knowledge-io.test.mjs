// End-to-end: the Knowledge area's Import / Export and Query tabs in a real browser against a real
// `agenthub serve`. A small N-Quads file is imported (the progress bar reaches the end), its
// statements are found with the query console (schema completion and an error's position on the
// way), and the graph exported as N-Quads downloads a file that holds them.

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { SHOTS, nav, openUI, suite } from './harness.mjs';

const WAIT = { timeout: 20_000 };
const s = suite();

const EX = 'http://example.org/e2e/';
const XSD = 'http://www.w3.org/2001/XMLSchema#';

// 25 people, each with a label, an age and (in a named graph) whom they know: 75 statements.
function peopleFile() {
  let nq = '';
  for (let i = 0; i < 25; i++) {
    nq += `<${EX}p${i}> <http://www.w3.org/2000/01/rdf-schema#label> "Person ${i}" .\n`;
    nq += `<${EX}p${i}> <${EX}age> "${20 + i}"^^<${XSD}integer> .\n`;
    nq += `<${EX}p${i}> <${EX}knows> <${EX}p${(i + 1) % 25}> <${EX}friends> .\n`;
  }
  return nq;
}

test('import an N-Quads file, query it in the console, export it as a download', async () => {
  const page = await openUI(s.browser, s.hub);
  await nav(page, 'Knowledge').click();
  const tabs = page.getByRole('tablist', { name: 'Knowledge' });

  // Import: the file, a justification, the progress bar to the end.
  await tabs.getByRole('tab', { name: 'Import / Export' }).click();
  const file = join(s.dataDir, 'people.nq');
  const text = peopleFile();
  writeFileSync(file, text);
  await page.getByTestId('import-file').setInputFiles(file);
  await page.getByLabel('Justification').fill('e2e: people of the test');
  await page.getByRole('button', { name: 'Import 75 statements' }).click();
  await page.getByTestId('import-done').waitFor(WAIT);
  assert.equal(await page.getByTestId('import-done').textContent(), 'Imported 75 statements.');
  const bar = page.getByTestId('import-progress');
  assert.deepEqual(await bar.evaluate((b) => [b.value, b.max]), [75, 75]);
  assert.equal(await page.getByTestId('import-count').textContent(), '75 / 75 statements');
  await page.screenshot({ path: join(SHOTS, 'knowledge-import.png') });

  // Query: completion from the hub's own schema, then the imported statements in the table.
  await tabs.getByRole('tab', { name: 'Query' }).click();
  const editor = page.getByLabel('GraphQL query');
  await page.getByText('Ctrl+Space completes').waitFor(WAIT);
  await editor.fill('');
  await editor.pressSequentially('{ sta');
  const options = page.getByRole('listbox', { name: 'Completions' }).getByRole('option');
  await options.first().waitFor(WAIT);
  assert.deepEqual(await options.locator('.kgq-completion-label').allTextContents(), ['statements']);
  await editor.press('Enter');
  await editor.pressSequentially(`(subject: "${EX}p3") { items { subject predicate object value graph } } }`);
  assert.equal(await editor.inputValue(), `{ statements(subject: "${EX}p3") { items { subject predicate object value graph } } }`);
  await editor.press('Control+Enter');
  const table = page.getByTestId('query-result').getByRole('table');
  await table.waitFor(WAIT);
  const rows = await table.getByRole('row').allTextContents();
  assert.deepEqual(rows.slice(1).sort(), [
    `${EX}p3${EX}age23`,
    `${EX}p3${EX}knows${EX}p4${EX}friends`,
    `${EX}p3rdfs:labelPerson 3`,
  ]);
  assert.match(await page.getByTestId('query-metadata').textContent(), /statements: 3/);
  await page.screenshot({ path: join(SHOTS, 'knowledge-query.png') });

  // Gizmo: the console's example runs on the hub's graph, its IRIs found for "Show in graph".
  await page.getByRole('radio', { name: 'Gizmo' }).click();
  await page.getByLabel('Gizmo query').press('Control+Enter');
  await page.getByTestId('query-metadata').filter({ hasText: /results: [1-9]/ }).waitFor(WAIT);
  assert.match(await page.getByRole('button', { name: /^Show in graph \(\d+\)$/ }).textContent(), /\(\d+\)/);
  await page.getByRole('radio', { name: 'GraphQL' }).click();

  // A mistake is shown where it is.
  await editor.fill('{\n  statements {\n    items { subjekt }\n  }\n}');
  await page.getByRole('button', { name: 'Run' }).click();
  const error = page.getByTestId('query-error');
  await error.waitFor(WAIT);
  assert.match(await error.textContent(), /^Line 3, column 13: .*subjekt.*\(-32010\)/);
  await page.screenshot({ path: join(SHOTS, 'knowledge-query-error.png') });

  // Export: the whole graph as N-Quads, downloaded.
  await tabs.getByRole('tab', { name: 'Import / Export' }).click();
  const downloading = page.waitForEvent('download', WAIT);
  await page.getByRole('button', { name: 'Export', exact: true }).click();
  const download = await downloading;
  assert.equal(download.suggestedFilename(), 'knowledge.nq');
  const exported = readFileSync(await download.path(), 'utf8');
  const lines = new Set(exported.split('\n'));
  for (const line of text.trim().split('\n')) {
    // rdfs:label goes out as the full IRI it came in as; the rest as written.
    assert.ok(lines.has(line), `the export lacks ${line}`);
  }
  assert.match(await page.getByTestId('export-done').textContent(), /^Exported \d+ statements\.$/);
  assert.deepEqual(page.errors, []);
});
