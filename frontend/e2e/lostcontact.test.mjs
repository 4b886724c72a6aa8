// End-to-end (issue 29, item 2): an agent that dies mid-task. The person chats with a demo agent
// added by URL, starts slow work, and the agent's process is killed: the task must stop showing as
// working (in the chat and in Tasks) and say the hub lost contact with the agent; Retry is not the
// way out. Also after the hub restarts.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { addAgent, nav, openUI, otherAgent, suite } from './harness.mjs';

const WAIT = { timeout: 60_000 };

const s = suite();

describe('lost contact', () => {
  test('an agent killed mid-task: the task fails with "lost contact with the agent" and stops spinning, in the chat and in Tasks', async (t) => {
    const other = await otherAgent();
    t.after(() => other.stop());
    const page = await openUI(s.browser, s.hub);
    const detail = await addAgent(page, other.url);
    await detail.getByRole('button', { name: 'Chat', exact: true }).click();
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.waitFor(WAIT);
    await box.fill('slow 300');
    await box.press('Enter');
    const line = page.getByTestId('task-state').first();
    await line.and(page.locator('[data-state="working"]')).waitFor(WAIT);

    await other.stop(); // the agent dies mid-task: its stream breaks, and nothing answers any more

    await line.and(page.locator('[data-state="failed"]')).waitFor(WAIT);
    await page.getByText(/lost contact with the agent/).first().waitFor(WAIT);
    assert.equal(await page.locator('[data-testid="task-state"][data-state="working"]').count(), 0, 'a task still shows as working');

    // Tasks agrees: the task is failed there too, not working.
    await nav(page, 'Tasks').click();
    const rows = page.getByTestId('task-row');
    await rows.first().waitFor(WAIT);
    const states = await rows.evaluateAll((els) => els.map((e) => e.textContent ?? ''));
    assert.ok(states.some((s) => /failed/i.test(s)), `Tasks shows no failed task: ${states.join(' | ')}`);
    assert.ok(!states.some((s) => /working/i.test(s)), `Tasks still shows a working task: ${states.join(' | ')}`);
    assert.deepEqual(page.errors.filter((e) => e.startsWith('pageerror')), []);
  });
});
