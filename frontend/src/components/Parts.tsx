import { useState } from 'react';
import type { Part } from '../api/types';
import { describePart } from '../lib/parts';
import { openURL, saveFile } from '../native';
import { JsonTree } from './JsonTree';
import { a2uiMessagesOf, describeAction, isA2uiPart, messageKind, surfaceIdOf, type A2uiMessage } from '../lib/a2ui';
import { Markdown } from './Markdown';

type FileView = Extract<ReturnType<typeof describePart>, { type: 'file' }>;

/** How a file part offers itself: as an export (task views), a download (chats), or not at all (what you sent). */
const FILE_ACTIONS = {
  export: { save: 'Export', open: 'Open link', openLabel: (name: string) => `Open link to ${name}` },
  download: { save: 'Download', open: 'Open', openLabel: (name: string) => `Open ${name}` },
  none: undefined,
} as const;

/** A file part: its name, type and size, with the actions `actions` names. */
export function FilePart({ view, actions = 'export' }: { view: FileView; actions?: keyof typeof FILE_ACTIONS }) {
  const [note, setNote] = useState('');
  const labels = FILE_ACTIONS[actions];
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
          {labels && view.bytes && (
            <button
              type="button"
              className="btn btn-small"
              aria-label={`${labels.save} ${view.name}`}
              onClick={() =>
                void saveFile(view.name, view.bytes!).then(
                  (r) => setNote(r.saved ? (r.path ? `Saved to ${r.path}` : 'Downloaded') : ''),
                  (e: Error) => setNote(`Could not save: ${e.message}`),
                )
              }
            >
              {labels.save}
            </button>
          )}
          {labels && view.link && (
            <button type="button" className="btn btn-small" aria-label={labels.openLabel(view.name)} title={view.link} onClick={() => void openURL(view.link!)}>
              {labels.open}
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

function dataOf(p: Part): unknown {
  return p && typeof p === 'object' && 'data' in p ? (p as { data: unknown }).data : undefined;
}

/**
 * The parts of a message or artifact. In task views: text as plain text, files with an export, data as
 * JSON. In a chat (`from` set): text is Markdown (rendered safely), the agent's and the owner's alike
 * (the person's **bold** was shown with its stars while the agent's was bold); the agent's files can be
 * downloaded or opened, the owner's show name and size; data is a JSON tree.
 */
export function Parts({ parts, from }: { parts: Part[] | null | undefined; from?: 'owner' | 'agent' }) {
  const list = Array.isArray(parts) ? parts : [];
  if (list.length === 0) return null;
  return (
    <div className="parts">
      {list.map((p, i) => {
        const v = describePart(p);
        switch (v.type) {
          case 'text':
            if (from && v.text === '') return null;
            return from ? (
              <Markdown key={i} text={v.text} />
            ) : (
              <p key={i} className="part part-text">
                {v.text}
              </p>
            );
          case 'file':
            // A file the owner sent can be downloaded again too (its bytes are in the record).
            return <FilePart key={i} view={v} actions={!from ? 'export' : 'download'} />;
          case 'data':
            if (isA2uiPart(p)) {
              // A2UI messages (a form, its update, an action): said in words, the JSON folded away.
              return (
                <div key={i} className="part part-data part-a2ui" data-testid="a2ui-part">
                  <span className="part-label">A2UI</span> <span className="small">{summarizeA2ui(a2uiMessagesOf([p]))}</span>
                  <details>
                    <summary className="small muted">JSON</summary>
                    <pre>{v.json}</pre>
                  </details>
                </div>
              );
            }
            return (
              <div key={i} className="part part-data">
                <span className="part-label">data</span>
                {from ? <JsonTree value={dataOf(p)} openDepth={2} label="Data" /> : <pre>{v.json}</pre>}
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

/** A2UI messages in words: "form release-plan-1 created, updated (12 components)", "You chose plan release". */
export function summarizeA2ui(messages: A2uiMessage[]): string {
  const out: string[] = [];
  for (const m of messages) {
    const kind = messageKind(m);
    const id = surfaceIdOf(m);
    switch (kind) {
      case 'createSurface':
        out.push(`form ${id} created`);
        break;
      case 'updateComponents': {
        const comps = (m.updateComponents as { components?: unknown[] } | undefined)?.components;
        out.push(`form ${id} updated (${Array.isArray(comps) ? comps.length : 0} components)`);
        break;
      }
      case 'updateDataModel':
      case 'dataModelUpdate':
        out.push(`form ${id}: data changed`);
        break;
      case 'surfaceUpdate': {
        const comps = (m.surfaceUpdate as { components?: unknown[] } | undefined)?.components;
        out.push(`form ${id} updated (${Array.isArray(comps) ? comps.length : 0} components)`);
        break;
      }
      case 'beginRendering':
        out.push(`form ${id} shown`);
        break;
      case 'deleteSurface':
        out.push(`form ${id} removed`);
        break;
      case 'action':
      case 'userAction':
      case 'error':
        out.push(describeAction(m));
        break;
      default:
        out.push(kind ? `${kind} (${id || 'no surface'})` : 'an A2UI message');
    }
  }
  return out.join('; ') || 'no A2UI messages';
}
