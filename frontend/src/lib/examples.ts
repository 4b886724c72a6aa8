// Copyable examples for empty states: how to send the hub (or an agent) a message from outside.

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A curl command sending `text` as an A2A v1.0 SendMessage to a JSON-RPC endpoint. */
export function curlExample(endpoint: string, text: string): string {
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: {
      message: { role: 'ROLE_USER', messageId: 'msg-1', parts: [{ text }] },
      configuration: { returnImmediately: true },
    },
  };
  return `curl -s -X POST ${shellQuote(endpoint)} \\\n  -H 'content-type: application/json' \\\n  -d ${shellQuote(JSON.stringify(body))}`;
}

/** The agent's base URL (where /.well-known/agent-card.json lives), from its endpoint or card URL. */
export function baseUrlOf(endpoint: string, cardUrl?: string): string {
  if (cardUrl) {
    const i = cardUrl.indexOf('/.well-known/');
    if (i > 0) return cardUrl.slice(0, i);
  }
  try {
    return new URL(endpoint).origin;
  } catch {
    return endpoint;
  }
}

/** The same with the official JavaScript SDK (@a2a-js/sdk 1.x). */
export function sdkExample(baseUrl: string, text: string): string {
  return `// npm install @a2a-js/sdk
import { randomUUID } from 'node:crypto';
import { Role } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';

const client = await new ClientFactory().createFromUrl(${JSON.stringify(baseUrl)});
const task = await client.sendMessage({
  message: {
    messageId: randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: ${JSON.stringify(text)} } }],
  },
});
console.log(task.id); // the person at the desktop answers in AgentHub's inbox`;
}
