// Channel events carry parts in whatever shape their author wrote: the spec's v0.1 style
// ({type: "text", text}, {type: "file", file: {name, mimeType, bytes | uri}}), v0.3 ({kind, ...}),
// or the flat one the UI gateway uses. They are turned into the UI's Part so Parts shows them.

import type { OutgoingFile, Part } from '../api/types';
import { A2UI_LEGACY_MEDIA_TYPE, A2UI_MEDIA_TYPE } from '../lib/a2ui';

export function toPart(p: unknown): Part | unknown {
  if (!p || typeof p !== 'object') return p;
  const o = p as Record<string, unknown>;
  const kind = typeof o.kind === 'string' ? o.kind : typeof o.type === 'string' ? o.type : '';
  switch (kind) {
    case 'text':
      return { kind: 'text', text: typeof o.text === 'string' ? o.text : '' };
    case 'data': {
      // the media type: the v1.0 field, or metadata.mimeType (the draft's data part has no field for
      // it). In a channel an A2UI part carries one message as its data (the draft's data is an
      // object): it becomes a list of one, as lib/a2ui.ts reads A2UI parts.
      const meta = o.metadata && typeof o.metadata === 'object' ? (o.metadata as Record<string, unknown>) : {};
      const mediaType = typeof o.mediaType === 'string' ? o.mediaType : typeof meta.mimeType === 'string' ? meta.mimeType : undefined;
      if (!mediaType) return { kind: 'data', data: o.data };
      const a2ui = mediaType === A2UI_MEDIA_TYPE || mediaType === A2UI_LEGACY_MEDIA_TYPE;
      const one = o.data !== null && typeof o.data === 'object' && !Array.isArray(o.data);
      return { kind: 'data', data: a2ui && one ? [o.data] : o.data, mediaType };
    }
    case 'file': {
      const f = o.file && typeof o.file === 'object' ? (o.file as Record<string, unknown>) : o;
      const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
      return {
        kind: 'file',
        name: str(f.name),
        mediaType: str(f.mediaType) ?? str(f.mimeType),
        bytes: str(f.bytes),
        url: str(f.url) ?? str(f.uri),
        ...(typeof f.size === 'number' ? { size: f.size } : {}),
      };
    }
    default:
      return p;
  }
}

/** The text of an event's parts (for previews and the mention check). */
export function eventText(parts: unknown[] | null | undefined): string {
  return (Array.isArray(parts) ? parts : [])
    .map((p) => toPart(p) as Part)
    .map((p) => (p && typeof p === 'object' && p.kind === 'text' ? p.text : ''))
    .filter(Boolean)
    .join('\n');
}

/** The parts the owner publishes: the spec's own shapes (§4.3, §7.1). */
export function outgoingParts(text: string, files: OutgoingFile[]): unknown[] {
  const parts: unknown[] = [];
  if (text) parts.push({ type: 'text', text });
  for (const f of files) parts.push({ type: 'file', file: { name: f.name, mimeType: f.mediaType, bytes: f.bytes } });
  return parts;
}
