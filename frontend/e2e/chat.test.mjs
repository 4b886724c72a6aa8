// End-to-end: a person chats with the demo agent through the UI of a real `agenthub serve`: adds it by
// URL, watches a streamed answer grow, answers a question the agent asks back, sends and receives
// files, and finds the whole conversation again after the hub restarts.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { SHOTS, addAgent, nav, openUI, otherAgent, suite } from './harness.mjs';

const WAIT = { timeout: 20_000 };

const s = suite();

// send types a message in the composer and presses Enter, as a person does.
async function send(page, text) {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
  await page.getByTestId('chat-message').filter({ hasText: text }).first().waitFor(WAIT);
}

describe('chat', () => {
  test('chat with the demo agent added by URL: a streamed answer, a question answered in place, files, and the conversation after a restart', async (t) => {
    const other = await otherAgent();
    t.after(() => other.stop());
    const page = await openUI(s.browser, s.hub);
    const detail = await addAgent(page, other.url);
    await detail.getByTestId('agent-dialect').waitFor(WAIT);
    await detail.getByRole('button', { name: 'Chat', exact: true }).click();

    // A streamed answer: one bubble that grows while the chunks arrive, then the task completes.
    await page.getByRole('textbox', { name: 'Message' }).waitFor(WAIT);
    const greeting = 'hello there, demo agent, please echo this sentence back to me in pieces';
    await send(page, greeting);
    const answer = page.getByTestId('chat-artifact').first();
    await answer.waitFor(WAIT);
    const early = (await answer.innerText()).length;
    await page.getByTestId('task-state').filter({ hasText: 'Completed' }).first().waitFor(WAIT);
    const full = await answer.innerText();
    assert.ok(full.includes('please echo this sentence back'), `the answer reads ${JSON.stringify(full)}`);
    assert.ok(full.length > early, `the answer did not grow: ${early} characters early, ${full.length} at the end`);
    assert.equal(await page.getByTestId('chat-artifact').count(), 1, 'the streamed chunks were not merged into one bubble');
    await page.screenshot({ path: join(SHOTS, 'chat-stream.png') });

    // The agent asks back; the answer goes to the same task, which then completes.
    await send(page, 'ask');
    const asking = page.getByTestId('task-state').filter({ hasText: 'Waiting for your answer' });
    await asking.waitFor(WAIT);
    const askingTask = await asking.getAttribute('data-task-id');
    await page.getByTestId('composer-answering').waitFor(WAIT);
    await page.screenshot({ path: join(SHOTS, 'chat-question.png') });
    await send(page, 'tell me blue');
    const answered = page.locator(`[data-testid="task-state"][data-task-id="${askingTask}"]`);
    await answered.filter({ hasText: 'Completed' }).waitFor(WAIT);
    await page.getByTestId('chat-message').filter({ hasText: 'tell me blue' }).last().waitFor(WAIT);

    // Files both ways: attach one (the demo agent answers "file" with a file of its own).
    // Its name carries a right-to-left override and a zero-width space: shown and kept without them.
    await page.getByLabel('Files to attach').setInputFiles({ name: 'no\u202Etes\u200B.txt', mimeType: 'text/plain', buffer: Buffer.from('some notes') });
    assert.equal(await page.getByRole('list', { name: 'Attachments' }).innerText().then((t) => /[\u202E\u200B]/.test(t)), false);
    await send(page, 'file');
    const sentFile = page.getByTestId('chat-message').filter({ hasText: 'notes.txt' }).first();
    await sentFile.waitFor(WAIT);
    assert.doesNotMatch(await sentFile.innerText(), /[\u202E\u200B]/);
    await page.getByRole('button', { name: /^Download / }).first().waitFor(WAIT);

    // A long job is canceled from the conversation.
    await send(page, 'slow 60');
    await page.getByTestId('task-state').filter({ hasText: 'Working' }).first().waitFor(WAIT);
    await page.getByRole('button', { name: 'Cancel task' }).click();
    await page.getByTestId('task-state').filter({ hasText: 'Canceled' }).first().waitFor(WAIT);
    await page.screenshot({ path: join(SHOTS, 'chat.png') });
    const before = await page.getByRole('list', { name: 'Transcript' }).innerText();
    const conversationURL = new URL(page.url()).hash;

    // A restart: a new run, a new token; the conversation is all there.
    await s.hub.stop();
    await s.hub.start();
    await page.goto(s.hub.uiURL);
    await nav(page, 'Chats').click();
    await page.getByTestId('chat-item').filter({ hasText: greeting.slice(0, 40) }).first().click(WAIT);
    await page.getByTestId('task-state').filter({ hasText: 'Canceled' }).first().waitFor(WAIT);
    assert.equal(new URL(page.url()).hash, conversationURL);
    const after = await page.getByRole('list', { name: 'Transcript' }).innerText();
    for (const line of [greeting, 'tell me blue', 'notes.txt', 'slow 60']) {
      assert.ok(after.includes(line), `after the restart the transcript lacks ${JSON.stringify(line)}`);
    }
    assert.equal(after.split('\n').length, before.split('\n').length, `the transcript changed across the restart:\n${before}\n---\n${after}`);

    // Each task's timeline is kept too: the canceled job's events, ending in its cancellation.
    const canceled = page.getByTestId('task-state').filter({ hasText: 'Canceled' }).first();
    await canceled.getByRole('button', { name: 'Timeline' }).click();
    const timeline = canceled.getByRole('list', { name: 'Timeline' });
    await timeline.getByTestId('timeline-event').filter({ hasText: 'canceled' }).first().waitFor(WAIT);
    assert.ok((await timeline.getByTestId('timeline-event').count()) >= 2, 'the canceled task has no timeline');
    await page.screenshot({ path: join(SHOTS, 'chat-timeline.png') });

    // The raw log shows the JSON-RPC exchange.
    await page.goto(`${s.hub.uiURL.split('#')[0]}#/agents`);
    assert.deepEqual(page.errors.filter((e) => !/WebSocket|ERR_CONNECTION_REFUSED|Failed to load resource/.test(e)), []);
    await page.context().close();
  });
});
