// Shared pieces of the end-to-end tests: a real `agenthub serve` on a temporary data dir, headless
// Chromium through playwright-core, and the official @a2a-js/sdk client playing a remote agent.

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { after, before } from 'node:test';

import { Role } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));

// The binary under test: `make build` leaves it at the repository root.
export const BINARY = resolve(process.env.AGENTHUB_BIN ?? join(here, '..', '..', 'agenthub'));

export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

// Where the tests leave screenshots of what they saw (ignored by git).
export const SHOTS = join(here, 'shots');

export function tempDataDir() {
  return mkdtempSync(join(tmpdir(), 'agenthub-e2e-'));
}

export function removeDir(dir) {
  rmSync(dir, { recursive: true, force: true });
}

// Hub is one `agenthub serve` process. Ports are fixed per hub so a restart keeps its URLs.
export class Hub {
  constructor(dataDir, { port = 0, demoPort = 0, flags = [] } = {}) {
    this.dataDir = dataDir;
    this.port = port;
    this.demoPort = demoPort;
    this.flags = flags; // more `agenthub serve` flags
  }

  // start runs the binary and resolves once it printed its URLs.
  async start() {
    const args = ['serve', '--secrets', 'file', '--data', this.dataDir, '--addr', `127.0.0.1:${this.port}`, '--demo-addr', `127.0.0.1:${this.demoPort}`, ...this.flags];
    this.proc = spawn(BINARY, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.stderr = '';
    this.proc.stderr.on('data', (d) => (this.stderr += d));
    const lines = {};
    await new Promise((ok, fail) => {
      let out = '';
      const timer = setTimeout(() => fail(new Error(`agenthub did not start in time: ${out}${this.stderr}`)), 20_000);
      this.proc.on('exit', (code) => fail(new Error(`agenthub exited with ${code}: ${out}${this.stderr}`)));
      this.proc.stdout.on('data', (d) => {
        out += d;
        for (const line of out.split('\n')) {
          const m = /^([a-z ]+): (.*)$/.exec(line.trim());
          if (m) lines[m[1]] = m[2];
        }
        if (lines.ui && lines['demo agent']) {
          clearTimeout(timer);
          ok();
        }
      });
    });
    this.hubURL = lines.hub;
    this.uiURL = lines.ui;
    this.demoURL = lines['demo agent'];
    this.token = new URL(this.uiURL).hash.replace(/^#token=/, '');
    // Keep the same ports across a restart.
    this.port = Number(new URL(this.hubURL).port);
    this.demoPort = Number(new URL(this.demoURL).port);
    return this;
  }

  // stop sends SIGTERM and waits for a clean exit.
  async stop() {
    if (!this.proc || this.proc.exitCode !== null) return;
    const exited = new Promise((ok) => this.proc.once('exit', (code, signal) => ok({ code, signal })));
    this.proc.kill('SIGTERM');
    const { code } = await exited;
    if (code !== 0) throw new Error(`agenthub exited with ${code}: ${this.stderr}`);
  }
}

export async function launchBrowser() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
}

// openUI opens the UI the way a person does: the URL `agenthub serve` printed. Console errors and
// page errors are collected so a test can assert there were none.
export async function openUI(browser, hub, { colorScheme = 'light' } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    // A failed load's text does not name the resource; its location does.
    const where = m.location()?.url;
    if (m.type() === 'error') page.errors.push(`console: ${m.text()}${where ? ` (${where})` : ''}`);
  });
  await page.goto(hub.uiURL);
  return page;
}

// addAgent adds the agent at url on the Agents page, as a person does, and returns its detail once
// the hub has read its card (the heading names it).
export async function addAgent(page, url, name = 'AgentHub demo agent') {
  await nav(page, 'Agents').click();
  await page.getByLabel('Agent URL').fill(url);
  await page.getByRole('button', { name: 'Add agent' }).click();
  const detail = page.getByTestId('agent-detail');
  await detail.getByRole('heading', { name, exact: true }).waitFor({ timeout: 20_000 });
  return detail;
}

// A remote agent: the official SDK's client, resolved from the agent's card.
// uiCall calls a gateway method over the UI's own websocket, from an open page of hub, as the UI does,
// and returns its result: for a test's setup that is not what the test is about.
export async function uiCall(page, hub, method, params = {}) {
  return page.evaluate(async ([token, method, params]) => {
    const ws = new WebSocket(`${location.origin.replace(/^http/, 'ws')}/ui/ws?token=${encodeURIComponent(token)}`);
    return await new Promise((ok, fail) => {
      ws.onopen = () => ws.send(JSON.stringify({ id: 1, method, params }));
      ws.onmessage = (e) => {
        const f = JSON.parse(e.data);
        if (f.id !== 1) return;
        ws.close();
        if (f.error) fail(new Error(`${method}: ${f.error.message}`));
        else ok(f.result);
      };
      ws.onerror = () => fail(new Error('websocket failed'));
    });
  }, [hub.token, method, params]);
}

// addAccessKey adds a principal (access.add, as Settings → Access does) and returns its new API key.
export async function addAccessKey(page, hub, name) {
  return (await uiCall(page, hub, 'access.add', { name })).key;
}

export async function sdkClient(baseURL) {
  return new ClientFactory().createFromUrl(baseURL);
}

export function userMessage(text, { taskId = '', contextId = '' } = {}) {
  return {
    tenant: '',
    message: {
      messageId: randomUUID(), contextId, taskId, role: Role.ROLE_USER,
      parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
      metadata: undefined, extensions: [], referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  };
}

export const partsText = (parts = []) =>
  parts.filter((p) => p.content?.$case === 'text').map((p) => p.content.value).join('');

// suite gives a test file a real `agenthub serve` on a fresh data dir and a browser, started before
// its tests and stopped (the data dir removed) after them. Read s.hub, s.browser and s.dataDir inside
// tests; they are set once `before` has run. flags are more `agenthub serve` flags.
export function suite({ flags = [] } = {}) {
  const s = { hub: undefined, browser: undefined, dataDir: undefined };
  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    s.dataDir = tempDataDir();
    s.hub = await new Hub(s.dataDir, { flags }).start();
    s.browser = await launchBrowser();
  });
  after(async () => {
    await s.browser?.close();
    await s.hub?.stop();
    removeDir(s.dataDir);
  });
  return s;
}

// nav is the main navigation's link to an area, as a person finds it.
export const nav = (page, name) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: false });

// otherAgent runs `agenthub demo-agent` on its own data dir and port: an agent independent of the
// hub, for tests that add an agent by URL. Stopped (its data dir removed) by stop().
export async function otherAgent({ port = 0, dataDir = tempDataDir(), grpc = false, tick = '' } = {}) {
  const args = ['demo-agent', '--addr', `127.0.0.1:${port}`, '--data', dataDir];
  if (grpc) args.push('--grpc-addr', '127.0.0.1:0'); // its card then offers gRPC too
  if (tick) args.push('--tick', tick); // its pace (default 1s)
  const proc = spawn(BINARY, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  proc.stderr.on('data', (d) => (err += d));
  const url = await new Promise((ok, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`demo-agent did not start in time: ${out}${err}`)), 20_000);
    proc.on('exit', (code) => fail(new Error(`demo-agent exited with ${code}: ${out}${err}`)));
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /^demo agent: (.*)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(m[1].trim());
      }
    });
  });
  return {
    url,
    dataDir,
    port: Number(new URL(url).port),
    // stop ends the process; keepData leaves its data dir for a restart on the same port.
    async stop({ keepData = false } = {}) {
      if (proc.exitCode === null) {
        const exited = new Promise((ok) => proc.once('exit', ok));
        proc.kill('SIGTERM');
        await exited;
      }
      if (!keepData) removeDir(dataDir);
    },
  };
}

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

// axeViolations runs axe-core on the page as it is now and lists its serious and critical violations,
// each as "id (impact): the first three places". The page's CSP forbids inline scripts, axe's among
// them: open the page in a context with bypassCSP.
export async function axeViolations(page) {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  });
}
