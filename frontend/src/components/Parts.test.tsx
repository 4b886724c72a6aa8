import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { planForm, SID } from '../lib/a2ui.fixtures';
import { Parts } from './Parts';

afterEach(() => {
  delete (window as unknown as { go?: unknown }).go;
});

describe('Parts', () => {
  it('renders text as text, keeping newlines and never markup', () => {
    const { container } = render(<Parts parts={[{ kind: 'text', text: 'line 1\n<img src=x onerror=alert(1)>' }]} />);
    const p = container.querySelector('.part-text')!;
    expect(p.textContent).toBe('line 1\n<img src=x onerror=alert(1)>');
    expect(container.querySelector('img')).toBeNull();
  });

  it('shows data as pretty JSON', () => {
    const { container } = render(<Parts parts={[{ kind: 'data', data: { primes: [2, 3] } }]} />);
    expect(container.querySelector('.part-data pre')!.textContent).toBe('{\n  "primes": [\n    2,\n    3\n  ]\n}');
  });

  it('says what A2UI parts do in words, their JSON folded away', () => {
    const form = { kind: 'data' as const, mediaType: 'application/a2ui+json', data: planForm };
    const action = {
      kind: 'data' as const,
      mediaType: 'application/a2ui+json',
      data: [{ version: 'v0.9', action: { name: 'plan_release', surfaceId: SID, sourceComponentId: 'submit', timestamp: '', context: { version: '2.0' } } }],
    };
    render(<Parts parts={[form, action]} from="agent" />);
    const [f, a] = screen.getAllByTestId('a2ui-part');
    expect(f.textContent).toContain(`form ${SID} created; form ${SID} updated (`);
    expect(a.textContent).toContain('You chose plan release (version: 2.0)');
    expect(f.querySelector('details')?.open).toBe(false);
  });

  it('shows a file with its name, type and size, and exports it through the native save', async () => {
    const SaveFile = vi.fn(async () => '/tmp/hello.txt');
    (window as unknown as { go: unknown }).go = { app: { App: { SaveFile } } };
    render(<Parts parts={[{ kind: 'file', name: 'hello.txt', mediaType: 'text/plain', bytes: btoa('hello world') }]} />);
    expect(screen.getByText('hello.txt')).toBeTruthy();
    expect(screen.getByText('text/plain · 11 B')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Export hello.txt' }));
    expect(SaveFile).toHaveBeenCalledWith('hello.txt', btoa('hello world'));
    expect((await screen.findByRole('status')).textContent).toBe('Saved to /tmp/hello.txt');
  });

  it('offers no link for a file reference that is not http(s)', () => {
    render(<Parts parts={[{ kind: 'file', name: 'x', url: 'javascript:alert(1)' }]} />);
    expect(screen.queryByRole('button', { name: /Open link/ })).toBeNull();
    expect(screen.getByText(/Link not opened/).textContent).toContain('javascript:alert(1)');
  });
});
