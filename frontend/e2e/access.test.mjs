// End-to-end: Settings → Access in a real browser against a real `agenthub serve`. A key made in
// the UI is read from its copy box and used from this script against POST /oauth/token (client
// credentials, HTTP Basic as `curl -u name:key` sends them); rotating and revoking it in the UI
// stop it working at once.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { SHOTS, openUI, suite } from './harness.mjs';

const WAIT = { timeout: 15_000 };

const s = suite();

// a2a calls the hub's JSON-RPC endpoint with an API key, as a script would (ListTasks).
async function a2a(key) {
  const res = await fetch(`${s.hub.hubURL}/a2a`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Api-Key': key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }),
  });
  return { status: res.status, body: await res.json() };
}

// token asks the hub's token endpoint for a token with name:key as HTTP Basic, like
// `curl -u name:key -d grant_type=client_credentials`.
async function token(name, key) {
  const res = await fetch(`${s.hub.hubURL}/oauth/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${Buffer.from(`${name}:${key}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials',
  });
  return { status: res.status, body: await res.json() };
}

// openAccess opens Settings from the navigation, or with deepLink by its own link #/settings/access,
// which scrolls the page to the section.
async function openAccess(colorScheme = 'light', { deepLink = false } = {}) {
  const page = await openUI(s.browser, s.hub, { colorScheme });
  await page.getByRole('navigation').getByRole('link', { name: 'Agents' }).waitFor(WAIT);
  if (deepLink) await page.evaluate(() => (window.location.hash = '#/settings/access'));
  else await page.getByRole('navigation').getByRole('link', { name: 'Settings' }).click();
  const access = page.getByRole('region', { name: 'Access' });
  await access.waitFor(WAIT);
  if (deepLink) {
    await page.waitForFunction(() => {
      const top = document.getElementById('access')?.getBoundingClientRect().top;
      return top !== undefined && top >= 0 && top < 200;
    }, null, WAIT);
  }
  return { page, access };
}

// shot screenshots the whole Access section: the settings pane scrolls inside a fixed shell, so the
// window is made tall enough to hold it first.
async function shot(page, access, file) {
  await page.setViewportSize({ width: 1280, height: 2000 });
  await access.screenshot({ path: join(SHOTS, file) });
  await page.setViewportSize({ width: 1280, height: 800 });
}

// The key in the copy box, once it shows one different from `previous`.
async function newKey(page, previous = '') {
  const box = page.getByTestId('new-key');
  await box.waitFor(WAIT);
  await page.waitForFunction((prev) => {
    const v = document.querySelector('[data-testid="new-key"]')?.value;
    return v && v !== prev;
  }, previous, WAIT);
  return box.inputValue();
}

describe('Settings → Access', () => {
  test('a key made in the UI buys a token; rotating and revoking it there stop it at once', async () => {
    const { page, access } = await openAccess();
    const { page: other, access: otherAccess } = await openAccess('dark', { deepLink: true }); // a second window stays in step
    await access.getByTestId('access-empty').waitFor(WAIT);
    await shot(page, access, 'access-empty.png');

    // A name the hub would refuse is caught as it is typed.
    const name = access.getByLabel("New key's name");
    await name.fill('CI Bot');
    await access.getByRole('alert').filter({ hasText: 'not allowed' }).waitFor(WAIT);
    assert.equal(await access.getByRole('button', { name: 'Create key' }).isDisabled(), true);

    await name.fill('ci-bot');
    await access.getByRole('button', { name: 'Create key' }).click();
    const key1 = await newKey(page);
    assert.match(key1, /^ahk_[A-Za-z0-9_-]{43}$/);
    await access.getByText("Copy it now: it won't be shown again.").waitFor(WAIT);
    await otherAccess.locator('[data-testid="access-key"][data-name="ci-bot"]').waitFor(WAIT);
    assert.equal(await other.content().then((html) => html.includes(key1)), false, 'the other window never sees the key');

    let r = await token('ci-bot', key1);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.token_type, 'Bearer');
    assert.ok(r.body.access_token);
    // The commands the box shows work as pasted into a shell.
    const snippet = async (label) => access.locator('.code-block').filter({ hasText: label }).locator('pre').innerText();
    const viaShell = async (code) => JSON.parse((await promisify(execFile)('sh', ['-c', code], { timeout: 15_000 })).stdout);
    assert.equal((await viaShell(await snippet('Or trade name and key for a token'))).token_type, 'Bearer');
    assert.ok((await viaShell(await snippet('Call the hub with the key'))).result?.task?.id, 'the A2A call made a task');
    // Using it moved "last used", in both windows.
    await otherAccess.getByTestId('access-last-used').filter({ hasText: 'last used' }).waitFor(WAIT);
    await access.getByTestId('access-last-used').filter({ hasText: 'last used' }).waitFor(WAIT);
    await shot(page, access, 'access-light.png');
    await shot(other, otherAccess, 'access-dark.png');

    // Once dismissed, the key is gone from the page.
    await access.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByTestId('new-key').waitFor({ state: 'detached', ...WAIT });
    assert.equal((await page.content()).includes(key1), false);

    // Rotate (confirmed): the old key is refused as invalid_client, the new one works.
    await access.getByRole('button', { name: 'Rotate ci-bot' }).click();
    await page.getByRole('dialog', { name: 'Give ci-bot a new key?' }).getByRole('button', { name: 'Rotate key' }).click();
    const key2 = await newKey(page, key1);
    r = await token('ci-bot', key1);
    assert.equal(r.status, 401);
    assert.equal(r.body.error, 'invalid_client');
    r = await token('ci-bot', key2);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    r = await a2a(key1);
    assert.equal(r.status, 401, 'the A2A endpoint refuses the rotated key');
    assert.equal(r.body.error?.code, -32030);
    r = await a2a(key2);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.result?.tasks?.length, 1, 'the key sees the one task it made');

    // Revoke (confirmed): the key is refused, and both windows drop the row.
    await access.getByRole('button', { name: 'Revoke ci-bot' }).click();
    await page.getByRole('dialog', { name: "Revoke ci-bot's key?" }).getByRole('button', { name: 'Revoke key' }).click();
    await otherAccess.getByTestId('access-empty').waitFor(WAIT);
    await access.getByTestId('access-empty').waitFor(WAIT);
    r = await token('ci-bot', key2);
    assert.equal(r.status, 401);
    assert.equal(r.body.error, 'invalid_client');
    r = await a2a(key2);
    assert.equal(r.status, 401, 'the A2A endpoint refuses the revoked key');
    assert.equal(r.body.error?.code, -32030);

    assert.deepEqual(page.errors, []);
    assert.deepEqual(other.errors, []);
    await page.context().close();
    await other.context().close();
  });

  test('the anonymous policy is chosen in plain words and kept across a restart', async () => {
    let { page, access } = await openAccess();
    const send = access.getByRole('radio', { name: /Let them send messages/ });
    await page.waitForFunction(() => document.querySelector('input[name="anonymous"]:checked')?.value === 'send', null, WAIT);
    assert.equal(await send.isChecked(), true);
    await access.getByRole('radio', { name: /Refuse them/ }).check();
    await page.waitForFunction(() => document.querySelector('input[name="anonymous"]:checked')?.value === 'off', null, WAIT);
    await page.context().close();

    await s.hub.stop();
    await s.hub.start();
    ({ page, access } = await openAccess());
    await page.waitForFunction(() => document.querySelector('input[name="anonymous"]:checked')?.value === 'off', null, WAIT);
    // Back to the default, so other tests on this hub see it as new.
    await access.getByRole('radio', { name: /Let them send messages/ }).check();
    await page.waitForFunction(() => document.querySelector('input[name="anonymous"]:checked')?.value === 'send', null, WAIT);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
});

