// The Knowledge page's "Import / Export" tab. Import: an N-Quads or JSON-LD file parsed here, sent as
// knowledge/update `add` patches in batches with the person's justification, with progress and
// cancel. Export: every statement (or one named graph's), read page by page through knowledge/query,
// written as N-Quads or JSON-LD and saved (the desktop's save dialog, a download in a browser).

import { useRef, useState } from 'react';
import { base64ToBytes, hasNativeFilePicker, openFiles, saveFile, utf8ToBase64 } from '../native';
import { kgErrorText, query, update } from './kg';
import { MAX_CANVAS_NODES } from './layout';
import { Cancelled, exportStatements, importStatements, type ImportOutcome } from './io';
import { formatOfFileName, freshBlankPrefix, parseRdf, RdfParseError, serializeRdf, type KGStatement, type RdfFormat } from './rdf';
import './kgconsole.css';

interface Picked {
  name: string;
  format: RdfFormat;
  text: string;
}

type ImportState =
  | { phase: 'idle' }
  | { phase: 'parsing' }
  | { phase: 'parsed'; statements: KGStatement[] }
  | { phase: 'sending'; sent: number; total: number }
  /** subjects: the nodes the imported statements are about, for "Show what I imported" */
  | { phase: 'done'; outcome: ImportOutcome; subjects: string[] };

type ExportState = { phase: 'idle' } | { phase: 'reading'; read: number } | { phase: 'writing'; read: number } | { phase: 'done'; count: number; saved: boolean; path?: string };

const FORMAT_LABELS: Record<RdfFormat, string> = { nquads: 'N-Quads', jsonld: 'JSON-LD' };

// How many of an import's nodes "Show what I imported" brings to the canvas (the first ones, in the
// file's order), with the links among them: as many as the canvas shows at once.
const SHOW_IMPORTED = MAX_CANVAS_NODES;

export function ImportExport({ agent, onShowInGraph }: { agent?: string; onShowInGraph?: (ids: string[]) => void }) {
  return (
    <div className="kgio" data-testid="import-export">
      <ImportSection agent={agent} onShowInGraph={onShowInGraph} />
      <ExportSection agent={agent} />
    </div>
  );
}

function ImportSection({ agent, onShowInGraph }: { agent?: string; onShowInGraph?: (ids: string[]) => void }) {
  const [file, setFile] = useState<Picked | null>(null);
  // Blank nodes are the file's own (RDF scopes them to their document): each import gets new ones,
  // unless the person restores a file of this hub's own and asks to keep its labels.
  const [keepLabels, setKeepLabels] = useState(false);
  const [justification, setJustification] = useState('');
  const [state, setState] = useState<ImportState>({ phase: 'idle' });
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const abort = useRef<AbortController | null>(null);

  const pick = async (f: { name: string; text: string }) => {
    setError(null);
    const format = formatOfFileName(f.name);
    if (!format) {
      setFile(null);
      setState({ phase: 'idle' });
      setError(`${f.name}: choose an N-Quads (.nq, .nt) or JSON-LD (.jsonld, .json) file.`);
      return;
    }
    setFile({ name: f.name, format, text: f.text });
    await parse({ name: f.name, format, text: f.text }, keepLabels);
  };

  const parse = async (f: Picked, keep: boolean) => {
    setState({ phase: 'parsing' });
    setError(null);
    try {
      // JSON-LD's blank nodes are named by the parser (b0, b1…), so they are always this file's own.
      const blankPrefix = keep && f.format === 'nquads' ? '' : freshBlankPrefix();
      const statements = await parseRdf(f.text, f.format, { blankPrefix });
      setState({ phase: 'parsed', statements });
    } catch (e) {
      setState({ phase: 'idle' });
      const line = e instanceof RdfParseError && e.line ? ` (line ${e.line})` : '';
      setError(`${f.name} could not be read${line}: ${(e as Error).message}`);
    }
  };

  const choose = async () => {
    if (hasNativeFilePicker()) {
      const [f] = await openFiles();
      if (f) await pick({ name: f.name, text: new TextDecoder().decode(base64ToBytes(f.bytes)) });
      return;
    }
    input.current?.click();
  };

  const start = async () => {
    if (state.phase !== 'parsed' || !justification.trim()) return;
    const ac = new AbortController();
    abort.current = ac;
    const total = state.statements.length;
    setState({ phase: 'sending', sent: 0, total });
    const outcome = await importStatements(state.statements, {
      update: (patches, why) => update(agent, patches, why),
      justification: justification.trim(),
      signal: ac.signal,
      onProgress: (sent, t) => setState({ phase: 'sending', sent, total: t }),
      errorText: kgErrorText,
    });
    abort.current = null;
    const subjects = new Set<string>();
    for (const st of state.statements.slice(0, outcome.imported)) {
      if (subjects.size > SHOW_IMPORTED) break; // one more than shown: there are more than it shows
      subjects.add(st.subject.id);
    }
    setState({ phase: 'done', outcome, subjects: [...subjects] });
  };

  const sending = state.phase === 'sending';
  const statements = state.phase === 'parsed' ? state.statements : null;

  return (
    <section className="kgio-section" aria-labelledby="kgio-import">
      <h3 id="kgio-import">Import</h3>
      <p className="muted small">
        Adds the statements of an N-Quads (.nq, .nt) or JSON-LD (.jsonld, .json) file through knowledge/update, in batches; each batch is
        checked against the hub’s alignment rules.
      </p>
      <div className="kgio-row">
        <button type="button" className="btn" onClick={() => void choose()} disabled={sending}>
          Choose file…
        </button>
        <input
          ref={input}
          type="file"
          accept=".nq,.nt,.jsonld,.json"
          hidden
          data-testid="import-file"
          onChange={(e) => {
            const f = e.target.files?.[0];
            e.target.value = '';
            if (f) void f.text().then((text) => pick({ name: f.name, text }));
          }}
        />
        {file && (
          <span className="small">
            {file.name} · {FORMAT_LABELS[file.format]}
            {state.phase === 'parsing' && ' · reading…'}
            {statements && ` · ${statements.length} statements`}
          </span>
        )}
      </div>
      {file?.format === 'nquads' && (
        <label className="small">
          <input
            type="checkbox"
            checked={keepLabels}
            disabled={sending}
            onChange={(e) => {
              setKeepLabels(e.target.checked);
              void parse(file, e.target.checked);
            }}
          />{' '}
          Keep the file’s blank node labels (importing the file again then adds nothing new); unchecked, each import’s blank nodes are new ones
        </label>
      )}
      <div className="kgio-row">
        <input
          className="kgio-justification"
          type="text"
          aria-label="Justification"
          placeholder="Why these statements are added (required: recorded with each one)"
          value={justification}
          onChange={(e) => setJustification(e.target.value)}
          disabled={sending}
        />
        {sending ? (
          <button type="button" className="btn btn-danger" onClick={() => abort.current?.abort()}>
            Cancel
          </button>
        ) : (
          <button
            type="button"
            className="btn btn-primary"
            onClick={() => void start()}
            disabled={!statements || statements.length === 0 || !justification.trim()}
          >
            Import{statements ? ` ${statements.length} statements` : ''}
          </button>
        )}
      </div>
      {(sending || state.phase === 'done') && (
        <ImportProgress sent={sending ? state.sent : state.phase === 'done' ? state.outcome.imported : 0} total={sending ? state.total : state.phase === 'done' ? state.outcome.total : 0} />
      )}
      {state.phase === 'done' && <ImportResult outcome={state.outcome} />}
      {state.phase === 'done' && onShowInGraph && state.subjects.length > 0 && (
        <div className="kgio-row">
          <button type="button" className="btn btn-primary" onClick={() => onShowInGraph(state.subjects.slice(0, SHOW_IMPORTED))}>
            Show what I imported
          </button>
          <span className="muted small">
            {state.subjects.length <= SHOW_IMPORTED
              ? `its ${state.subjects.length.toLocaleString('en')} nodes`
              : `its first ${SHOW_IMPORTED.toLocaleString('en')} nodes (the most the canvas shows)`}
            , with the links among them, in Explore
          </span>
        </div>
      )}
      {error && (
        <p className="kgio-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

function ImportProgress({ sent, total }: { sent: number; total: number }) {
  return (
    <div className="kgio-row">
      <progress className="kgio-progress" max={Math.max(1, total)} value={sent} aria-label="Import progress" data-testid="import-progress" />
      <span className="small" data-testid="import-count">
        {sent} / {total} statements
      </span>
    </div>
  );
}

function ImportResult({ outcome }: { outcome: ImportOutcome }) {
  if (outcome.error) {
    return (
      <p className="kgio-error" role="alert" data-testid="import-error">
        Stopped: {outcome.error.message}
        {outcome.error.code !== undefined && ` (${outcome.error.code})`}. {outcome.imported} of {outcome.total} statements were imported
        {outcome.imported > 0 ? ' (the batches before the refused one)' : ''}.
      </p>
    );
  }
  if (outcome.cancelled) {
    return (
      <p className="muted" role="status">
        Cancelled: {outcome.imported} of {outcome.total} statements were imported.
      </p>
    );
  }
  return (
    <p className="kgio-ok" role="status" data-testid="import-done">
      Imported {outcome.imported} statements.
    </p>
  );
}

function ExportSection({ agent }: { agent?: string }) {
  const [format, setFormat] = useState<RdfFormat>('nquads');
  const [scope, setScope] = useState<'all' | 'graph'>('all');
  const [graph, setGraph] = useState('');
  const [state, setState] = useState<ExportState>({ phase: 'idle' });
  const [error, setError] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);

  const start = async () => {
    const ac = new AbortController();
    abort.current = ac;
    setError(null);
    setState({ phase: 'reading', read: 0 });
    try {
      const sts = await exportStatements({
        query: (q, variables) => query(agent, q, variables),
        graph: scope === 'graph' ? graph.trim() : undefined,
        signal: ac.signal,
        onProgress: (read) => setState({ phase: 'reading', read }),
      });
      setState({ phase: 'writing', read: sts.length });
      const text = await serializeRdf(sts, format);
      if (ac.signal.aborted) throw new Cancelled();
      const base = (agent ? `knowledge-${agent}` : 'knowledge') + (scope === 'graph' && graph.trim() ? '-' + graph.trim() : '');
      const saved = await saveFile(base + (format === 'nquads' ? '.nq' : '.jsonld'), utf8ToBase64(text));
      setState({ phase: 'done', count: sts.length, saved: saved.saved, path: saved.saved ? saved.path : undefined });
    } catch (e) {
      setState({ phase: 'idle' });
      if (!(e instanceof Cancelled)) setError(kgErrorText(e));
    } finally {
      abort.current = null;
    }
  };

  const busy = state.phase === 'reading' || state.phase === 'writing';
  return (
    <section className="kgio-section" aria-labelledby="kgio-export">
      <h3 id="kgio-export">Export</h3>
      <div className="kgio-row">
        <label>
          Format
          <select value={format} onChange={(e) => setFormat(e.target.value as RdfFormat)} disabled={busy} aria-label="Export format">
            <option value="nquads">N-Quads (.nq)</option>
            <option value="jsonld">JSON-LD (.jsonld)</option>
          </select>
        </label>
        <label>
          <input type="radio" name="kgio-scope" checked={scope === 'all'} onChange={() => setScope('all')} disabled={busy} /> Whole graph
        </label>
        <label>
          <input type="radio" name="kgio-scope" checked={scope === 'graph'} onChange={() => setScope('graph')} disabled={busy} /> Named graph
        </label>
        {scope === 'graph' && (
          <input
            type="text"
            aria-label="Graph id"
            placeholder="graph id (empty: the default graph)"
            value={graph}
            onChange={(e) => setGraph(e.target.value)}
            disabled={busy}
          />
        )}
        {busy ? (
          <button type="button" className="btn btn-danger" onClick={() => abort.current?.abort()}>
            Cancel
          </button>
        ) : (
          <button type="button" className="btn btn-primary" onClick={() => void start()}>
            Export
          </button>
        )}
      </div>
      {busy && (
        <div className="kgio-row" role="status">
          <progress className="kgio-progress" aria-label="Export progress" />
          <span className="small" data-testid="export-count">
            {state.phase === 'writing' ? `Writing ${state.read} statements…` : `${state.read} statements read…`}
          </span>
        </div>
      )}
      {state.phase === 'done' && (
        <p className="kgio-ok" role="status" data-testid="export-done">
          {state.saved ? `Exported ${state.count} statements${state.path ? ' to ' + state.path : ''}.` : `Not saved (${state.count} statements read).`}
        </p>
      )}
      {error && (
        <p className="kgio-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
