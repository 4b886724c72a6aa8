// The knowledge-graph extension's own JSON-RPC methods (knowledge/query, knowledge/update,
// knowledge/subscribe, ../../shared/specs/a2a-knowledge-graph-extension.md), reached through the
// gateway's generic ext.call / ext.stream. `agent` is undefined for this hub, or an added agent's id
// (its KG, through the hub). Shared by the Knowledge page's tabs: the explorer (h-kgui) and the query
// console and import/export (h-kgconsole, who may add functions at the end of this file).

/** The part of the hub client the KG needs: the gateway's generic extension calls. */
export interface ExtClient {
  extCall(method: string, params: unknown, agent?: string): Promise<unknown>;
  extStream(
    method: string,
    params: unknown,
    onResult: (result: unknown) => void,
    opts?: { agent?: string; onError?: (e: { code: number; message: string; data?: unknown }) => void; onEnd?: () => void },
  ): Promise<() => void> | (() => void);
}

let bound: ExtClient | null = null;

/** Binds the helpers below to a client (the Knowledge page does it with the hub's; tests with a fake). */
export function bindKg(c: ExtClient): void {
  bound = c;
}

function ext(): ExtClient {
  if (!bound) throw new Error('knowledge: no hub client bound (bindKg)');
  return bound;
}

// ---- The spec's structures (KGStatement, KnowledgeGraphPatch, ...) ----

export interface KGObject {
  id?: string;
  value?: string | number | boolean;
  type?: string;
}

export interface KGStatement {
  subject: { id: string; type?: string };
  predicate: { id: string };
  object: KGObject;
  graph?: string;
  certainty?: number;
  provenance?: Record<string, unknown>;
}

export type PatchOp = 'add' | 'remove' | 'replace';

export interface KGPatch {
  op: PatchOp;
  statement: KGStatement;
}

export interface QueryResult {
  data: unknown;
  queryMetadata?: Record<string, unknown> | null;
}

export interface UpdateResult {
  success: boolean;
  statementsAffected?: number;
  affectedIds?: string[];
  verificationStatus?: string;
  verificationDetails?: string;
  /** The hub's: the last change's id (a subscription can resume after it). */
  changeId?: string;
}

export interface ChangeEvent {
  op: PatchOp;
  statement: KGStatement;
  changeId: string;
  timestamp: string;
  changeMetadata?: Record<string, unknown> | null;
}

// ---- Calls ----

/** knowledge/query in GraphQL; resolves to the spec's result ({data, queryMetadata}). */
export async function query(agent: string | undefined, graphql: string, variables?: Record<string, unknown>): Promise<QueryResult> {
  const r = (await ext().extCall('knowledge/query', { query: graphql, queryLanguage: 'graphql', variables: variables ?? null }, agent)) as QueryResult;
  return r ?? { data: null };
}

/** knowledge/update: the patches, all or nothing, with the person's reason for them. */
export async function update(agent: string | undefined, patches: KGPatch[], justification: string): Promise<UpdateResult> {
  return (await ext().extCall('knowledge/update', { mutations: patches, justification }, agent)) as UpdateResult;
}

/**
 * knowledge/subscribe with a GraphQL subscription over `changes`; afterChangeId resumes after that
 * change (the hub replays what came after it). Resolves to the function that ends the stream.
 */
export async function subscribe(
  agent: string | undefined,
  subscriptionQuery: string,
  onChange: (c: ChangeEvent) => void,
  opts: { afterChangeId?: string; onError?: (e: { code: number; message: string; data?: unknown }) => void; onEnd?: () => void } = {},
): Promise<() => void> {
  const params: Record<string, unknown> = { subscriptionQuery, queryLanguage: 'graphql' };
  if (opts.afterChangeId) params.afterChangeId = opts.afterChangeId;
  return await ext().extStream('knowledge/subscribe', params, (r) => onChange(r as ChangeEvent), {
    agent,
    onError: opts.onError,
    onEnd: opts.onEnd,
  });
}

/** A gateway error carrying a JSON-RPC error ({code: "rpc_error", rpc: {code, message, data}}), as one sentence. */
export function kgErrorText(e: unknown): string {
  const err = e as { message?: string; rpc?: { code?: number; message?: string } } | null;
  if (err?.rpc?.message) return err.rpc.message;
  return err?.message ?? String(e);
}
