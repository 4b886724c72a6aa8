// What to show for a part or an artifact. Every field may come from a remote agent: nothing here
// trusts a type, a URL or a size.

import type { Artifact, Part, TimelineEvent } from '../api/types';
import { safeHttpUrl } from '../native';
import { base64Size, formatBytes, stripFormatChars } from './format';

export type PartView =
  | { type: 'text'; text: string }
  | {
      type: 'file';
      name: string;
      mediaType: string;
      size: number | undefined;
      sizeLabel: string;
      /** base64 bytes that can be exported */
      bytes: string | null;
      /** an http(s) link to the file, when the part is a reference */
      link: string | null;
      /** an unsafe link (not http/https) that is shown as text only */
      rejectedLink: string | null;
      /** a data: URL for an inline preview of a raster image, or null */
      preview: string | null;
    }
  | { type: 'data'; json: string }
  | { type: 'unknown'; json: string };

const PREVIEWABLE = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif']);
export const MAX_PREVIEW_BYTES = 4 * 1024 * 1024;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function prettyJson(v: unknown): string {
  try {
    const s = JSON.stringify(v, null, 2);
    return s === undefined ? String(v) : s;
  } catch {
    return String(v);
  }
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

export function describePart(p: unknown): PartView {
  if (!p || typeof p !== 'object') return { type: 'unknown', json: prettyJson(p) };
  const part = p as Record<string, unknown>;
  switch (part.kind) {
    case 'text':
      return { type: 'text', text: str(part.text) };
    case 'data':
      return { type: 'data', json: prettyJson(part.data) };
    case 'file': {
      const bytesRaw = str(part.bytes).replace(/\s/g, '');
      const bytes = bytesRaw && BASE64.test(bytesRaw) ? bytesRaw : null;
      const declared = typeof part.size === 'number' && Number.isFinite(part.size) && part.size >= 0 ? part.size : undefined;
      const size = bytes ? base64Size(bytes) : declared;
      const mediaType = str(part.mediaType).toLowerCase().slice(0, 200);
      const url = str(part.url);
      const link = url ? safeHttpUrl(url) : null;
      const preview =
        bytes && PREVIEWABLE.has(mediaType) && (size ?? 0) <= MAX_PREVIEW_BYTES ? `data:${mediaType};base64,${bytes}` : null;
      return {
        type: 'file',
        name: stripFormatChars(str(part.name)) || (link ? link.split('/').pop() || 'file' : 'file'),
        mediaType: mediaType || 'application/octet-stream',
        size,
        sizeLabel: formatBytes(size),
        bytes,
        link,
        rejectedLink: url && !link ? url : null,
        preview,
      };
    }
    default:
      return { type: 'unknown', json: prettyJson(p) };
  }
}

export function partsOf(v: { parts?: Part[] | null } | null | undefined): Part[] {
  return Array.isArray(v?.parts) ? (v!.parts as Part[]) : [];
}

/**
 * One line for a list: the text of a message, else what it carries ("Data: {…}" compact JSON,
 * "File: name"), never "[object Object]".
 */
export function previewOf(v: { parts?: Part[] | null } | null | undefined, max = 140): string {
  const text = textOf(v).trim();
  if (text) return text.length > max ? text.slice(0, max - 1) + '…' : text;
  const bits: string[] = [];
  for (const p of partsOf(v)) {
    const d = describePart(p);
    if (d.type === 'data') {
      let json = '';
      try {
        json = JSON.stringify((p as { data?: unknown }).data) ?? '';
      } catch {
        json = '';
      }
      bits.push(`Data: ${json}`);
    } else if (d.type === 'file') {
      bits.push(`File: ${d.name}`);
    }
  }
  const line = bits.join(' · ');
  return line.length > max ? line.slice(0, max - 1) + '…' : line;
}

/** Plain text of a message or artifact's text parts, for previews. */
export function textOf(v: { parts?: Part[] | null } | null | undefined): string {
  return partsOf(v)
    .filter((p): p is Extract<Part, { kind: 'text' }> => !!p && p.kind === 'text' && typeof p.text === 'string')
    .map((p) => p.text)
    .join(' ');
}

/** Concatenates parts, joining a text part onto a text part before it (streamed text chunks). */
export function joinParts(a: Part[], b: Part[]): Part[] {
  const out = [...a];
  for (const p of b) {
    const last = out[out.length - 1];
    if (last && last.kind === 'text' && p && p.kind === 'text') {
      out[out.length - 1] = { kind: 'text', text: (last.text ?? '') + (p.text ?? '') };
    } else {
      out.push(p);
    }
  }
  return out;
}

/**
 * Folds artifact updates into artifacts, in order: an update with append adds its parts to the
 * artifact with the same id (adjacent text chunks are joined); one without replaces it.
 */
export function mergeArtifacts(updates: readonly (Artifact | null | undefined)[]): Artifact[] {
  const order: string[] = [];
  const byId = new Map<string, Artifact>();
  updates.forEach((a, i) => {
    if (!a || typeof a !== 'object') return;
    const id = typeof a.id === 'string' && a.id ? a.id : `#${i}`;
    const prev = byId.get(id);
    if (!prev) order.push(id);
    if (prev && a.append) {
      byId.set(id, { ...prev, parts: joinParts(partsOf(prev), partsOf(a)), lastChunk: a.lastChunk });
    } else {
      byId.set(id, { ...a, id, parts: partsOf(a), append: false });
    }
  });
  return order.map((id) => byId.get(id)!);
}

/** The artifacts a log describes; falls back to the stored task's artifacts when the log has none. */
export function artifactsOf(events: readonly TimelineEvent[], stored: Artifact[] | null | undefined): Artifact[] {
  const updates = events.filter((e) => e.kind === 'artifact' && e.artifact).map((e) => e.artifact!);
  if (updates.length) return mergeArtifacts(updates);
  return mergeArtifacts(Array.isArray(stored) ? stored : []);
}
