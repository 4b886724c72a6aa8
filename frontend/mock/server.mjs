#!/usr/bin/env node
// A stand-in for the hub's UI gateway (backend/uiapi), speaking exactly its contract, for developing
// and screenshotting the frontend without the Go backend.
//
//   node mock/server.mjs [--port 47471] [--token dev] [--tasks 300] [--empty] [--dist dist]
//
// It serves dist/ at / (build first) and the websocket at /ui/ws?token=..., and prints
//   ui: http://127.0.0.1:PORT/#token=TOKEN
// Control endpoints (POST, no token, for scripts):
//   /mock/send   {"agent":"demo","text":"slow 5"}  a task to the demo agent (slow N, ask, file, data, else echo)
//                {"agent":"hub","text":"..."}        a message for the owner's inbox
//   /mock/reply  {"id":"...","text":"..."}          the sender answers an input-required inbox task
//   /mock/lag    {}                                 push "lagged" to every client
//   /mock/gap    {}                                 the next pushed task event of each task is dropped
//   /mock/down   {"ms":5000}                        drop every connection and refuse new ones for ms

import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';

const here = dirname(fileURLToPath(import.meta.url));

function arg(name, def) {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return def;
  const v = process.argv[i + 1];
  return v === undefined || v.startsWith('--') ? true : v;
}

const PORT = Number(arg('port', 47471));
const TOKEN = String(arg('token', randomBytes(12).toString('hex')));
const SEED_TASKS = arg('empty', false) ? 0 : Number(arg('tasks', 300));
const DIST = resolve(here, '..', String(arg('dist', 'dist')));
const TICK = Number(arg('tick', 1000));

// ---------------------------------------------------------------- shapes

const nowIso = (ms = Date.now()) => new Date(ms).toISOString().replace(/Z$/, String(Math.floor(Math.random() * 1e6)).padStart(6, '0') + 'Z');
const A2A_STATE = (s) => 'TASK_STATE_' + s.toUpperCase().replace(/-/g, '_');
const TERMINAL = new Set(['completed', 'canceled', 'failed', 'rejected']);

const text = (t) => ({ kind: 'text', text: t });
const msg = (role, parts) => ({ id: randomUUID(), role, parts });

function rawPart(p) {
  if (p.kind === 'text') return { text: p.text };
  if (p.kind === 'data') return { data: p.data, mediaType: 'application/json' };
  return { raw: p.bytes, url: p.url, filename: p.name, mediaType: p.mediaType };
}
function rawMsg(m, task) {
  return m && { messageId: m.id, role: m.role === 'user' ? 'ROLE_USER' : 'ROLE_AGENT', parts: m.parts.map(rawPart), taskId: task.summary.id, contextId: task.summary.contextId };
}

// ---------------------------------------------------------------- agents

let hubUrl = `http://127.0.0.1:${PORT}`;

function hubCard() {
  return {
    name: 'AgentHub',
    description: 'The AgentHub on this computer. Its inbox skill delivers your message to the person at this desktop, who answers when they can.',
    version: '0.1.0-mock',
    provider: { organization: 'AgentHub', url: 'https://github.com/agenthub/agenthub' },
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    capabilities: {
      streaming: true,
      pushNotifications: true,
      extensions: [
        { uri: 'https://a2a-channels.dev/ext/v1', description: 'Multi-agent channels', required: false, params: { version: '1.0', features: ['rules', 'bridge'] } },
        { uri: 'https://a2a-knowledge.dev/ext/v1', description: 'Knowledge graph queries and patches', params: { queryLanguages: ['gizmo', 'graphql'] } },
      ],
    },
    securitySchemes: {
      apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key', description: 'An API key issued by this hub' } },
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
    },
    skills: [
      {
        id: 'inbox',
        name: 'Message the person at this desktop',
        description: 'Delivers your message to the AgentHub owner, who can answer, ask you back (input-required), complete or reject the task.',
        tags: ['human', 'inbox'],
        examples: ['Can you approve the deployment of v2.3 to staging?'],
      },
    ],
    supportedInterfaces: [
      { url: `${hubUrl}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${hubUrl}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ],
    url: `${hubUrl}/a2a`,
    protocolVersion: '0.3',
    preferredTransport: 'JSONRPC',
  };
}

const DEMO = 'http://127.0.0.1:47472';
const demoCard = {
  name: 'AgentHub demo agent',
  description: 'A demo A2A agent to try a client on: streaming with progress, cancellation, questions back (input-required), file and data artifacts.',
  version: '0.1.0-mock',
  provider: { organization: 'AgentHub', url: 'https://github.com/agenthub/agenthub' },
  defaultInputModes: ['text/plain', 'application/json'],
  defaultOutputModes: ['text/plain', 'application/json'],
  capabilities: { streaming: true, pushNotifications: true },
  skills: [
    { id: 'slow', name: 'Slow job', description: 'Works for N seconds (at most 600), reporting progress every second. Cancel it any time.', tags: ['demo', 'streaming', 'cancel'], examples: ['slow 5'] },
    { id: 'ask', name: 'Ask back', description: 'Asks you a question (input-required) and finishes when you answer it.', tags: ['demo', 'input-required'], examples: ['ask'] },
    { id: 'file', name: 'File', description: 'Returns a small text file as an artifact.', tags: ['demo', 'file'], examples: ['file'], outputModes: ['text/plain'] },
    { id: 'data', name: 'Data', description: 'Returns a structured data part.', tags: ['demo', 'data'], examples: ['data'], outputModes: ['application/json'] },
    { id: 'echo', name: 'Echo', description: 'Anything else is echoed back, streamed in several chunks.', tags: ['demo', 'streaming'], examples: ['hello there, demo agent'] },
  ],
  supportedInterfaces: [
    { url: `${DEMO}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: `${DEMO}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
  ],
  url: `${DEMO}/a2a`,
  protocolVersion: '0.3',
  preferredTransport: 'JSONRPC',
};

const weatherCard = {
  name: 'Weather <b>Oracle</b>',
  description: 'Forecasts for any city. (A remote agent with an imperfect card: a skill without an id, and a link that is not http.)',
  version: '2.1',
  documentationUrl: 'javascript:alert(1)',
  provider: { organization: 'Example Weather Co.', url: 'https://weather.example.com' },
  protocolVersion: '0.3',
  url: 'https://weather.example.com/a2a',
  preferredTransport: 'JSONRPC',
  additionalInterfaces: [{ url: 'https://weather.example.com/grpc', transport: 'GRPC' }],
  capabilities: {
    streaming: false,
    pushNotifications: false,
    stateTransitionHistory: true,
    extensions: [{ uri: 'urn:example:units', description: 'Unit preferences', required: true, params: { default: 'metric', allowed: ['metric', 'imperial'] } }],
  },
  securitySchemes: { oauth: { type: 'oauth2', description: 'Client credentials', flows: { clientCredentials: { tokenUrl: 'https://weather.example.com/token', scopes: { read: 'Read forecasts' } } } } },
  security: [{ oauth: ['read'] }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain', 'image/png'],
  skills: [
    { name: 'Forecast', description: 'Seven-day forecast for a city.', tags: ['weather'], examples: ['Weather in Lisbon this weekend?', 'Will it rain in Oslo tomorrow?'], inputModes: ['text/plain'], outputModes: ['text/plain', 'image/png'] },
  ],
};

function agents() {
  return [
    { id: 'hub', name: 'AgentHub', description: hubCard().description, kind: 'hub', url: `${hubUrl}/a2a`, cardUrl: `${hubUrl}/.well-known/agent-card.json`, online: true, protocolVersions: ['1.0', '0.3'], card: hubCard(), problems: [] },
    { id: 'demo', name: 'AgentHub demo agent', description: demoCard.description, kind: 'local', url: `${DEMO}/a2a`, cardUrl: `${DEMO}/.well-known/agent-card.json`, online: true, protocolVersions: ['1.0', '0.3'], card: demoCard, problems: [] },
    {
      id: 'weather',
      name: 'Weather <b>Oracle</b>',
      description: weatherCard.description,
      kind: 'remote',
      url: 'https://weather.example.com/a2a',
      cardUrl: 'https://weather.example.com/.well-known/agent-card.json',
      online: false,
      protocolVersions: ['0.3'],
      card: weatherCard,
      problems: [
        { path: 'skills[0].id', message: 'is required' },
        { path: 'documentationUrl', message: 'must be an http(s) URL' },
      ],
    },
  ];
}

function hubInfo() {
  return { version: '0.1.0-mock', dataDir: '/home/you/.config/agenthub', uiUrl: `${hubUrl}/`, agents: agents() };
}

// ---------------------------------------------------------------- tasks

/** key agent/id -> {summary, history, artifacts, status, events, inbox?: {unread}} */
const tasks = new Map();
const order = []; // keys, oldest first
const key = (agent, id) => `${agent}/${id}`;

function newTask(agent, firstText, { direction = 'incoming', at = Date.now(), dialect = '1.0' } = {}) {
  const id = randomUUID();
  const m = msg('user', [text(firstText)]);
  const t = {
    summary: {
      agent,
      id,
      contextId: randomUUID(),
      state: 'submitted',
      dialect,
      direction,
      title: firstText.replace(/\s+/g, ' ').slice(0, 120) || '(no text)',
      createdAt: nowIso(at),
      updatedAt: nowIso(at),
      waitingForOwner: false,
    },
    history: [m],
    artifacts: [],
    status: { state: 'submitted', at: nowIso(at) },
    events: [],
  };
  tasks.set(key(agent, id), t);
  order.push(key(agent, id));
  record(t, { kind: 'task', state: 'submitted', status: { state: 'submitted', at: nowIso(at) } }, at, { id, contextId: t.summary.contextId, history: [rawMsg(m, t)], status: { state: 'TASK_STATE_SUBMITTED' } });
  return t;
}

function rawTask(t) {
  return {
    id: t.summary.id,
    contextId: t.summary.contextId,
    status: { state: A2A_STATE(t.status.state), message: rawMsg(t.status.message, t), timestamp: t.status.at },
    history: t.history.map((m) => rawMsg(m, t)),
    artifacts: t.artifacts.map((a) => ({ artifactId: a.id, name: a.name, parts: a.parts.map(rawPart) })),
  };
}

const dropNext = new Set(); // task keys whose next push is dropped (gap simulation)

/** Appends a log entry, updates the task and pushes it. */
function record(t, ev, at = Date.now(), raw) {
  const e = { seq: t.events.length + 1, at: nowIso(at), final: false, ...ev };
  if (e.kind === 'status' || e.kind === 'task') {
    t.status = e.status;
    t.summary.state = e.status.state;
    e.state = e.status.state;
    e.final = TERMINAL.has(e.status.state) || e.status.state === 'input-required';
    if (e.status.message && e.kind === 'status') t.history.push(e.status.message);
  }
  if (e.kind === 'message' && e.message) t.history.push(e.message);
  if (e.kind === 'artifact' && e.artifact) {
    const i = t.artifacts.findIndex((a) => a.id === e.artifact.id);
    if (i >= 0 && e.artifact.append) t.artifacts[i] = { ...t.artifacts[i], parts: [...t.artifacts[i].parts, ...e.artifact.parts] };
    else if (i >= 0) t.artifacts[i] = { id: e.artifact.id, name: e.artifact.name, parts: e.artifact.parts };
    else t.artifacts.push({ id: e.artifact.id, name: e.artifact.name, parts: e.artifact.parts });
  }
  e.raw =
    raw ??
    (e.kind === 'status'
      ? { taskId: t.summary.id, contextId: t.summary.contextId, status: { state: A2A_STATE(e.status.state), message: rawMsg(e.status.message, t), timestamp: e.at } }
      : e.kind === 'artifact'
        ? { taskId: t.summary.id, contextId: t.summary.contextId, artifact: { artifactId: e.artifact.id, name: e.artifact.name, parts: e.artifact.parts.map(rawPart) }, append: !!e.artifact.append, lastChunk: !!e.artifact.lastChunk }
        : rawMsg(e.message, t));
  t.summary.updatedAt = e.at;
  t.summary.waitingForOwner = !!t.inbox && (t.summary.state === 'submitted' || t.summary.state === 'working');
  t.events.push(e);
  const k = key(t.summary.agent, t.summary.id);
  if (dropNext.has(k)) {
    dropNext.delete(k);
  } else {
    broadcast({ topic: 'task', data: { agent: t.summary.agent, taskId: t.summary.id, summary: { ...t.summary }, event: e } });
  }
  if (t.inbox) pushInboxCounts();
  return e;
}

const status = (t, state, message, at) => record(t, { kind: 'status', status: { state, message, at: nowIso(at) } }, at);

// ---------------------------------------------------------------- the inbox

function inboxCounts() {
  let unread = 0;
  let waiting = 0;
  for (const t of tasks.values()) {
    if (!t.inbox) continue;
    if (t.inbox.unread) unread++;
    if (t.summary.waitingForOwner) waiting++;
  }
  return { unread, waiting };
}
let lastCounts = '';
function pushInboxCounts() {
  const c = inboxCounts();
  const s = JSON.stringify(c);
  if (s === lastCounts) return;
  lastCounts = s;
  broadcast({ topic: 'inbox', data: c });
}

function inboxMessage(textIn, at = Date.now(), dialect = '1.0') {
  const t = newTask('hub', textIn, { at, dialect });
  t.inbox = { unread: true };
  status(t, 'working', undefined, at + 3);
  return t;
}

function act(t, action, txt, files, at = Date.now()) {
  if (!t.summary.waitingForOwner) throw rpcError('conflict', `task ${t.summary.id} is not waiting for the owner (it is ${t.summary.state})`);
  const filesParts = (files ?? []).map((f) => ({ kind: 'file', name: f.name, mediaType: f.mediaType, bytes: f.bytes, size: Buffer.from(f.bytes, 'base64').length }));
  const reply = txt ? msg('agent', [text(txt), ...filesParts]) : filesParts.length ? msg('agent', filesParts) : undefined;
  switch (action) {
    case 'answer':
      if (!txt) throw rpcError('invalid_params', 'an answer needs text');
      record(t, { kind: 'artifact', artifact: { id: randomUUID(), name: 'answer', parts: [text(txt), ...filesParts] } }, at);
      break;
    case 'ask':
      if (!txt) throw rpcError('invalid_params', 'asking back needs a question');
      status(t, 'input-required', reply, at);
      break;
    case 'complete':
      status(t, 'completed', reply, at);
      break;
    case 'reject':
      status(t, 'rejected', reply, at);
      break;
    default:
      throw rpcError('invalid_params', `unknown action ${action}`);
  }
  return { ...t.summary };
}

function senderReplies(t, txt) {
  if (t.summary.state !== 'input-required') throw new Error('not input-required');
  record(t, { kind: 'message', message: msg('user', [text(txt)]) });
  status(t, 'working');
}

// ---------------------------------------------------------------- the demo agent

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function runDemo(t, input) {
  const [cmd, argStr] = [input.split(' ')[0].toLowerCase(), input.split(' ').slice(1).join(' ').trim()];
  await sleep(50);
  if (cmd === 'slow') {
    const n = argStr ? Number(argStr) : 5;
    if (!Number.isInteger(n) || n < 1 || n > 600) {
      status(t, 'rejected', msg('agent', [text('slow takes a whole number of seconds from 1 to 600, e.g. "slow 5".')]));
      return;
    }
    status(t, 'working', msg('agent', [text(`Working for ${n} seconds: 0/${n}`)]));
    for (let i = 1; i <= n; i++) {
      await sleep(TICK);
      if (i < n) status(t, 'working', msg('agent', [text(`Working for ${n} seconds: ${i}/${n}`)]));
    }
    record(t, { kind: 'artifact', artifact: { id: randomUUID(), name: 'result', parts: [text(`Done after ${n} seconds.`)], lastChunk: true } });
    status(t, 'completed');
  } else if (cmd === 'ask') {
    status(t, 'input-required', msg('agent', [text('What should I tell you back? Reply to this task with any text.')]));
  } else if (cmd === 'file') {
    const body = `Hello from the AgentHub demo agent.\nThis file was made at ${new Date().toISOString()}.\n`;
    record(t, { kind: 'artifact', artifact: { id: randomUUID(), name: 'hello.txt', parts: [{ kind: 'file', name: 'hello.txt', mediaType: 'text/plain', bytes: Buffer.from(body).toString('base64'), size: body.length }], lastChunk: true } });
    status(t, 'completed');
  } else if (cmd === 'data') {
    record(t, { kind: 'artifact', artifact: { id: randomUUID(), name: 'data', parts: [{ kind: 'data', data: { agent: 'demo', primes: [2, 3, 5, 7, 11], at: new Date().toISOString() } }], lastChunk: true } });
    status(t, 'completed');
  } else {
    status(t, 'working', msg('agent', [text('Echoing.')]));
    const chunks = [];
    const size = Math.max(1, Math.ceil(input.length / 4));
    for (let i = 0; i < input.length; i += size) chunks.push(input.slice(i, i + size));
    const id = randomUUID();
    for (let i = 0; i < chunks.length; i++) {
      if (i) await sleep(TICK / 5);
      record(t, { kind: 'artifact', artifact: { id, name: 'echo', parts: [text(chunks[i])], append: i > 0, lastChunk: i === chunks.length - 1 } });
    }
    status(t, 'completed');
  }
}

// ---------------------------------------------------------------- seed data

function seed() {
  const t0 = Date.now() - SEED_TASKS * 90_000 - 3_600_000;
  const samples = ['Summarise the release notes for v2.3', 'slow 3', 'Translate this paragraph into French', 'data', 'file', 'Plan a team offsite in Porto', 'Find flights to Lisbon', 'ask', 'Review PR #4412', 'Draft a reply to the landlord'];
  const finals = ['completed', 'completed', 'completed', 'failed', 'canceled', 'rejected', 'completed', 'input-required', 'working', 'completed'];
  for (let i = 0; i < SEED_TASKS; i++) {
    const at = t0 + i * 90_000;
    const agent = i % 7 === 3 ? 'weather' : 'demo';
    const t = newTask(agent, `${samples[i % samples.length]}${i >= samples.length ? ` (#${i})` : ''}`, { at, direction: 'outgoing', dialect: i % 5 === 0 ? '0.3' : '1.0' });
    status(t, 'working', msg('agent', [text('On it.')]), at + 400);
    const fin = finals[i % finals.length];
    if (fin === 'completed') {
      record(t, { kind: 'artifact', artifact: { id: randomUUID(), name: 'result', parts: [text(`Result for task #${i}.\nSecond line, kept as a line.`)], lastChunk: true } }, at + 1600);
      status(t, 'completed', undefined, at + 1700);
    } else if (fin === 'working') {
      // stays working
    } else if (fin === 'input-required') {
      status(t, 'input-required', msg('agent', [text('Which date do you mean?')]), at + 900);
    } else {
      status(t, fin, msg('agent', [text(fin === 'failed' ? 'Upstream service returned 503.' : fin === 'canceled' ? 'Canceled at your request.' : 'I cannot do that.')]), at + 2100);
    }
  }
  if (SEED_TASKS > 0) {
    const now = Date.now();
    const a = inboxMessage('Can you approve the deployment of v2.3 to staging?\nThe change log is attached in the ticket; CI is green.', now - 7 * 60_000);
    void a;
    const b = inboxMessage('Which of the two logo drafts do you prefer?', now - 50 * 60_000, '0.3');
    act(b, 'ask', 'Can you send the drafts as PNG files?', [], now - 40 * 60_000);
    b.inbox.unread = false;
    const c = inboxMessage('Reminder: the quarterly report is due Friday.', now - 26 * 3_600_000);
    record(c, { kind: 'artifact', artifact: { id: randomUUID(), name: 'answer', parts: [text('Thanks — on it.')] } }, now - 25 * 3_600_000);
    status(c, 'completed', msg('agent', [text('Sent it this morning.')]), now - 20 * 3_600_000);
    c.inbox.unread = false;
    // the outgoing sample that "talks" to the hub's own inbox
  }
}

// ---------------------------------------------------------------- the websocket

const clients = new Set();
function broadcast(frame) {
  const s = JSON.stringify(frame);
  for (const ws of clients) if (ws.readyState === 1) ws.send(s);
}

function rpcError(code, message) {
  const e = new Error(message);
  e.rpc = { code, message };
  return e;
}

function needTask(p) {
  if (!p || typeof p.agent !== 'string' || typeof p.id !== 'string') throw rpcError('invalid_params', 'agent and id are required');
  const t = tasks.get(key(p.agent, p.id));
  if (!t) throw rpcError('not_found', `no task ${p.id} at ${p.agent}`);
  return t;
}

function inboxTask(id) {
  const t = tasks.get(key('hub', id));
  if (!t || !t.inbox) throw rpcError('not_found', `no inbox task ${id}`);
  return t;
}

const methods = {
  'hub.info': () => hubInfo(),
  'agents.list': () => ({ agents: agents() }),
  'agents.get': (p) => {
    const a = agents().find((x) => x.id === p?.id);
    if (!a) throw rpcError('not_found', `no agent ${p?.id}`);
    return a;
  },
  'tasks.list': (p = {}) => {
    const limit = p.limit === undefined ? 50 : p.limit;
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw rpcError('invalid_params', 'limit must be 1..200');
    let list = order.map((k) => tasks.get(k).summary);
    if (p.agent) list = list.filter((s) => s.agent === p.agent);
    if (p.state) list = list.filter((s) => s.state === p.state);
    list = list.reverse().sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0)); // newest first by creation
    const start = p.cursor ? Number(Buffer.from(p.cursor, 'base64').toString()) : 0;
    if (!Number.isFinite(start)) throw rpcError('invalid_params', 'bad cursor');
    const page = list.slice(start, start + limit).map((s) => ({ ...s }));
    const next = start + limit < list.length ? Buffer.from(String(start + limit)).toString('base64') : undefined;
    return next ? { tasks: page, next } : { tasks: page };
  },
  'tasks.get': (p) => {
    const t = needTask(p);
    return { summary: { ...t.summary }, history: t.history, artifacts: t.artifacts, status: t.status, events: t.events, raw: rawTask(t) };
  },
  'tasks.events': (p) => {
    const t = needTask(p);
    const after = Number(p.after ?? 0);
    return { events: t.events.filter((e) => e.seq > after) };
  },
  'inbox.list': () => {
    const items = [];
    for (let i = order.length - 1; i >= 0; i--) {
      const t = tasks.get(order[i]);
      if (!t.inbox) continue;
      const last = [...t.history].reverse()[0];
      items.push({ ...t.summary, unread: t.inbox.unread, lastMessage: last });
    }
    items.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : -1));
    return { tasks: items, unread: inboxCounts().unread };
  },
  'inbox.act': (p) => {
    if (!p || typeof p.id !== 'string') throw rpcError('invalid_params', 'id is required');
    const t = inboxTask(p.id);
    return act(t, p.action, typeof p.text === 'string' ? p.text : '', Array.isArray(p.files) ? p.files : []);
  },
  'inbox.markRead': (p) => {
    const t = inboxTask(p?.id);
    t.inbox.unread = false;
    pushInboxCounts();
    return { unread: inboxCounts().unread };
  },
};

let downUntil = 0;

const wss = new WebSocketServer({ noServer: true });
wss.on('connection', (ws) => {
  clients.add(ws);
  ws.on('close', () => clients.delete(ws));
  ws.send(JSON.stringify({ topic: 'hello', data: hubInfo() }));
  ws.on('message', async (buf) => {
    let f;
    try {
      f = JSON.parse(String(buf));
    } catch {
      ws.send(JSON.stringify({ id: null, error: { code: 'bad_request', message: 'frame is not JSON' } }));
      return;
    }
    const fn = methods[f?.method];
    if (!fn) {
      ws.send(JSON.stringify({ id: f?.id, error: { code: 'unknown_method', message: `unknown method ${f?.method}` } }));
      return;
    }
    try {
      const result = await fn(f.params ?? {});
      ws.send(JSON.stringify({ id: f.id, result }));
    } catch (e) {
      ws.send(JSON.stringify({ id: f.id, error: e.rpc ?? { code: 'internal', message: String(e?.message ?? e) } }));
    }
  });
});

// ---------------------------------------------------------------- HTTP

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json' };

function body(req) {
  return new Promise((res) => {
    let s = '';
    req.on('data', (c) => (s += c));
    req.on('end', () => {
      try {
        res(s ? JSON.parse(s) : {});
      } catch {
        res({});
      }
    });
  });
}

const server = createServer(async (req, res) => {
  const url = new URL(req.url, 'http://x');
  const json = (code, v) => {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(v));
  };
  if (url.pathname === '/ui/ws') {
    if (url.searchParams.get('token') !== TOKEN) return json(401, { error: 'bad token' });
    return json(400, { error: 'websocket upgrade expected' });
  }
  if (req.method === 'POST' && url.pathname.startsWith('/mock/')) {
    const b = await body(req);
    switch (url.pathname) {
      case '/mock/send': {
        const agent = b.agent === 'hub' ? 'hub' : 'demo';
        const t = agent === 'hub' ? inboxMessage(String(b.text ?? 'Hello')) : newTask('demo', String(b.text ?? 'hello'), { direction: 'outgoing' });
        if (agent === 'demo') void runDemo(t, String(b.text ?? 'hello'));
        return json(200, { agent, id: t.summary.id });
      }
      case '/mock/reply': {
        const t = tasks.get(key('hub', String(b.id)));
        if (!t) return json(404, { error: 'no such inbox task' });
        try {
          senderReplies(t, String(b.text ?? ''));
        } catch (e) {
          return json(409, { error: String(e.message) });
        }
        return json(200, { ok: true });
      }
      case '/mock/lag':
        broadcast({ topic: 'lagged', data: {} });
        return json(200, { ok: true });
      case '/mock/gap':
        for (const k of tasks.keys()) dropNext.add(k);
        return json(200, { ok: true });
      case '/mock/down': {
        downUntil = Date.now() + Number(b.ms ?? 5000);
        for (const ws of clients) ws.terminate();
        return json(200, { ok: true });
      }
    }
    return json(404, { error: 'unknown mock endpoint' });
  }
  // static files from dist/
  let p = normalize(decodeURIComponent(url.pathname)).replace(/^(\.\.[/\\])+/, '');
  if (p === '/' || p === '') p = '/index.html';
  const file = join(DIST, p);
  if (!file.startsWith(DIST) || !existsSync(file) || !statSync(file).isFile()) {
    if (p === '/index.html') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end('dist/ is not built: run `npm run build`, or use `npm run dev` with VITE_HUB_WS.');
    }
    res.writeHead(404);
    return res.end('not found');
  }
  res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
  res.end(readFileSync(file));
});

server.on('upgrade', (req, socket, head) => {
  const url = new URL(req.url, 'http://x');
  const refuse = (code, text) => {
    socket.write(`HTTP/1.1 ${code} ${text}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    socket.destroy();
  };
  if (url.pathname !== '/ui/ws') return refuse(404, 'Not Found');
  if (Date.now() < downUntil) return refuse(503, 'Service Unavailable');
  if (url.searchParams.get('token') !== TOKEN) return refuse(401, 'Unauthorized');
  wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
});

server.listen(PORT, '127.0.0.1', () => {
  const port = server.address().port;
  hubUrl = `http://127.0.0.1:${port}`;
  seed();
  process.stdout.write(`AgentHub mock gateway\nws: ws://127.0.0.1:${port}/ui/ws\nui: http://127.0.0.1:${port}/#token=${TOKEN}\n`);
});
