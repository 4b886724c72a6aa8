import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { planConfirmed, planForm, SID, surfaceOf } from '../lib/a2ui.fixtures';
import { A2uiSurfaceView } from './A2uiSurfaceView';

describe('A2uiSurfaceView', () => {
  it('renders the form, sends the action with the data model, and updates in place', async () => {
    const onAction = vi.fn(async () => undefined);
    const { container, rerender } = render(<A2uiSurfaceView surfaceId={SID} messages={planForm} onAction={onAction} />);
    await screen.findByText('Plan a release');
    const version = (await screen.findByLabelText('Version')) as HTMLInputElement;
    expect(version.value).toBe('1.0.0');
    fireEvent.change(version, { target: { value: '2.0.0' } });
    fireEvent.click(screen.getByRole('button', { name: 'Plan it' }));
    await waitFor(() => expect(onAction).toHaveBeenCalledTimes(1));
    const [action, dataModel] = onAction.mock.calls[0] as unknown as [Record<string, unknown>, Record<string, unknown>];
    expect(action).toMatchObject({ name: 'plan_release', surfaceId: SID, sourceComponentId: 'submit', context: { version: '2.0.0', channel: ['stable'] } });
    expect(typeof action.timestamp).toBe('string');
    expect(dataModel).toEqual({ version: 'v0.9', surfaces: { [SID]: { release: { version: '2.0.0', date: '', channel: ['stable'] } } } });

    const box = container.querySelector('[data-testid="a2ui-surface"]');
    rerender(<A2uiSurfaceView surfaceId={SID} messages={[...planForm, ...planConfirmed]} onAction={onAction} />);
    await screen.findByText('Release planned');
    expect(screen.getByText('Version 2.0.0 goes out on the stable channel.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Plan it' })).toBeNull();
    expect(container.querySelector('[data-testid="a2ui-surface"]')).toBe(box); // the same element, changed
  });

  it('is read-only once its task ended: inputs and buttons are disabled and nothing is sent', async () => {
    const onAction = vi.fn();
    render(<A2uiSurfaceView surfaceId={SID} messages={planForm} readOnly onAction={onAction} />);
    const button = await screen.findByRole('button', { name: 'Plan it' });
    expect(button.closest('fieldset')?.disabled).toBe(true);
    expect(screen.getByText(/This form is closed/)).toBeTruthy();
    fireEvent.click(button);
    await act(async () => undefined);
    expect(onAction).not.toHaveBeenCalled();
  });

  it('renders hostile content inert: no script URL, no HTML, no image, with a visible note', async () => {
    const messages = surfaceOf(
      [
        { id: 'root', component: 'Column', children: ['t', 'i', 'b', 'x'] },
        { id: 't', component: 'Text', text: '<img src=x onerror="alert(1)"><b>bold</b>' },
        { id: 'i', component: 'Image', url: 'data:image/svg+xml,<svg onload=alert(1)>' },
        { id: 'b', component: 'Button', child: 'bl', action: { functionCall: { call: 'openUrl', args: { url: 'javascript:alert(1)' } } } },
        { id: 'bl', component: 'Text', text: 'Open' },
        { id: 'x', component: 'IFrame', src: 'https://evil.example' },
      ],
      undefined,
    );
    const { container } = render(<A2uiSurfaceView surfaceId="s1" messages={messages} />);
    await screen.findByText('<img src=x onerror="alert(1)"><b>bold</b>'); // shown as text
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('b')).toBeNull();
    expect(container.querySelector('iframe')).toBeNull();
    expect(container.querySelector('fieldset')!.innerHTML).not.toMatch(/javascript:|data:/i);
    expect(screen.getByText('[unsupported component: IFrame]')).toBeTruthy();
    const notes = screen.getByTestId('a2ui-notes').textContent;
    expect(notes).toMatch(/HTML in text/);
    expect(notes).toMatch(/image was not loaded/);
    expect(notes).toMatch(/javascript:, data: or file: URL/);
    expect(notes).toMatch(/unknown component type “IFrame”/);
  });

  it('shows a refused surface as a note only', async () => {
    const cycle = surfaceOf([
      { id: 'root', component: 'Card', child: 'a' },
      { id: 'a', component: 'Card', child: 'root' },
    ]);
    const { container } = render(<A2uiSurfaceView surfaceId="s1" messages={cycle} />);
    expect((await screen.findByTestId('a2ui-refused')).textContent).toMatch(/cycle/);
    expect(container.querySelector('[data-testid="a2ui-surface"]')).toBeNull();
  });

  it('reports a message the renderer refuses as an A2UI error and keeps the rest', async () => {
    const onError = vi.fn();
    const bad = { version: 'v0.9', createSurface: { surfaceId: 's1', catalogId: 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json' } }; // it exists already
    const ok = surfaceOf([{ id: 'root', component: 'Text', text: 'still here' }]);
    render(<A2uiSurfaceView surfaceId="s1" messages={[...ok, bad]} onError={onError} />);
    await screen.findByText('still here');
    await waitFor(() => expect(onError).toHaveBeenCalled());
    expect(onError.mock.calls[0][0]).toMatchObject({ code: 'VALIDATION_FAILED', path: '/2' });
    expect(screen.getByTestId('a2ui-notes').textContent).toMatch(/could not be shown/);
  });
});

describe('A2uiSurfaceView at size', () => {
  it('renders a 200-component surface (and prints how long it took)', async () => {
    const ids = Array.from({ length: 199 }, (_, i) => `t${i}`);
    const messages = surfaceOf([{ id: 'root', component: 'Column', children: ids }, ...ids.map((id, i) => ({ id, component: 'Text', text: `line ${i}` }))]);
    const t0 = performance.now();
    const { container } = render(<A2uiSurfaceView surfaceId="s1" messages={messages} />);
    await screen.findByText('line 198');
    const ms = performance.now() - t0;
    expect(screen.getAllByText(/^line \d+$/)).toHaveLength(199);
    expect(container.querySelector('[data-testid="a2ui-notes"]')).toBeNull();
    console.log(`A2UI render of a 200-component surface (jsdom): ${ms.toFixed(1)} ms`);
  });
});
