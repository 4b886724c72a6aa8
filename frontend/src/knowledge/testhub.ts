// For the Query and Import / Export tabs' tests: a HubClient over a fake socket, bound to kg.ts,
// whose ext.call requests a test function answers (a thrown {rpc} becomes the gateway's rpc_error).

import { HubClient } from '../api/client';
import type { RpcErrorDetail } from '../api/types';
import { FakeSocket, socketFactory } from '../test/fakeSocket';
import { bindKg } from './kg';

export class RpcFailure extends Error {
  constructor(public rpc: RpcErrorDetail) {
    super(rpc.message);
  }
}

export type ExtHandler = (method: string, params: Record<string, unknown>, agent?: string) => unknown;

export interface ExtRequest {
  method: string;
  params: Record<string, unknown>;
  agent?: string;
}

/** Starts a client on a fake socket and answers every ext.call with handle; returns the calls seen. */
export async function serveKg(handle: ExtHandler): Promise<{ calls: ExtRequest[]; client: HubClient }> {
  FakeSocket.reset();
  const client = new HubClient({ resolveUrl: () => 'ws://hub/ui/ws?token=t', socketFactory, requestTimeoutMs: 5000 });
  client.start();
  await new Promise((r) => setTimeout(r, 0));
  const s = FakeSocket.last();
  const calls: ExtRequest[] = [];
  const send = s.send.bind(s);
  s.send = (data: string) => {
    send(data);
    const f = JSON.parse(data) as { id: number; method: string; params: ExtRequest };
    if (f.method !== 'ext.call') return;
    calls.push(f.params);
    void Promise.resolve()
      .then(() => handle(f.params.method, f.params.params, f.params.agent))
      .then(
        (r) => s.reply(f.id, r),
        (e) => {
          s.answered.add(f.id);
          const rpc = (e as RpcFailure).rpc;
          s.push({ id: f.id, error: rpc ? { code: 'rpc_error', message: rpc.message, rpc } : { code: 'internal', message: String(e) } });
        },
      );
  };
  s.open();
  bindKg(client);
  return { calls, client };
}
