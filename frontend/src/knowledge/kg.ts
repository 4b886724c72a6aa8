// The knowledge-graph extension's own JSON-RPC methods (knowledge/query, knowledge/update,
// knowledge/subscribe; see docs/knowledge.md), reached through the
// gateway's generic ext.call / ext.stream. `agent` is undefined for this hub, or an added agent's id
// (its KG, through the hub). Shared by the Knowledge page's tabs: the explorer (h-kgui) and the query
// console and import/export (h-kgconsole, who may add functions at the end of this file).

import { extCall, extStream, HubError, type HubClient } from '../api/client';
import type { RpcErrorDetail } from '../api/types';

let bound: HubClient | null = null;

/**
 * Binds the helpers below to the hub's client: the Knowledge page does it with useHub().client
 * before its tabs render; a test binds a client over a fake socket.
 */
export function bindKg(c: HubClient): void {
  bound = c;
}

function client(): HubClient {
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
  const r = await extCall<QueryResult>(client(), 'knowledge/query', { query: graphql, queryLanguage: 'graphql', variables: variables ?? null }, agent);
  return r ?? { data: null };
}

/** knowledge/update: the patches, all or nothing, with the person's reason for them. */
export async function update(agent: string | undefined, patches: KGPatch[], justification: string): Promise<UpdateResult> {
  return await extCall<UpdateResult>(client(), 'knowledge/update', { mutations: patches, justification }, agent);
}

/**
 * knowledge/subscribe with a GraphQL subscription over `changes`; afterChangeId resumes after that
 * change (the hub replays what came after it). Resolves to the function that ends the stream.
 */
export async function subscribe(
  agent: string | undefined,
  subscriptionQuery: string,
  onChange: (c: ChangeEvent) => void,
  opts: { afterChangeId?: string; onError?: (e: RpcErrorDetail) => void; onEnd?: () => void } = {},
): Promise<() => void> {
  const params: Record<string, unknown> = { subscriptionQuery, queryLanguage: 'graphql' };
  if (opts.afterChangeId) params.afterChangeId = opts.afterChangeId;
  return await extStream(client(), 'knowledge/subscribe', params, (r) => onChange(r as ChangeEvent), {
    agent,
    onError: opts.onError,
    onEnd: opts.onEnd,
  });
}

/** An error of a knowledge call as one sentence: the extension's own message when it answered one. */
export function kgErrorText(e: unknown): string {
  if (e instanceof HubError && e.rpc?.message) return e.rpc.message;
  if (e instanceof Error) return e.message;
  return String(e);
}

// ---- Query console and import/export (h-kgconsole) ----

export type QueryLanguage = 'graphql' | 'gizmo';

/** knowledge/query in a language the hub offers (its card's knowledgeGraphQueryLanguages: graphql, gizmo). */
export async function queryIn(
  agent: string | undefined,
  language: QueryLanguage,
  text: string,
  variables?: Record<string, unknown>,
): Promise<QueryResult> {
  const params: Record<string, unknown> = { query: text, queryLanguage: language };
  if (variables) params.variables = variables;
  const r = await extCall<QueryResult>(client(), 'knowledge/query', params, agent);
  return r ?? { data: null };
}
