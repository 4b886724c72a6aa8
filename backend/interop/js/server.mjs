// An A2A agent built only from the official JavaScript SDK's server pieces (@a2a-js/sdk/server and
// its express app), for ../client_dialects_test.go to drive with the hub's own client:
//
//   node server.mjs
//
// It listens on 127.0.0.1 on a free port and prints one line, its base URL, on stdout. The card
// (/.well-known/agent-card.json) offers JSON-RPC in v1.0 and, through the SDK's legacy layer, v0.3:
// a card request with A2A-Version 1.0 gets the v1.0 card, one without gets the v0.3 card.
//
// What the agent does with a message (the same as the Go test executor):
//   "stream"      working, then one artifact in three chunks "one ", "two ", "three", then completed
//   "ask"         input-required with a question; the answer (a later turn) completes the task
//   "slow"        working until canceled (or 60 s)
//   a file part   the same file back as an artifact
//   anything else its text back as an artifact

import { randomUUID } from 'node:crypto';

import express from 'express';
import { AGENT_CARD_PATH, TaskState, Role } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';

const SLOW_LIMIT_MS = 60_000;

const now = () => new Date().toISOString();

const textPart = (value) => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });

const partsText = (parts = []) =>
  parts.filter((p) => p.content?.$case === 'text').map((p) => p.content.value).join(' ');

function agentMessage(taskId, contextId, text) {
  return {
    messageId: randomUUID(), taskId, contextId, role: Role.ROLE_AGENT,
    parts: [textPart(text)], metadata: undefined, extensions: [], referenceTaskIds: [],
  };
}

class TestExecutor {
  // taskId -> function that wakes a slow task when it is canceled
  #waiting = new Map();
  // taskId -> contextId, for the canceled status
  #contexts = new Map();

  async execute(ctx, bus) {
    const { taskId, contextId, userMessage: msg, task } = ctx;
    this.#contexts.set(taskId, contextId);
    const status = (state, text) =>
      bus.publish(AgentEvent.statusUpdate({
        taskId, contextId, metadata: undefined,
        status: { state, message: text === undefined ? undefined : agentMessage(taskId, contextId, text), timestamp: now() },
      }));
    const artifact = (artifactId, name, parts, append, lastChunk) =>
      bus.publish(AgentEvent.artifactUpdate({
        taskId, contextId, append, lastChunk, metadata: undefined,
        artifact: { artifactId, name, description: '', parts, metadata: undefined, extensions: [] },
      }));

    // The first event of every turn is the task.
    bus.publish(AgentEvent.task(task ?? {
      id: taskId, contextId, artifacts: [], history: [msg], metadata: undefined,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
    }));

    const text = partsText(msg.parts).trim();
    if (task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      artifact(randomUUID(), 'answer', [textPart(`You answered: ${text}`)], false, true);
      status(TaskState.TASK_STATE_COMPLETED);
      return;
    }
    const file = msg.parts.find((p) => p.content?.$case === 'raw');
    if (file) {
      artifact(randomUUID(), file.filename || 'file', [{ ...file, metadata: undefined }], false, true);
      status(TaskState.TASK_STATE_COMPLETED);
      return;
    }
    switch (text) {
      case 'stream': {
        status(TaskState.TASK_STATE_WORKING, 'Streaming.');
        const id = randomUUID();
        ['one ', 'two ', 'three'].forEach((chunk, i) => artifact(id, 'chunks', [textPart(chunk)], i > 0, i === 2));
        status(TaskState.TASK_STATE_COMPLETED);
        return;
      }
      case 'ask':
        status(TaskState.TASK_STATE_INPUT_REQUIRED, 'What should I tell you back?');
        return;
      case 'slow': {
        status(TaskState.TASK_STATE_WORKING, 'Working until canceled.');
        const canceled = await new Promise((resolve) => {
          const timer = setTimeout(() => resolve(false), SLOW_LIMIT_MS);
          this.#waiting.set(taskId, () => { clearTimeout(timer); resolve(true); });
        });
        this.#waiting.delete(taskId);
        if (!canceled) status(TaskState.TASK_STATE_COMPLETED);
        return; // canceled: cancelTask has published the final status
      }
      default:
        artifact(randomUUID(), 'echo', [textPart(text)], false, true);
        status(TaskState.TASK_STATE_COMPLETED);
    }
  }

  async cancelTask(taskId, bus) {
    const wake = this.#waiting.get(taskId);
    this.#waiting.delete(taskId);
    bus.publish(AgentEvent.statusUpdate({
      taskId, contextId: this.#contexts.get(taskId) ?? '', metadata: undefined,
      status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: now() },
    }));
    wake?.();
  }
}

const app = express();
const server = app.listen(0, '127.0.0.1', () => {
  const base = `http://127.0.0.1:${server.address().port}`;
  const rpcURL = `${base}/a2a`;
  const card = {
    name: 'a2a-js interop agent',
    description: 'An @a2a-js/sdk server for the AgentHub client interop tests.',
    supportedInterfaces: [
      { url: rpcURL, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
      { url: rpcURL, protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: '' },
    ],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/octet-stream'],
    defaultOutputModes: ['text/plain', 'application/octet-stream'],
    skills: [{ id: 'test', name: 'Test', description: 'stream, ask, slow, files, echo', tags: ['test'], examples: ['stream'], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new TestExecutor());
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler, legacyCompat: { enabled: true } }));
  app.use('/a2a', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  process.stdout.write(`${base}\n`);
});

// The Go test ends the process by closing stdin (or killing it).
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
