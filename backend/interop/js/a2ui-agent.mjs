// An A2UI agent built only from the official JavaScript SDK's server pieces (@a2a-js/sdk/server and
// its express app), for the browser test ../../../frontend/e2e/a2ui.test.mjs: something we did not
// write, drawing a surface with every kind of hostile content next to a working form.
//
//   node a2ui-agent.mjs
//
// It listens on 127.0.0.1 on a free port and prints its base URL on stdout. Its card declares the
// A2UI extensions v0.9.1 and v0.8. A new message that mentions "v0.8" gets a v0.8 surface (each
// message a data part of its own, as v0.8 sends them), the same hostile parts and form; the
// userAction about it updates it. A new message that mentions "limits" gets three surfaces past the
// renderer's limits: nested 40 deep, 600 components, a 70 KiB data model.
// Any other new message gets a surface (input-required): text with HTML, an image
// served by this agent (GET /pixel.png counts the fetches), an unknown component, a button whose
// openUrl is a javascript: URL, a data model with a javascript: URL in it, and a note field with a
// "Confirm" button. The action (a later turn, an A2UI data part) updates the same surface. GET /seen
// answers what it saw: each JSON-RPC request's extension headers, each message's metadata and A2UI
// parts, and the image fetches.

import { randomUUID } from 'node:crypto';

import express from 'express';
import { AGENT_CARD_PATH, TaskState, Role } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';

const EXT = 'https://a2ui.org/a2a-extension/a2ui/v0.9.1';
const EXT08 = 'https://a2ui.org/a2a-extension/a2ui/v0.8';
const CATALOG08 = 'https://a2ui.org/specification/v0_8/standard_catalog_definition.json';
const MT = 'application/a2ui+json';
const CATALOG = 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json';
const now = () => new Date().toISOString();
const seen = { requests: [], messages: [], pixel: 0 };

const textPart = (value) => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const a2uiPart = (messages) => ({ content: { $case: 'data', value: messages }, metadata: { mimeType: MT }, filename: '', mediaType: MT });
// A2UI messages in parts: a v0.9 part holds a list, a v0.8 part one message.
const a2uiOf = (parts = []) =>
  parts
    .filter((p) => p.content?.$case === 'data' && (p.mediaType === MT || p.metadata?.mimeType === MT))
    .flatMap((p) => (Array.isArray(p.content.value) ? p.content.value : p.content.value && typeof p.content.value === 'object' ? [p.content.value] : []));
const lit = (literalString) => ({ literalString });

function surface08(id, base) {
  return [
    {
      surfaceUpdate: {
        surfaceId: id,
        components: [
          { id: 'root', component: { Column: { children: { explicitList: ['html', 'pic', 'frame', 'note', 'confirm'] } } } },
          { id: 'html', component: { Text: { text: lit('Hello <img src=x onerror="alert(1)"><b>bold</b> [link](javascript:alert(3))') } } },
          { id: 'pic', component: { Image: { url: lit(`${base}/pixel.png`) } } },
          { id: 'frame', component: { IFrame: { src: base } } },
          { id: 'note', component: { TextField: { label: lit('Note'), text: { path: '/note' } } } },
          { id: 'confirm', component: { Button: { child: 'confirm-label', primary: true, action: { name: 'confirm', context: [{ key: 'note', value: { path: '/note' } }] } } } },
          { id: 'confirm-label', component: { Text: { text: lit('Confirm') } } },
        ],
      },
    },
    { dataModelUpdate: { surfaceId: id, contents: [{ key: 'note', valueString: '' }, { key: 'link', valueString: 'javascript:alert(2)' }] } },
    { beginRendering: { surfaceId: id, root: 'root', catalogId: CATALOG08 } },
  ];
}

function surface(id, base) {
  return [
    { version: 'v0.9', createSurface: { surfaceId: id, catalogId: CATALOG, sendDataModel: true } },
    {
      version: 'v0.9',
      updateComponents: {
        surfaceId: id,
        components: [
          { id: 'root', component: 'Column', children: ['html', 'pic', 'frame', 'evil', 'note', 'confirm'] },
          { id: 'html', component: 'Text', text: 'Hello <img src=x onerror="alert(1)"><b>bold</b>' },
          { id: 'pic', component: 'Image', url: `${base}/pixel.png`, description: 'a tracking pixel' },
          { id: 'frame', component: 'IFrame', src: base },
          { id: 'evil', component: 'Button', child: 'evil-label', action: { functionCall: { call: 'openUrl', args: { url: 'javascript:alert(1)' }, returnType: 'void' } } },
          { id: 'evil-label', component: 'Text', text: 'Open' },
          { id: 'note', component: 'TextField', label: 'Note', value: { path: '/note' } },
          { id: 'confirm', component: 'Button', child: 'confirm-label', variant: 'primary', action: { event: { name: 'confirm', context: { note: { path: '/note' } } } } },
          { id: 'confirm-label', component: 'Text', text: 'Confirm' },
        ],
      },
    },
    { version: 'v0.9', updateDataModel: { surfaceId: id, path: '/', value: { note: '', link: 'javascript:alert(2)' } } },
  ];
}

// pastLimits are three surfaces a renderer must refuse: too deep, too many components, too large a
// data model.
function pastLimits(taskId) {
  const create = (id) => ({ version: 'v0.9', createSurface: { surfaceId: id, catalogId: CATALOG } });
  const comps = (id, components) => ({ version: 'v0.9', updateComponents: { surfaceId: id, components } });
  const deep = `deep-${taskId}`, wide = `wide-${taskId}`, big = `big-${taskId}`;
  return [
    create(deep),
    comps(deep, Array.from({ length: 41 }, (_, i) => (i < 40 ? { id: i ? `c${i}` : 'root', component: 'Card', child: `c${i + 1}` } : { id: `c${i}`, component: 'Text', text: 'the bottom' }))),
    create(wide),
    comps(wide, [{ id: 'root', component: 'Column', children: Array.from({ length: 600 }, (_, i) => `t${i}`) }, ...Array.from({ length: 600 }, (_, i) => ({ id: `t${i}`, component: 'Text', text: `row ${i}` }))]),
    create(big),
    comps(big, [{ id: 'root', component: 'Text', text: { path: '/blob' } }]),
    { version: 'v0.9', updateDataModel: { surfaceId: big, path: '/', value: { blob: 'x'.repeat(70 * 1024) } } },
  ];
}

class Executor {
  constructor(base) {
    this.base = base;
  }

  async execute(ctx, bus) {
    const { taskId, contextId, userMessage: msg, task } = ctx;
    seen.messages.push({ taskId, metadata: msg.metadata ?? null, a2ui: a2uiOf(msg.parts) });
    const status = (state, parts) =>
      bus.publish(AgentEvent.statusUpdate({
        taskId, contextId, metadata: undefined,
        status: { state, timestamp: now(), message: parts && { messageId: randomUUID(), taskId, contextId, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] } },
      }));
    bus.publish(AgentEvent.task(task ?? {
      id: taskId, contextId, artifacts: [], history: [msg], metadata: undefined,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
    }));
    const id = `js-${taskId}`;
    const id08 = `js08-${taskId}`;
    const userAction = a2uiOf(msg.parts).find((m) => m.userAction?.surfaceId === id08)?.userAction;
    if (task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED && userAction) {
      status(TaskState.TASK_STATE_COMPLETED, [a2uiPart({ surfaceUpdate: { surfaceId: id08, components: [
        { id: 'root', component: { Column: { children: { explicitList: ['done'] } } } },
        { id: 'done', component: { Text: { text: lit(`Confirmed: ${userAction.context?.note ?? ''}`) } } },
      ] } })]);
      return;
    }
    const action = a2uiOf(msg.parts).find((m) => m.action?.surfaceId === id)?.action;
    if (task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED && action) {
      status(TaskState.TASK_STATE_COMPLETED, [a2uiPart([{ version: 'v0.9', updateComponents: { surfaceId: id, components: [
        { id: 'root', component: 'Column', children: ['done'] },
        { id: 'done', component: 'Text', text: `Confirmed: ${action.context?.note ?? ''}` },
      ] } }])]);
      return;
    }
    if (task) {
      // a later turn without an action (an A2UI error the renderer reported, or text): noted, still asking
      status(TaskState.TASK_STATE_INPUT_REQUIRED, [textPart('Noted.')]);
      return;
    }
    const text = msg.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join(' ');
    if (/limits/.test(text)) {
      status(TaskState.TASK_STATE_INPUT_REQUIRED, [textPart('Three forms past the limits.'), a2uiPart(pastLimits(taskId))]);
      return;
    }
    if (/v0\.8/.test(text)) {
      status(TaskState.TASK_STATE_INPUT_REQUIRED, [textPart('A v0.8 form from an @a2a-js/sdk agent.'), ...surface08(id08, this.base).map(a2uiPart)]);
      return;
    }
    status(TaskState.TASK_STATE_INPUT_REQUIRED, [textPart('A form from an @a2a-js/sdk agent.'), a2uiPart(surface(id, this.base))]);
  }

  async cancelTask(taskId, bus) {
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId: '', metadata: undefined, status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: now() } }));
  }
}

const app = express();
app.use((req, _res, next) => {
  if (req.method === 'POST') seen.requests.push({ ext: req.get('A2A-Extensions') ?? null, xext: req.get('X-A2A-Extensions') ?? null });
  next();
});
app.get('/pixel.png', (_req, res) => {
  seen.pixel++;
  res.type('image/png').send(Buffer.from('89504e470d0a1a0a', 'hex'));
});
app.get('/seen', (_req, res) => res.json(seen));
const server = app.listen(0, '127.0.0.1', () => {
  const base = `http://127.0.0.1:${server.address().port}`;
  const card = {
    name: 'a2a-js A2UI agent',
    description: 'An @a2a-js/sdk server drawing A2UI surfaces, hostile ones included.',
    supportedInterfaces: [{ url: `${base}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [
      { uri: EXT, description: 'A2UI v0.9.1', required: false, params: { supportedCatalogIds: [CATALOG] } },
      { uri: EXT08, description: 'A2UI v0.8', required: false, params: { supportedCatalogIds: [CATALOG08] } },
    ] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', MT],
    skills: [{ id: 'form', name: 'Form', description: 'Any message gets an A2UI form', tags: ['a2ui'], examples: ['show me'], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new Executor(base));
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  process.stdout.write(`${base}\n`);
});

process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
