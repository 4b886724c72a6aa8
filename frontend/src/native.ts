// Native things (links, saving, picking files): Wails bindings in the desktop window, plain browser
// mechanisms otherwise. Nothing else in the UI touches window.go.

import type { OutgoingFile } from './api/types';
import { stripFormatChars } from './lib/format';

interface AppBindings {
  OpenURL?: (url: string) => Promise<void>;
  SaveFile?: (suggestedName: string, base64Data: string) => Promise<string>;
  OpenFiles?: () => Promise<OutgoingFile[] | null>;
}

function bindings(): AppBindings | undefined {
  return (window as unknown as { go?: { app?: { App?: AppBindings } } }).go?.app?.App;
}

/**
 * Subscribes to an event the desktop shell emits (Wails runtime events), e.g. "inbox:open" with a
 * task id when the person clicks an inbox notification. In a browser there are none: a no-op.
 */
export function onNativeEvent(name: string, handler: (...data: unknown[]) => void): () => void {
  const rt = (window as unknown as { runtime?: { EventsOn?: (n: string, cb: (...d: unknown[]) => void) => () => void } }).runtime;
  if (!rt?.EventsOn) return () => {};
  const off = rt.EventsOn(name, handler);
  return typeof off === 'function' ? off : () => {};
}

/** Only absolute http(s) URLs are ever opened; anything else (javascript:, file:, data:...) is refused. */
export function safeHttpUrl(url: unknown): string | null {
  if (typeof url !== 'string' || url.length > 4096) return null;
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  if (u.username || u.password) return null;
  return u.href;
}

/** Opens a link in the system browser (desktop) or a new tab. Returns false when the URL was refused. */
export async function openURL(url: string): Promise<boolean> {
  const safe = safeHttpUrl(url);
  if (!safe) return false;
  const b = bindings();
  if (b?.OpenURL) {
    await b.OpenURL(safe);
    return true;
  }
  window.open(safe, '_blank', 'noopener,noreferrer');
  return true;
}

/** A file name that cannot escape a directory or carry control or format (bidi, zero-width) characters. */
export function safeFileName(name: string | undefined, fallback = 'download'): string {
  const cleaned = stripFormatChars(name ?? '')
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .replace(/[\\/:*?"<>|]/g, '_')
    .replace(/^\.+/, '')
    .trim()
    .slice(0, 200);
  return cleaned || fallback;
}

export function utf8ToBase64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  return bytesToBase64(bytes);
}

export function bytesToBase64(bytes: Uint8Array): string {
  let bin = '';
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) {
    bin += String.fromCharCode(...bytes.subarray(i, i + chunk));
  }
  return btoa(bin);
}

export function base64ToBytes(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export type SaveResult = { saved: true; path?: string } | { saved: false };

/**
 * Saves data (base64) under a suggested name: the native save dialog in the desktop window, a download
 * in a browser. In a browser the file is always offered as application/octet-stream so that nothing
 * an agent sent is rendered by the browser.
 */
export async function saveFile(suggestedName: string, base64Data: string): Promise<SaveResult> {
  const name = safeFileName(suggestedName);
  const b = bindings();
  if (b?.SaveFile) {
    const path = await b.SaveFile(name, base64Data);
    return path ? { saved: true, path } : { saved: false };
  }
  const bytes = base64ToBytes(base64Data);
  const blob = new Blob([bytes as BlobPart], { type: 'application/octet-stream' });
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
  return { saved: true };
}

function readAsBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onerror = () => reject(r.error ?? new Error('Could not read ' + file.name));
    r.onload = () => {
      const s = String(r.result ?? '');
      const comma = s.indexOf(',');
      resolve(comma >= 0 ? s.slice(comma + 1) : '');
    };
    r.readAsDataURL(file);
  });
}

export async function filesToOutgoing(files: Iterable<File>): Promise<OutgoingFile[]> {
  const out: OutgoingFile[] = [];
  for (const f of files) {
    out.push({ name: f.name, mediaType: f.type || 'application/octet-stream', bytes: await readAsBase64(f) });
  }
  return out;
}

/** True in the desktop window, where files are picked with the native dialog. */
export function hasNativeFilePicker(): boolean {
  return typeof bindings()?.OpenFiles === 'function';
}

/** Lets the person pick files: the native dialog in the desktop window, an <input type=file> otherwise. */
export async function openFiles(): Promise<OutgoingFile[]> {
  const b = bindings();
  if (b?.OpenFiles) {
    return (await b.OpenFiles()) ?? [];
  }
  return new Promise((resolve) => {
    const input = document.createElement('input');
    input.type = 'file';
    input.multiple = true;
    input.style.display = 'none';
    let done = false;
    const finish = (files: OutgoingFile[]) => {
      if (done) return;
      done = true;
      input.remove();
      resolve(files);
    };
    input.addEventListener('change', () => {
      void filesToOutgoing(Array.from(input.files ?? [])).then(finish, () => finish([]));
    });
    input.addEventListener('cancel', () => finish([]));
    document.body.appendChild(input);
    input.click();
  });
}
