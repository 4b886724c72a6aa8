// End-to-end: a person's view of AgentHub in a real browser, against a real `agenthub serve` on a
// temporary data dir, with the official @a2a-js/sdk client as the remote agent on the other side.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { TaskState } from '@a2a-js/sdk';

import { SHOTS, nav, openUI, otherAgent, partsText, sdkClient, suite, userMessage } from './harness.mjs';

const WAIT = { timeout: 15_000 };

const s = suite();

describe('agents', () => {
  test('the agents view shows the hub and the demo agent with their skills', async () => {
    const page = await openUI(s.browser, s.hub);
    await nav(page, 'Agents').click();
    const cards = page.getByTestId('agent-card');
    const hubCard = cards.filter({ has: page.getByRole('heading', { name: 'AgentHub', exact: true }) });
    const demoCard = cards.filter({ has: page.getByRole('heading', { name: 'AgentHub demo agent', exact: true }) });
    await hubCard.waitFor(WAIT);
    await demoCard.waitFor(WAIT);
    await hubCard.getByText('Message the person at this desktop').first().waitFor(WAIT);
    // The card names its first six skills and counts the rest.
    for (const skill of ['Slow job', 'Ask back', 'File', 'Data', 'Plan a release (A2UI)', 'Plan a release (A2UI v0.8)', '+1']) {
      await demoCard.getByText(skill, { exact: true }).first().waitFor(WAIT);
    }
    // The detail view: every skill with its examples, and the card's URL.
    await demoCard.getByRole('heading', { name: 'AgentHub demo agent', exact: true }).click();
    await page.getByText('slow 5').first().waitFor(WAIT);
    await page.getByTestId('agent-detail').getByText('Echo', { exact: true }).first().waitFor(WAIT);
    await page.getByText(s.hub.demoURL).first().waitFor(WAIT);
    await page.screenshot({ path: join(SHOTS, 'agents.png') });
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
});

describe('remote agents', () => {
  test('an agent added by URL gets its card read, shown as a remote agent, and can be removed', async () => {
    const page = await openUI(s.browser, s.hub);
    await nav(page, 'Agents').click();
    // Something that is not an agent: the person is told where the hub looked.
    await page.getByLabel('Agent URL').fill(`${s.hub.hubURL}/not-an-agent/`);
    await page.getByRole('button', { name: 'Add agent' }).click();
    await page.getByRole('alert').filter({ hasText: 'agent-card.json' }).waitFor(WAIT);

    const other = await otherAgent();
    await page.getByLabel('Agent URL').fill(other.url);
    await page.getByRole('button', { name: 'Add agent' }).click();
    const detail = page.getByTestId('agent-detail');
    await detail.getByRole('heading', { name: 'AgentHub demo agent', exact: true }).waitFor(WAIT);
    await detail.getByText('Remote', { exact: true }).waitFor(WAIT);
    await detail.getByText(`${other.url}/.well-known/agent-card.json`).first().waitFor(WAIT);
    assert.equal(await page.getByTestId('agent-card').count(), 3);
    await page.screenshot({ path: join(SHOTS, 'remote-agent.png') });

    await detail.getByRole('button', { name: 'Remove' }).click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="agent-card"]').length === 2, null, WAIT);
    await other.stop();
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
});

describe('inbox', () => {
  test('a task sent by an SDK client appears in the inbox, is answered in the UI, and the client receives the answer', async () => {
    const page = await openUI(s.browser, s.hub);
    await nav(page, 'Agents').waitFor(WAIT);

    // A remote agent asks the person at this desktop something, streaming to see the answer live.
    const client = await sdkClient(s.hub.hubURL);
    const received = [];
    let streamDone;
    const streamEnded = new Promise((ok) => (streamDone = ok));
    (async () => {
      try {
        for await (const ev of client.sendMessageStream(userMessage('Please approve the v2.3 release'))) received.push(ev);
      } catch (e) {
        received.push({ error: String(e) });
      }
      streamDone();
    })();

    // The unread count appears in the navigation, and the task in the inbox.
    await page.getByLabel('1 unread').first().waitFor(WAIT);
    await nav(page, 'Inbox').click();
    const item = page.getByTestId('inbox-item').filter({ hasText: 'Please approve the v2.3 release' });
    await item.click(WAIT);
    await page.getByLabel('1 unread').first().waitFor({ state: 'detached', ...WAIT });

    // The owner answers; the answer reaches the SDK client on its open stream.
    await page.getByLabel('Reply').fill('Approved: ship it.');
    await page.getByRole('button', { name: 'Answer', exact: true }).click();
    const answerArrived = async () => {
      for (let i = 0; i < 150; i++) {
        const hit = received.find((ev) => ev.payload?.$case === 'artifactUpdate' && partsText(ev.payload.value.artifact?.parts) === 'Approved: ship it.');
        if (hit) return hit;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`the client never received the answer; it got ${JSON.stringify(received).slice(0, 2000)}`);
    };
    await answerArrived();
    // The conversation continues live in the UI.
    await page.getByText('Approved: ship it.').first().waitFor(WAIT);
    await page.screenshot({ path: join(SHOTS, 'inbox.png') });

    // Completing ends the client's stream with the task completed.
    await page.getByLabel('Reply').fill('Released.');
    await page.getByRole('button', { name: 'Complete', exact: true }).click();
    await streamEnded;
    const last = received.at(-1);
    assert.equal(last.payload?.$case, 'statusUpdate', JSON.stringify(last));
    assert.equal(last.payload.value.status.state, TaskState.TASK_STATE_COMPLETED);
    await item.getByText('completed').first().waitFor(WAIT);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
});

describe('tasks', () => {
  test("a task's timeline updates live, and replays from the stored log after a restart", async () => {
    const page = await openUI(s.browser, s.hub, { colorScheme: 'dark' });
    await nav(page, 'Tasks').click();

    const client = await sdkClient(s.hub.demoURL);
    const streamed = (async () => {
      const events = [];
      for await (const ev of client.sendMessageStream(userMessage('slow 4'))) events.push(ev);
      return events;
    })();

    const row = page.getByTestId('task-row').filter({ hasText: 'slow 4' });
    await row.click(WAIT);
    const events = page.getByTestId('timeline-event');
    // While the task runs, the timeline grows: first a few events, then more, then the end.
    await events.nth(1).waitFor(WAIT);
    const early = await events.count();
    await page.getByTestId('timeline-event').filter({ hasText: 'completed' }).first().waitFor(WAIT);
    const final = await events.count();
    assert.ok(final > early, `the timeline did not grow live: ${early} events early, ${final} at the end`);
    const sdkEvents = await streamed;
    assert.ok(sdkEvents.length >= 4, `the SDK saw ${sdkEvents.length} events`);
    await page.screenshot({ path: join(SHOTS, 'timeline-dark.png') });
    const before = await events.allInnerTexts();

    // The hub goes away: the UI says so.
    await s.hub.stop();
    await page.getByTestId('connection-banner').waitFor(WAIT);
    await page.screenshot({ path: join(SHOTS, 'disconnected.png') });

    // After a restart (a new run, so a new token: open the link it printed), the stored log replays.
    await s.hub.start();
    await page.goto(s.hub.uiURL);
    await nav(page, 'Tasks').click();
    await page.getByTestId('task-row').filter({ hasText: 'slow 4' }).click(WAIT);
    await page.getByTestId('timeline-event').filter({ hasText: 'completed' }).first().waitFor(WAIT);
    const replayed = await page.getByTestId('timeline-event').allInnerTexts();
    assert.equal(replayed.length, before.length);
    assert.equal(await page.getByTestId('connection-banner').count(), 0, 'the banner stayed after reconnecting');
    assert.deepEqual(page.errors.filter((e) => !/WebSocket|ERR_CONNECTION_REFUSED|Failed to load resource/.test(e)), []);
    await page.context().close();
  });
});

describe('gateway', () => {
  // Opens a websocket from the page and reports whether it opened.
  const tryWebSocket = (page, url) =>
    page.evaluate(
      (u) =>
        new Promise((ok) => {
          const ws = new WebSocket(u);
          ws.onopen = () => {
            ws.close();
            ok('open');
          };
          ws.onerror = () => ok('refused');
        }),
      url,
    );

  test('a websocket with a wrong token, or from a foreign origin, is refused', async () => {
    const ws = s.hub.hubURL.replace(/^http/, 'ws') + '/ui/ws';
    const page = await openUI(s.browser, s.hub);
    assert.equal(await tryWebSocket(page, `${ws}?token=${s.hub.token}`), 'open', 'the right token from the hub origin must work');
    assert.equal(await tryWebSocket(page, `${ws}?token=wrong-${s.hub.token}`), 'refused');
    assert.equal(await tryWebSocket(page, ws), 'refused');

    // A page on another origin that somehow learned the token is still refused.
    const foreign = createServer((req, res) => res.end('<!doctype html><title>elsewhere</title>'));
    await new Promise((ok) => foreign.listen(0, '127.0.0.1', ok));
    try {
      await page.goto(`http://127.0.0.1:${foreign.address().port}/`);
      assert.equal(await tryWebSocket(page, `${ws}?token=${s.hub.token}`), 'refused');
    } finally {
      foreign.close();
    }
    await page.context().close();
  });
});
