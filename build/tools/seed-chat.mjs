// Gives a hub a conversation to show: adds the demo agent by URL and chats with it through the UI
// gateway, as the UI would. Used by build/screenshots.sh before it opens the window.
//
//   node build/tools/seed-chat.mjs UI_URL DEMO_URL      (UI_URL: the `ui:` line `agenthub serve` printed)

import { createRequire } from 'node:module';

const require = createRequire(new URL('../../frontend/package.json', import.meta.url));
const WebSocket = require('ws');

const [uiURL, demoURL] = process.argv.slice(2);
const ui = new URL(uiURL);
const token = new URLSearchParams(ui.hash.slice(1)).get('token');
const ws = new WebSocket(`ws://${ui.host}/ui/ws?token=${encodeURIComponent(token)}`, { origin: ui.origin });

let nextId = 1;
const pending = new Map();
ws.on('message', (raw) => {
  const frame = JSON.parse(raw.toString());
  const p = frame.id !== undefined && pending.get(frame.id);
  if (!p) return;
  pending.delete(frame.id);
  if (frame.error) p.reject(new Error(`${frame.error.code}: ${frame.error.message}`));
  else p.resolve(frame.result);
});
const call = (method, params) =>
  new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    ws.send(JSON.stringify({ id, method, params }));
  });

// until polls the conversation until its newest task reaches one of states and no call is in flight.
async function until(id, states) {
  for (let i = 0; i < 300; i++) {
    const { conversation } = await call('chats.get', { id });
    if (!conversation.busy && states.includes(conversation.state)) return conversation;
    if (states.includes('input-required') && conversation.state === 'input-required') return conversation;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`conversation ${id} never reached ${states}`);
}

await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
const agent = await call('agents.add', { url: demoURL });
const chat = await call('chats.start', { agentId: agent.id });
await call('chats.send', { id: chat.id, text: 'Hello, demo agent! Echo this back, **in pieces**.' });
await until(chat.id, ['completed']);
await call('chats.rename', { id: chat.id, title: 'Trying the demo agent' });
await call('chats.send', {
  id: chat.id,
  text: 'file',
  files: [{ name: 'release-notes.md', mediaType: 'text/markdown', bytes: Buffer.from('# v2.3\n- chats\n').toString('base64') }],
});
await until(chat.id, ['completed']);
await call('chats.send', { id: chat.id, text: 'ask' });
await until(chat.id, ['input-required']);
const { entries } = await call('chats.get', { id: chat.id });
const asking = entries.findLast((e) => e.taskId).taskId;
await call('chats.send', { id: chat.id, text: 'Tell me the build is green.', taskId: asking });
await until(chat.id, ['completed']);
ws.close();
console.log(`seeded conversation ${chat.id}`);
