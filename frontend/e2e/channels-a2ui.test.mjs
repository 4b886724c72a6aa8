// End-to-end (issue 27 item 2): A2UI surfaces in a channel. Two demo agents (the hub's own and
// another `agenthub demo-agent`) each draw their "plan a release" form in one channel; the owner fills
// in and submits the hub's demo agent's form: the action reaches that agent only (the other agent's
// tasks show no action), the channel shows who acted, the agent's update changes the same bubble, and
// after a hub restart the surface shows again as last updated. A hostile surface published into the
// channel is inert and breaks nothing. axe finds no serious or critical violations.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { SHOTS, addAgent, axeViolations, nav, openUI, otherAgent, suite, uiCall } from './harness.mjs';

const WAIT = { timeout: 30_000 };

const s = suite();

const okErrors = (page) => page.errors.filter((e) => !/WebSocket|ERR_CONNECTION_REFUSED|Failed to load resource/.test(e));

// tasksOf lists the tasks an A2A agent holds, with their history, over its REST binding.
async function tasksOf(url) {
  const r = await fetch(`${url}/rest/tasks?historyLength=100`);
  assert.equal(r.status, 200, `tasks of ${url}: ${r.status}`);
  return (await r.json()).tasks ?? [];
}

describe('A2UI in channels', () => {
  test('two agents’ forms in a channel: the action reaches only its creator, the bubble updates in place, and survives a restart', async (t) => {
    const other = await otherAgent();
    t.after(() => other.stop());
    const page = await openUI(s.browser, s.hub);
    await addAgent(page, other.url);
    const { agents } = await uiCall(page, s.hub, 'agents.list');
    const otherId = agents.find((a) => a.id !== 'demo' && a.url?.startsWith(other.url.replace(/\/$/, '')))?.id ?? agents.find((a) => a.id !== 'demo')?.id;
    assert.ok(otherId, `the other agent: ${JSON.stringify(agents)}`);
    const otherMember = `remote://${otherId}`;

    // A channel with both agents, made from the sidebar as a person does.
    await nav(page, 'Chats').click();
    await page.getByRole('button', { name: /^(New channel|Create a channel)$/ }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New channel' });
    await dialog.getByLabel('Name').fill('releases');
    for (const id of ['remote://demo', otherMember]) await dialog.getByRole('group', { name: 'Agents in it' }).locator(`input[value="${id}"]`).check();
    await dialog.getByRole('button', { name: 'Create channel' }).click();
    await page.getByRole('heading', { name: 'releases', level: 2 }).waitFor(WAIT);
    const channelId = decodeURIComponent(new URL(page.url()).hash.replace(/^#\/chats\/channel\//, '').split('?')[0]);

    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('@all plan a release');
    await box.press('Enter');

    // Each agent's form, in its own bubble, for everyone in the channel.
    const mine = page.locator('[data-testid="channel-surface"][data-author="remote://demo"]');
    const theirs = page.locator(`[data-testid="channel-surface"][data-author="${otherMember}"]`);
    await mine.getByText('Plan a release').waitFor(WAIT);
    await theirs.getByText('Plan a release').waitFor(WAIT);
    assert.equal(await page.getByTestId('channel-surface').count(), 2);
    assert.notEqual(await mine.getAttribute('data-task-id'), await theirs.getAttribute('data-task-id'));
    await page.screenshot({ path: join(SHOTS, 'channels-a2ui-forms.png') });

    // The owner fills in the hub's demo agent's form and submits it.
    await mine.getByLabel('Version').fill('7.1.0');
    await mine.getByLabel('Release date').fill('2026-12-31');
    await mine.getByText('Nightly', { exact: true }).click();
    await mine.getByRole('button', { name: 'Plan it' }).click();

    // The channel shows who acted and what they chose; the same bubble becomes the confirmation.
    const acted = page.getByTestId('channel-action');
    await acted.filter({ hasText: 'chose plan release' }).waitFor(WAIT);
    const line = await acted.innerText();
    assert.match(line, /^↳ ?You chose plan release \(/, line);
    assert.match(line, /version: 7\.1\.0/);
    assert.match(line, /channel: nightly/);
    assert.equal(await acted.getAttribute('data-member'), 'remote://demo');
    const summary = 'Version 7.1.0 goes out on the nightly channel, on 2026-12-31.';
    await mine.getByText(summary).waitFor(WAIT);
    await mine.getByText('This form is closed').waitFor(WAIT);
    assert.equal(await page.getByTestId('channel-surface').count(), 2, 'the update made a new surface instead of changing the form');
    assert.equal(await mine.getByRole('button', { name: 'Plan it' }).count(), 0);
    await page.getByTestId('channel-surface-updated').first().waitFor(WAIT);
    // The other agent's form is untouched and still live.
    assert.ok(await theirs.getByRole('button', { name: 'Plan it' }).isEnabled(), 'the other agent’s form is no longer live');
    await page.screenshot({ path: join(SHOTS, 'channels-a2ui-acted.png') });

    // The other agent received the channel's message and nothing else: no A2UI action.
    const received = await tasksOf(other.url);
    assert.equal(received.length, 1, `the other agent's tasks: ${JSON.stringify(received)}`);
    const userMessages = (received[0].history ?? []).filter((m) => m.role === 'ROLE_USER' || m.role === 'user');
    assert.equal(userMessages.length, 1, `the other agent got: ${JSON.stringify(userMessages)}`);
    // (its own form names plan_release as its button's action: only what it received counts)
    assert.ok(!JSON.stringify(userMessages).includes('plan_release') && !JSON.stringify(received).includes('7.1.0'), 'the action reached the other agent');
    assert.match(JSON.stringify(userMessages), /plan a release/);
    assert.match(received[0].status?.state ?? '', /INPUT_REQUIRED|input-required/);

    // Acting on the other agent's form as if the demo agent had drawn it is refused by the hub.
    const theirSurface = await theirs.getAttribute('data-surface-id');
    const refused = await uiCall(page, s.hub, 'bridge.act', {
      channelId, member: 'remote://demo', taskId: await mine.getAttribute('data-task-id'),
      a2ui: [{ version: 'v0.9', action: { name: 'plan_release', surfaceId: theirSurface, sourceComponentId: 'submit', timestamp: new Date().toISOString(), context: {} } }],
    }).then(() => 'sent', (e) => e.message);
    assert.match(refused, /did not create/);

    // A hostile surface published into the channel (a reference cycle; a script URL in another) is
    // inert: refused or cleaned, read-only, and the channel goes on.
    const hostile = (id, components) => [
      { type: 'data', data: { version: 'v0.9', createSurface: { surfaceId: id, catalogId: 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json' } }, metadata: { mimeType: 'application/a2ui+json' } },
      { type: 'data', data: { version: 'v0.9', updateComponents: { surfaceId: id, components } }, metadata: { mimeType: 'application/a2ui+json' } },
    ];
    await uiCall(page, s.hub, 'ext.call', {
      method: 'channels/publish',
      params: {
        channelId,
        parts: [
          { type: 'text', text: 'a hostile form' },
          ...hostile('loop', [{ id: 'root', component: 'Column', children: ['a'] }, { id: 'a', component: 'Column', children: ['root'] }]),
          ...hostile('evil', [{ id: 'root', component: 'Column', children: ['img', 'txt'] }, { id: 'img', component: 'Image', url: 'javascript:alert(1)' }, { id: 'txt', component: 'Text', text: '<img src=x onerror=alert(1)>' }]),
          { type: 'data', data: 'not a message', metadata: { mimeType: 'application/a2ui+json' } },
        ],
      },
    });
    const hostileEvent = page.getByTestId('channel-event').filter({ hasText: 'a hostile form' });
    await hostileEvent.getByTestId('a2ui-refused').waitFor(WAIT);
    await hostileEvent.getByText('<img src=x onerror=alert(1)>').waitFor(WAIT);
    assert.equal(await hostileEvent.locator('img').count(), 0);
    await hostileEvent.getByTestId('channel-surface-readonly').first().waitFor(WAIT);
    await box.fill('still here');
    await box.press('Enter');
    await page.locator('[data-testid="channel-event"][data-author="user://owner"]').filter({ hasText: 'still here' }).waitFor(WAIT);
    assert.deepEqual(okErrors(page), []);

    // A v0.8 form (the demo agent's other version) goes the same way: its userAction to its creator.
    await box.fill('@demo plan a release v0.8');
    await box.press('Enter');
    const old = page.locator('[data-testid="channel-surface"][data-author="remote://demo"]').filter({ has: page.locator('[data-a2ui-version="v0.8"]') });
    await old.getByText('Plan a release').waitFor(WAIT);
    await old.getByLabel('Version').fill('8.0.0');
    await old.getByRole('button', { name: 'Plan it' }).click();
    await old.getByText(/Version 8\.0\.0 goes out on the stable channel/).waitFor(WAIT);
    await acted.filter({ hasText: 'version: 8.0.0' }).waitFor(WAIT);
    assert.equal(await page.getByTestId('channel-surface').count(), 5, 'two agents’ forms, two hostile ones and the v0.8 one');
    const after = await tasksOf(other.url);
    assert.equal(after.length, 1, `the other agent's tasks after the v0.8 form: ${JSON.stringify(after)}`);
    assert.ok(!JSON.stringify(after).includes('8.0.0'), 'the v0.8 action reached the other agent');

    // axe on the channel with its live, updated and hostile forms, in both themes.
    const base = s.hub.uiURL.split('#')[0];
    for (const colorScheme of ['light', 'dark']) {
      const context = await s.browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme, bypassCSP: true });
      const p = await context.newPage();
      await p.goto(s.hub.uiURL);
      await p.goto(`${base}#/chats/channel/${encodeURIComponent(channelId)}`);
      await p.locator(`[data-testid="channel-surface"][data-author="${otherMember}"]`).getByLabel('Version').waitFor(WAIT);
      await p.getByTestId('channel-scroll').evaluate((el) => el.scrollTo(0, 0));
      assert.deepEqual(await axeViolations(p), [], `axe (${colorScheme})`);
      await context.close();
    }

    // A restart: the surface shows again as last updated, closed; the other's is still live.
    await page.context().close();
    await s.hub.stop();
    await s.hub.start();
    const again = await openUI(s.browser, s.hub);
    await again.goto(`${s.hub.uiURL.split('#')[0]}#/chats/channel/${encodeURIComponent(channelId)}`);
    await again.getByTestId('channel-scroll').evaluate((el) => el.scrollTo(0, 0));
    const mineAgain = again.locator('[data-testid="channel-surface"][data-author="remote://demo"]').filter({ hasText: summary });
    await mineAgain.getByText(summary).waitFor(WAIT);
    await mineAgain.getByText('This form is closed').waitFor(WAIT);
    await again.locator(`[data-testid="channel-surface"][data-author="${otherMember}"]`).getByRole('button', { name: 'Plan it' }).waitFor(WAIT);
    assert.equal(await mineAgain.count(), 1);
    assert.deepEqual(okErrors(again), []);
    await again.context().close();
  });
});
