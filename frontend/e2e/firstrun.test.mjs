// End-to-end: the first run of a fresh install. A fresh data dir opens on the welcome card; its first
// step reaches a streamed reply from the demo agent with no agent added by hand (the step adds it by
// its URL in the same click); the inbox and a second agent added by URL tick the other steps, and the
// card is gone for good, also after a reload.
//
// It prints (never asserts) how long the first reply took from opening the page, and, when
// WALKTHROUGH_T0 holds a start time in ms since the epoch (build/deb-check.sh sets it just before
// `dpkg -i`), from that start: the install-to-first-reply walkthrough.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { BINARY, SHOTS, nav, openUI, removeDir, suite, tempDataDir } from './harness.mjs';

const WAIT = { timeout: 20_000 };

const s = suite();

// otherAgent runs a second demo agent (`agenthub demo-agent`) on its own port: "an agent added by URL".
async function otherAgent() {
  const dataDir = tempDataDir();
  const proc = spawn(BINARY, ['demo-agent', '--addr', '127.0.0.1:0', '--data', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  proc.stderr.on('data', (d) => (err += d));
  const url = await new Promise((ok, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`demo-agent did not start: ${out}${err}`)), 20_000);
    proc.on('exit', (code) => fail(new Error(`demo-agent exited with ${code}: ${out}${err}`)));
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /^demo agent: (\S+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(m[1]);
      }
    });
  });
  return {
    url,
    stop: async () => {
      if (proc.exitCode === null) {
        const exited = new Promise((ok) => proc.once('exit', ok));
        proc.kill('SIGTERM');
        await exited;
      }
      removeDir(dataDir);
    },
  };
}

const stepOf = (card, text) => card.getByRole('listitem').filter({ hasText: text });

describe('first run', () => {
  test('fresh data dir: the welcome card, one click to a streamed reply from the demo agent, and the card gone once all three steps are done', async () => {
    const opened = Date.now();
    const page = await openUI(s.browser, s.hub);
    const card = page.getByTestId('welcome');
    await card.waitFor(WAIT);
    assert.equal(await card.getByRole('listitem').count(), 3);
    await page.screenshot({ path: join(SHOTS, 'firstrun-welcome.png') });

    // Step 1: no agent added by hand: the step's one button adds the demo agent and opens a chat.
    await card.getByRole('button', { name: 'Chat with the demo agent' }).click();
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.waitFor(WAIT);
    const question = 'hello demo agent, this is my very first message, please answer it in pieces';
    await box.fill(question);
    await box.press('Enter');
    const answer = page.getByTestId('chat-artifact').first();
    await answer.waitFor(WAIT);
    const firstReply = Date.now();
    const early = (await answer.innerText()).length;
    await page.getByTestId('task-state').filter({ hasText: 'Completed' }).first().waitFor(WAIT);
    const full = await answer.innerText();
    assert.ok(full.includes('very first message'), `the answer reads ${JSON.stringify(full)}`);
    assert.ok(full.length > early, `the answer did not stream: ${early} characters at first, ${full.length} at the end`);
    await page.screenshot({ path: join(SHOTS, 'firstrun-reply.png') });
    console.log(`first run: page opened -> first streamed reply in ${((firstReply - opened) / 1000).toFixed(1)} s`);
    const t0 = Number(process.env.WALKTHROUGH_T0);
    if (t0 > 0) console.log(`walkthrough: dpkg -i -> first streamed reply in ${((firstReply - t0) / 1000).toFixed(1)} s`);

    // Back on the first screen, the chat step is ticked.
    await nav(page, 'Agents').click();
    await card.waitFor(WAIT);
    await stepOf(card, 'Chat with the demo agent.').and(page.locator('[data-done]')).waitFor(WAIT);
    assert.equal(await stepOf(card, 'Add an agent by its URL.').getAttribute('data-done'), null, 'the demo agent counted as an agent added by URL');

    // Step 2: the inbox.
    await card.getByRole('link', { name: 'Open the inbox' }).click();
    await page.waitForURL(/#\/inbox/, WAIT);
    await nav(page, 'Agents').click();
    await stepOf(card, 'Open your inbox.').and(page.locator('[data-done]')).waitFor(WAIT);

    // Step 3: another agent, added by its URL in the Agents page's field; then the card is gone.
    const other = await otherAgent();
    try {
      await card.getByRole('link', { name: 'Add an agent by URL' }).click();
      const field = page.getByLabel('Agent URL');
      assert.ok(await field.evaluate((el) => el === document.activeElement), 'the URL field did not get the focus');
      await field.fill(other.url);
      await page.getByRole('button', { name: 'Add agent' }).click();
      await page.getByTestId('agent-detail').waitFor(WAIT);
      await nav(page, 'Agents').click();
      await page.getByTestId('agent-card').first().waitFor(WAIT);
      await card.waitFor({ state: 'detached', ...WAIT });
      await page.reload();
      await page.getByTestId('agent-card').first().waitFor(WAIT);
      assert.equal(await card.count(), 0, 'the welcome came back after a reload');
    } finally {
      await other.stop();
    }
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
});
