import { useState } from 'react';
import type { Part } from '../api/types';
import { describePart, type PartView } from '../lib/parts';
import { openURL, saveFile } from '../native';
import { JsonTree } from './JsonTree';
import { Markdown } from './Markdown';

type FileView = Extract<PartView, { type: 'file' }>;

/** A file the agent sent: Download (its bytes) or Open (its http(s) link). */
function IncomingFile({ view }: { view: FileView }) {
  const [note, setNote] = useState('');
  return (
    <div className="part part-file">
      <div className="file-row">
        <span className="file-icon" aria-hidden="true">
          ▤
        </span>
        <div className="file-meta">
          <span className="file-name">{view.name}</span>
          <span className="muted small">
            {view.mediaType}
            {view.sizeLabel ? ` · ${view.sizeLabel}` : ''}
          </span>
        </div>
        <div className="file-actions">
          {view.bytes && (
            <button
              type="button"
              className="btn btn-small"
              aria-label={`Download ${view.name}`}
              onClick={() =>
                void saveFile(view.name, view.bytes!).then(
                  (r) => setNote(r.saved ? (r.path ? `Saved to ${r.path}` : 'Downloaded') : ''),
                  (e: Error) => setNote(`Could not save: ${e.message}`),
                )
              }
            >
              Download
            </button>
          )}
          {view.link && (
            <button type="button" className="btn btn-small" aria-label={`Open ${view.name}`} title={view.link} onClick={() => void openURL(view.link!)}>
              Open
            </button>
          )}
        </div>
      </div>
      {view.rejectedLink && <p className="muted small">Link not opened (only http and https links are): {view.rejectedLink}</p>}
      {view.preview && <img className="file-preview" src={view.preview} alt={`Preview of ${view.name}`} />}
      {note && (
        <p className="muted small" role="status">
          {note}
        </p>
      )}
    </div>
  );
}

/** A file the owner sent: its name and size. */
function OutgoingFileView({ view }: { view: FileView }) {
  return (
    <div className="part part-file">
      <div className="file-row">
        <span className="file-icon" aria-hidden="true">
          ▤
        </span>
        <div className="file-meta">
          <span className="file-name">{view.name}</span>
          <span className="muted small">{view.sizeLabel || view.mediaType}</span>
        </div>
      </div>
    </div>
  );
}

function dataOf(p: Part): unknown {
  return p && typeof p === 'object' && 'data' in p ? (p as { data: unknown }).data : undefined;
}

/**
 * The parts of a chat message or artifact. The agent's text is Markdown (rendered safely); the owner's
 * is shown as typed. Files: the agent's can be downloaded or opened, the owner's show name and size.
 * Data parts are a JSON tree.
 */
export function ChatParts({ parts, from }: { parts: Part[] | null | undefined; from: 'owner' | 'agent' }) {
  const list = Array.isArray(parts) ? parts : [];
  if (list.length === 0) return null;
  return (
    <div className="parts">
      {list.map((p, i) => {
        const v = describePart(p);
        switch (v.type) {
          case 'text':
            if (v.text === '') return null;
            return from === 'agent' ? (
              <Markdown key={i} text={v.text} />
            ) : (
              <p key={i} className="part part-text">
                {v.text}
              </p>
            );
          case 'file':
            return from === 'agent' ? <IncomingFile key={i} view={v} /> : <OutgoingFileView key={i} view={v} />;
          case 'data':
            return (
              <div key={i} className="part part-data">
                <span className="part-label">data</span>
                <JsonTree value={dataOf(p)} openDepth={2} label="Data" />
              </div>
            );
          default:
            return (
              <div key={i} className="part part-data">
                <span className="part-label">unrecognised part</span>
                <pre>{v.json}</pre>
              </div>
            );
        }
      })}
    </div>
  );
}
