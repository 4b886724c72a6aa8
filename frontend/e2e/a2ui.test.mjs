// End-to-end: the demo agent draws an A2UI form in a chat; the person fills it in and submits it, the
// same bubble turns into the agent's confirmation, and after the hub restarts the form is still there,
// closed (its task ended). The surface passes axe in both themes.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { randomUUID } from 'node:crypto';

import { TaskState } from '@a2a-js/sdk';

import { SHOTS, addAgent, axeViolations, nav, openUI, otherAgent, sdkClient, suite, userMessage } from './harness.mjs';

const WAIT = { timeout: 20_000 };

const s = suite();

// The interop packages (the official @a2a-js/sdk server, the A2UI schemas and ajv) live in
// backend/interop/js: `npm ci --prefix backend/interop/js`.
const INTEROP = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'backend', 'interop', 'js');

// sdkA2uiAgent runs backend/interop/js/a2ui-agent.mjs: an A2UI agent on @a2a-js/sdk's server.
async function sdkA2uiAgent() {
  const proc = spawn(process.execPath, ['a2ui-agent.mjs'], { cwd: INTEROP, stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  proc.stderr.on('data', (d) => (err += d));
  const url = await new Promise((ok, fail) => {
    let out = '';
    proc.on('exit', (code) => fail(new Error(`a2ui-agent.mjs exited with ${code}: ${err}`)));
    proc.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) ok(out.trim());
    });
  });
  return { url, seen: () => fetch(`${url}/seen`).then((r) => r.json()), stop: () => proc.stdin.end() };
}

// BOTH are the A2UI extensions the hub activates for an agent whose card declares v0.9.1 and v0.8.
const BOTH = 'https://a2ui.org/a2a-extension/a2ui/v0.9.1, https://a2ui.org/a2a-extension/a2ui/v0.8';

// validate checks documents against the official A2UI v0.9 and v0.8 schemas (backend/interop/js/a2ui-validate.mjs).
function validate(checks) {
  const r = spawnSync(process.execPath, ['a2ui-validate.mjs'], { cwd: INTEROP, input: JSON.stringify(checks), encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim().split('\n').map((l) => JSON.parse(l));
}

describe('A2UI', () => {
  test('the demo agent’s form: filled, submitted, updated in place, still there after a restart', async (t) => {
    const other = await otherAgent();
    t.after(() => other.stop());
    const page = await openUI(s.browser, s.hub);
    const detail = await addAgent(page, other.url, 'AgentHub demo agent');
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

  test('an @a2a-js/sdk agent’s hostile surface is inert, and its form’s action goes back schema-valid with the extension headers', async (t) => {
    const agent = await sdkA2uiAgent();
    t.after(() => agent.stop());
    const page = await openUI(s.browser, s.hub);
    const fetched = [];
    page.on('request', (r) => fetched.push(r.url()));
    const detail = await addAgent(page, agent.url, 'a2a-js A2UI agent');
    await detail.getByRole('button', { name: 'Chat', exact: true }).click();
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('show me');
    await box.press('Enter');

    const bubble = page.getByTestId('chat-surface');
    await bubble.getByLabel('Note').waitFor(WAIT);
    // rendered inert, each with a visible note
    await bubble.getByText('Hello <img src=x onerror="alert(1)"><b>bold</b>').waitFor(WAIT);
    assert.equal(await bubble.locator('img, iframe, b, script').count(), 0);
    assert.doesNotMatch(await bubble.locator('fieldset').innerHTML(), /javascript:|pixel\.png/);
    const notes = await bubble.getByTestId('a2ui-notes').innerText();
    for (const want of [/HTML in text/, /image was not loaded/, /unknown component type “IFrame”/, /javascript:, data: or file: URL/]) assert.match(notes, want);
    await page.screenshot({ path: join(SHOTS, 'a2ui-hostile.png') });

    await bubble.getByLabel('Note').fill('ship it');
    await bubble.getByRole('button', { name: 'Confirm' }).click();
    await bubble.getByText('Confirmed: ship it').waitFor(WAIT);
    await page.getByTestId('chat-action').filter({ hasText: 'You chose confirm (note: ship it)' }).waitFor(WAIT);

    const seen = await agent.seen();
    assert.equal(seen.pixel, 0, 'the browser fetched the image from the agent');
    assert.ok(!fetched.some((u) => u.startsWith(agent.url)), `the browser reached the agent: ${fetched.filter((u) => u.startsWith(agent.url))}`);
    assert.ok(seen.requests.length >= 2);
    for (const r of seen.requests) assert.deepEqual(r, { ext: BOTH, xext: BOTH });
    const turn = seen.messages.find((m) => m.a2ui.some((x) => x.action));
    assert.ok(turn, `no action reached the agent: ${JSON.stringify(seen.messages)}`);
    const [act] = turn.a2ui.filter((x) => x.action);
    assert.equal(act.action.name, 'confirm');
    assert.deepEqual(act.action.context, { note: 'ship it' });
    assert.deepEqual(Object.keys(turn.metadata.a2uiClientDataModel.surfaces), [act.action.surfaceId], 'the data model of that surface only');
    const results = validate([
      { schema: 'client_to_server_list', data: turn.a2ui },
      { schema: 'client_capabilities', data: turn.metadata.a2uiClientCapabilities },
      { schema: 'client_data_model', data: turn.metadata.a2uiClientDataModel },
      ...seen.messages.map((m) => ({ schema: 'client_capabilities', data: m.metadata?.a2uiClientCapabilities })),
    ]);
    assert.deepEqual(results.filter((r) => !r.ok), [], 'schema-invalid A2UI from the hub');
    assert.deepEqual(page.errors.filter((e) => !/WebSocket|ERR_CONNECTION_REFUSED|Failed to load resource/.test(e)), []);
    await page.context().close();
  });
  test('an @a2a-js/sdk agent’s surfaces past the limits (nested 40 deep, 600 components, a 70 KiB data model) are refused with their reason, and the chat goes on', async (t) => {
    const agent = await sdkA2uiAgent();
    t.after(() => agent.stop());
    const page = await openUI(s.browser, s.hub);
    const detail = await addAgent(page, agent.url, 'a2a-js A2UI agent');
    await detail.getByRole('button', { name: 'Chat', exact: true }).click();
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('the limits');
    await box.press('Enter');

    await page.getByText('Three forms past the limits.').first().waitFor(WAIT);
    const refused = page.getByTestId('a2ui-refused');
    for (const why of [/nested more than 32 deep/, /more than 500 components/, /data model is larger than 64 KiB/]) {
      await refused.filter({ hasText: why }).waitFor(WAIT);
    }
    assert.equal(await page.getByTestId('a2ui-surface').count(), 0, 'a surface past the limits was drawn');
    assert.equal(await page.getByText('the bottom').count(), 0);

    // The chat goes on: the next message gets its answer (a form this time).
    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.getByText(/Say hello to/).waitFor(WAIT);
    await box.fill('show me');
    await box.press('Enter');
    await page.getByTestId('chat-surface').getByLabel('Note').waitFor(WAIT);
    assert.deepEqual(page.errors.filter((e) => !/WebSocket|ERR_CONNECTION_REFUSED|Failed to load resource/.test(e)), []);
    await page.context().close();
  });

  test('an @a2a-js/sdk agent’s v0.8 surface: hostile parts inert, its form’s userAction goes back schema-valid (v0.8)', async (t) => {
    const agent = await sdkA2uiAgent();
    t.after(() => agent.stop());
    const page = await openUI(s.browser, s.hub);
    const fetched = [];
    page.on('request', (r) => fetched.push(r.url()));
    const detail = await addAgent(page, agent.url, 'a2a-js A2UI agent');
    await detail.getByRole('button', { name: 'Chat', exact: true }).click();
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('a v0.8 form please');
    await box.press('Enter');

    const bubble = page.getByTestId('chat-surface');
    await bubble.getByLabel('Note').waitFor(WAIT);
    assert.equal(await bubble.getByTestId('a2ui-surface').getAttribute('data-a2ui-version'), 'v0.8');
    // v0.8's own Text would render Markdown into a link: here it is plain text
    await bubble.getByText('Hello <img src=x onerror="alert(1)"><b>bold</b> [link](javascript:alert(3))').waitFor(WAIT);
    assert.equal(await bubble.locator('img, iframe, b, a, script, [href], [src]').count(), 0);
    // the URLs are nowhere but in that text: not in an attribute, not as the value of a field
    assert.doesNotMatch(await bubble.locator('fieldset').innerHTML(), /="[^"]*(javascript:|pixel\.png)/);
    const notes = await bubble.getByTestId('a2ui-notes').innerText();
    for (const want of [/HTML in text/, /image was not loaded/, /unknown component type “IFrame”/]) assert.match(notes, want);

    await bubble.getByLabel('Note').fill('ship it');
    await bubble.getByRole('button', { name: 'Confirm' }).click();
    await bubble.getByText('Confirmed: ship it').waitFor(WAIT);
    assert.equal(await page.getByTestId('chat-surface').count(), 1, 'the update made a new bubble');

    const seen = await agent.seen();
    assert.equal(seen.pixel, 0, 'the browser fetched the image from the agent');
    assert.ok(!fetched.some((u) => u.startsWith(agent.url)));
    for (const r of seen.requests) assert.deepEqual(r, { ext: BOTH, xext: BOTH });
    const turn = seen.messages.find((m) => m.a2ui.some((x) => x.userAction));
    assert.ok(turn, `no userAction reached the agent: ${JSON.stringify(seen.messages)}`);
    assert.equal(turn.a2ui.length, 1);
    const [{ userAction }] = turn.a2ui;
    assert.equal(userAction.name, 'confirm');
    assert.deepEqual(userAction.context, { note: 'ship it' });
    assert.match(userAction.surfaceId, /^js08-/);
    assert.equal(turn.metadata.a2uiClientDataModel, undefined, 'v0.8 sends no data model');
    const results = validate([
      { schema: 'v0_8/client_to_server', data: turn.a2ui[0] },
      ...seen.messages.map((m) => ({ schema: 'v0_8/a2ui_client_capabilities_schema', data: m.metadata?.a2uiClientCapabilities })),
      ...seen.messages.map((m) => ({ schema: 'client_capabilities', data: m.metadata?.a2uiClientCapabilities })),
    ]);
    assert.deepEqual(results.filter((r) => !r.ok), [], 'schema-invalid A2UI from the hub');
    assert.deepEqual(page.errors.filter((e) => !/WebSocket|ERR_CONNECTION_REFUSED|Failed to load resource/.test(e)), []);
    await page.context().close();
  });

  test('the demo agent’s v0.8 form: filled and submitted with the keyboard, updated in place; axe in both themes', async (t) => {
    const other = await otherAgent();
    t.after(() => other.stop());
    const page = await openUI(s.browser, s.hub);
    const detail = await addAgent(page, other.url, 'AgentHub demo agent');
    await detail.getByRole('button', { name: 'Chat', exact: true }).click();
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('plan a release v0.8');
    await box.press('Enter');

    const bubble = page.getByTestId('chat-surface');
    await bubble.getByText('Plan a release').waitFor(WAIT);
    assert.equal(await bubble.getByTestId('a2ui-surface').getAttribute('data-a2ui-version'), 'v0.8');
    const channel = bubble.getByRole('combobox');
    assert.equal(await channel.inputValue(), 'stable', 'the choice the data model holds');

    // keyboard only: type into the focused field, choose with the arrow keys, Enter on the button
    await bubble.getByLabel('Version').focus();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('5.0.0');
    await channel.focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.equal(await channel.inputValue(), 'nightly');
    await bubble.getByRole('button', { name: 'Plan it' }).focus();
    await page.keyboard.press('Enter');
    await bubble.getByText('Release planned').waitFor(WAIT);
    await bubble.getByText(/Version 5\.0\.0 goes out on the nightly channel/).waitFor(WAIT);
    assert.equal(await page.getByTestId('chat-surface').count(), 1, 'the update made a new bubble');
    await page.getByTestId('chat-action').filter({ hasText: 'You chose plan release' }).waitFor(WAIT);
    assert.deepEqual(page.errors.filter((e) => !/WebSocket|ERR_CONNECTION_REFUSED|Failed to load resource/.test(e)), []);
    await page.context().close();

    // axe on a live v0.8 form, in both themes
    for (const colorScheme of ['light', 'dark']) {
      const context = await s.browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme, bypassCSP: true });
      const p = await context.newPage();
      await p.goto(s.hub.uiURL);
      await nav(p, 'Chats').click();
      await p.getByTestId('chat-item').filter({ hasText: 'plan a release v0.8' }).first().click(WAIT);
      await p.getByRole('button', { name: 'New conversation' }).click();
      await p.getByText(/Say hello to/).waitFor(WAIT);
      const composer = p.getByRole('textbox', { name: 'Message' });
      await composer.fill('plan a release v0.8');
      await composer.press('Enter');
      const live = p.getByTestId('chat-surface');
      await live.getByLabel('Version').waitFor(WAIT);
      assert.ok(await live.getByRole('button', { name: 'Plan it' }).isEnabled(), 'the new form is not live');
      await p.screenshot({ path: join(SHOTS, `a2ui-v08-${colorScheme}.png`) });
      assert.deepEqual(await axeViolations(p), [], `axe on the v0.8 form (${colorScheme})`);
      await context.close();
    }
  });
  test('the Inbox draws the form an @a2a-js/sdk client asks the owner with, inert where hostile; the owner’s action goes back to that client as the answer', async () => {
    const page = await openUI(s.browser, s.hub);
    await nav(page, 'Agents').waitFor(WAIT);
    const client = await sdkClient(s.hub.hubURL);
    const sid = `approve-${randomUUID()}`;
    const form = [
      { version: 'v0.9', createSurface: { surfaceId: sid, catalogId: 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json' } },
      { version: 'v0.9', updateComponents: { surfaceId: sid, components: [
        { id: 'root', component: 'Column', children: ['title', 'why', 'approve'] },
        { id: 'title', component: 'Text', text: 'Approve release <b>2.4</b>?' },
        { id: 'why', component: 'TextField', label: 'Why', value: { path: '/why' } },
        { id: 'approve', component: 'Button', child: 'approve-label', action: { event: { name: 'approve', context: { why: { path: '/why' } } } } },
        { id: 'approve-label', component: 'Text', text: 'Approve' },
      ] } },
      { version: 'v0.9', updateDataModel: { surfaceId: sid, path: '/', value: { why: '' } } },
    ];
    const ask = userMessage('Release 2.4: your call');
    ask.message.parts.push({ content: { $case: 'data', value: form }, metadata: { mimeType: 'application/a2ui+json' }, filename: '', mediaType: 'application/a2ui+json' });
    const received = [];
    let ended;
    const streamEnded = new Promise((ok) => (ended = ok));
    (async () => {
      try {
        for await (const ev of client.sendMessageStream(ask)) received.push(ev);
      } catch (e) {
        received.push({ error: String(e) });
      }
      ended();
    })();

    await nav(page, 'Inbox').click();
    await page.getByTestId('inbox-item').filter({ hasText: 'Release 2.4: your call' }).click(WAIT);
    const surface = page.getByTestId('inbox-surface');
    await surface.getByText('Approve release <b>2.4</b>?').waitFor(WAIT); // HTML as plain text
    assert.equal(await surface.locator('b').count(), 0);
    await surface.getByLabel('Why').fill('tests are green');
    await surface.getByRole('button', { name: 'Approve' }).click();
    await page.getByTestId('inbox-action').filter({ hasText: 'You chose approve' }).waitFor(WAIT);

    // the client gets the action as the answer artifact: one A2UI data part about its own surface
    let answer;
    for (let i = 0; i < 150 && !answer; i++) {
      answer = received.find((ev) => ev.payload?.$case === 'artifactUpdate')?.payload.value.artifact;
      if (!answer) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(answer, `no answer reached the client: ${JSON.stringify(received).slice(0, 2000)}`);
    const [part] = answer.parts;
    assert.equal(part.mediaType, 'application/a2ui+json');
    assert.equal(part.content.$case, 'data');
    const [msg] = part.content.value;
    assert.equal(msg.action.name, 'approve');
    assert.equal(msg.action.surfaceId, sid);
    assert.deepEqual(msg.action.context, { why: 'tests are green' });
    const [valid] = validate([{ schema: 'client_to_server_list', data: part.content.value }]);
    assert.ok(valid.ok, JSON.stringify(valid));
    // the client ends its task, which ends its stream
    const first = received[0].payload;
    const id = first.$case === 'task' ? first.value.id : first.value.taskId;
    await client.cancelTask({ tenant: '', id, metadata: undefined });
    await streamEnded;
    const last = received.at(-1);
    assert.equal(last.payload?.value?.status?.state, TaskState.TASK_STATE_CANCELED, JSON.stringify(last));
    assert.deepEqual(page.errors.filter((e) => !/WebSocket|ERR_CONNECTION_REFUSED|Failed to load resource/.test(e)), []);
    await page.context().close();
  });
});
