import type { Part } from '../api/types';
import { describePart } from '../lib/parts';
import { JsonTree } from './JsonTree';
import { Markdown } from './Markdown';
import { FilePart } from './Parts';

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
            return <FilePart key={i} view={v} actions={from === 'agent' ? 'download' : 'none'} />;
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
