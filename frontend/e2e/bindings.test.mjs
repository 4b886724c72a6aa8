// End-to-end: the binding the hub talks to an agent over, in the UI of a real `agenthub serve`. A demo
// agent started with gRPC offers JSON-RPC, HTTP+JSON and gRPC; the person picks gRPC in its detail,
// chats, and the raw log shows the conversation's calls as gRPC methods, the detail "in use: gRPC".

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { SHOTS, addAgent, nav, openUI, otherAgent, suite } from './harness.mjs';

const WAIT = { timeout: 20_000 };

const s = suite();

describe('bindings', () => {
  test('the person chooses gRPC for an agent, chats over it, and sees its calls in the raw log', async (t) => {
    const other = await otherAgent({ grpc: true });
    t.after(() => other.stop());
    const page = await openUI(s.browser, s.hub);
    const detail = await addAgent(page, other.url);

    const choice = detail.getByLabel('Binding');
    assert.deepEqual(await choice.locator('option').allTextContents(), ['Automatic (JSON-RPC)', 'JSON-RPC', 'HTTP+JSON (REST)', 'gRPC']);
    assert.equal(await choice.inputValue(), 'auto');
    await choice.selectOption({ label: 'gRPC' });
    await page.waitForFunction(() => document.querySelector('[data-testid="agent-binding"]')?.value === 'GRPC', null, WAIT);
    await page.screenshot({ path: join(SHOTS, 'binding-choice.png') });

    await detail.getByRole('button', { name: 'Chat', exact: true }).click();
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.waitFor(WAIT);
    const text = 'hello over grpc, demo agent';
    await box.fill(text);
    await box.press('Enter');
    await page.getByTestId('chat-artifact').filter({ hasText: text }).first().waitFor(WAIT);

    await page.getByRole('button', { name: 'Raw log', exact: true }).click();
    const log = page.getByRole('complementary', { name: 'Raw log beside the conversation' });
    await log.getByTestId('wire-entry').filter({ hasText: '/lf.a2a.v1.A2AService/SendStreamingMessage' }).first().waitFor(WAIT);
    await log.getByTestId('wire-status').filter({ hasText: 'OK' }).first().waitFor(WAIT);
    const methods = await log.locator('.wire-method').allTextContents();
    assert.ok(
      methods.every((m) => m.startsWith('/lf.a2a.v1.A2AService/') || m === '—' || !m.includes('/')),
      `a call of this conversation went over another binding: ${methods.join(', ')}`,
    );

    // Back to the agent: its detail says which binding is in use.
    await nav(page, 'Agents').click();
    const added = page.locator('[data-testid="agent-card"]:not([data-agent-id="demo"]):not([data-agent-id="hub"])');
    await added.getByRole('link', { name: 'AgentHub demo agent', exact: true }).click();
    await page.getByTestId('agent-detail').getByTestId('agent-binding-in-use').filter({ hasText: 'in use: gRPC' }).waitFor(WAIT);
    assert.deepEqual(page.errors.filter((e) => e.startsWith('pageerror')), []);
  });
});
