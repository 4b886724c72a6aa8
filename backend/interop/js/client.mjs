// Drives the AgentHub demo agent with the official A2A JavaScript SDK (@a2a-js/sdk) client, to prove
// that an independent client implementation understands our server. Run by ../js_test.go:
//
//   node client.mjs http://127.0.0.1:PORT[,http://127.0.0.1:PORT2,...]   (several: replicas, called in turn)
//
// Every scenario runs three times, once per protocol version and binding the agent card advertises:
//   1.0  what any SDK user gets: ClientFactory.createFromUrl picks the v1.0 JSON-RPC interface
//        (methods SendMessage, SendStreamingMessage, GetTask, CancelTask, SubscribeToTask).
//   0.3  the SDK's own v0.3 compat transport, chosen by the SDK's factory for the card's v0.3
//        interface (methods message/send, message/stream, tasks/get, tasks/cancel, tasks/resubscribe).
//   1.0-rest  v1.0 over the card's HTTP+JSON interface, through the SDK's RestTransportFactory
//        (POST /message:send, /message:stream, GET /tasks/{id}, POST /tasks/{id}:cancel, :subscribe).
//
// It prints one JSON line per scenario, {"protocol","scenario","ok","detail"}, and exits 1 if any
// failed. Only the SDK talks to the agent: no hand-made HTTP requests.

import { randomUUID } from 'node:crypto';

import { Role, TaskState, taskStateToJSON } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { TaskNotFoundError, UnsupportedOperationError, isJsonRpcError, isRestError } from '@a2a-js/sdk/errors';

// Scenario names; ../js_test.go expects exactly these, for each protocol.
const SCENARIOS = ['card', 'send', 'stream', 'ask', 'file', 'data', 'cancel', 'get', 'resubscribe', 'not-found'];

// Upper bound for one SDK call or one whole stream, so a stuck server fails a scenario instead of
// hanging the run (the Go test has its own, larger, deadline).
const CALL_TIMEOUT_MS = 20_000;

class CheckFailed extends Error {}

function check(cond, msg) {
  if (!cond) throw new CheckFailed(msg);
}

function opts() {
  return { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) };
}

// ---- building requests and reading results (the SDK uses its proto-shaped v1.0 types) ----

function userMessage(text, { taskId = '', contextId = '' } = {}) {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function sendRequest(text, ids) {
  return { tenant: '', message: userMessage(text, ids), configuration: undefined, metadata: undefined };
}

const stateName = (s) => (s === undefined ? 'none' : taskStateToJSON(s).replace(/^TASK_STATE_/, '').toLowerCase());

const partsText = (parts = []) =>
  parts.filter((p) => p.content?.$case === 'text').map((p) => p.content.value).join('');

// A sendMessage result is a Task or a Message; a Message has a messageId, a Task does not.
function asTask(result, what) {
  check(result && !('messageId' in result), `${what}: expected a Task, got a Message: ${JSON.stringify(result)}`);
  return result;
}

function artifactNamed(task, name) {
  const a = (task.artifacts ?? []).find((x) => x.name === name);
  check(a, `task ${task.id} has no artifact named "${name}" (artifacts: ${JSON.stringify((task.artifacts ?? []).map((x) => x.name))})`);
  return a;
}

// One short word per stream event, e.g. "task:submitted status:working artifact:echo+".
function describeEvent(ev) {
  const p = ev.payload;
  switch (p?.$case) {
    case 'task':
      return `task:${stateName(p.value.status?.state)}`;
    case 'message':
      return 'message';
    case 'statusUpdate':
      return `status:${stateName(p.value.status?.state)}`;
    case 'artifactUpdate':
      return `artifact:${p.value.artifact?.name}${p.value.append ? '+' : ''}${p.value.lastChunk ? '.' : ''}`;
    default:
      return `unknown(${JSON.stringify(ev)})`;
  }
}

// The task state an event reports, if it reports one.
function eventState(ev) {
  const p = ev.payload;
  if (p?.$case === 'task' || p?.$case === 'statusUpdate') return p.value.status?.state;
  return undefined;
}

async function collect(stream) {
  const events = [];
  for await (const ev of stream) events.push(ev);
  return events;
}

async function sendAndExpectCompleted(client, text) {
  const task = asTask(await client.sendMessage(sendRequest(text), opts()), `send "${text}"`);
  check(task.status?.state === TaskState.TASK_STATE_COMPLETED, `send "${text}": state ${stateName(task.status?.state)}, want completed`);
  return task;
}

// ---- scenarios: each returns a detail string or throws ----

const scenarios = {
  // The SDK fetched and parsed the card (createFromUrl / the resolver) and chose the interface.
  async card(client, protocol) {
    const card = await client.getAgentCard(opts());
    check(card.name === 'AgentHub demo agent', `card name ${JSON.stringify(card.name)}`);
    check(card.capabilities?.streaming === true, 'card does not say capabilities.streaming');
    check(client.protocolVersion === versionOf(protocol), `SDK negotiated protocol ${client.protocolVersion}, want ${versionOf(protocol)}`);
    const binding = protocol.endsWith('-rest') ? 'HTTP+JSON' : 'JSONRPC';
    check(client.transport.protocolName === binding, `SDK chose the ${client.transport.protocolName} transport, want ${binding}`);
    const ifaces = (card.supportedInterfaces ?? []).map((i) => `${i.protocolBinding}/${i.protocolVersion}`);
    return `card "${card.name}" with ${(card.skills ?? []).length} skills; interfaces ${ifaces.join(', ')}; using ${client.transport.protocolName} ${client.protocolVersion}`;
  },

  // (a) A blocking send of plain text is echoed back as one artifact streamed in appended chunks.
  async send(client) {
    const input = 'hello from js';
    const task = await sendAndExpectCompleted(client, input);
    const echo = artifactNamed(task, 'echo');
    const got = partsText(echo.parts);
    check(got === input, `echo artifact text ${JSON.stringify(got)}, want ${JSON.stringify(input)}`);
    return `task ${task.id} completed; echo artifact in ${echo.parts.length} part(s) reads ${JSON.stringify(got)}`;
  },

  // (b) Streaming shows progress as working status updates, then completes.
  async stream(client) {
    const events = await collect(client.sendMessageStream(sendRequest('slow 2'), opts()));
    const kinds = events.map(describeEvent);
    const working = events.filter((e) => e.payload?.$case === 'statusUpdate' && e.payload.value.status?.state === TaskState.TASK_STATE_WORKING);
    check(working.length >= 2, `saw ${working.length} working status updates, want >= 2: ${kinds.join(' ')}`);
    const notes = working.map((e) => partsText(e.payload.value.status?.message?.parts));
    check(notes.every((n) => /^Working for 2 seconds: \d\/2$/.test(n)), `unexpected progress texts ${JSON.stringify(notes)}`);
    check(eventState(events.at(-1)) === TaskState.TASK_STATE_COMPLETED, `last event is ${kinds.at(-1)}, want completed: ${kinds.join(' ')}`);
    return kinds.join(' ');
  },

  // (c) input-required, answered in a second turn on the same task and context.
  async ask(client) {
    const first = asTask(await client.sendMessage(sendRequest('ask'), opts()), 'send "ask"');
    check(first.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED, `after "ask": state ${stateName(first.status?.state)}, want input-required`);
    const question = partsText(first.status?.message?.parts);
    check(question !== '', 'input-required status carries no question');
    const answer = 'forty-two';
    const done = asTask(
      await client.sendMessage(sendRequest(answer, { taskId: first.id, contextId: first.contextId }), opts()),
      'send the answer',
    );
    check(done.id === first.id, `the answer went to task ${done.id}, want ${first.id}`);
    check(done.status?.state === TaskState.TASK_STATE_COMPLETED, `after the answer: state ${stateName(done.status?.state)}, want completed`);
    const got = partsText(artifactNamed(done, 'answer').parts);
    check(got === `You answered: ${answer}`, `answer artifact ${JSON.stringify(got)}`);
    return `asked ${JSON.stringify(question)}; answered; got ${JSON.stringify(got)}`;
  },

  // (d) A file artifact arrives as inline bytes with its name and media type.
  async file(client) {
    const task = await sendAndExpectCompleted(client, 'file');
    const part = artifactNamed(task, 'hello.txt').parts[0];
    check(part?.content?.$case === 'raw', `file part content is ${part?.content?.$case}, want raw bytes`);
    check(part.filename === 'hello.txt', `file part filename ${JSON.stringify(part.filename)}`);
    check(part.mediaType === 'text/plain', `file part mediaType ${JSON.stringify(part.mediaType)}`);
    const text = Buffer.from(part.content.value).toString('utf8');
    check(text.startsWith('Hello from the AgentHub demo agent.'), `file content ${JSON.stringify(text)}`);
    return `hello.txt, ${part.content.value.length} bytes of ${part.mediaType}`;
  },

  // (e) A structured data part.
  async data(client) {
    const task = await sendAndExpectCompleted(client, 'data');
    const part = artifactNamed(task, 'data').parts[0];
    check(part?.content?.$case === 'data', `data part content is ${part?.content?.$case}, want data`);
    const v = part.content.value;
    check(JSON.stringify(v?.primes) === '[2,3,5,7,11]', `data.primes ${JSON.stringify(v?.primes)}`);
    check(v?.agent === 'demo', `data.agent ${JSON.stringify(v?.agent)}`);
    return JSON.stringify(v);
  },

  // (f) Cancel a streaming task after its first progress update; the stream ends canceled.
  async cancel(client) {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(new Error(`stream still open after ${CALL_TIMEOUT_MS} ms`)), CALL_TIMEOUT_MS);
    const kinds = [];
    let canceledTask;
    let last;
    try {
      for await (const ev of client.sendMessageStream(sendRequest('slow 30'), { signal: ctl.signal })) {
        kinds.push(describeEvent(ev));
        last = ev;
        if (!canceledTask && eventState(ev) === TaskState.TASK_STATE_WORKING) {
          const id = ev.payload.value.taskId ?? ev.payload.value.id;
          canceledTask = await client.cancelTask({ tenant: '', id, metadata: undefined }, opts());
        }
      }
    } finally {
      clearTimeout(timer);
    }
    check(canceledTask, `never saw a working update to cancel after: ${kinds.join(' ')}`);
    check(canceledTask.status?.state === TaskState.TASK_STATE_CANCELED, `cancelTask returned state ${stateName(canceledTask.status?.state)}, want canceled`);
    check(eventState(last) === TaskState.TASK_STATE_CANCELED, `stream ended with ${kinds.at(-1)}, want canceled: ${kinds.join(' ')}`);
    return `cancelTask -> ${stateName(canceledTask.status?.state)}; stream: ${kinds.join(' ')}`;
  },

  // (g) getTask of a finished task returns its history and artifacts.
  async get(client) {
    const input = 'hello again from js';
    const sent = await sendAndExpectCompleted(client, input);
    const task = await client.getTask({ tenant: '', id: sent.id }, opts());
    check(task.id === sent.id, `getTask returned task ${task.id}, want ${sent.id}`);
    check(task.status?.state === TaskState.TASK_STATE_COMPLETED, `state ${stateName(task.status?.state)}, want completed`);
    check((task.history ?? []).some((m) => m.role === Role.ROLE_USER && partsText(m.parts) === input), `history lacks the user message: ${JSON.stringify(task.history)}`);
    check(partsText(artifactNamed(task, 'echo').parts) === input, 'echo artifact differs from the input');
    return `task ${task.id}: ${task.history.length} history message(s), ${task.artifacts.length} artifact(s)`;
  },

  // (h) Resubscribing mid-flight opens with the task as it is now (working, not its creation), then
  // follows it live to the end. For a task that has already ended, v1.0 requires
  // UnsupportedOperationError (-32004); v0.3 has no such rule and the hub sends the ended task.
  async resubscribe(client, protocol) {
    const ctl = new AbortController();
    let id;
    try {
      for await (const ev of client.sendMessageStream(sendRequest('slow 3'), { signal: ctl.signal })) {
        if (eventState(ev) === TaskState.TASK_STATE_WORKING) {
          id = ev.payload.value.taskId ?? ev.payload.value.id;
          break; // leave the stream; the task keeps running on the agent
        }
      }
    } finally {
      ctl.abort();
    }
    check(id, 'never saw the task start working');
    const events = await collect(client.resubscribeTask({ tenant: '', id }, opts()));
    const kinds = events.map(describeEvent);
    check(events[0]?.payload?.$case === 'task' && eventState(events[0]) === TaskState.TASK_STATE_WORKING,
      `the stream starts with ${kinds[0]}, want the task as it is now (working): ${kinds.join(' ')}`);
    check(eventState(events.at(-1)) === TaskState.TASK_STATE_COMPLETED, `last event is ${kinds.at(-1)}, want completed: ${kinds.join(' ')}`);

    let ended;
    try {
      ended = (await collect(client.resubscribeTask({ tenant: '', id }, opts()))).map(describeEvent);
    } catch (e) {
      ended = e;
    }
    if (protocol === '1.0-rest') {
      check(isRestError(ended) && ended instanceof UnsupportedOperationError && ended.statusCode === 400,
        `resubscribe to a completed task over REST: ${Array.isArray(ended) ? ended.join(' ') : describeError(ended)}, want UnsupportedOperationError (400)`);
    } else if (protocol === '1.0') {
      const code = isJsonRpcError(ended) ? ended.envelopeCode : undefined;
      check(code === -32004, `resubscribe to a completed task in v1.0: ${Array.isArray(ended) ? ended.join(' ') : describeError(ended)}, want -32004`);
    } else {
      check(Array.isArray(ended) && ended.join(' ') === 'task:completed', `v0.3 resubscribe to a completed task: ${Array.isArray(ended) ? ended.join(' ') : describeError(ended)}, want the completed task alone`);
    }
    return `${kinds.join(' ')}; after completion: ${Array.isArray(ended) ? ended.join(' ') : protocol === '1.0-rest' ? 'refused 400 UnsupportedOperationError' : 'refused -32004'}`;
  },

  // (i) An unknown task id is a TaskNotFoundError with JSON-RPC code -32001.
  async 'not-found'(client, protocol) {
    const id = `no-such-task-${randomUUID()}`;
    let err;
    try {
      const task = await client.getTask({ tenant: '', id }, opts());
      err = new CheckFailed(`getTask of an unknown id returned ${JSON.stringify(task)}`);
    } catch (e) {
      err = e;
    }
    if (err instanceof CheckFailed) throw err;
    check(err instanceof TaskNotFoundError, `SDK raised ${err?.name}, want TaskNotFoundError`);
    if (protocol === '1.0-rest') {
      check(isRestError(err) && err.statusCode === 404, `HTTP status ${err?.statusCode}, want 404 (${err?.name}: ${err?.message})`);
      return `${err.name} HTTP ${err.statusCode}: ${err.message}`;
    }
    const code = isJsonRpcError(err) ? err.envelopeCode : undefined;
    check(code === -32001, `error code ${code}, want -32001 (${err?.name}: ${err?.message})`);
    return `${err.name} code ${code}: ${err.message}`;
  },
};

// ---- clients ----

// The SDK's default client: it fetches the card and picks the v1.0 JSON-RPC interface.
async function v1Client(baseUrl) {
  return new ClientFactory().createFromUrl(baseUrl);
}

// The SDK's v0.3 compat client. Our card advertises v1.0 and v0.3 on the same URL and the factory
// prefers v1.0, so the card the SDK resolved is narrowed to its v0.3 interface, as a client that
// only finds a v0.3 interface would see it; a JsonRpcTransportFactory with legacyCompat then picks
// the SDK's LegacyJsonRpcTransport for it.
async function v03Client(baseUrl) {
  const legacyCompat = { enabled: true };
  const card = await new DefaultAgentCardResolver({ legacyCompat }).resolve(baseUrl);
  const v03 = (card.supportedInterfaces ?? []).filter((i) => i.protocolVersion === '0.3');
  check(v03.length > 0, 'the card advertises no v0.3 interface');
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ legacyCompat })],
    }),
  );
  return factory.createFromAgentCard({ ...card, supportedInterfaces: v03 });
}

// The SDK's REST client: HTTP+JSON preferred, so it takes the card's HTTP+JSON interface (the card
// lists JSON-RPC first, which the default factory takes).
async function restClient(baseUrl) {
  const card = await new DefaultAgentCardResolver().resolve(baseUrl);
  check((card.supportedInterfaces ?? []).some((i) => i.protocolBinding === 'HTTP+JSON'), 'the card advertises no HTTP+JSON interface');
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new RestTransportFactory()],
      preferredTransports: ['HTTP+JSON'],
    }),
  );
  return factory.createFromAgentCard(card);
}

const versionOf = (protocol) => protocol.replace(/-rest$/, '');

function describeError(e) {
  if (e instanceof CheckFailed) return e.message;
  const code = isJsonRpcError(e) ? ` (JSON-RPC code ${e.envelopeCode})` : isRestError(e) ? ` (HTTP ${e.statusCode})` : '';
  const cause = e?.cause ? `; cause: ${e.cause?.message ?? e.cause}` : '';
  return `${e?.name ?? 'Error'}${code}: ${e?.message ?? e}${cause}`;
}

function emit(protocol, scenario, ok, detail) {
  process.stdout.write(JSON.stringify({ protocol, scenario, ok, detail }) + '\n');
}

// roundRobin is one client over several replicas of one agent: each call goes to the next replica, so a
// stream opened on one is resubscribed on another and an answer lands on a third. Properties (the
// negotiated protocol, the transport) are the first client's: every replica serves the same card.
function roundRobin(clients) {
  let next = 0;
  return new Proxy(clients[0], {
    get(first, prop) {
      if (typeof first[prop] !== 'function') return first[prop];
      return (...args) => {
        const c = clients[next++ % clients.length];
        return c[prop](...args);
      };
    },
  });
}

async function main() {
  // One base URL, or several comma-separated: replicas of one agent, used in turn.
  const baseUrls = (process.argv[2] ?? '').split(',').filter(Boolean);
  if (baseUrls.length === 0) {
    process.stderr.write('usage: node client.mjs <demo agent base URL>[,<another replica\'s base URL>...]\n');
    process.exit(2);
  }
  let failed = 0;
  for (const [protocol, makeClient] of [['1.0', v1Client], ['0.3', v03Client], ['1.0-rest', restClient]]) {
    let client;
    try {
      client = roundRobin(await Promise.all(baseUrls.map(makeClient)));
    } catch (e) {
      for (const name of SCENARIOS) emit(protocol, name, false, `no SDK client: ${describeError(e)}`);
      failed += SCENARIOS.length;
      continue;
    }
    for (const name of SCENARIOS) {
      try {
        emit(protocol, name, true, await scenarios[name](client, protocol));
      } catch (e) {
        emit(protocol, name, false, describeError(e));
        failed++;
      }
    }
  }
  // stdout is a pipe or file here, which Node writes synchronously, so exiting loses no output;
  // exiting explicitly also ends any keep-alive connection the fetch pool still holds.
  process.exit(failed > 0 ? 1 : 0);
}

await main();
