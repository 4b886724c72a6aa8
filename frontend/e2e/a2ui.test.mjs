// End-to-end: the demo agent draws an A2UI form in a chat; the person fills it in and submits it, the
// same bubble turns into the agent's confirmation, and after the hub restarts the form is still there,
// closed (its task ended). The surface passes axe in both themes.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { SHOTS, axeViolations, nav, openUI, otherAgent, suite } from './harness.mjs';

const WAIT = { timeout: 20_000 };

const s = suite();

describe('A2UI', () => {
  test('the demo agent’s form: filled, submitted, updated in place, still there after a restart', async (t) => {
    const other = await otherAgent();
    t.after(() => other.stop());
    const page = await openUI(s.browser, s.hub);
    await nav(page, 'Agents').click();
    await page.getByLabel('Agent URL').fill(other.url);
    await page.getByRole('button', { name: 'Add agent' }).click();
    const detail = page.getByTestId('agent-detail');
    await detail.getByRole('heading', { name: 'AgentHub demo agent', exact: true }).waitFor(WAIT);
    await detail.getByRole('button', { name: 'Chat', exact: true }).click();

    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('plan a release');
    await box.press('Enter');

    // The form, inline as one bubble, while the task waits for the person.
    const bubble = page.getByTestId('chat-surface');
    await bubble.getByText('Plan a release').waitFor(WAIT);
    await page.getByTestId('task-state').filter({ hasText: 'Waiting for your answer' }).waitFor(WAIT);
    await page.screenshot({ path: join(SHOTS, 'a2ui-form.png') });

    // Filled in with the keyboard and submitted.
    const version = bubble.getByLabel('Version');
    await version.fill('4.2.0');
    await bubble.getByLabel('Release date').fill('2026-12-24');
    await bubble.getByText('Beta', { exact: true }).click();
    await bubble.getByRole('button', { name: 'Plan it' }).focus();
    await page.keyboard.press('Enter');

    // "You chose …", and the same bubble becomes the confirmation; the task completes.
    await page.getByTestId('chat-action').filter({ hasText: 'You chose plan release' }).waitFor(WAIT);
    await bubble.getByText('Release planned').waitFor(WAIT);
    const summary = 'Version 4.2.0 goes out on the beta channel, on 2026-12-24.';
    await bubble.getByText(summary).waitFor(WAIT);
    await page.getByTestId('task-state').filter({ hasText: 'Completed' }).waitFor(WAIT);
    assert.equal(await page.getByTestId('chat-surface').count(), 1, 'the update made a new bubble instead of changing the form');
    assert.equal(await bubble.getByRole('button', { name: 'Plan it' }).count(), 0);
    const chose = await page.getByTestId('chat-action').innerText();
    assert.match(chose, /version: 4\.2\.0/);
    assert.match(chose, /channel: beta/);
    await page.screenshot({ path: join(SHOTS, 'a2ui-confirmed.png') });
    const conversationURL = new URL(page.url()).hash;

    // A restart: the surface is drawn again from what was recorded, closed now.
    await s.hub.stop();
    await s.hub.start();
    await page.goto(s.hub.uiURL);
    await nav(page, 'Chats').click();
    await page.getByTestId('chat-item').filter({ hasText: 'plan a release' }).first().click(WAIT);
    assert.equal(new URL(page.url()).hash, conversationURL);
    const again = page.getByTestId('chat-surface');
    await again.getByText(summary).waitFor(WAIT);
    await again.getByText('This form is closed').waitFor(WAIT);
    assert.equal(await page.getByTestId('chat-surface').count(), 1);
    await page.getByTestId('chat-action').filter({ hasText: 'You chose plan release' }).waitFor(WAIT);
    assert.deepEqual(page.errors.filter((e) => !/WebSocket|ERR_CONNECTION_REFUSED|Failed to load resource/.test(e)), []);
    await page.context().close();

    // axe on a live form, in both themes: no serious or critical violations.
    for (const colorScheme of ['light', 'dark']) {
      const context = await s.browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme, bypassCSP: true });
      const p = await context.newPage();
      await p.goto(s.hub.uiURL);
      await nav(p, 'Chats').click();
      await p.getByTestId('chat-item').filter({ hasText: 'plan a release' }).first().click(WAIT);
      // a new conversation each time: a live form, not the earlier (closed or waiting) ones
      await p.getByRole('button', { name: 'New conversation' }).click();
      await p.getByText(/Say hello to/).waitFor(WAIT);
      const composer = p.getByRole('textbox', { name: 'Message' });
      await composer.fill('plan a release');
      await composer.press('Enter');
      const live = p.getByTestId('chat-surface');
      await live.getByLabel('Version').waitFor(WAIT);
      assert.equal(await live.count(), 1);
      assert.ok(await live.getByRole('button', { name: 'Plan it' }).isEnabled(), 'the new form is not live');
      await p.screenshot({ path: join(SHOTS, `a2ui-${colorScheme}.png`) });
      assert.deepEqual(await axeViolations(p), [], `axe (${colorScheme})`);
      await context.close();
    }
  });
});
