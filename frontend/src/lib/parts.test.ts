import { describe, expect, it } from 'vitest';
import type { Artifact } from '../api/types';
import { safeFileName, safeHttpUrl } from '../native';
import { artifactsOf, describePart, mergeArtifacts, textOf, previewOf } from './parts';

describe('describePart', () => {
  it('keeps text as text, newlines and markup untouched', () => {
    expect(describePart({ kind: 'text', text: 'a\n<b>b</b>' })).toEqual({ type: 'text', text: 'a\n<b>b</b>' });
  });

  it('pretty-prints data', () => {
    const v = describePart({ kind: 'data', data: { a: [1, 2] } });
    expect(v).toEqual({ type: 'data', json: '{\n  "a": [\n    1,\n    2\n  ]\n}' });
  });

  it('describes a file with bytes: size from the bytes, exportable, no link', () => {
    const v = describePart({ kind: 'file', name: 'hello.txt', mediaType: 'text/plain', bytes: btoa('hello'), size: 999 });
    expect(v).toMatchObject({ type: 'file', name: 'hello.txt', mediaType: 'text/plain', size: 5, sizeLabel: '5 B', bytes: btoa('hello'), link: null, preview: null });
  });

  it('offers a preview only for raster images', () => {
    const png = describePart({ kind: 'file', name: 'a.png', mediaType: 'image/png', bytes: 'iVBORw0KGgo=' });
    expect(png.type === 'file' && png.preview).toBe('data:image/png;base64,iVBORw0KGgo=');
    const svg = describePart({ kind: 'file', name: 'a.svg', mediaType: 'image/svg+xml', bytes: 'PHN2Zz4=' });
    expect(svg.type === 'file' && svg.preview).toBeNull();
    const html = describePart({ kind: 'file', name: 'x.html', mediaType: 'text/html', bytes: 'PGI+' });
    expect(html.type === 'file' && html.preview).toBeNull();
  });

  it('only links http(s) URLs of file references', () => {
    const ok = describePart({ kind: 'file', url: 'https://example.com/r/report.pdf', mediaType: 'application/pdf' });
    expect(ok).toMatchObject({ type: 'file', link: 'https://example.com/r/report.pdf', name: 'report.pdf', bytes: null, rejectedLink: null });
    const bad = describePart({ kind: 'file', url: 'javascript:alert(1)', name: 'x' });
    expect(bad).toMatchObject({ type: 'file', link: null, rejectedLink: 'javascript:alert(1)' });
  });

  it('refuses bytes that are not base64', () => {
    expect(describePart({ kind: 'file', name: 'x', bytes: '<script>' })).toMatchObject({ bytes: null });
  });

  it('shows anything else as JSON', () => {
    expect(describePart({ kind: 'video', x: 1 }).type).toBe('unknown');
    expect(describePart(null).type).toBe('unknown');
    expect(describePart('text').type).toBe('unknown');
  });
});

describe('safe URLs and names', () => {
  it('allows http and https only', () => {
    expect(safeHttpUrl('https://a.example/x?y=1')).toBe('https://a.example/x?y=1');
    expect(safeHttpUrl('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080/');
    for (const u of ['javascript:alert(1)', 'JAVASCRIPT:alert(1)', 'data:text/html,<b>', 'file:///etc/passwd', 'vbscript:x', '//evil.example', 'not a url', 'https://user:pw@example.com/', 42])
      expect(safeHttpUrl(u)).toBeNull();
  });
  it('makes file names harmless', () => {
    expect(safeFileName('../../etc/passwd')).toBe('_.._etc_passwd');
    expect(safeFileName('a\u0000b\nc.txt')).toBe('abc.txt');
    expect(safeFileName('')).toBe('download');
    // a right-to-left override would show "invoiceexe.pdf" in the save dialog
    expect(safeFileName('invoice\u202Efdp.exe')).toBe('invoicefdp.exe');
    expect(safeFileName('\u200B\u2066\u2069')).toBe('download');
  });

  it('shows a file name without format characters', () => {
    const v = describePart({ kind: 'file', name: 'photo\u2066\u202Egpj.exe\u2069\u200E', bytes: 'eA==', mediaType: 'image/png' });
    expect(v.type === 'file' && v.name).toBe('photogpj.exe');
  });
});

describe('mergeArtifacts', () => {
  it('folds appended chunks into one artifact, joining text', () => {
    const chunks: Artifact[] = [
      { id: 'e', name: 'echo', parts: [{ kind: 'text', text: 'hel' }] },
      { id: 'e', name: 'echo', parts: [{ kind: 'text', text: 'lo ' }], append: true },
      { id: 'x', name: 'other', parts: [{ kind: 'data', data: 1 }] },
      { id: 'e', name: 'echo', parts: [{ kind: 'text', text: 'there' }], append: true, lastChunk: true },
    ];
    const out = mergeArtifacts(chunks);
    expect(out.map((a) => a.id)).toEqual(['e', 'x']);
    expect(out[0].parts).toEqual([{ kind: 'text', text: 'hello there' }]);
    expect(out[0].lastChunk).toBe(true);
  });

  it('replaces an artifact sent again without append', () => {
    const out = mergeArtifacts([
      { id: 'a', parts: [{ kind: 'text', text: 'v1' }] },
      { id: 'a', parts: [{ kind: 'text', text: 'v2' }] },
    ]);
    expect(out).toHaveLength(1);
    expect(textOf(out[0])).toBe('v2');
  });

  it('takes artifacts from the log, or from the stored task when the log has none', () => {
    const stored: Artifact[] = [{ id: 's', parts: [{ kind: 'text', text: 'stored' }] }];
    expect(artifactsOf([], stored).map((a) => a.id)).toEqual(['s']);
    const log = [{ seq: 1, at: '', kind: 'artifact', final: false, raw: {}, artifact: { id: 'l', parts: [] } }];
    expect(artifactsOf(log, stored).map((a) => a.id)).toEqual(['l']);
  });
});

describe('previewOf', () => {
  it('is the text, else what the message carries, never [object Object]', () => {
    expect(previewOf({ parts: [{ kind: 'text', text: 'Hello' }] })).toBe('Hello');
    expect(previewOf({ parts: [{ kind: 'data', data: { build: { id: 42 } } }] })).toBe('Data: {"build":{"id":42}}');
    expect(previewOf({ parts: [{ kind: 'file', name: 'a.txt', bytes: 'aGk=' }] })).toBe('File: a.txt');
    expect(previewOf({ parts: [{ kind: 'data', data: { long: 'x'.repeat(300) } }] }, 20)).toHaveLength(20);
    expect(previewOf(undefined)).toBe('');
  });
});
