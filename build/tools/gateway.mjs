// A small client of the UI gateway for the build tools that seed a hub (seed-chat.mjs,
// seed-channel.mjs): it connects with the token of the `ui:` URL `agenthub serve` printed and calls
// methods as the UI does.

import { createRequire } from 'node:module';

const require = createRequire(new URL('../../frontend/package.json', import.meta.url));
const WebSocket = require('ws');

// connect opens the gateway of the hub whose UI is at uiURL; call(method, params) resolves to the
// result or rejects with "code: message".
export async function connect(uiURL) {
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
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const call = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params }));
    });
  return { call, close: () => ws.close() };
}
