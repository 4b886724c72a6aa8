#!/usr/bin/env node
// Screenshots of the UI in headless Chromium (Debian's /usr/bin/chromium), light and dark, and a
// check that the console stays clean. Against the mock by default:
//   node mock/server.mjs --token dev &   node scripts/shots.mjs [UI_URL] [OUT_DIR]
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const url = process.argv[2] ?? 'http://127.0.0.1:47471/#token=dev';
const out = process.argv[3] ?? '/tmp/agenthub-shots';
const base = url.split('#')[0];
await import('node:fs').then((fs) => fs.mkdirSync(out, { recursive: true }));

const problems = [];
async function session(scheme, width = 1280, height = 800) {
  const ctx = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'pw-')), {
    executablePath: '/usr/bin/chromium',
    headless: true,
    colorScheme: scheme,
    viewport: { width, height },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`[${scheme}] console.${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`[${scheme}] pageerror: ${e.message}`));
  return { ctx, page };
}

const shot = (page, name) => page.screenshot({ path: join(out, name) });

for (const scheme of ['light', 'dark']) {
  const { ctx, page } = await session(scheme);
  await page.goto(url);
  await page.getByRole('heading', { name: 'AgentHub demo agent' }).waitFor();
  await shot(page, `${scheme}-agents.png`);
  await page.getByRole('link', { name: 'AgentHub demo agent' }).click();
  await page.getByRole('heading', { name: /Skills/ }).waitFor();
  await shot(page, `${scheme}-agent-demo.png`);
  await page.goto(base + '#/agents/weather');
  await page.getByTestId('agent-problems').waitFor();
  await shot(page, `${scheme}-agent-weather.png`);

  await page.getByRole('link', { name: 'Tasks' }).click();
  await page.getByTestId('task-row').first().waitFor();
  // start a live task and open it
  const r = await fetch(base + 'mock/send', { method: 'POST', body: JSON.stringify({ agent: 'demo', text: 'slow 3' }) }).then((x) => x.json());
  await page.goto(base + `#/tasks/demo/${r.id}`);
  await page.getByTestId('timeline-event').nth(2).waitFor();
  await shot(page, `${scheme}-task-live.png`);
  await page.getByTestId('task-detail').locator('.title-row [data-state="completed"]').waitFor({ timeout: 15000 });
  await page.getByTestId('timeline-event').nth(5).waitFor();
  await shot(page, `${scheme}-task-done.png`);

  await page.getByRole('link', { name: /Inbox/ }).click();
  await page.getByTestId('inbox-item').first().click();
  await page.getByLabel('Reply').waitFor();
  await shot(page, `${scheme}-inbox.png`);

  await page.getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('heading', { name: 'This hub' }).waitFor();
  await shot(page, `${scheme}-settings.png`);
  await page.keyboard.press('?');
  await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
  await shot(page, `${scheme}-shortcuts.png`);
  await page.keyboard.press('Escape');
  await ctx.close();
}

{
  const { ctx, page } = await session('light', 900, 700);
  await page.goto(url);
  await page.getByRole('heading', { name: 'AgentHub demo agent' }).waitFor();
  await shot(page, 'narrow-agents.png');
  await page.goto(base + '#/tasks');
  await page.getByTestId('task-row').first().click();
  await page.getByTestId('timeline-event').first().waitFor();
  await shot(page, 'narrow-task.png');
  await ctx.close();
}

console.log(`screenshots in ${out}`);
if (problems.length) {
  console.log(problems.join('\n'));
  process.exitCode = 1;
} else {
  console.log('console: clean');
}
