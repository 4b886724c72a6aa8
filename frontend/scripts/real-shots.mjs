#!/usr/bin/env node
// Walks through the UI against a real `agenthub serve` and takes screenshots (light and dark):
//   node scripts/real-shots.mjs UI_URL HUB_URL DEMO_URL [OUT_DIR]
// It sends the hub an inbox message and the demo agent "slow 4" over plain JSON-RPC (v1.0).
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [uiUrl, hubUrl, demoUrl, out = '/tmp/agenthub-real'] = process.argv.slice(2);
if (!demoUrl) {
  console.error('usage: node scripts/real-shots.mjs UI_URL HUB_URL DEMO_URL [OUT_DIR]');
  process.exit(2);
}
mkdirSync(out, { recursive: true });
const WAIT = { timeout: 15000 };

async function send(base, text) {
  const r = await fetch(base + '/a2a', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { role: 'ROLE_USER', messageId: crypto.randomUUID(), parts: [{ text }] }, configuration: { returnImmediately: true } },
    }),
  });
  const j = await r.json();
  if (j.error) throw new Error(JSON.stringify(j.error));
  return j.result.task;
}

const problems = [];
for (const scheme of ['light', 'dark']) {
  const ctx = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'pw-')), {
    executablePath: '/usr/bin/chromium',
    headless: true,
    colorScheme: scheme,
    viewport: { width: 1280, height: 800 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  page.on('console', (m) => (m.type() === 'error' || m.type() === 'warning') && problems.push(`[${scheme}] console.${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(`[${scheme}] pageerror: ${e.message}`));
  await page.goto(uiUrl);
  const nav = (name) => page.getByRole('navigation').getByRole('link', { name });
  await page.getByRole('heading', { name: 'AgentHub demo agent', exact: true }).waitFor(WAIT);
  await page.screenshot({ path: join(out, `${scheme}-agents.png`) });
  await page.getByRole('heading', { name: 'AgentHub', exact: true }).click();
  await page.getByRole('heading', { name: /Skills/ }).waitFor(WAIT);
  await page.screenshot({ path: join(out, `${scheme}-agent-hub.png`) });

  // inbox
  await send(hubUrl, `Can you approve the deployment of v2.3 (${scheme})?\nCI is green.`);
  await page.getByLabel(/\d+ unread/).first().waitFor(WAIT);
  await nav('Inbox').click();
  await page.getByTestId('inbox-item').filter({ hasText: `(${scheme})` }).click();
  await page.getByLabel('Reply').fill('Approved: ship it.');
  await page.getByRole('button', { name: 'Answer', exact: true }).click();
  await page.getByTestId('conversation-message').filter({ hasText: 'Approved: ship it.' }).first().waitFor(WAIT);
  await page.screenshot({ path: join(out, `${scheme}-inbox-answered.png`) });
  await page.getByLabel('Reply').fill('Released.');
  await page.getByRole('button', { name: 'Complete', exact: true }).click();
  await page.getByTestId('reply-blocked').waitFor(WAIT);
  await page.screenshot({ path: join(out, `${scheme}-inbox-completed.png`) });

  // a live task
  await nav('Tasks').click();
  await page.getByTestId('task-row').first().waitFor(WAIT);
  const t = await send(demoUrl, `slow 4`);
  const row = page.getByTestId('task-row').filter({ hasText: 'slow 4' }).first();
  await row.click(WAIT);
  await page.getByTestId('timeline-event').nth(2).waitFor(WAIT);
  const early = await page.getByTestId('timeline-event').count();
  await page.screenshot({ path: join(out, `${scheme}-task-live.png`) });
  await page.getByTestId('timeline-event').filter({ hasText: 'completed' }).first().waitFor(WAIT);
  const final = await page.getByTestId('timeline-event').count();
  console.log(`[${scheme}] task ${t.id}: ${early} events early, ${final} at the end`);
  await page.getByLabel('Show raw JSON').check();
  await page.screenshot({ path: join(out, `${scheme}-task-done-raw.png`), fullPage: false });

  await nav('Settings').click();
  await page.getByRole('heading', { name: 'This hub' }).waitFor(WAIT);
  await page.screenshot({ path: join(out, `${scheme}-settings.png`) });
  await ctx.close();
}
console.log(`screenshots in ${out}`);
if (problems.length) {
  console.log(problems.join('\n'));
  process.exitCode = 1;
} else console.log('console: clean');
