// Gives a hub a channel and a knowledge graph to show, through the UI gateway as the UI would: a
// channel with the demo agent and a principal, where the agent answers a mention and asks a
// question, and a few statements beside the sample graph. Used by build/screenshots.sh (after
// seed-chat.mjs, which adds the demo agent) before it opens the window.
//
//   node build/tools/seed-channel.mjs UI_URL HUB_URL

import { connect } from './gateway.mjs';

const [uiURL, hubURL] = process.argv.slice(2);
const { call, close } = await connect(uiURL);
const ext = (method, params) => call('ext.call', { method, params });
const text = (t) => [{ type: 'text', text: t }];

// answered waits for an event by author after sequence `after` whose bridge state is one of states.
async function answered(channelId, after, author, states) {
  for (let i = 0; i < 300; i++) {
    const { events } = await ext('channels/history', { channelId, sinceSequence: after, pageSize: 200 });
    const ev = (events ?? []).find((e) => e.author === author && states.includes(e.metadata?.agenthub?.bridge?.state));
    if (ev) return ev;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${author} never answered in ${channelId}`);
}

// alice publishes as a principal of her own, over the hub's JSON-RPC endpoint with her key.
async function asAlice(key, channelId, words) {
  const res = await fetch(`${hubURL}/a2a`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'channels/publish', params: { channelId, parts: text(words) } }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`alice: ${body.error.message}`);
  return body.result.event;
}

const { key } = await call('access.add', { name: 'alice' });
const { channel } = await ext('channels/create', { name: 'release-2.3', visibility: 'private', members: ['agent://alice'] });
await ext('channels/addMember', { channelId: channel.id, principalId: 'remote://demo', role: 'member' });
await asAlice(key, channel.id, 'The changelog for **v2.3** is ready: chats, channels and the knowledge graph.');
const { event: hello } = await ext('channels/publish', { channelId: channel.id, parts: text('@demo please echo the checklist: build, sign, publish') });
await answered(channel.id, hello.sequence, 'remote://demo', ['completed']);
await asAlice(key, channel.id, 'Thanks! I will tag the release once the build is green.');
const { event: ask } = await ext('channels/publish', { channelId: channel.id, parts: text('@demo ask') });
await answered(channel.id, ask.sequence, 'remote://demo', ['input-required']);
await ext('channels/create', { name: 'general', visibility: 'public' });

// Beside the sample graph (the hub, the demo agent, their skills): a release, who owns it, what it uses.
const add = (subject, predicate, object) => ({ op: 'add', statement: { subject: { id: subject }, predicate: { id: predicate }, object } });
await ext('knowledge/update', {
  justification: 'release planning',
  mutations: [
    add('ex:release-2.3', 'rdf:type', { id: 'ex:Release' }),
    add('ex:release-2.3', 'rdfs:label', { value: 'Release 2.3' }),
    add('ex:release-2.3', 'ex:ships', { id: 'agenthub:skill/knowledge' }),
    add('ex:release-2.3', 'ex:testedWith', { id: 'agenthub:agent/demo' }),
    add('ex:alice', 'rdf:type', { id: 'schema:Person' }),
    add('ex:alice', 'rdfs:label', { value: 'Alice' }),
    add('ex:alice', 'ex:owns', { id: 'ex:release-2.3' }),
  ],
});
close();
console.log(`seeded channel ${channel.id} and the knowledge graph`);
