// Measures the UI's import path at scale (not part of `npm test`): a real `agenthub serve`, headless
// Chromium, an N-Quads file of N statements (default 100,000) imported through the Import / Export
// tab (parsed in the page, knowledge/update batches of 1000 through the gateway), then exported
// again. Prints statements per second; asserts only that everything arrived.
//
//   make build && node frontend/e2e/kg-import-bench.mjs [N]

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { Hub, launchBrowser, nav, openUI, removeDir, tempDataDir } from './harness.mjs';

const N = Number(process.argv[2] ?? 100_000);
const EX = 'http://example.org/bench/';

// N statements over N/5 entities: a type, a label, an integer, a float and a link each.
function file(n) {
  const lines = [];
  for (let i = 0; lines.length < n; i++) {
    const s = `<${EX}e${i}>`;
    lines.push(`${s} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${EX}T${i % 7}> .`);
    lines.push(`${s} <http://www.w3.org/2000/01/rdf-schema#label> "Entity ${i}" .`);
    lines.push(`${s} <${EX}n> "${i}"^^<http://www.w3.org/2001/XMLSchema#integer> .`);
    lines.push(`${s} <${EX}x> "${(i * 0.37) % 1}"^^<http://www.w3.org/2001/XMLSchema#double> .`);
    lines.push(`${s} <${EX}next> <${EX}e${i + 1}> .`);
  }
  return lines.slice(0, n).join('\n') + '\n';
}

const dataDir = tempDataDir();
const hub = await new Hub(dataDir).start();
const browser = await launchBrowser();
try {
  const page = await openUI(browser, hub);
  await nav(page, 'Knowledge').click();
  const tabs = page.getByRole('tablist', { name: 'Knowledge' });
  await tabs.getByRole('tab', { name: 'Import / Export' }).click();
  const path = join(dataDir, 'bench.nq');
  writeFileSync(path, file(N));

  let t = performance.now();
  await page.getByTestId('import-file').setInputFiles(path);
  await page.getByRole('button', { name: `Import ${N} statements` }).waitFor({ timeout: 120_000 });
  const parseS = (performance.now() - t) / 1000;
  await page.getByLabel('Justification').fill('benchmark');
  t = performance.now();
  await page.getByRole('button', { name: `Import ${N} statements` }).click();
  await page.getByTestId('import-done').waitFor({ timeout: 1_800_000 });
  const importS = (performance.now() - t) / 1000;
  assert.equal(await page.getByTestId('import-done').textContent(), `Imported ${N} statements.`);

  t = performance.now();
  const downloading = page.waitForEvent('download', { timeout: 1_800_000 });
  await page.getByRole('button', { name: 'Export', exact: true }).click();
  const download = await downloading;
  const exportS = (performance.now() - t) / 1000;
  const exported = readFileSync(await download.path(), 'utf8').trim().split('\n');
  assert.ok(exported.length >= N, `exported ${exported.length} lines, imported ${N}`);

  console.log(`statements: ${N}`);
  console.log(`parse in the page: ${parseS.toFixed(1)} s`);
  console.log(`import (knowledge/update, batches of 1000): ${importS.toFixed(1)} s = ${Math.round(N / importS)} statements/s`);
  console.log(`export (statements pages of 1000) and N-Quads download: ${exportS.toFixed(1)} s = ${Math.round(exported.length / exportS)} statements/s`);
  if (page.errors.length) console.log('page errors:', page.errors);
} finally {
  await browser.close();
  await hub.stop();
  removeDir(dataDir);
}
