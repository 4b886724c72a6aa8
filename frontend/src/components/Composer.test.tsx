import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { Composer, MAX_ATTACHMENT_BYTES } from './Composer';

const box = () => screen.getByLabelText('Message') as HTMLTextAreaElement;

describe('Composer', () => {
  it('uses the native picker when there is one, refusing files over 8 MiB', async () => {
    const small = { name: 'a.txt', mediaType: 'text/plain', bytes: btoa('a') };
    // base64 of MAX+1 bytes, without allocating them: the size is computed from the length
    const bigLen = Math.ceil((MAX_ATTACHMENT_BYTES + 1) / 3) * 4;
    const big = { name: 'big.bin', mediaType: 'application/octet-stream', bytes: 'A'.repeat(bigLen) };
    const onSend = vi.fn(async () => ({}));
    render(<Composer agentName="Agent" onSend={onSend} pickNative={async () => [small, big]} />);
    await userEvent.click(screen.getByRole('button', { name: 'Attach files' }));
    expect((await screen.findByRole('alert')).textContent).toContain('“big.bin” is larger than 8 MiB');
    expect(screen.getByRole('list', { name: 'Attachments' }).textContent).toContain('a.txt');
    await userEvent.click(screen.getByRole('button', { name: 'Remove a.txt' }));
    expect(screen.queryByRole('list', { name: 'Attachments' })).toBeNull();
    expect((screen.getByRole('button', { name: 'Send' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('keeps all the files of one message within 8 MiB', async () => {
    const six = { name: 'six.bin', mediaType: 'application/octet-stream', bytes: 'A'.repeat(8 * 1024 * 1024) }; // 6 MiB decoded
    const three = { name: 'three.bin', mediaType: 'application/octet-stream', bytes: 'A'.repeat(4 * 1024 * 1024) }; // 3 MiB
    const one = { name: 'one.bin', mediaType: 'application/octet-stream', bytes: 'A'.repeat((4 * 1024 * 1024) / 3) }; // 1 MiB
    let next = [six];
    render(<Composer agentName="Agent" onSend={vi.fn()} pickNative={async () => next} />);
    await userEvent.click(screen.getByRole('button', { name: 'Attach files' }));
    next = [three, one];
    await userEvent.click(screen.getByRole('button', { name: 'Attach files' }));
    expect((await screen.findByRole('alert')).textContent).toBe('“three.bin” was not attached: the files of one message may take 8 MiB in all.');
    const list = screen.getByRole('list', { name: 'Attachments' });
    expect(list.textContent).toContain('six.bin');
    expect(list.textContent).toContain('one.bin');
    expect(list.textContent).not.toContain('three.bin');
  });

  it('does not send while an input method is composing, nor on Ctrl+Enter', async () => {
    const onSend = vi.fn(async () => ({}));
    render(<Composer agentName="Agent" onSend={onSend} />);
    await userEvent.type(box(), 'にほん');
    fireEvent.keyDown(box(), { key: 'Enter', isComposing: true });
    fireEvent.keyDown(box(), { key: 'Enter', ctrlKey: true });
    expect(onSend).not.toHaveBeenCalled();
    fireEvent.keyDown(box(), { key: 'Enter' });
    expect(onSend).toHaveBeenCalledWith({ text: 'にほん', files: [] });
    await waitFor(() => expect(box().value).toBe(''));
  });

  it('drops leading blank lines and trailing whitespace, keeps the rest as typed', async () => {
    const onSend = vi.fn(async () => ({}));
    render(<Composer agentName="Agent" onSend={onSend} answering={{ taskId: 'T' }} />);
    fireEvent.change(box(), { target: { value: '\n\n    indented code\nline two  \n\n' } });
    fireEvent.keyDown(box(), { key: 'Enter' });
    expect(onSend).toHaveBeenCalledWith({ text: '    indented code\nline two', files: [], taskId: 'T' });
    expect(screen.getByTestId('composer-answering').textContent).toContain('answers Agent’s question (same task');
  });

  it('names who asks, and hands ✕ to the page when it leaves the reply itself (a channel)', async () => {
    const onSend = vi.fn(async () => ({}));
    const onSetAside = vi.fn();
    render(<Composer agentName="#general" onSend={onSend} answering={{ taskId: 't1', from: 'Demo agent' }} onSetAside={onSetAside} />);
    expect(screen.getByTestId('composer-answering').textContent).toContain('answers Demo agent’s question');
    await userEvent.type(box(), 'blue{Enter}');
    expect(onSend).toHaveBeenLastCalledWith({ text: 'blue', files: [], taskId: 't1' });
    await userEvent.click(screen.getByRole('button', { name: 'Don’t answer: send a new message instead' }));
    expect(onSetAside).toHaveBeenCalledTimes(1);
    expect(screen.queryByTestId('composer-new-message')).toBeNull();
  });

  it('answers the question by default; ✕ sends a new message instead, and the choice can be undone', async () => {
    const onSend = vi.fn(async () => ({}));
    const question = { id: 'q', role: 'agent' as const, parts: [{ kind: 'text' as const, text: 'Which colour?' }] };
    render(<Composer agentName="Agent" onSend={onSend} answering={{ taskId: 't1', question }} />);
    expect(screen.getByTestId('composer-answering').textContent).toContain('Which colour?');
    await userEvent.click(screen.getByRole('button', { name: 'Don’t answer: send a new message instead' }));
    expect(screen.queryByTestId('composer-answering')).toBeNull();
    expect(document.activeElement).toBe(box());
    await userEvent.type(box(), 'slow 12{Enter}');
    expect(onSend).toHaveBeenLastCalledWith({ text: 'slow 12', files: [] });

    await userEvent.click(screen.getByRole('button', { name: 'Answer the question instead' }));
    await userEvent.type(box(), 'blue{Enter}');
    expect(onSend).toHaveBeenLastCalledWith({ text: 'blue', files: [], taskId: 't1' });
  });

  it('attaches files dropped on it or pasted into it', async () => {
    render(<Composer agentName="Agent" onSend={vi.fn()} />);
    const dropped = new File(['dropped'], 'dropped.txt', { type: 'text/plain' });
    fireEvent.drop(screen.getByRole('form', { name: 'Composer' }), { dataTransfer: { files: [dropped], types: ['Files'] } });
    expect(await screen.findByText('dropped.txt')).toBeTruthy();
    const pasted = new File(['png'], 'pasted.png', { type: 'image/png' });
    fireEvent.paste(box(), { clipboardData: { files: [pasted] } });
    expect(await screen.findByText('pasted.png')).toBeTruthy();
  });
});


describe('Composer @mention completion', () => {
  const members = [
    { handle: 'demo', label: 'AgentHub demo agent' },
    { handle: 'dana', label: 'dana' },
    { handle: 'weather', label: 'Weather' },
  ];
  const mentions = (q: string) => members.filter((m) => m.handle.startsWith(q.toLowerCase()));

  it('keeps what is typed right after a completed mention where it was typed', async () => {
    const onSend = vi.fn(async () => ({}));
    render(<Composer agentName="#general" onSend={onSend} mentions={mentions} />);
    await userEvent.type(box(), 'hi @da');
    screen.getByRole('listbox', { name: 'Agents and members to mention' });
    // Enter and the next key in one go, as a fast typist (or a slow machine) does; then frames pass.
    await userEvent.keyboard('{Enter}x');
    await act(() => new Promise((r) => setTimeout(r, 50)));
    await userEvent.keyboard('y');
    expect(box().value).toBe('hi @dana xy');
  });

  it('offers the members as "@" is typed; arrows pick, Enter inserts the handle instead of sending', async () => {
    const onSend = vi.fn(async () => ({}));
    render(<Composer agentName="#general" onSend={onSend} mentions={mentions} />);
    await userEvent.type(box(), 'hi @d');
    const list = screen.getByRole('listbox', { name: 'Agents and members to mention' });
    expect(Array.from(list.querySelectorAll('[role="option"]')).map((o) => o.textContent)).toEqual(['@demo AgentHub demo agent', '@dana dana']);
    expect(box().getAttribute('aria-activedescendant')).toBe(list.querySelector('[aria-selected="true"]')!.id);
    await userEvent.keyboard('{ArrowDown}{Enter}');
    expect(box().value).toBe('hi @dana ');
    expect(onSend).not.toHaveBeenCalled();
    expect(screen.queryByRole('listbox')).toBeNull();
    await userEvent.type(box(), 'see @we');
    await userEvent.keyboard('{Escape}'); // closes the list, keeps the text
    expect(screen.queryByRole('listbox')).toBeNull();
    await userEvent.keyboard('{Enter}');
    expect(onSend).toHaveBeenCalledWith({ text: 'hi @dana see @we', files: [] });
  });

  it('shows what an option says of itself (an agent not in the channel)', async () => {
    render(<Composer agentName="#general" onSend={vi.fn()} mentions={() => [{ handle: 'demo', label: 'AgentHub demo agent', note: 'not in #general' }]} />);
    await userEvent.type(box(), '@d');
    const list = screen.getByRole('listbox', { name: 'Agents and members to mention' });
    expect(list.querySelector('[role="option"]')!.textContent).toBe('@demo AgentHub demo agent · not in #general');
  });

  it('offers nothing for an "@" inside a word, or without members', async () => {
    render(<Composer agentName="Agent" onSend={vi.fn()} mentions={mentions} />);
    await userEvent.type(box(), 'mail bob@d');
    expect(screen.queryByRole('listbox')).toBeNull();
  });
});
