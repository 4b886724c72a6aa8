// End-to-end: AgentHub as a new user meets it (issue 14), one test per item, against a real
// `agenthub serve` with its demo agent and, where an agent of its own is needed, `agenthub demo-agent`.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { SHOTS, nav, openUI, suite } from './harness.mjs';

const WAIT = { timeout: 20_000 };

const s = suite();

// send types a message in the composer and presses Enter, as a person does.
async function send(page, text) {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
  await page.getByTestId('chat-message').filter({ hasText: text }).first().waitFor(WAIT);
}

const cardOf = (page, name) =>
  page.getByTestId('agent-card').filter({ has: page.getByRole('heading', { name, exact: true }) });

describe('issue 14', () => {
  test('1. the demo agent and the hub are chat-ready out of the box, listed once, with "Try it" on examples', async () => {
    const page = await openUI(s.browser, s.hub);
    await nav(page, 'Agents').click();
    const demo = cardOf(page, 'AgentHub demo agent');
    await demo.waitFor(WAIT);
    // Chat straight from the demo agent's card.
    await demo.getByRole('button', { name: 'Chat with AgentHub demo agent' }).click();
    await page.getByRole('textbox', { name: 'Message' }).waitFor(WAIT);
    await send(page, 'hello from a new user');
    await page.getByTestId('task-state').filter({ hasText: 'Completed' }).first().waitFor(WAIT);
    assert.match(await page.getByTestId('chat-artifact').first().innerText(), /hello from a new user/);

    // "Try it" on a skill example: a new chat, the example sent, its answer shown.
    await nav(page, 'Agents').click();
    await demo.getByRole('heading', { name: 'AgentHub demo agent', exact: true }).click();
    await page.getByRole('button', { name: 'Try “data” in a new chat' }).click();
    await page.getByTestId('chat-message').filter({ hasText: 'data' }).first().waitFor(WAIT);
    await page.getByTestId('task-state').filter({ hasText: 'Completed' }).first().waitFor(WAIT);

    // Adding its URL by hand finds it: still one card.
    await nav(page, 'Agents').click();
    await page.getByLabel('Agent URL').fill(s.hub.demoURL);
    await page.getByRole('button', { name: 'Add agent' }).click();
    await page.getByTestId('agent-detail').getByRole('heading', { name: 'AgentHub demo agent', exact: true }).waitFor(WAIT);
    assert.equal(await page.getByTestId('agent-card').count(), 2);
    assert.equal(await cardOf(page, 'AgentHub demo agent').count(), 1);

    // New chat offers both, and a note to the hub lands in one's own inbox.
    await nav(page, 'Chats').click();
    await page.getByRole('button', { name: 'New chat' }).first().click();
    const pick = page.getByRole('list', { name: 'Agents to chat with' });
    await pick.getByRole('button', { name: 'Chat with AgentHub demo agent' }).waitFor(WAIT);
    await pick.getByRole('button', { name: 'Chat with AgentHub', exact: true }).click();
    await send(page, 'remember to water the plants');
    await page.getByTestId('unread-badge').filter({ hasText: '1' }).waitFor(WAIT);
    await nav(page, 'Inbox').click();
    await page.getByText('remember to water the plants').first().waitFor(WAIT);
    await page.screenshot({ path: join(SHOTS, 'newuser-1-note-to-self.png') });
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
});
