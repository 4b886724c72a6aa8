// The JSON-RPC error an extension answered, as the gateway passes it on ({code: "rpc_error", rpc}).

import type { RpcErrorDetail } from '../api/types';

export function rpcErrorOf(e: unknown): RpcErrorDetail | undefined {
  const rpc = (e as { rpc?: unknown } | null)?.rpc as RpcErrorDetail | undefined;
  return rpc && typeof rpc.code === 'number' ? rpc : undefined;
}
