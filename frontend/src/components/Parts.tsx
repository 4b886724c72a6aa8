import { useState } from 'react';
import type { Part } from '../api/types';
import { describePart } from '../lib/parts';
import { openURL, saveFile } from '../native';

function FilePart({ view }: { view: Extract<ReturnType<typeof describePart>, { type: 'file' }> }) {
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
              aria-label={`Export ${view.name}`}
              onClick={() =>
                void saveFile(view.name, view.bytes!).then(
                  (r) => setNote(r.saved ? (r.path ? `Saved to ${r.path}` : 'Downloaded') : ''),
                  (e: Error) => setNote(`Could not save: ${e.message}`),
                )
              }
            >
              Export
            </button>
          )}
          {view.link && (
            <button type="button" className="btn btn-small" aria-label={`Open link to ${view.name}`} onClick={() => void openURL(view.link!)}>
              Open link
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

/** The parts of a message or artifact: text as plain text, files with an export, data as JSON. */
export function Parts({ parts }: { parts: Part[] | null | undefined }) {
  const list = Array.isArray(parts) ? parts : [];
  if (list.length === 0) return null;
  return (
    <div className="parts">
      {list.map((p, i) => {
        const v = describePart(p);
        switch (v.type) {
          case 'text':
            return (
              <p key={i} className="part part-text">
                {v.text}
              </p>
            );
          case 'file':
            return <FilePart key={i} view={v} />;
          case 'data':
            return (
              <div key={i} className="part part-data">
                <span className="part-label">data</span>
                <pre>{v.json}</pre>
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
