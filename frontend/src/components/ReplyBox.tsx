import { useId, useState } from 'react';
import type { InboxAction, OutgoingFile, TaskSummary } from '../api/types';
import { isTerminal } from '../api/types';
import { Attachments } from './Attachments';
import { openFiles } from '../native';

/** Why the owner cannot act on a task now, or null when they can. */
export function blockedReason(t: Pick<TaskSummary, 'state' | 'waitingForOwner'>): string | null {
  if (t.waitingForOwner) return null;
  if (t.state === 'input-required') return 'Waiting for the sender to reply.';
  if (t.state === 'auth-required') return 'Waiting for the sender to authenticate.';
  if (isTerminal(t.state)) return 'This task has ended.';
  return 'This task is not waiting for you.';
}

export interface ReplyBoxProps {
  task: Pick<TaskSummary, 'id' | 'state' | 'waitingForOwner'>;
  onAct: (action: InboxAction, text: string, files: OutgoingFile[]) => Promise<unknown>;
  /** Picks files to attach; defaults to the native dialog / file input. */
  pickFiles?: () => Promise<OutgoingFile[]>;
}

const ACTIONS: { action: InboxAction; label: string; needsText: boolean; hint: string }[] = [
  { action: 'answer', label: 'Answer', needsText: true, hint: 'Send your reply; the task stays open.' },
  { action: 'ask', label: 'Ask back', needsText: true, hint: 'Ask the sender a question (input-required).' },
  { action: 'complete', label: 'Complete', needsText: false, hint: 'Finish the task, with the text as closing words.' },
  { action: 'reject', label: 'Reject', needsText: false, hint: 'Refuse the task, with the text as the reason.' },
];

/** The owner's answer box of an inbox task: answer, ask back, complete or reject, with attachments. */
export function ReplyBox({ task, onAct, pickFiles = openFiles }: ReplyBoxProps) {
  const [text, setText] = useState('');
  const [files, setFiles] = useState<OutgoingFile[]>([]);
  const [busy, setBusy] = useState<InboxAction | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reasonId = useId();
  const textId = useId();
  const reason = blockedReason(task);
  const blocked = reason !== null;
  const hasText = text.trim() !== '';

  const act = async (action: InboxAction) => {
    setBusy(action);
    setError(null);
    try {
      await onAct(action, text, files);
      setText('');
      setFiles([]);
    } catch (e) {
      setError((e as Error)?.message || 'That did not work.');
    } finally {
      setBusy(null);
    }
  };

  return (
    <form
      className="reply-box"
      aria-label="Your answer"
      onSubmit={(e) => {
        e.preventDefault();
        if (!blocked && hasText && !busy) void act('answer');
      }}
    >
      <label htmlFor={textId} className="reply-label">
        Reply
      </label>
      <textarea
        id={textId}
        value={text}
        rows={3}
        placeholder={blocked ? '' : 'Write to the sender… (Ctrl+Enter answers)'}
        disabled={blocked || busy !== null}
        aria-describedby={blocked ? reasonId : undefined}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            if (!blocked && hasText && !busy) void act('answer');
          }
        }}
      />
      <Attachments files={files} disabled={busy !== null} onRemove={(i) => setFiles((fs) => fs.filter((_, j) => j !== i))} />
      {blocked && (
        <p id={reasonId} className="reply-blocked" data-testid="reply-blocked">
          {reason}
        </p>
      )}
      {error && (
        <p className="reply-error" role="alert">
          {error}
        </p>
      )}
      <div className="reply-actions">
        <button
          type="button"
          className="btn"
          disabled={blocked || busy !== null}
          aria-describedby={blocked ? reasonId : undefined}
          onClick={() =>
            void pickFiles().then(
              (picked) => picked.length && setFiles((fs) => [...fs, ...picked]),
              (e: Error) => setError(`Could not attach files: ${e.message}`),
            )
          }
        >
          Attach files
        </button>
        <span className="spacer" />
        {ACTIONS.map(({ action, label, needsText, hint }) => {
          const disabled = blocked || busy !== null || (needsText && !hasText);
          return (
            <button
              key={action}
              type="button"
              className={`btn ${action === 'answer' ? 'btn-primary' : action === 'reject' ? 'btn-danger' : ''}`}
              disabled={disabled}
              title={blocked ? reason! : needsText && !hasText ? `${hint} Write some text first.` : hint}
              aria-describedby={blocked ? reasonId : undefined}
              onClick={() => void act(action)}
            >
              {busy === action ? `${label}…` : label}
            </button>
          );
        })}
      </div>
    </form>
  );
}
