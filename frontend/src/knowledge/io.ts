// Import and export as sequences of extension calls: an import is knowledge/update `add` patches
// in batches; an export pages through knowledge/query's statements(first, after).

import type { QueryResult, UpdateResult } from './kg';
import { rpcErrorOf } from './rpc';
import {
  batchEnd,
  DEFAULT_MAX_PATCH,
  MAX_BATCH_BYTES,
  patchLimitOf,
  rowToStatement,
  STATEMENT_ROW_FIELDS,
  statementsToPatches,
  type KGPatch,
  type KGStatement,
  type StatementRow,
} from './rdf';

export interface ImportOutcome {
  /** Statements the hub accepted (whole batches: an update is all or nothing). */
  imported: number;
  total: number;
  cancelled?: boolean;
  error?: { message: string; code?: number };
  /** The batch size used last (smaller than asked when the hub's rules said so). */
  batchSize: number;
}

export interface ImportOptions {
  update: (patches: KGPatch[], justification: string) => Promise<UpdateResult>;
  justification: string;
  onProgress?: (sent: number, total: number) => void;
  signal?: AbortSignal;
  batchSize?: number;
  maxBytes?: number;
  errorText?: (e: unknown) => string;
}

/**
 * Adds statements in batches, in file order. A batch the hub refuses for being over its maximum
 * patch size (−32013, rules.go) is split to the size the refusal names and sent again; any other
 * refusal stops the import there, the batches before it staying imported.
 */
export async function importStatements(sts: KGStatement[], o: ImportOptions): Promise<ImportOutcome> {
  const patches = statementsToPatches(sts, 'add');
  let size = o.batchSize ?? DEFAULT_MAX_PATCH;
  let done = 0;
  o.onProgress?.(0, patches.length);
  while (done < patches.length) {
    if (o.signal?.aborted) return { imported: done, total: patches.length, cancelled: true, batchSize: size };
    const end = batchEnd(patches, done, size, o.maxBytes ?? MAX_BATCH_BYTES);
    try {
      await o.update(patches.slice(done, end), o.justification);
    } catch (e) {
      const rpc = rpcErrorOf(e);
      const limit = rpc?.code === -32013 ? patchLimitOf(rpc.message) : undefined;
      if (limit !== undefined && limit < end - done) {
        size = limit;
        continue;
      }
      const message = o.errorText ? o.errorText(e) : (e as Error)?.message ?? String(e);
      return { imported: done, total: patches.length, error: { message, code: rpc?.code }, batchSize: size };
    }
    done = end;
    o.onProgress?.(done, patches.length);
  }
  return { imported: done, total: patches.length, batchSize: size };
}

/** The GraphQL an export page runs; graph narrows it to one named graph. */
export function exportQuery(graph?: string): string {
  const args = graph !== undefined ? 'first: $first, after: $after, graph: $graph' : 'first: $first, after: $after';
  const vars = graph !== undefined ? '$first: Int, $after: String, $graph: ID' : '$first: Int, $after: String';
  return `query Export(${vars}) { statements(${args}) { items { ${STATEMENT_ROW_FIELDS} } nextCursor } }`;
}

/** The hub's largest page (graphql.go maxFirst). */
export const EXPORT_PAGE = 1000;

export interface ExportOptions {
  query: (graphql: string, variables: Record<string, unknown>) => Promise<QueryResult>;
  /** A named graph's id, "" for the default graph; undefined: every graph. */
  graph?: string;
  onProgress?: (read: number) => void;
  signal?: AbortSignal;
  pageSize?: number;
}

export class Cancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'Cancelled';
  }
}

/** Every statement (of the graph asked for), page after page in the hub's order. */
export async function exportStatements(o: ExportOptions): Promise<KGStatement[]> {
  const out: KGStatement[] = [];
  const q = exportQuery(o.graph);
  let after: string | null = null;
  for (;;) {
    if (o.signal?.aborted) throw new Cancelled();
    const vars: Record<string, unknown> = { first: o.pageSize ?? EXPORT_PAGE };
    if (after !== null) vars.after = after;
    if (o.graph !== undefined) vars.graph = o.graph;
    const r = await o.query(q, vars);
    const page = (r.data as { statements?: { items?: StatementRow[]; nextCursor?: string | null } } | null)?.statements;
    for (const row of page?.items ?? []) out.push(rowToStatement(row));
    o.onProgress?.(out.length);
    if (!page?.nextCursor) return out;
    after = page.nextCursor;
  }
}
