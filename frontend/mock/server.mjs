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
//
// Chats: two remote agents to talk to. "Echo Lab" (A2A 1.0, streaming, credentials optional) answers
// by command: "ask" (an input-required question, answered in place), "slow N" (progress, cancelable),
// "file", "link", "data", "fail", "error" (the call fails), anything else (a Markdown reply streamed in
// chunks). "Weather Oracle" (A2A 0.3, no streaming) refuses every call (auth error) until a client ID
// and secret are saved in its Credentials, then answers at once. Every call shows up in the agent's
// raw log (Agents → the agent → Raw log).

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
  securitySchemes: {
    oauth: { type: 'oauth2', description: 'Client credentials', flows: { clientCredentials: { tokenUrl: 'https://weather.example.com/token', scopes: { read: 'Read forecasts' } } } },
    mtls: { type: 'mutualTLS', description: 'For partners' },
  },
  security: [{ oauth: ['read'] }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain', 'image/png'],
  skills: [
    { name: 'Forecast', description: 'Seven-day forecast for a city.', tags: ['weather'], examples: ['Weather in Lisbon this weekend?', 'Will it rain in Oslo tomorrow?'], inputModes: ['text/plain'], outputModes: ['text/plain', 'image/png'] },
  ],
};

const LAB = 'https://lab.example.net';
const labCard = {
  name: 'Echo Lab',
  description: 'A remote agent that streams Markdown answers, asks questions back, works slowly on demand and returns files and data.',
  version: '3.0.1',
  provider: { organization: 'Example Labs', url: 'https://lab.example.net' },
  defaultInputModes: ['text/plain', 'application/json', 'application/octet-stream'],
  defaultOutputModes: ['text/markdown', 'application/json', 'application/octet-stream'],
  capabilities: { streaming: true, pushNotifications: false },
  securitySchemes: {
    key: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key', description: 'A key from your Example Labs account page' } },
    jwt: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
    openid: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://lab.example.net/.well-known/openid-configuration' } },
  },
  skills: [
    { id: 'chat', name: 'Chat', description: 'Answers in Markdown, streamed.', tags: ['streaming', 'markdown'], examples: ['Tell me about A2A'] },
    { id: 'ask', name: 'Ask back', description: 'Asks you a question first (input-required).', tags: ['input-required'], examples: ['ask'] },
    { id: 'slow', name: 'Slow job', description: 'Works N seconds with progress; cancel it any time.', tags: ['cancel'], examples: ['slow 8'] },
    { id: 'files', name: 'Files and data', description: 'Returns a file ("file"), a link to one ("link") or data ("data").', tags: ['file', 'data'], examples: ['file', 'link', 'data'] },
  ],
  supportedInterfaces: [{ url: `${LAB}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
};

/** agentId -> scheme name -> saved (the mock keeps no secrets at all) */
const saved = { weather: { oauth: false }, lab: { key: false, jwt: false } };

function authOf(id) {
  if (id === 'weather') {
    return {
      schemes: [
        { name: 'oauth', kind: 'oauth2', tokenUrl: 'https://weather.example.com/token', scopes: ['read'], description: 'Client credentials', saved: saved.weather.oauth },
        { name: 'mtls', kind: 'unsupported', unsupported: 'Mutual TLS client certificates are not supported by the hub.', description: 'For partners', saved: false },
      ],
      alternatives: [['oauth']],
      required: true,
      satisfied: saved.weather.oauth,
      store: 'keyring',
    };
  }
  return {
    schemes: [
      { name: 'key', kind: 'apiKey', in: 'header', paramName: 'X-Api-Key', description: 'A key from your Example Labs account page', saved: saved.lab.key },
      { name: 'jwt', kind: 'bearer', saved: saved.lab.jwt },
      { name: 'openid', kind: 'unsupported', unsupported: 'OpenID Connect needs a browser sign-in, which the hub does not do yet.', saved: false },
    ],
    alternatives: [],
    required: false,
    satisfied: saved.lab.key || saved.lab.jwt,
    store: 'file /home/you/.config/agenthub/credentials.json',
  };
}

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
      online: true,
      protocolVersions: ['0.3'],
      card: weatherCard,
      problems: [
        { path: 'skills[0].id', message: 'is required' },
        { path: 'documentationUrl', message: 'must be an http(s) URL' },
      ],
      fetchedAt: nowIso(Date.now() - 3_600_000),
      dialect: '0.3',
      streaming: false,
      auth: authOf('weather'),
    },
    {
      id: 'lab',
      name: 'Echo Lab',
      description: labCard.description,
      kind: 'remote',
      url: `${LAB}/a2a`,
      cardUrl: `${LAB}/.well-known/agent-card.json`,
      online: true,
      protocolVersions: ['1.0'],
      card: labCard,
      problems: [],
      fetchedAt: nowIso(Date.now() - 600_000),
      dialect: '1.0',
      streaming: true,
      auth: authOf('lab'),
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

// ---------------------------------------------------------------- chats with remote agents

/** id -> {conv, entries, tasks: Map taskId -> {state, canceled}} */
const chats = new Map();
/** agentId -> WireEntry[] (oldest first) */
const wire = new Map();
let wireSeq = 0;

function wireRecord(agentId, e, at = Date.now()) {
  const entry = { id: ++wireSeq, at: nowIso(at), header: {}, body: '', ...e };
  if (!wire.has(agentId)) wire.set(agentId, []);
  wire.get(agentId).push(entry);
  broadcast({ topic: 'wire', data: { agentId, entry } });
  return entry;
}

function authHeader(agentId) {
  if (agentId === 'lab' && saved.lab.key) return { 'X-Api-Key': '•••' };
  if (agentId === 'lab' && saved.lab.jwt) return { Authorization: 'Bearer •••' };
  if (agentId === 'weather' && saved.weather.oauth) return { Authorization: 'Bearer •••' };
  return {};
}

function newConversation(agentId, at = Date.now()) {
  const a = agents().find((x) => x.id === agentId);
  const conv = { id: randomUUID(), agentId, agentName: a.name, title: '', createdAt: nowIso(at), updatedAt: nowIso(at), busy: false, dialect: a.dialect };
  const c = { conv, entries: [], tasks: new Map() };
  chats.set(conv.id, c);
  return c;
}

/** Records a chat entry, updates the conversation and pushes both. */
function chatRecord(c, e, at = Date.now()) {
  const entry = { seq: c.entries.length + 1, at: nowIso(at), final: false, ...e };
  if (entry.taskId && (entry.kind === 'task' || entry.kind === 'status')) {
    const st = entry.status?.state ?? entry.state;
    entry.state = st;
    entry.final = TERMINAL.has(st) || st === 'input-required';
    const t = c.tasks.get(entry.taskId) ?? { canceled: false };
    t.state = st;
    c.tasks.set(entry.taskId, t);
    c.conv.state = st;
  }
  if (entry.kind === 'error') entry.final = true;
  c.entries.push(entry);
  c.conv.updatedAt = entry.at;
  broadcast({ topic: 'chat', data: { conversationId: c.conv.id, conversation: { ...c.conv }, entry } });
  return entry;
}

function setBusy(c, busy) {
  c.conv.busy = busy;
}

const MARKDOWN_REPLY = (input) => `### You said

> ${input.replace(/\n/g, '\n> ')}

Here is what **Echo Lab** can show you in a chat:

- *streamed* text that grows in one bubble
- \`inline code\` and blocks:

\`\`\`js
const answer = await hub.call('chats.send', { id, text: 'hello' });
\`\`\`

| command | what happens |
|---|---|
| \`ask\` | a question back (input-required) |
| \`slow 8\` | progress for 8 s — try **Cancel** |
| \`file\` / \`link\` / \`data\` | a file, a link, structured data |

Links open in your browser: [the A2A spec](https://a2a-protocol.org/). Raw HTML such as <img src=x onerror=alert(1)> is shown as text, and [this link](javascript:alert(1)) is not a link.`;

function chunksOf(text, n) {
  const out = [];
  const size = Math.max(1, Math.ceil(text.length / n));
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** The SSE event for an entry, as the hub would have logged it. */
function sseBody(c, e) {
  if (e.kind === 'artifact')
    return `data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { kind: 'artifact-update', taskId: e.taskId, contextId: c.conv.contextId, artifact: { artifactId: e.artifact.id, parts: e.artifact.parts }, append: !!e.artifact.append, lastChunk: !!e.artifact.lastChunk } })}`;
  return `data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { kind: e.kind === 'task' ? 'task' : 'status-update', taskId: e.taskId, contextId: c.conv.contextId, status: e.status, final: e.final } })}`;
}

/** One reply of Echo Lab, streamed: each entry is recorded and logged as an SSE event. */
async function runLab(c, input, answerTo) {
  const callId = randomUUID().slice(0, 8);
  const url = `${LAB}/a2a`;
  const started = Date.now();
  const header = { 'Content-Type': 'application/json', Accept: 'text/event-stream', 'A2A-Version': '1.0', ...authHeader('lab') };
  const request = { jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: { role: 'ROLE_USER', contextId: c.conv.contextId, taskId: answerTo, parts: [{ text: input }] } } };
  wireRecord('lab', { callId, kind: 'request', method: 'SendStreamingMessage', url, header, body: JSON.stringify(request) });
  await sleep(120);
  if (/^error\b/i.test(input)) {
    wireRecord('lab', { callId, kind: 'error', method: 'SendStreamingMessage', url, durationMs: Date.now() - started, body: 'dial tcp 203.0.113.7:443: connect: connection refused' });
    setBusy(c, false);
    chatRecord(c, { direction: 'local', kind: 'error', error: { kind: 'network', message: 'dial tcp 203.0.113.7:443: connect: connection refused' } });
    return;
  }
  wireRecord('lab', { callId, kind: 'response', method: 'SendStreamingMessage', url, status: 200, durationMs: Date.now() - started, header: { 'Content-Type': 'text/event-stream' } });
  const emit = (e) => {
    const entry = chatRecord(c, { direction: 'in', ...e });
    wireRecord('lab', { callId, kind: 'event', method: 'SendStreamingMessage', url, body: sseBody(c, entry) });
    return entry;
  };
  const agentMsg = (text) => ({ id: randomUUID(), role: 'agent', parts: [{ kind: 'text', text }] });
  const cmd = input.trim().split(/\s+/)[0].toLowerCase();
  let taskId = answerTo;
  if (!taskId) {
    taskId = randomUUID();
    emit({ kind: 'task', taskId, status: { state: 'submitted', at: nowIso() } });
  }
  const t = c.tasks.get(taskId);
  await sleep(200);
  const finish = (state, message) => {
    setBusy(c, false); // the conversation pushed with the final entry is no longer busy
    emit({ kind: 'status', taskId, status: { state, at: nowIso(), ...(message ? { message: agentMsg(message) } : {}) } });
  };
  if (answerTo) {
    const story = `Thanks! A short story about **${input.trim() || 'nobody'}**:\n\nOnce upon a time, ${input.trim() || 'someone'} found an agent that asked before it answered. They talked, the task stayed the same, and the context never changed. *The end.*`;
    emit({ kind: 'status', taskId, status: { state: 'working', at: nowIso() } });
    const id = randomUUID();
    const parts = chunksOf(story, 8);
    for (let i = 0; i < parts.length; i++) {
      await sleep(TICK / 6);
      emit({ kind: 'artifact', taskId, artifact: { id, name: 'story', parts: [{ kind: 'text', text: parts[i] }], append: i > 0, lastChunk: i === parts.length - 1 } });
    }
    finish('completed');
    return;
  }
  emit({ kind: 'status', taskId, status: { state: 'working', at: nowIso() } });
  if (cmd === 'ask') {
    finish('input-required', 'Who should the story be about? Answer with a name.');
  } else if (cmd === 'slow') {
    const n = Math.min(600, Math.max(1, Number(input.trim().split(/\s+/)[1]) || 8));
    for (let i = 0; i < n; i++) {
      if (t?.canceled) return finish('canceled', 'Canceled at your request.');
      emit({ kind: 'status', taskId, status: { state: 'working', at: nowIso(), message: agentMsg(`Working for ${n} seconds: ${i}/${n}`) } });
      await sleep(TICK);
    }
    if (t?.canceled) return finish('canceled', 'Canceled at your request.');
    emit({ kind: 'artifact', taskId, artifact: { id: randomUUID(), name: 'result', parts: [{ kind: 'text', text: `Done after **${n}** seconds.` }], lastChunk: true } });
    finish('completed');
  } else if (cmd === 'file') {
    const body = `Hello from Echo Lab.\nMade at ${new Date().toISOString()}.\n`;
    emit({ kind: 'artifact', taskId, artifact: { id: randomUUID(), name: 'hello.txt', parts: [{ kind: 'text', text: 'Here is your file:' }, { kind: 'file', name: 'hello.txt', mediaType: 'text/plain', bytes: Buffer.from(body).toString('base64') }], lastChunk: true } });
    finish('completed');
  } else if (cmd === 'link') {
    emit({ kind: 'artifact', taskId, artifact: { id: randomUUID(), name: 'report', parts: [{ kind: 'file', name: 'report.pdf', mediaType: 'application/pdf', url: 'https://lab.example.net/files/report.pdf', size: 48213 }], lastChunk: true } });
    finish('completed');
  } else if (cmd === 'data') {
    emit({ kind: 'artifact', taskId, artifact: { id: randomUUID(), name: 'data', parts: [{ kind: 'data', data: { agent: 'lab', primes: [2, 3, 5, 7, 11, 13], nested: { ok: true, at: new Date().toISOString() } } }], lastChunk: true } });
    finish('completed');
  } else if (cmd === 'fail') {
    finish('failed', 'The upstream model returned **503 Service Unavailable**. Try again later.');
  } else {
    const id = randomUUID();
    const parts = chunksOf(MARKDOWN_REPLY(input), 14);
    for (let i = 0; i < parts.length; i++) {
      if (t?.canceled) return finish('canceled');
      await sleep(TICK / 5);
      emit({ kind: 'artifact', taskId, artifact: { id, name: 'answer', parts: [{ kind: 'text', text: parts[i] }], append: i > 0, lastChunk: i === parts.length - 1 } });
    }
    finish('completed');
  }
}

/** Weather Oracle: v0.3, not streaming, refuses calls until OAuth client credentials are saved. */
async function runWeather(c, input) {
  const callId = randomUUID().slice(0, 8);
  const url = 'https://weather.example.com/a2a';
  const started = Date.now();
  const request = { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', contextId: c.conv.contextId, parts: [{ kind: 'text', text: input }] } } };
  if (saved.weather.oauth) {
    const tok = { grant_type: 'client_credentials', client_id: '•••', client_secret: '•••', scope: 'read' };
    wireRecord('weather', { callId, kind: 'request', method: 'POST token', url: 'https://weather.example.com/token', header: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(tok).toString() });
    wireRecord('weather', { callId, kind: 'response', method: 'POST token', url: 'https://weather.example.com/token', status: 200, durationMs: 85, header: { 'Content-Type': 'application/json' }, body: JSON.stringify({ access_token: '•••', token_type: 'Bearer', expires_in: 3600 }) });
  }
  wireRecord('weather', { callId, kind: 'request', method: 'message/send', url, header: { 'Content-Type': 'application/json', ...authHeader('weather') }, body: JSON.stringify(request) });
  await sleep(400);
  if (!saved.weather.oauth) {
    const body = { jsonrpc: '2.0', id: 1, error: { code: -32030, message: 'Unauthorized: an OAuth 2.0 bearer token is required' } };
    wireRecord('weather', { callId, kind: 'response', method: 'message/send', url, status: 401, durationMs: Date.now() - started, header: { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Bearer realm="weather"' }, body: JSON.stringify(body) });
    setBusy(c, false);
    chatRecord(c, { direction: 'local', kind: 'error', error: { kind: 'auth', message: 'HTTP 401: Unauthorized: an OAuth 2.0 bearer token is required', code: 401 } });
    return;
  }
  const taskId = randomUUID();
  const city = (input.match(/in ([A-Z][a-zA-Z]+)/) ?? [])[1] ?? 'Lisbon';
  const table = `**${city}**, next three days:\n\n| day | sky | high | low |\n|---|---|---:|---:|\n| Fri | ☀️ sunny | 24° | 15° |\n| Sat | ⛅ clouds | 21° | 14° |\n| Sun | 🌧 rain | 17° | 12° |`;
  const task = { kind: 'task', id: taskId, contextId: c.conv.contextId, status: { state: 'completed' }, artifacts: [{ artifactId: 'forecast', parts: [{ kind: 'text', text: table }] }] };
  wireRecord('weather', { callId, kind: 'response', method: 'message/send', url, status: 200, durationMs: Date.now() - started, header: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, result: task }) });
  chatRecord(c, { direction: 'in', kind: 'task', taskId, status: { state: 'working', at: nowIso() } });
  chatRecord(c, { direction: 'in', kind: 'artifact', taskId, artifact: { id: 'forecast', name: 'forecast', parts: [{ kind: 'text', text: table }], lastChunk: true } });
  setBusy(c, false);
  chatRecord(c, { direction: 'in', kind: 'status', taskId, status: { state: 'completed', at: nowIso() } });
}

function chatSend(c, p) {
  const a = agents().find((x) => x.id === c.conv.agentId);
  if (!a) throw rpcError('not_found', `agent ${c.conv.agentId} was removed`);
  const text = typeof p.text === 'string' ? p.text : '';
  const files = Array.isArray(p.files) ? p.files : [];
  if (!text.trim() && files.length === 0 && p.data === undefined) throw rpcError('invalid_params', 'an empty message: give text, files or data');
  const total = files.reduce((n, f) => n + Buffer.from(f.bytes ?? '', 'base64').length, 0);
  if (total > 8 * 1024 * 1024) throw rpcError('invalid_params', 'files may take 8 MiB in all');
  if (p.taskId !== undefined) {
    const t = c.tasks.get(p.taskId);
    if (!t) throw rpcError('not_found', `no task ${p.taskId} in this conversation`);
    if (t.state !== 'input-required') throw rpcError('conflict', `task ${p.taskId} is ${t.state}, not waiting for an answer`);
  }
  const parts = [
    ...(text ? [{ kind: 'text', text }] : []),
    ...files.map((f) => ({ kind: 'file', name: f.name, mediaType: f.mediaType, bytes: f.bytes, size: Buffer.from(f.bytes ?? '', 'base64').length })),
    ...(p.data !== undefined ? [{ kind: 'data', data: p.data }] : []),
  ];
  if (!c.conv.contextId) c.conv.contextId = randomUUID();
  if (!c.conv.title) c.conv.title = (text.replace(/\s+/g, ' ').trim() || files[0]?.name || 'Data').slice(0, 60);
  setBusy(c, true);
  const entry = chatRecord(c, { direction: 'out', kind: 'message', taskId: p.taskId, message: { id: randomUUID(), role: 'user', parts } });
  const input = text || (files.length ? `(${files.length} file${files.length === 1 ? '' : 's'})` : 'data');
  setTimeout(() => void (c.conv.agentId === 'weather' ? runWeather(c, input) : runLab(c, input, p.taskId)), 60);
  return entry;
}

function needChat(p) {
  if (!p || typeof p.id !== 'string') throw rpcError('invalid_params', 'id is required');
  const c = chats.get(p.id);
  if (!c) throw rpcError('not_found', `no conversation ${p.id}`);
  return c;
}

function seedChats() {
  const now = Date.now();
  // a finished exchange, recorded entry by entry
  const a = newConversation('lab', now - 3 * 3_600_000);
  a.conv.contextId = randomUUID();
  a.conv.title = 'What can you do?';
  let at = now - 3 * 3_600_000;
  chatRecord(a, { direction: 'out', kind: 'message', message: { id: randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'What can you do?' }] } }, at);
  const t1 = randomUUID();
  chatRecord(a, { direction: 'in', kind: 'task', taskId: t1, status: { state: 'working' } }, (at += 300));
  const reply = MARKDOWN_REPLY('What can you do?');
  const id = randomUUID();
  chunksOf(reply, 5).forEach((part, i, all) =>
    chatRecord(a, { direction: 'in', kind: 'artifact', taskId: t1, artifact: { id, name: 'answer', parts: [{ kind: 'text', text: part }], append: i > 0, lastChunk: i === all.length - 1 } }, (at += 200)),
  );
  chatRecord(a, { direction: 'in', kind: 'status', taskId: t1, status: { state: 'completed' } }, (at += 100));
  wireRecord('lab', { callId: 'seed0001', kind: 'request', method: 'SendStreamingMessage', url: `${LAB}/a2a`, header: { 'Content-Type': 'application/json', Accept: 'text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: { role: 'ROLE_USER', parts: [{ text: 'What can you do?' }] } } }) }, now - 3 * 3_600_000);
  wireRecord('lab', { callId: 'seed0001', kind: 'response', method: 'SendStreamingMessage', url: `${LAB}/a2a`, status: 200, durationMs: 212, header: { 'Content-Type': 'text/event-stream' } }, now - 3 * 3_600_000 + 212);

  // a question waiting for the owner
  const b = newConversation('lab', now - 20 * 60_000);
  b.conv.contextId = randomUUID();
  b.conv.title = 'ask';
  chatRecord(b, { direction: 'out', kind: 'message', message: { id: randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'ask' }] } }, now - 20 * 60_000);
  const t2 = randomUUID();
  chatRecord(b, { direction: 'in', kind: 'task', taskId: t2, status: { state: 'working' } }, now - 20 * 60_000 + 300);
  chatRecord(b, { direction: 'in', kind: 'status', taskId: t2, status: { state: 'input-required', message: { id: randomUUID(), role: 'agent', parts: [{ kind: 'text', text: 'Who should the story be about? Answer with a name.' }] } } }, now - 20 * 60_000 + 500);

  // the weather agent wants credentials
  const w = newConversation('weather', now - 50 * 60_000);
  w.conv.contextId = randomUUID();
  w.conv.title = 'Weather in Lisbon this weekend?';
  chatRecord(w, { direction: 'out', kind: 'message', message: { id: randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'Weather in Lisbon this weekend?' }] } }, now - 50 * 60_000);
  chatRecord(w, { direction: 'local', kind: 'error', error: { kind: 'auth', message: 'HTTP 401: Unauthorized: an OAuth 2.0 bearer token is required', code: 401 } }, now - 50 * 60_000 + 400);
  wireRecord('weather', { callId: 'seed0002', kind: 'request', method: 'message/send', url: 'https://weather.example.com/a2a', header: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: { kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'Weather in Lisbon this weekend?' }] } } }) }, now - 50 * 60_000);
  wireRecord('weather', { callId: 'seed0002', kind: 'response', method: 'message/send', url: 'https://weather.example.com/a2a', status: 401, durationMs: 391, header: { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Bearer realm="weather"' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32030, message: 'Unauthorized: an OAuth 2.0 bearer token is required' } }) }, now - 50 * 60_000 + 391);
}

const CREDENTIAL_FIELDS = { apiKey: ['apiKey'], bearer: ['token'], oauth2: ['clientId', 'clientSecret'] };

const chatMethods = {
  'chats.list': (p = {}) => {
    let list = [...chats.values()].map((c) => ({ ...c.conv }));
    if (p.agentId) list = list.filter((c) => c.agentId === p.agentId);
    list.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0));
    return { conversations: list };
  },
  'chats.start': (p) => {
    const a = agents().find((x) => x.id === p?.agentId);
    if (!a) throw rpcError('not_found', `no agent ${p?.agentId}`);
    if (a.kind !== 'remote') throw rpcError('invalid_params', `${a.name} is not a remote agent`);
    return { ...newConversation(a.id).conv };
  },
  'chats.get': (p) => {
    const c = needChat(p);
    return { conversation: { ...c.conv }, entries: c.entries };
  },
  'chats.send': (p) => chatSend(needChat(p), p),
  'chats.cancel': (p) => {
    const c = needChat(p);
    const t = c.tasks.get(p.taskId);
    if (!t) throw rpcError('not_found', `no task ${p.taskId} in this conversation`);
    if (TERMINAL.has(t.state)) throw rpcError('conflict', `task ${p.taskId} is already ${t.state}`);
    t.canceled = true;
    if (t.state === 'input-required' || !c.conv.busy) {
      setTimeout(() => chatRecord(c, { direction: 'in', kind: 'status', taskId: p.taskId, status: { state: 'canceled', at: nowIso() } }), 150);
    }
    return {};
  },
  'chats.rename': (p) => {
    const c = needChat(p);
    if (typeof p.title !== 'string' || !p.title.trim()) throw rpcError('invalid_params', 'a title is required');
    c.conv.title = p.title.trim().slice(0, 200);
    broadcast({ topic: 'chat', data: { conversationId: c.conv.id, conversation: { ...c.conv } } }); // no entry: only the conversation changed
    return { ...c.conv };
  },
  'chats.delete': (p) => {
    needChat(p);
    chats.delete(p.id);
    broadcast({ topic: 'chat', data: { conversationId: p.id } }); // no conversation: it is gone
    return {};
  },
  'agents.setCredential': (p) => {
    const a = agents().find((x) => x.id === p?.id);
    if (!a || !a.auth) throw rpcError('not_found', `no remote agent ${p?.id}`);
    const s = a.auth.schemes.find((x) => x.name === p.scheme);
    if (!s) throw rpcError('invalid_params', `the card has no scheme ${p.scheme}`);
    const need = CREDENTIAL_FIELDS[s.kind];
    if (!need) throw rpcError('invalid_params', `scheme ${p.scheme} is not supported`);
    for (const f of need) if (typeof p[f] !== 'string' || !p[f].trim()) throw rpcError('invalid_params', `${f} is required for ${s.kind}`);
    saved[a.id][s.name] = true;
    broadcast({ topic: 'agents', data: { id: a.id } });
    return agents().find((x) => x.id === a.id);
  },
  'agents.clearCredential': (p) => {
    const a = agents().find((x) => x.id === p?.id);
    if (!a || !a.auth) throw rpcError('not_found', `no remote agent ${p?.id}`);
    if (!(p.scheme in saved[a.id])) throw rpcError('invalid_params', `no saved credential for ${p.scheme}`);
    saved[a.id][p.scheme] = false;
    broadcast({ topic: 'agents', data: { id: a.id } });
    return agents().find((x) => x.id === a.id);
  },
  'wire.list': (p) => {
    if (!p || typeof p.agentId !== 'string') throw rpcError('invalid_params', 'agentId is required');
    const limit = p.limit === undefined ? 100 : p.limit;
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw rpcError('invalid_params', 'limit must be 1..500');
    let list = [...(wire.get(p.agentId) ?? [])].reverse();
    if (p.before !== undefined) list = list.filter((e) => e.id < p.before);
    const page = list.slice(0, limit);
    return list.length > limit ? { entries: page, next: page[page.length - 1].id } : { entries: page };
  },
};

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

Object.assign(methods, chatMethods);

// ---------------------------------------------------------------- access (Settings → Access)

const principals = new Map(); // name → AccessKey
let anonymous = 'send';
const NAME_RE = /^[a-z0-9][a-z0-9._-]{0,63}$/;
function newKey() {
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let k = 'ahk_';
  for (let i = 0; i < 43; i++) k += abc[Math.floor(Math.random() * abc.length)];
  return k;
}
function issue(name) {
  const key = newKey();
  const principal = { id: `agent://${name}`, name, keyPrefix: key.slice(0, 12), createdAt: new Date().toISOString() };
  principals.set(name, principal);
  broadcast({ topic: 'access', data: { name } });
  return { principal, key };
}
Object.assign(methods, {
  'access.list': () => ({ principals: [...principals.values()].sort((a, b) => a.name.localeCompare(b.name)) }),
  'access.add': (p) => {
    if (typeof p?.name !== 'string' || !NAME_RE.test(p.name)) throw rpcError('invalid_params', 'a principal name is 1 to 64 characters: lower-case letters, digits, ".", "_" and "-", starting with a letter or digit');
    if (principals.has(p.name)) throw rpcError('conflict', `add ${p.name}: a principal of that name already exists`);
    return issue(p.name);
  },
  'access.rotate': (p) => {
    if (!principals.has(p?.name)) throw rpcError('not_found', `rotate ${p?.name}: no such principal`);
    const old = principals.get(p.name);
    const out = issue(p.name);
    out.principal.lastUsedAt = old.lastUsedAt;
    return out;
  },
  'access.remove': (p) => {
    if (!principals.delete(p?.name)) throw rpcError('not_found', `remove ${p?.name}: no such principal`);
    broadcast({ topic: 'access', data: { name: p.name } });
    return {};
  },
  'access.policy': () => ({ anonymous }),
  'access.setPolicy': (p) => {
    if (!['off', 'read-public', 'send'].includes(p?.anonymous)) throw rpcError('invalid_params', 'the anonymous policy is "off", "read-public" or "send"');
    anonymous = p.anonymous;
    broadcast({ topic: 'access', data: { name: '' } });
    return { anonymous };
  },
});

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
  if (SEED_TASKS > 0) seedChats(); // --empty: no chats either
  process.stdout.write(`AgentHub mock gateway\nws: ws://127.0.0.1:${port}/ui/ws\nui: http://127.0.0.1:${port}/#token=${TOKEN}\n`);
});
