import { afterEach, describe, expect, it, vi } from 'vitest';
import { openFiles, openURL, saveFile, utf8ToBase64 } from './native';

const w = window as unknown as { go?: unknown };
afterEach(() => {
  delete w.go;
});

describe('native, in the desktop window', () => {
  it('uses the Wails bindings', async () => {
    const App = {
      OpenURL: vi.fn(async () => {}),
      SaveFile: vi.fn(async () => '/home/me/Downloads/report.txt'),
      OpenFiles: vi.fn(async () => [{ name: 'a.txt', mediaType: 'text/plain', bytes: 'YQ==' }]),
    };
    w.go = { app: { App } };
    expect(await openURL('https://example.com/docs')).toBe(true);
    expect(App.OpenURL).toHaveBeenCalledWith('https://example.com/docs');
    expect(await saveFile('report.txt', utf8ToBase64('hé'))).toEqual({ saved: true, path: '/home/me/Downloads/report.txt' });
    expect(App.SaveFile).toHaveBeenCalledWith('report.txt', 'aMOp');
    expect(await openFiles()).toEqual([{ name: 'a.txt', mediaType: 'text/plain', bytes: 'YQ==' }]);
  });

  it('never opens anything but http(s)', async () => {
    const App = { OpenURL: vi.fn(async () => {}) };
    w.go = { app: { App } };
    const open = vi.spyOn(window, 'open').mockImplementation(() => null);
    expect(await openURL('javascript:alert(1)')).toBe(false);
    expect(await openURL('file:///etc/passwd')).toBe(false);
    expect(App.OpenURL).not.toHaveBeenCalled();
    expect(open).not.toHaveBeenCalled();
  });

  it('reports a cancelled save', async () => {
    w.go = { app: { App: { SaveFile: vi.fn(async () => '') } } };
    expect(await saveFile('x', 'eA==')).toEqual({ saved: false });
  });
});

describe('native, in a browser', () => {
  it('opens links in a new tab without an opener', async () => {
    const open = vi.spyOn(window, 'open').mockImplementation(() => null);
    await openURL('http://127.0.0.1:8080/card');
    expect(open).toHaveBeenCalledWith('http://127.0.0.1:8080/card', '_blank', 'noopener,noreferrer');
  });

  it('saves through a download link with a safe name, as octet-stream', async () => {
    const created: Blob[] = [];
    URL.createObjectURL = vi.fn((b: Blob) => {
      created.push(b);
      return 'blob:x';
    }) as typeof URL.createObjectURL;
    URL.revokeObjectURL = vi.fn();
    const clicks: HTMLAnchorElement[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicks.push(this);
    });
    expect(await saveFile('../evil.html', utf8ToBase64('<script>'))).toEqual({ saved: true });
    expect(click).toHaveBeenCalledTimes(1);
    expect(clicks[0].download).toBe('_evil.html');
    expect(created[0].type).toBe('application/octet-stream');
    expect(await created[0].text()).toBe('<script>');
  });
});

describe('onNativeEvent', () => {
  it('is a no-op in a browser and forwards Wails runtime events in the desktop window', async () => {
    const { onNativeEvent } = await import('./native');
    const seen: unknown[] = [];
    expect(() => onNativeEvent('inbox:open', (id) => seen.push(id))()).not.toThrow();
    const handlers: Record<string, (...d: unknown[]) => void> = {};
    let offCalled = false;
    (window as unknown as { runtime?: unknown }).runtime = {
      EventsOn: (n: string, cb: (...d: unknown[]) => void) => {
        handlers[n] = cb;
        return () => {
          offCalled = true;
        };
      },
    };
    try {
      const off = onNativeEvent('inbox:open', (id) => seen.push(id));
      handlers['inbox:open']('task-7');
      off();
      expect(seen).toEqual(['task-7']);
      expect(offCalled).toBe(true);
    } finally {
      delete (window as unknown as { runtime?: unknown }).runtime;
    }
  });
});
