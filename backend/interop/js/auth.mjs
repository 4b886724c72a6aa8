// Calls the AgentHub hub with the official A2A JavaScript SDK (@a2a-js/sdk) and the SDK's own
// authentication support (createAuthenticatingFetchWithRetry), to prove the hub's credentials work for
// an independent client. Run by ../server_auth_test.go, with anonymous access off on the hub:
//
//   node auth.mjs http://127.0.0.1:PORT NAME KEY
//
// Scenarios, one JSON line each ({"scenario","ok","detail"}); exits 1 if any failed:
//   none       no credential: the SDK's call fails with HTTP 401 / -32030
//   wrong-key  an X-Api-Key the hub never issued: 401 / -32030
//   api-key    the right key in X-Api-Key: a message is sent and its task read back
//   oauth2     a bearer token from the hub's token endpoint (client credentials, HTTP Basic), fetched
//              again by the SDK's retry hook whenever the hub answers 401

import { randomUUID } from 'node:crypto';

import { Role } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, createAuthenticatingFetchWithRetry } from '@a2a-js/sdk/client';
import { isJsonRpcError } from '@a2a-js/sdk/errors';

const CALL_TIMEOUT_MS = 20_000;

class CheckFailed extends Error {}

function check(cond, msg) {
  if (!cond) throw new CheckFailed(msg);
}

const opts = () => ({ signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });

function sendRequest(text) {
  return {
    tenant: '',
    message: {
      messageId: randomUUID(), contextId: '', taskId: '', role: Role.ROLE_USER,
      parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
      metadata: undefined, extensions: [], referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  };
}

// A client from the hub's card, every request (the card's too) sent through fetchImpl.
async function clientWith(baseUrl, fetchImpl) {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
    }),
  );
  return factory.createFromUrl(baseUrl);
}

const withHeaders = (headers) =>
  createAuthenticatingFetchWithRetry(fetch, { headers: async () => headers, shouldRetryWithHeaders: async () => undefined });

function describeError(e) {
  if (e instanceof CheckFailed) return e.message;
  const code = isJsonRpcError(e) ? ` (JSON-RPC code ${e.envelopeCode})` : '';
  return `${e?.name ?? 'Error'}${code}: ${e?.message ?? e}`;
}

// refused expects the call to fail as unauthenticated: the SDK reports the HTTP status or the code.
async function refused(client, what) {
  try {
    await client.sendMessage(sendRequest(`${what}: should be refused`), opts());
  } catch (e) {
    const text = describeError(e);
    check(/401|-32030|unauthenticated/i.test(text), `${what}: refused, but not as unauthenticated: ${text}`);
    return text;
  }
  throw new CheckFailed(`${what}: the hub took a message without a valid credential`);
}

async function works(client, what) {
  const task = await client.sendMessage(sendRequest(`${what}: hello from @a2a-js/sdk`), opts());
  check(task && task.id && !('messageId' in task), `${what}: expected a task, got ${JSON.stringify(task)}`);
  const again = await client.getTask({ tenant: '', id: task.id, historyLength: undefined }, opts());
  check(again.id === task.id, `${what}: getTask answered ${again.id}`);
  return `task ${task.id}`;
}

async function main() {
  const [baseUrl, name, key] = process.argv.slice(2);
  if (!baseUrl || !name || !key) {
    process.stderr.write('usage: node auth.mjs <hub base URL> <principal name> <API key>\n');
    process.exit(2);
  }
  let tokensFetched = 0;
  const token = async () => {
    tokensFetched++;
    const res = await fetch(`${baseUrl}/oauth/token`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${Buffer.from(`${name}:${key}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    check(res.ok, `token endpoint answered ${res.status}`);
    return (await res.json()).access_token;
  };
  let bearer = '';
  const oauth2 = createAuthenticatingFetchWithRetry(fetch, {
    headers: async () => (bearer ? { Authorization: `Bearer ${bearer}` } : {}),
    shouldRetryWithHeaders: async (_req, res) => (res.status === 401 ? { Authorization: `Bearer ${(bearer = await token())}` } : undefined),
  });

  const scenarios = {
    none: async () => refused(await clientWith(baseUrl, fetch), 'no credential'),
    'wrong-key': async () => refused(await clientWith(baseUrl, withHeaders({ 'X-Api-Key': 'ahk_not-a-key-this-hub-issued' })), 'wrong key'),
    'api-key': async () => works(await clientWith(baseUrl, withHeaders({ 'X-Api-Key': key })), 'api key'),
    oauth2: async () => {
      const detail = await works(await clientWith(baseUrl, oauth2), 'oauth2');
      check(tokensFetched === 1, `the SDK fetched ${tokensFetched} tokens, want 1 (after the first 401)`);
      return detail;
    },
  };
  let failed = 0;
  for (const [scenario, run] of Object.entries(scenarios)) {
    try {
      process.stdout.write(JSON.stringify({ scenario, ok: true, detail: await run() }) + '\n');
    } catch (e) {
      failed++;
      process.stdout.write(JSON.stringify({ scenario, ok: false, detail: describeError(e) }) + '\n');
    }
  }
  process.exit(failed ? 1 : 0);
}

main();
