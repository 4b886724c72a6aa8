// End-to-end: a task whose push notifications cannot be delivered (the webhook always answers 500)
// shows, once the bounded retry time is over, the failure on its task view, live.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { SHOTS, nav, openUI, suite } from './harness.mjs';

const WAIT = { timeout: 15_000 };

// Retried for 3 s, then given up.
const s = suite({ flags: ['--push-give-up', '3s', '--push-retry-max', '500ms'] });

let webhook;
let posts = 0;
before(async () => {
  webhook = createServer((req, res) => {
    posts++;
    req.resume();
    res.writeHead(500).end('broken');
  });
  await new Promise((ok) => webhook.listen(0, '127.0.0.1', ok));
});
after(() => webhook.close());

test('a push notification that keeps failing shows on the task as given up', async () => {
  const page = await openUI(s.browser, s.hub);
  await nav(page, 'Tasks').click();

  // A task at the demo agent with a push config pointing at the broken webhook (v1.0 JSON-RPC).
  const url = `http://127.0.0.1:${webhook.address().port}/hook`;
  const res = await fetch(`${s.hub.demoURL}/a2a`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: {
        message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'Push this somewhere broken' }] },
        configuration: { taskPushNotificationConfig: { url, token: 'e2e' } },
      },
    }),
  });
  const body = await res.json();
  const taskId = body.result?.task?.id;
  assert.ok(taskId, `no task in ${JSON.stringify(body)}`);

  await page.locator(`[data-testid="task-row"][data-task-id="${taskId}"]`).click();
  const line = page.getByTestId('push-line');
  await line.waitFor(WAIT);
  // While retrying it says so; after 3 s the outbox gives up each notification and the line, a
  // warning, ends up saying only that.
  const given = /^Push: delivered 0 · failed \d+: webhook answered 500 Internal Server Error \(gave up after 3s\)$/;
  await page.getByTestId('task-detail').getByRole('alert').filter({ hasText: given }).waitFor(WAIT);
  assert.match(await line.textContent(), given);
  assert.match(await line.getAttribute('class'), /push-failed/);
  assert.ok(posts >= 2, `the webhook got ${posts} posts; want retries before giving up`);
  await page.screenshot({ path: join(SHOTS, 'push-failed.png') });
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
