// End-to-end: a task row that cannot be read back (written straight into hub.db while the hub was
// down) neither stops `agenthub serve` nor breaks the Tasks and Inbox views: it is listed, labelled
// "unreadable", and explained; an interrupted one was failed at start with the reason.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';

import { SHOTS, nav, openUI, sdkClient, suite, userMessage } from './harness.mjs';

const WAIT = { timeout: 15_000 };

const s = suite();

// inboxTask sends text to the hub's inbox and returns the task id once the task is stored.
async function inboxTask(client, text) {
  for await (const ev of client.sendMessageStream(userMessage(text))) {
    if (ev.payload?.$case === 'task') return ev.payload.value.id;
  }
  throw new Error(`no task for ${text}`);
}

// sql runs statements on a data dir's hub.db with Debian's sqlite3 (build/setup-debian.sh installs it).
function sql(dir, statements) {
  execFileSync('sqlite3', [join(dir, 'hub.db')], { input: statements });
}

test('an unreadable task row is listed and labelled in Tasks and the Inbox, and does not stop the hub', async () => {
  const client = await sdkClient(s.hub.hubURL);
  const fine = await inboxTask(client, 'A message that stays readable');
  const ended = await inboxTask(client, 'A message whose row breaks after it ended');
  const waiting = await inboxTask(client, 'A message whose row breaks while it waits');
  await s.hub.stop();

  // One task completes (as the owner would have completed it) and then its row breaks: what an empty
  // file used to be stored as. Another breaks while it waits: plain garbage.
  sql(s.dataDir, `
    INSERT INTO task_events(task_id, seq, version, kind, final, event_json, created_at)
      SELECT id, (SELECT MAX(seq) + 1 FROM task_events WHERE task_id = id), version + 1, 'status', 1,
        json_object('taskId', id, 'contextId', context_id, 'status', json_object('state', 'TASK_STATE_COMPLETED')), updated_at + 1
      FROM tasks WHERE id = '${ended}';
    UPDATE tasks SET task_json = '{"history":[{"parts":[{"raw":null}]}]}', state = 'TASK_STATE_COMPLETED', version = version + 1,
      updated_at = updated_at + 1 WHERE id = '${ended}';
    UPDATE tasks SET task_json = 'not json' WHERE id = '${waiting}';
  `);
  await s.hub.start(); // used to exit: recover AgentHub tasks: stored task … is unreadable

  const page = await openUI(s.browser, s.hub);
  await nav(page, 'Tasks').click();
  const row = (id) => page.locator(`[data-testid="task-row"][data-task-id="${id}"]`);
  await row(fine).getByText('A message that stays readable').waitFor(WAIT);
  await row(ended).getByTestId('unreadable').waitFor(WAIT);
  await row(ended).getByText('Unreadable task').waitFor(WAIT);
  await row(waiting).getByText('failed').first().waitFor(WAIT);
  assert.equal(await row(fine).getByTestId('unreadable').count(), 0);
  await row(ended).click();
  await page.getByTestId('unreadable-notice').waitFor(WAIT);
  await page.getByTestId('task-detail').getByText('completed').first().waitFor(WAIT);
  await page.screenshot({ path: join(SHOTS, 'unreadable-task.png') });

  await nav(page, 'Inbox').click();
  const item = (id) => page.locator(`[data-testid="inbox-item"][data-task-id="${id}"]`);
  await item(fine).getByText('A message that stays readable').first().waitFor(WAIT);
  await item(ended).getByTestId('unreadable').waitFor(WAIT);
  await item(ended).click();
  await page.getByTestId('inbox-detail').getByTestId('unreadable-notice').waitFor(WAIT);
  assert.equal(await page.getByLabel('Reply').count(), 0, 'an unreadable task offers a reply box');
  // The interrupted one was failed at start, saying why, with the request it was created with.
  await item(waiting).getByText('A message whose row breaks while it waits').first().waitFor(WAIT);
  await item(waiting).click();
  await page.getByText('could not be read back after a restart').first().waitFor(WAIT);
  await page.screenshot({ path: join(SHOTS, 'unreadable-inbox.png') });
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
