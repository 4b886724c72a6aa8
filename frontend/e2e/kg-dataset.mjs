// Imports a real public RDF dataset through the UI, the way a user would (not part of `npm test` or
// `make test`: it takes minutes). The dataset is @zazuko/rdf-vocabularies (MIT), pinned below: 84
// widely used vocabularies (schema.org, DBpedia's ontology, QUDT, CIDOC CRM, DCAT, PROV, SKOS, FOAF…)
// shipped as one N-Quads file each, one named graph per vocabulary. The script fetches it with
// `npm pack` into a temporary directory (never committed), joins the files into one .nq, counts the
// statements with N3.js (a parser independent of the page's), starts a real `agenthub serve`, imports
// the file in headless Chromium through Knowledge → Import / Export, then prints the time the import
// took and what Explore shows (node and link counts, the legend's top types) and saves a screenshot.
//
//   make build && node frontend/e2e/kg-dataset.mjs [--file PATH.nq]
//
// --file imports another N-Quads file instead of the package.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Hub, launchBrowser, nav, openUI, removeDir, SHOTS, tempDataDir } from './harness.mjs';

const PACKAGE = '@zazuko/rdf-vocabularies@2023.1.19';
const here = dirname(fileURLToPath(import.meta.url));
const N3 = createRequire(join(here, '..', '..', 'backend', 'interop', 'js', 'package.json'))('n3');

function fetchDataset(dir) {
  execFileSync('npm', ['pack', PACKAGE, '--silent'], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
  const tgz = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  execFileSync('tar', ['xzf', tgz], { cwd: dir });
  const onto = join(dir, 'package', 'ontologies');
  // _index.nq describes the other files (a prefix and a title per vocabulary): data like the rest.
  const files = readdirSync(onto).filter((f) => f.endsWith('.nq')).sort();
  const text = files.map((f) => readFileSync(join(onto, f), 'utf8').replace(/\n?$/, '\n')).join('');
  const path = join(dir, 'rdf-vocabularies.nq');
  writeFileSync(path, text);
  return { path, files: files.length };
}

const argFile = process.argv.indexOf('--file');
const work = mkdtempSync(join(tmpdir(), 'kg-dataset-'));
const { path, files } = argFile > 0 ? { path: process.argv[argFile + 1], files: 1 } : fetchDataset(work);

// The count by N3.js: all quads, and distinct ones (a statement repeated in two vocabularies' files is
// one statement per graph, but the same line twice is one statement).
const quads = new N3.Parser({ format: 'N-Quads' }).parse(readFileSync(path, 'utf8'));
const distinct = new Set(quads.map((q) => `${q.subject.id} ${q.predicate.id} ${q.object.id} ${q.graph.id}`)).size;
console.log(`dataset: ${argFile > 0 ? path : `${PACKAGE} (${files} files)`}`);
console.log(`N3.js: ${quads.length} quads, ${distinct} distinct`);

const dataDir = tempDataDir();
const hub = await new Hub(dataDir).start();
const browser = await launchBrowser();
try {
  const page = await openUI(browser, hub);
  await nav(page, 'Knowledge').click();
  await page.getByTestId('kg-canvas').waitFor({ timeout: 60_000 });
  await page.getByTestId('kg-live').filter({ hasText: /^live$/ }).waitFor({ timeout: 60_000 });
  await page.waitForFunction(() => document.querySelector('[data-testid="kg-canvas"]').kg.count().nodes > 0, null, { timeout: 60_000 });
  const before = await page.evaluate(() => document.querySelector('[data-testid="kg-canvas"]').kg.count());
  const tabs = page.getByRole('tablist', { name: 'Knowledge' });
  await tabs.getByRole('tab', { name: 'Import / Export' }).click();

  let t = performance.now();
  await page.getByTestId('import-file').setInputFiles(path);
  const button = page.getByRole('button', { name: /^Import \d+ statements$/ });
  await button.waitFor({ timeout: 300_000 });
  const parseS = (performance.now() - t) / 1000;
  const n = Number((await button.textContent()).match(/\d+/)[0]);
  await page.getByLabel('Justification').fill(`${PACKAGE}: public RDF vocabularies`);
  t = performance.now();
  await button.click();
  await page.getByTestId('import-done').waitFor({ timeout: 3_600_000 });
  const importS = (performance.now() - t) / 1000;
  const done = await page.getByTestId('import-done').textContent();

  // Explore after the import: what is on the canvas, the legend, and a search into the new data.
  await tabs.getByRole('tab', { name: 'Explore' }).click();
  await page.getByTestId('kg-live').filter({ hasText: /^live$/ }).waitFor({ timeout: 60_000 });
  const count = () => page.evaluate(() => document.querySelector('[data-testid="kg-canvas"]').kg.count());
  const after = await count();
  await page.getByLabel('Search the graph').fill('http://schema.org/Person');
  // schema.org's Person class if the results list it, else the first hit from the dataset (the sample
  // graph's skills mention "the person" too).
  await page.getByTestId('kg-result').first().waitFor({ timeout: 60_000 });
  const hits = await page.getByTestId('kg-result').locator('code').allTextContents();
  const pick = hits.indexOf('http://schema.org/Person') >= 0 ? hits.indexOf('http://schema.org/Person') : hits.findIndex((id) => !id.startsWith('agenthub:'));
  console.log(`search "http://schema.org/Person": ${hits.length} results, first: ${hits.slice(0, 5).join(', ')}`);
  const result = page.getByTestId('kg-result').nth(Math.max(pick, 0));
  const opened = await result.locator('code').textContent();
  await result.click();
  await page.getByTestId('kg-node-panel').waitFor({ timeout: 60_000 });
  await page.waitForTimeout(3000); // the layout settles before the screenshot
  const searched = await count();
  const legend = await page.getByLabel('Legend').locator('li').allTextContents();
  const shot = join(SHOTS, 'knowledge-dataset.png');
  await page.screenshot({ path: shot });

  console.log(`page parse: ${n} statements in ${parseS.toFixed(1)} s`);
  console.log(`import (knowledge/update batches): ${importS.toFixed(1)} s = ${Math.round(n / importS)} statements/s — "${done}"`);
  console.log(`Explore before the import: ${before.nodes} nodes, ${before.edges} links`);
  console.log(`Explore after the import: ${after.nodes} nodes, ${after.edges} links`);
  console.log(`after searching "http://schema.org/Person" and opening "${opened}": ${searched.nodes} nodes, ${searched.edges} links`);
  console.log(`legend: ${legend.slice(0, 8).join(' | ')}`);
  console.log(`screenshot: ${shot}`);
  if (page.errors.length) console.log('page errors:', page.errors);
  assert.equal(done, `Imported ${n} statements.`);
} finally {
  await browser.close();
  await hub.stop();
  removeDir(dataDir);
  removeDir(work);
}
