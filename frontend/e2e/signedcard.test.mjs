// End-to-end: an agent's signed card in the UI of a real `agenthub serve`. A demo agent added by URL
// shows as signed (its key pinned); the same agent restarted on the same port with a new data dir
// signs its card with a new key, and the refreshed card shows the warning: chatting is refused until
// the person trusts the new key, after which the chat opens.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { SHOTS, addAgent, axeViolations, openUI, otherAgent, suite } from './harness.mjs';

const WAIT = { timeout: 20_000 };

const s = suite();

describe('signed cards', () => {
  test('a changed signing key is a warning the person confirms before the hub talks to the agent again', async (t) => {
    let other = await otherAgent();
    t.after(() => other.stop());
    const page = await openUI(s.browser, s.hub);
    const detail = await addAgent(page, other.url);
    const badge = detail.getByTestId('signature-badge').first();
    await badge.filter({ hasText: '✓ Signed' }).waitFor(WAIT);
    const facts = detail.getByTestId('signature-facts');
    const pinned = await facts.innerText();
    assert.match(pinned, /pinned on first use/);
    assert.equal(await detail.getByTestId('signature-warning').count(), 0);

    // The same agent, same port, a fresh data dir: a new token key, so a card signed with a new key.
    const port = other.port;
    await other.stop();
    other = await otherAgent({ port });
    await detail.getByRole('button', { name: 'Refresh card' }).click();
    const warning = detail.getByTestId('signature-warning');
    await warning.waitFor(WAIT);
    assert.match(await warning.innerText(), /signing key changed/i);
    assert.match(await warning.innerText(), /will not talk to this agent until you confirm/);
    await badge.filter({ hasText: '⚠ Signing key changed' }).waitFor(WAIT);
    await page.screenshot({ path: join(SHOTS, 'signed-card-key-changed.png') });

    // Chat is refused, and says why.
    await detail.getByRole('button', { name: 'Chat', exact: true }).click();
    await detail.getByTestId('error-box').filter({ hasText: 'until you confirm its card' }).waitFor(WAIT);
    assert.ok(!page.url().includes('#/chats/'), `chat opened with an untrusted agent: ${page.url()}`);

    // The person trusts the new key: the warning goes, the card is signed again, and chat opens.
    await warning.getByRole('button', { name: 'Trust the new key' }).click();
    await warning.waitFor({ state: 'detached', ...WAIT });
    await badge.filter({ hasText: '✓ Signed' }).waitFor(WAIT);
    assert.notEqual(await facts.innerText(), pinned, 'the pinned key did not change');
    await detail.getByRole('button', { name: 'Chat', exact: true }).click();
    await page.getByRole('textbox', { name: 'Message' }).waitFor(WAIT);
    assert.deepEqual(page.errors.filter((e) => e.startsWith('pageerror')), []);
  });

  test('the warning is accessible', async (t) => {
    // axe on the agent view with the warning showing: no serious or critical violations.
    let other = await otherAgent();
    t.after(() => other.stop());
    const context = await s.browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    const page = await context.newPage();
    t.after(() => context.close());
    await page.goto(s.hub.uiURL);
    const detail = await addAgent(page, other.url);
    await detail.getByTestId('signature-badge').filter({ hasText: '✓ Signed' }).first().waitFor(WAIT);
    const port = other.port;
    await other.stop();
    other = await otherAgent({ port });
    await detail.getByRole('button', { name: 'Refresh card' }).click();
    await detail.getByTestId('signature-warning').waitFor(WAIT);
    assert.deepEqual(await axeViolations(page), []);
  });
});
