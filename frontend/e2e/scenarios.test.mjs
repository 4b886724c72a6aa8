// End-to-end: scenarios in the UI of a real `agenthub serve`. A conversation with the demo agent is
// saved as a scenario, run against the same agent and against a second demo agent that answers at
// another pace, and the two runs compared side by side, the step whose timing differs marked.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { SHOTS, addAgent, axeViolations, nav, openUI, otherAgent, suite } from './harness.mjs';

const WAIT = { timeout: 30_000 };

const s = suite();

describe('scenarios', () => {
  test('save a conversation as a scenario, run it against a second agent, and compare the runs', async (t) => {
    const fast = await otherAgent({ tick: '0s' });
    t.after(() => fast.stop());
    const page = await openUI(s.browser, s.hub);
    await addAgent(page, fast.url);
    const fastId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]);

    // A conversation with this hub's demo agent: slow work, two seconds at its pace.
    await nav(page, 'Agents').click();
    await page.locator('[data-testid="agent-card"][data-agent-id="demo"]').getByRole('button', { name: 'Chat with AgentHub demo agent' }).click();
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.waitFor(WAIT);
    await box.fill('slow 2');
    await box.press('Enter');
    await page.getByTestId('task-state').filter({ hasText: 'Completed' }).first().waitFor(WAIT);

    await page.getByTestId('chat-view').locator('summary', { hasText: 'More' }).click();
    await page.getByRole('button', { name: 'Save as scenario' }).click();
    const scenario = page.getByTestId('scenario-detail');
    await scenario.waitFor(WAIT);
    const source = await scenario.getByLabel('Scenario file (YAML or JSON)').inputValue();
    assert.match(source, /send: slow 2/);
    assert.match(source, /state: completed/);

    // Run it against its own agent, then against the fast one.
    const runOnce = async (agent) => {
      const before = await scenario.getByTestId('run-row').count();
      await scenario.getByLabel('Run against').selectOption(agent);
      await scenario.getByRole('button', { name: 'Run', exact: true }).click();
      await page.waitForFunction((n) => document.querySelectorAll('[data-testid="run-row"]').length > n, before, WAIT);
      await scenario.getByTestId('run-view').getByTestId('run-status').and(page.locator('[data-status="passed"]')).waitFor(WAIT);
    };
    await runOnce('');
    await runOnce(fastId);
    const rows = scenario.getByTestId('run-row');
    assert.equal(await rows.count(), 2);
    assert.deepEqual(await rows.getByTestId('run-status').evaluateAll((els) => els.map((e) => e.dataset.status)), ['passed', 'passed']);

    // Compare the two: the step's timing differs (2 s against none), and is marked.
    for (const r of await rows.all()) await r.getByRole('checkbox').check();
    const compare = scenario.getByTestId('compare');
    await compare.waitFor(WAIT);
    const row = compare.getByTestId('compare-row').first();
    assert.equal(await row.getAttribute('data-differs'), 'true');
    assert.match(await row.innerText(), /≠/);
    await page.screenshot({ path: join(SHOTS, 'scenarios-compare.png') });
    assert.deepEqual(page.errors.filter((e) => e.startsWith('pageerror')), []);

    // axe on the page with the comparison open, in both themes (axe needs the CSP bypassed).
    const scenarioHash = new URL(page.url()).hash;
    for (const colorScheme of ['light', 'dark']) {
      const context = await s.browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true, colorScheme });
      t.after(() => context.close());
      const p2 = await context.newPage();
      await p2.goto(s.hub.uiURL);
      await p2.getByRole('navigation', { name: 'Main' }).waitFor(WAIT);
      await p2.evaluate((h) => (window.location.hash = h), scenarioHash);
      const again = p2.getByTestId('scenario-detail');
      await again.getByTestId('run-row').nth(1).waitFor(WAIT);
      for (const r of await again.getByTestId('run-row').all()) await r.getByRole('checkbox').check();
      await again.getByTestId('compare').waitFor(WAIT);
      assert.deepEqual(await axeViolations(p2), [], `axe in the ${colorScheme} theme`);
    }
  });
});
