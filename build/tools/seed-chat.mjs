// Gives a hub a conversation to show: adds the demo agent by URL and chats with it through the UI
// gateway, as the UI would. Used by build/screenshots.sh before it opens the window.
//
//   node build/tools/seed-chat.mjs UI_URL DEMO_URL      (UI_URL: the `ui:` line `agenthub serve` printed)

import { connect } from './gateway.mjs';

const [uiURL, demoURL] = process.argv.slice(2);
const { call, close } = await connect(uiURL);

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
close();
console.log(`seeded conversation ${chat.id}`);
