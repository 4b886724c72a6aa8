import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { blockedReason, ReplyBox } from './ReplyBox';

const waiting = { id: 't1', state: 'working', waitingForOwner: true };
const buttons = () => ['Answer', 'Ask back', 'Complete', 'Reject', 'Attach files'].map((name) => screen.getByRole('button', { name }) as HTMLButtonElement);

describe('ReplyBox', () => {
  it('lets the owner answer a waiting task, and clears the box after', async () => {
    const onAct = vi.fn(async () => ({}));
    render(<ReplyBox task={waiting} onAct={onAct} />);
    const [answer, ask, complete, reject, attach] = buttons();
    // answering and asking back need words; completing and rejecting do not
    expect(answer.disabled).toBe(true);
    expect(ask.disabled).toBe(true);
    expect(complete.disabled).toBe(false);
    expect(reject.disabled).toBe(false);
    expect(attach.disabled).toBe(false);
    expect(screen.queryByTestId('reply-blocked')).toBeNull();

    const box = screen.getByLabelText('Reply') as HTMLTextAreaElement;
    await userEvent.type(box, 'Yes, go ahead.');
    expect(answer.disabled).toBe(false);
    await userEvent.click(answer);
    expect(onAct).toHaveBeenCalledWith('answer', 'Yes, go ahead.', []);
    await waitFor(() => expect(box.value).toBe(''));
  });

  it('sends Ctrl+Enter as an answer', async () => {
    const onAct = vi.fn(async () => ({}));
    render(<ReplyBox task={waiting} onAct={onAct} />);
    const box = screen.getByLabelText('Reply');
    await userEvent.type(box, 'Quick one');
    fireEvent.keyDown(box, { key: 'Enter', ctrlKey: true });
    expect(onAct).toHaveBeenCalledWith('answer', 'Quick one', []);
  });

  it.each([
    [{ state: 'input-required', waitingForOwner: false }, 'Waiting for the sender to reply.'],
    [{ state: 'completed', waitingForOwner: false }, 'This task has ended.'],
    [{ state: 'rejected', waitingForOwner: false }, 'This task has ended.'],
    [{ state: 'canceled', waitingForOwner: false }, 'This task has ended.'],
  ])('disables every action with a reason when the task is %o', (t, reason) => {
    render(<ReplyBox task={{ id: 't', ...t }} onAct={vi.fn()} />);
    for (const b of buttons()) expect(b.disabled).toBe(true);
    expect((screen.getByLabelText('Reply') as HTMLTextAreaElement).disabled).toBe(true);
    const note = screen.getByTestId('reply-blocked');
    expect(note.textContent).toBe(reason);
    // the reason is what assistive technology reads for the buttons
    expect(screen.getByRole('button', { name: 'Complete' }).getAttribute('aria-describedby')).toBe(note.id);
  });

  it('shows the hub error and keeps the text', async () => {
    const onAct = vi.fn(async () => {
      throw new Error('task is not waiting for the owner');
    });
    render(<ReplyBox task={waiting} onAct={onAct} undoMs={0} />);
    const box = screen.getByLabelText('Reply') as HTMLTextAreaElement;
    await userEvent.type(box, 'Done');
    await userEvent.click(screen.getByRole('button', { name: 'Complete' }));
    expect((await screen.findByRole('alert')).textContent).toContain('task is not waiting for the owner');
    expect(box.value).toBe('Done');
  });

  it('holds Complete and Reject with Undo before they go out', async () => {
    const onAct = vi.fn(async () => ({}));
    render(<ReplyBox task={waiting} onAct={onAct} undoMs={60_000} />);
    await userEvent.click(screen.getByRole('button', { name: 'Complete' }));
    expect(screen.getByTestId('reply-pending').textContent).toContain('Completing in 60 s');
    expect((screen.getByRole('button', { name: 'Reject' }) as HTMLButtonElement).disabled).toBe(true);
    await userEvent.click(screen.getByRole('button', { name: 'Undo' }));
    expect(screen.queryByTestId('reply-pending')).toBeNull();
    expect(onAct).not.toHaveBeenCalled();
  });

  it('sends a held Complete at once when the task is left', async () => {
    const onAct = vi.fn(async () => ({}));
    const r = render(<ReplyBox task={waiting} onAct={onAct} undoMs={60_000} />);
    await userEvent.click(screen.getByRole('button', { name: 'Complete' }));
    r.unmount();
    expect(onAct).toHaveBeenCalledWith('complete', '', []);
  });

  it('attaches files and sends them with the action', async () => {
    const onAct = vi.fn(async () => ({}));
    const file = { name: 'plan.txt', mediaType: 'text/plain', bytes: btoa('the plan') };
    render(<ReplyBox task={waiting} onAct={onAct} pickFiles={async () => [file]} undoMs={0} />);
    await userEvent.click(screen.getByRole('button', { name: 'Attach files' }));
    expect(await screen.findByText('plan.txt')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Reject' }));
    await waitFor(() => expect(onAct).toHaveBeenCalledWith('reject', '', [file]));
    await waitFor(() => expect(screen.queryByText('plan.txt')).toBeNull());
  });
});

describe('blockedReason', () => {
  it('is null while the task is open, answered or not', () => {
    expect(blockedReason({ state: 'working', waitingForOwner: true })).toBeNull();
    expect(blockedReason({ state: 'working', waitingForOwner: false })).toBeNull(); // answered: the sender's turn, still open
    expect(blockedReason({ state: 'auth-required', waitingForOwner: false })).toBe('Waiting for the sender to authenticate.');
  });
});
