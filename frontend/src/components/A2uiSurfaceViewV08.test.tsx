import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { planConfirmedV08, planFormV08, SID08, surfaceOfV08 } from '../lib/a2ui.fixtures';
import { A2uiSurfaceView } from './A2uiSurfaceView';

const lit = (s: string) => ({ literalString: s });

describe('A2uiSurfaceView with an A2UI v0.8 surface', () => {
  it('renders the form with the v0.8 renderer, sends a v0.8 userAction, and updates in place', async () => {
    const onAction = vi.fn(async () => undefined);
    const { container, rerender } = render(<A2uiSurfaceView surfaceId={SID08} messages={planFormV08} onAction={onAction} />);
    await screen.findByText('Plan a release');
    expect(container.querySelector('[data-testid="a2ui-surface"]')?.getAttribute('data-a2ui-version')).toBe('v0.8');
    const version = (await screen.findByLabelText('Version')) as HTMLInputElement;
    await waitFor(() => expect(version.value).toBe('1.0.0'));
    const channel = screen.getByRole('combobox') as HTMLSelectElement;
    expect(channel.value).toBe('stable'); // the data model's choice, not merely the first option
    fireEvent.change(version, { target: { value: '2.0.0' } });
    fireEvent.change(channel, { target: { value: 'beta' } });
    await waitFor(() => expect(channel.value).toBe('beta'));
    fireEvent.click(screen.getByRole('button', { name: 'Plan it' }));
    await waitFor(() => expect(onAction).toHaveBeenCalledTimes(1));
    const [action, dataModel] = onAction.mock.calls[0] as unknown as [Record<string, unknown>, unknown];
    expect(action).toMatchObject({ version: 'v0.8', name: 'plan_release', surfaceId: SID08, sourceComponentId: 'submit', context: { version: '2.0.0', channel: ['beta'] } });
    expect(typeof action.timestamp).toBe('string');
    expect(dataModel).toBeUndefined(); // v0.8 has no client data model

    const box = container.querySelector('[data-testid="a2ui-surface"]');
    rerender(<A2uiSurfaceView surfaceId={SID08} messages={[...planFormV08, ...planConfirmedV08]} onAction={onAction} />);
    await screen.findByText('Release planned');
    expect(screen.getByText('Version 2.0.0 goes out on the beta channel.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Plan it' })).toBeNull();
    expect(container.querySelector('[data-testid="a2ui-surface"]')).toBe(box);

    rerender(<A2uiSurfaceView surfaceId={SID08} messages={[...planFormV08, ...planConfirmedV08, { deleteSurface: { surfaceId: SID08 } }]} onAction={onAction} />);
    await waitFor(() => expect(screen.queryByText('Release planned')).toBeNull());
  });

  it("shows the data model's choice in a MultipleChoice, not its first option", async () => {
    const messages = surfaceOfV08(
      [{ id: 'root', component: { MultipleChoice: { selections: { path: '/pick' }, options: [{ label: lit('One'), value: 'one' }, { label: lit('Two'), value: 'two' }] } } }],
      [{ key: 'pick', valueString: 'two' }],
    );
    render(<A2uiSurfaceView surfaceId="s8" messages={messages} />);
    await waitFor(() => expect((screen.getByRole('combobox') as HTMLSelectElement).value).toBe('two'));
  });

  it('is read-only once its task ended', async () => {
    const onAction = vi.fn();
    render(<A2uiSurfaceView surfaceId={SID08} messages={planFormV08} readOnly onAction={onAction} />);
    const button = await screen.findByRole('button', { name: 'Plan it' });
    expect(button.closest('fieldset')?.disabled).toBe(true);
    fireEvent.click(button);
    await act(async () => undefined);
    expect(onAction).not.toHaveBeenCalled();
  });

  it('renders hostile content inert: Markdown and HTML as plain text, no link, no image, with notes', async () => {
    const messages = surfaceOfV08(
      [
        { id: 'root', component: { Column: { children: { explicitList: ['t', 'm', 'i', 'x', 'bound'] } } } },
        { id: 't', component: { Text: { text: lit('<img src=x onerror="alert(1)"><b>bold</b>') } } },
        { id: 'm', component: { Text: { text: lit('[click](https://evil.example) ![px](https://tracker.example/p.png) **strong**') } } },
        { id: 'i', component: { Image: { url: lit('https://tracker.example/p.png') } } },
        { id: 'x', component: { IFrame: { src: 'https://evil.example' } } },
        { id: 'bound', component: { Text: { text: { path: '/evil' } } } },
      ],
      [{ key: 'evil', valueString: '[bound](https://evil.example) <script>alert(1)</script>' }],
    );
    const { container } = render(<A2uiSurfaceView surfaceId="s8" messages={messages} />);
    await screen.findByText('<img src=x onerror="alert(1)"><b>bold</b>');
    await screen.findByText('[bound](https://evil.example) <script>alert(1)</script>');
    const fieldset = container.querySelector('fieldset')!;
    expect(fieldset.querySelector('img, a, b, strong, script, iframe')).toBeNull();
    expect(screen.getByText('[unsupported component: IFrame]')).toBeTruthy();
    expect(screen.getByText('[image not loaded]')).toBeTruthy();
    const notes = screen.getByTestId('a2ui-notes').textContent;
    expect(notes).toMatch(/HTML in text/);
    expect(notes).toMatch(/image was not loaded/);
    expect(notes).toMatch(/unknown component type “IFrame”/);
  });

  it('shows a refused v0.8 surface as a note only', async () => {
    const cycle = surfaceOfV08([
      { id: 'root', component: { Card: { child: 'a' } } },
      { id: 'a', component: { Card: { child: 'root' } } },
    ]);
    const { container } = render(<A2uiSurfaceView surfaceId="s8" messages={cycle} />);
    expect((await screen.findByTestId('a2ui-refused')).textContent).toMatch(/cycle/);
    expect(container.querySelector('[data-testid="a2ui-surface"]')).toBeNull();
  });

  it('reports a message the v0.8 processor refuses as an A2UI error and keeps the rest', async () => {
    const onError = vi.fn();
    const ok = surfaceOfV08([{ id: 'root', component: { Text: { text: lit('still here') } } }]);
    const bad = { surfaceUpdate: { surfaceId: 's8', components: [{ id: 'root', component: { Text: { text: lit('x') } } }], extra: true } }; // strict schema
    render(<A2uiSurfaceView surfaceId="s8" messages={[...ok, bad]} onError={onError} />);
    await screen.findByText('still here');
    await waitFor(() => expect(onError).toHaveBeenCalled());
    expect(onError.mock.calls[0][0]).toMatchObject({ code: 'VALIDATION_FAILED', path: '/2' });
    expect(screen.getByTestId('a2ui-notes').textContent).toMatch(/could not be shown/);
  });
});
