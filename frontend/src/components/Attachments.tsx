import type { OutgoingFile } from '../api/types';
import { base64Size, formatBytes, stripFormatChars } from '../lib/format';

/** Files about to be sent, each with its size and a way to take it off again. */
export function Attachments({ files, disabled, onRemove }: { files: OutgoingFile[]; disabled: boolean; onRemove: (index: number) => void }) {
  if (files.length === 0) return null;
  return (
    <ul className="attachments" aria-label="Attachments">
      {files.map((f, i) => (
        <li key={`${f.name}-${i}`}>
          <span className="file-name">{stripFormatChars(f.name)}</span>
          <span className="muted small">{formatBytes(base64Size(f.bytes))}</span>
          <button type="button" className="btn btn-ghost btn-small" aria-label={`Remove ${stripFormatChars(f.name)}`} disabled={disabled} onClick={() => onRemove(i)}>
            ✕
          </button>
        </li>
      ))}
    </ul>
  );
}
