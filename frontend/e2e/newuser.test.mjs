// End-to-end: AgentHub as a new user meets it (issue 14), one test per item, against a real
// `agenthub serve` with its demo agent and, where an agent of its own is needed, `agenthub demo-agent`.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { axeViolations, nav, openUI, otherAgent, sdkClient, SHOTS, suite, userMessage } from './harness.mjs';

const WAIT = { timeout: 20_000 };

const s = suite();

// send types a message in the composer and presses Enter, as a person does.
// shown: the text as the bubble shows it, where it differs (your Markdown is rendered).
async function send(page, text, shown = text) {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
  await page.getByTestId('chat-message').filter({ hasText: shown }).first().waitFor(WAIT);
}

const cardOf = (page, name) =>
  page.getByTestId('agent-card').filter({ has: page.getByRole('heading', { name, exact: true }) });
// The hub's own demo agent (test 4 adds independent agents of the same name).
const demoCard = (page) => page.locator('[data-testid="agent-card"][data-agent-id="demo"]');

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

  test('3. the UI token survives a restart; Regenerate in Settings expires the old one only', async () => {
    const a = await openUI(s.browser, s.hub);
    const b = await openUI(s.browser, s.hub);
    await nav(a, 'Agents').click();
    await a.getByTestId('agent-card').first().waitFor(WAIT);
    const connected = (page) => page.getByRole('navigation', { name: 'Main' }).getByText('Connected', { exact: true });

    // A restart: the open tab reconnects by itself, and a reload still works.
    await s.hub.stop();
    await a.getByRole('navigation', { name: 'Main' }).getByText('Offline', { exact: true }).waitFor(WAIT);
    await s.hub.start();
    await connected(a).waitFor({ timeout: 40_000 });
    await a.reload();
    await connected(a).waitFor(WAIT);
    assert.equal(await a.getByText('This link has expired').count(), 0);

    // Without a token, the page's example link has the hub's real port.
    const bare = await s.browser.newPage();
    await bare.goto(`${s.hub.hubURL}/`);
    await bare.getByText(`${s.hub.hubURL}/#token=…`).first().waitFor(WAIT);
    await bare.close();

    // Settings: the link, masked, with copy; Regenerate ends the other tab, not this one.
    await nav(a, 'Settings').click();
    const link = a.getByTestId('ui-link');
    await link.waitFor(WAIT);
    const shown = await link.innerText();
    assert.ok(!shown.includes(s.hub.token), `the token is shown in full: ${shown}`);
    assert.equal(shown, `${s.hub.hubURL}/#token=••••••••${s.hub.token.slice(-4)}`);
    await a.getByRole('button', { name: 'Copy the UI link' }).waitFor(WAIT);
    await a.getByRole('button', { name: 'Regenerate', exact: true }).click();
    await a.getByRole('dialog', { name: 'Regenerate the UI token?' }).getByRole('button', { name: 'Regenerate token' }).click();
    await a.getByRole('status').filter({ hasText: 'New token made' }).waitFor(WAIT);
    await b.getByRole('heading', { name: 'This link has expired' }).waitFor(WAIT);
    const token = readFileSync(join(s.dataDir, 'ui-token'), 'utf8').trim();
    assert.notEqual(token, s.hub.token);
    assert.equal(await link.innerText(), `${s.hub.hubURL}/#token=••••••••${token.slice(-4)}`);
    await a.reload(); // this tab keeps the new token
    await connected(a).waitFor(WAIT);
    await a.screenshot({ path: join(SHOTS, 'newuser-3-settings-token.png') });
    // The rest of the suite opens the UI with the new link.
    s.hub.token = token;
    s.hub.uiURL = `${s.hub.hubURL}/#token=${token}`;
    assert.deepEqual(a.errors.filter((e) => !/WebSocket|ERR_CONNECTION_REFUSED|401/.test(e)), []);
    await a.context().close();
    await b.context().close();
  });

  test('2. Tasks lists what I sent from chats as outgoing, linked both ways with its chat; the agent filter takes added agents', async (t) => {
    const other = await otherAgent();
    t.after(() => other.stop());
    const page = await openUI(s.browser, s.hub);
    await nav(page, 'Agents').click();
    await page.getByLabel('Agent URL').fill(other.url);
    await page.getByRole('button', { name: 'Add agent' }).click();
    await page.waitForURL(/#\/agents\/[0-9a-f-]{36}$/, WAIT);
    const remoteId = new URL(page.url()).hash.split('/')[2];
    await page.getByTestId('agent-detail').getByRole('button', { name: 'Chat', exact: true }).click();
    await send(page, 'hello far agent');
    await page.getByTestId('task-state').filter({ hasText: 'Completed' }).first().waitFor(WAIT);

    // In Tasks, the task I sent: outgoing, with its agent, and a link to its chat.
    await nav(page, 'Tasks').click();
    const row = page.getByTestId('task-row').filter({ hasText: 'hello far agent' });
    await row.waitFor(WAIT);
    assert.match(await row.innerText(), /outgoing/);
    await row.click();
    const detail = page.getByTestId('task-detail');
    await detail.getByText('Outgoing (sent by you)').waitFor(WAIT);
    await detail.getByTestId('timeline-event').first().waitFor(WAIT);
    await detail.getByRole('link', { name: 'Open its chat' }).click();
    await page.getByTestId('chat-message').filter({ hasText: 'hello far agent' }).first().waitFor(WAIT);
    // And back from the chat to the task.
    await page.getByTestId('task-state').first().getByRole('link', { name: 'Open in Tasks' }).click();
    await page.getByTestId('task-detail').getByRole('heading', { name: 'hello far agent' }).waitFor(WAIT);

    // The demo agent's chats are outgoing too; only tasks others sent are incoming.
    const near = page.getByTestId('task-row').filter({ hasText: 'hello from a new user' });
    await near.waitFor(WAIT);
    assert.match(await near.innerText(), /outgoing/);

    // The agent filter offers the added agent and lists its task.
    const filter = page.getByRole('group', { name: 'Task filters' }).getByLabel('Agent');
    await filter.selectOption(remoteId);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="task-row"]').length === 1, null, WAIT);
    await row.waitFor(WAIT);
    assert.equal(await page.getByText(/no agent .* on this hub/).count(), 0);
    await page.screenshot({ path: join(SHOTS, 'newuser-2-tasks.png') });
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });

  test('5. the Inbox: who sent it, Markdown and data rendered, Answer hands the turn to the sender, Complete can be undone, counts agree', async () => {
    const sender = await sdkClient(s.hub.hubURL);
    const inboxSend = (msg) => {
      msg.configuration = { acceptedOutputModes: [], pushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true };
      return sender.sendMessage(msg);
    };
    await inboxSend(userMessage('**Deploy** v2.3 today? The plan: [checklist](https://example.com/plan)'));
    const data = userMessage('');
    data.message.parts = [{ content: { $case: 'data', value: { build: { id: 42, ok: true }, tags: ['a', 'b'] } }, metadata: undefined, filename: '', mediaType: '' }];
    await inboxSend(data);

    const page = await openUI(s.browser, s.hub);
    await nav(page, 'Inbox').click();
    const md = page.getByTestId('inbox-item').filter({ hasText: 'Deploy v2.3 today?' });
    await md.waitFor(WAIT);
    assert.match(await md.innerText(), /Anonymous \(this computer\)/);
    // The badge and the header count the same.
    const badge = await page.getByTestId('unread-badge').innerText();
    assert.match(await page.getByTestId('inbox-counts').innerText(), new RegExp(`^${badge} unread`));

    // Data only: a title and preview from its data, a JSON tree in the conversation, no [object Object].
    const dataItem = page.getByTestId('inbox-item').filter({ hasText: 'Data: {"build":{"id":42,"ok":true}' }).first();
    await dataItem.waitFor(WAIT);
    await dataItem.click();
    const detail = page.getByTestId('inbox-detail');
    await detail.getByRole('group', { name: 'Data' }).first().waitFor(WAIT);
    assert.doesNotMatch(await page.locator('main').innerText(), /\[object Object\]|\(no text\)/);

    // Markdown rendered: bold and a link, from the named sender.
    await md.click();
    await detail.getByTestId('inbox-sender').filter({ hasText: 'Anonymous (this computer)' }).waitFor(WAIT);
    await detail.locator('strong', { hasText: 'Deploy' }).first().waitFor(WAIT);
    await detail.getByRole('link', { name: 'checklist' }).waitFor(WAIT);
    assert.doesNotMatch(await detail.getByTestId('conversation-message').first().innerText(), /\*\*Deploy\*\*/);

    // Answer: the item is answered and no longer waiting for me; the count goes down.
    const waitingBefore = Number(/(\d+) waiting/.exec(await page.getByTestId('inbox-counts').innerText())[1]);
    await detail.getByLabel('Reply').fill('Yes, go ahead.');
    await detail.getByRole('button', { name: 'Answer' }).click();
    await md.getByText('Answered').waitFor(WAIT);
    await md.getByText('waiting for the sender').waitFor(WAIT);
    assert.equal(await md.getByText('waiting for you').count(), 0);
    await page.getByTestId('inbox-counts').filter({ hasText: `${waitingBefore - 1} waiting for you` }).waitFor(WAIT);

    // Complete waits with Undo; Undo keeps the task open.
    await detail.getByRole('button', { name: 'Complete' }).click();
    await detail.getByTestId('reply-pending').waitFor(WAIT);
    await page.screenshot({ path: join(SHOTS, 'newuser-5-inbox.png') });
    await detail.getByRole('button', { name: 'Undo' }).click();
    assert.equal(await detail.getByTestId('reply-pending').count(), 0);
    assert.match(await md.innerText(), /Answered/);
    await detail.getByRole('button', { name: 'Complete' }).click();
    await md.getByText('completed', { exact: true }).waitFor({ timeout: 15_000 });
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });

  test('7. after the agent asks back, ✕ on the answer chip sends a new message instead; the question stays open', async () => {
    const page = await openUI(s.browser, s.hub);
    await nav(page, 'Agents').click();
    await demoCard(page).getByRole('button', { name: 'Chat with AgentHub demo agent' }).click();
    await send(page, 'ask');
    const asking = page.getByTestId('task-state').filter({ hasText: 'Waiting for your answer' });
    await asking.waitFor(WAIT);
    const askTask = await asking.getAttribute('data-task-id');
    await page.getByTestId('composer-answering').waitFor(WAIT);
    await page.getByRole('button', { name: 'Don’t answer: send a new message instead' }).click();
    assert.equal(await page.getByTestId('composer-answering').count(), 0);
    // The focus stays in the message box.
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.id), await page.getByRole('textbox', { name: 'Message' }).evaluate((e) => e.getAttribute('aria-label') ?? e.id));
    await send(page, 'slow 2');
    // A new task, completed on its own; the question is still waiting.
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="task-state"]').length === 2, null, WAIT);
    const slow = page.getByTestId('task-state').last();
    assert.notEqual(await slow.getAttribute('data-task-id'), askTask);
    await slow.filter({ hasText: 'Completed' }).waitFor(WAIT);
    assert.equal(await page.locator(`[data-testid="task-state"][data-task-id="${askTask}"]`).getAttribute('data-state'), 'input-required');
    await page.screenshot({ path: join(SHOTS, 'newuser-7-answer-chip.png') });

    // Back to answering it, from its task line.
    await page.locator(`[data-testid="task-state"][data-task-id="${askTask}"]`).getByRole('button', { name: 'Answer', exact: true }).click();
    await page.getByTestId('composer-answering').waitFor(WAIT);
    await send(page, 'blue');
    await page.locator(`[data-testid="task-state"][data-task-id="${askTask}"][data-state="completed"]`).waitFor(WAIT);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });

  test('4. errors read as one sentence with a fix, details folded, Retry; an AgentVault card at /agent-card.json is found', async (t) => {
    const page = await openUI(s.browser, s.hub);
    await nav(page, 'Agents').click();
    const header = page.locator('header.page-head');
    await header.waitFor(WAIT);
    const before = await header.boundingBox();

    // Nothing listens there: a sentence and a fix; the Go error chain only under Details.
    const closed = createServer();
    await new Promise((ok) => closed.listen(0, '127.0.0.1', ok));
    const deadPort = closed.address().port;
    await new Promise((ok) => closed.close(ok));
    await page.getByLabel('Agent URL').fill(`http://127.0.0.1:${deadPort}`);
    await page.getByRole('button', { name: 'Add agent' }).click();
    const box = page.getByTestId('error-box');
    await box.getByText('Nothing answers at that address.').waitFor(WAIT);
    await box.getByText(/Check that the agent is running/).waitFor(WAIT);
    const details = box.locator('details');
    assert.equal(await details.evaluate((d) => d.open), false);
    assert.equal(await box.getByText(/connection refused/).isVisible(), false);
    await box.getByRole('button', { name: 'Retry' }).waitFor(WAIT);
    assert.deepEqual(await header.boundingBox(), before, 'the error changed the page header');
    await page.screenshot({ path: join(SHOTS, 'newuser-4-error.png') });

    // AgentVault serves its card at the base URL's /agent-card.json.
    const vault = createServer((req, res) => {
      if (req.url === '/agent-card.json') {
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ name: 'Vault test agent', description: 'serves /agent-card.json', url: 'http://127.0.0.1:1/a2a', version: '1', capabilities: {}, skills: [] }));
      } else {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise((ok) => vault.listen(0, '127.0.0.1', ok));
    t.after(() => vault.close());
    await page.getByLabel('Agent URL').fill(`http://127.0.0.1:${vault.address().port}`);
    await page.getByRole('button', { name: 'Add agent' }).click();
    await page.getByTestId('agent-detail').getByRole('heading', { name: 'Vault test agent' }).waitFor(WAIT);
    assert.equal(await page.getByTestId('error-box').count(), 0);

    // A failed send: the agent is down; Retry once it is back sends the same message.
    const other = await otherAgent();
    t.after(() => other.stop());
    await page.getByLabel('Agent URL').fill(other.url);
    await page.getByRole('button', { name: 'Add agent' }).click();
    await page.waitForURL(/#\/agents\/[0-9a-f-]{36}$/, WAIT);
    await page.getByTestId('agent-detail').getByRole('button', { name: 'Chat', exact: true }).click();
    await page.getByRole('textbox', { name: 'Message' }).waitFor(WAIT);
    await other.stop({ keepData: true });
    await send(page, 'are you there?');
    const failed = page.getByTestId('chat-error');
    await failed.getByText(/Could not reach/).waitFor(WAIT);
    await failed.getByText(/Check that the agent is running/).waitFor(WAIT);
    assert.equal(await failed.getByText(/connection refused/).isVisible(), false);
    const again = await otherAgent({ port: other.port, dataDir: other.dataDir });
    t.after(() => again.stop());
    await failed.getByRole('button', { name: 'Retry' }).click();
    await page.getByTestId('task-state').filter({ hasText: 'Completed' }).first().waitFor(WAIT);
    assert.equal(await page.getByTestId('chat-message').filter({ hasText: 'are you there?' }).count(), 2);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });

  test('6. chat basics: unread marker, previews, plain titles, jump to latest, drop and paste, sent files downloadable, progress folds into its final state', async () => {
    const page = await openUI(s.browser, s.hub);
    const newChat = async () => {
      await nav(page, 'Chats').click();
      await page.getByRole('button', { name: 'New chat' }).first().click();
      // the hub's own demo agent is listed first
      await page.getByRole('list', { name: 'Agents to chat with' }).getByRole('button', { name: 'Chat with AgentHub demo agent' }).first().click();
      await page.getByRole('textbox', { name: 'Message' }).waitFor(WAIT);
      return new URL(page.url()).hash.split('/')[2];
    };
    // A title without Markdown marks, and a preview of the newest words.
    const first = await newChat();
    await send(page, '**Plain** title please', 'Plain title please');
    const item = page.locator(`[data-testid="chat-item"][data-conversation-id="${first}"]`);
    await item.locator('.task-title', { hasText: 'Plain title please' }).waitFor(WAIT);
    await page.getByTestId('task-state').filter({ hasText: 'Completed' }).first().waitFor(WAIT);
    await item.getByTestId('chat-preview').filter({ hasText: 'Plain' }).waitFor(WAIT);

    // The task says how it ended and how long it took; its progress folds away once the result is
    // there (issue 29 item 10).
    await send(page, 'slow 2');
    const done = page.getByTestId('task-state').filter({ hasText: 'Completed' }).nth(1);
    await done.waitFor(WAIT);
    await done.getByText(/took \d/).waitFor(WAIT);
    await page.getByTestId('chat-message').filter({ hasText: 'Working for 2 seconds' }).waitFor({ state: 'detached', ...WAIT });

    // Jump to latest: scrolled up while the agent works.
    for (let i = 0; i < 3; i++) await send(page, `a long line ${i} `.repeat(60));
    await page.getByTestId('task-state').filter({ hasText: 'Completed' }).nth(4).waitFor(WAIT);
    await send(page, 'slow 3');
    const transcript = page.getByRole('list', { name: 'Transcript' });
    await transcript.evaluate((el) => {
      el.scrollTop = 0;
      el.dispatchEvent(new Event('scroll'));
    });
    await page.getByTestId('jump-latest').click();
    assert.ok(await transcript.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 160), 'not at the end after Jump to latest');

    // Files dropped or pasted are attached; what I sent can be downloaded again.
    await page.evaluate(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['dropped notes'], 'dropped.txt', { type: 'text/plain' }));
      document.querySelector('form[aria-label="Composer"]').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    });
    await page.getByRole('list', { name: 'Attachments' }).getByText('dropped.txt').waitFor(WAIT);
    await page.getByRole('textbox', { name: 'Message' }).evaluate((el) => {
      const dt = new DataTransfer();
      dt.items.add(new File(['png'], 'pasted.png', { type: 'image/png' }));
      el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
    });
    await page.getByRole('list', { name: 'Attachments' }).getByText('pasted.png').waitFor(WAIT);
    await send(page, 'two files');
    const mine = page.getByTestId('chat-message').filter({ hasText: 'two files' });
    await mine.getByRole('button', { name: 'Download dropped.txt' }).waitFor(WAIT);
    const download = page.waitForEvent('download');
    await mine.getByRole('button', { name: 'Download dropped.txt' }).click();
    assert.equal((await download).suggestedFilename(), 'dropped.txt');

    // Unread: the first chat changes while another is open; opening it clears the mark.
    await send(page, 'slow 2');
    const second = await newChat();
    assert.notEqual(second, first);
    await item.and(page.locator('[data-unread="true"]')).waitFor(WAIT);
    await item.getByRole('img', { name: 'new activity' }).waitFor(WAIT);
    await page.screenshot({ path: join(SHOTS, 'newuser-6-chats.png') });
    await item.click();
    await page.locator(`[data-testid="chat-item"][data-conversation-id="${first}"]:not([data-unread])`).waitFor(WAIT);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });

  test('9. layout: no sideways scroll at 1280 px, tooltips and a narrower list at 900 px, equal headers; the live timeline follows, folds, cancels, shows the whole id', async () => {
    const page = await openUI(s.browser, s.hub);
    const base = s.hub.uiURL.split('#')[0];
    // Every page's header is the same height.
    const heights = new Set();
    for (const area of ['agents', 'chats', 'tasks', 'inbox', 'settings']) {
      await page.goto(`${base}#/${area}`);
      const head = page.locator('header.page-head').first();
      await head.waitFor(WAIT);
      heights.add(Math.round((await head.boundingBox()).height));
    }
    assert.equal(heights.size, 1, `header heights differ: ${[...heights]}`);
    // The demo agent's detail (MIME types and all) fits the pane.
    await page.goto(`${base}#/agents/demo`);
    const pane = page.locator('.pane-detail');
    await page.getByTestId('agent-detail').waitFor(WAIT);
    assert.ok(await pane.evaluate((el) => el.scrollWidth <= el.clientWidth), 'the agent detail scrolls sideways at 1280 px');

    // 900 px: icon-only navigation with tooltips, and a list narrower than 330 px.
    await page.setViewportSize({ width: 900, height: 800 });
    for (const name of ['Agents', 'Chats', 'Tasks', 'Inbox', 'Settings']) {
      assert.match((await nav(page, name).getAttribute('title')) ?? '', new RegExp(`^${name} \\(g [acits]\\)$`));
    }
    const list = await page.locator('.pane-list').boundingBox();
    assert.ok(list.width < 330, `the list pane is ${list.width} px wide at 900 px`);
    assert.ok(await pane.evaluate((el) => el.scrollWidth <= el.clientWidth), 'the agent detail scrolls sideways at 900 px');
    await page.screenshot({ path: join(SHOTS, 'newuser-9-narrow.png') });
    await page.setViewportSize({ width: 1280, height: 800 });

    // A long job someone else started: its timeline folds the ticks, follows, and can be canceled.
    const sender = await sdkClient(s.hub.demoURL);
    const msg = userMessage('slow 30');
    msg.configuration = { acceptedOutputModes: [], pushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true };
    const task = await sender.sendMessage(msg);
    const taskId = task.payload?.value?.id ?? task.id ?? task.task?.id;
    assert.ok(taskId, `no task id in ${JSON.stringify(task).slice(0, 200)}`);
    await page.goto(`${base}#/tasks/demo/${taskId}`);
    const detail = page.getByTestId('task-detail');
    await detail.getByTestId('task-id').filter({ hasText: taskId }).waitFor(WAIT);
    await detail.getByRole('button', { name: 'Copy task ID' }).waitFor(WAIT);
    await detail.getByTestId('timeline-fold').waitFor({ timeout: 30_000 });
    // A short window, so the timeline is longer than its pane and following it means scrolling:
    // scroll to the end; the newest event stays in view as more arrive.
    await page.setViewportSize({ width: 1280, height: 460 });
    await pane.evaluate((el) => (el.scrollTop = el.scrollHeight));
    const lastSeq = () => detail.getByTestId('timeline-event').last().getAttribute('data-seq');
    const before = Number(await lastSeq());
    // A newer event arrives, and it is in view without scrolling.
    await page.waitForFunction(
      (n) => {
        const rows = document.querySelectorAll('[data-testid="timeline-event"]');
        const last = rows[rows.length - 1];
        if (Number(last.dataset.seq) <= n) return false;
        const pane = document.querySelector('.pane-detail');
        if (pane.scrollHeight <= pane.clientHeight) return false; // nothing to follow: this would prove nothing
        const b = last.getBoundingClientRect();
        const p = pane.getBoundingClientRect();
        return b.bottom <= p.bottom + 2 && b.top >= p.top;
      },
      before,
      WAIT,
    );
    await page.screenshot({ path: join(SHOTS, 'newuser-9-timeline.png') });
    await page.setViewportSize({ width: 1280, height: 800 });
    await detail.getByRole('button', { name: 'Cancel task' }).click();
    await detail.getByRole('heading', { name: 'slow 30' }).locator('..').getByText('canceled').waitFor(WAIT);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });

  test('8. the raw log: each event by kind and state, grouped by call and task, filter, search, clear, export, beside the chat and from a task', async () => {
    const page = await openUI(s.browser, s.hub);
    await nav(page, 'Agents').click();
    await demoCard(page).getByRole('button', { name: 'Chat with AgentHub demo agent' }).click();
    await send(page, 'slow 2');
    await page.getByTestId('task-state').filter({ hasText: 'Completed' }).first().waitFor(WAIT);

    // Beside the conversation.
    await page.getByRole('button', { name: 'Raw log', exact: true }).click();
    const log = page.getByRole('complementary', { name: 'Raw log beside the conversation' });
    await log.waitFor(WAIT);
    const transcript = page.getByRole('list', { name: 'Transcript' });
    const [t, l] = [await transcript.boundingBox(), await log.boundingBox()];
    assert.ok(l.x >= t.x + t.width - 1 && l.width > 250, `the log is not beside the conversation: ${JSON.stringify({ t, l })}`);
    // Events say what they are and their state; the call is headed with its task.
    const what = log.getByTestId('wire-what');
    await what.filter({ hasText: 'status-update' }).first().waitFor(WAIT);
    await log.getByTestId('wire-entry').filter({ hasText: 'status-update' }).getByText('completed', { exact: true }).first().waitFor(WAIT);
    await log.getByTestId('wire-call').filter({ hasText: /task [0-9a-f]{8}/ }).first().waitFor(WAIT);
    await page.screenshot({ path: join(SHOTS, 'newuser-8-raw-log.png') });

    // Filter by kind, search, export, clear.
    await log.getByLabel('Kind').selectOption('event');
    const kinds = await log.getByTestId('wire-entry').evaluateAll((els) => [...new Set(els.map((e) => e.dataset.kind))]);
    assert.deepEqual(kinds, ['event']);
    await log.getByLabel('Kind').selectOption('');
    const all = await log.getByTestId('wire-entry').count();
    await log.getByRole('searchbox', { name: 'Search the raw log' }).fill('TASK_STATE_COMPLETED');
    await page.waitForFunction((n) => {
      const rows = document.querySelectorAll('.chat-log [data-testid="wire-entry"]');
      return rows.length > 0 && rows.length < n;
    }, all, WAIT);
    const download = page.waitForEvent('download');
    await log.getByRole('button', { name: 'Export' }).click();
    assert.match((await download).suggestedFilename(), /^raw-log-demo-.*\.json$/);
    await log.getByRole('searchbox', { name: 'Search the raw log' }).fill('');
    await log.getByRole('button', { name: 'Clear' }).click();
    await log.getByText('Nothing matches (cleared).').waitFor(WAIT);

    // From a task: the log of that task's calls, starting with the request that created it.
    const taskId = await page.getByTestId('task-state').first().getAttribute('data-task-id');
    await page.goto(`${s.hub.uiURL.split('#')[0]}#/tasks/demo/${taskId}`);
    await page.getByTestId('task-detail').getByRole('button', { name: 'Raw log' }).click();
    const taskLog = page.getByRole('region', { name: 'Raw log of this task' });
    await taskLog.getByTestId('wire-entry').first().waitFor(WAIT);
    assert.equal(await taskLog.getByTestId('wire-entry').first().getAttribute('data-kind'), 'request');
    await taskLog.getByTestId('wire-call').filter({ hasText: `task ${taskId.slice(0, 8)}` }).first().waitFor(WAIT);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });

  test('axe: no serious or critical accessibility violations on any page, light and dark', async () => {
    // Pages with something in them: the earlier tests left chats, tasks and inbox items.
    const probe = await openUI(s.browser, s.hub);
    await nav(probe, 'Chats').click();
    const chat = await probe.getByTestId('chat-item').first().getAttribute('data-conversation-id');
    await nav(probe, 'Inbox').click();
    const inboxItem = await probe.getByTestId('inbox-item').first().getAttribute('data-task-id');
    await nav(probe, 'Tasks').click();
    const taskRow = probe.getByTestId('task-row').first();
    await taskRow.waitFor(WAIT);
    const taskHref = await taskRow.getAttribute('href');
    await probe.context().close();
    const routes = ['#/agents', '#/agents/demo', '#/agents/demo/log', '#/chats', `#/chats/${chat}`, '#/tasks', taskHref, '#/inbox', `#/inbox/${inboxItem}`, '#/settings'];

    const found = [];
    for (const colorScheme of ['light', 'dark']) {
      // The page's CSP forbids inline scripts, axe's among them: this context bypasses it.
      const context = await s.browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme, bypassCSP: true });
      const page = await context.newPage();
      await page.goto(s.hub.uiURL);
      const base = s.hub.uiURL.split('#')[0];
      for (const route of routes) {
        await page.goto(base + route);
        await page.locator('header.page-head').first().waitFor(WAIT);
        await page.waitForFunction(() => !document.body.innerText.includes('Loading…'), null, WAIT).catch(() => undefined);
        const violations = await axeViolations(page);
        for (const v of violations) found.push(`${colorScheme} ${route}: ${v}`);
      }
      await page.screenshot({ path: join(SHOTS, `newuser-axe-${colorScheme}.png`) });
      await page.context().close();
    }
    assert.deepEqual(found, []);
  });
});
