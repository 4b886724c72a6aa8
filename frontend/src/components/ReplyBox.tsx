import { useEffect, useId, useRef, useState } from 'react';
import type { InboxAction, OutgoingFile, TaskSummary } from '../api/types';
import { isTerminal } from '../api/types';
import { Attachments } from './Attachments';
import { ErrorBox } from './ErrorBox';
import { openFiles } from '../native';

/** Why the owner cannot act on a task now, or null when they can. */
export function blockedReason(t: Pick<TaskSummary, 'state' | 'waitingForOwner'>): string | null {
  // Open (submitted, working): the owner may answer again, or close it, after answering once.
  if (t.waitingForOwner || t.state === 'submitted' || t.state === 'working') return null;
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
  /** How long Complete and Reject wait, with Undo, before they are sent (ms). */
  undoMs?: number;
}

/** Complete and Reject end the task for good: they wait this long, with Undo, before going out. */
export const UNDO_MS = 5000;

const ACTIONS: { action: InboxAction; label: string; needsText: boolean; hint: string }[] = [
  { action: 'answer', label: 'Answer', needsText: true, hint: 'Send your reply; the task stays open.' },
  { action: 'ask', label: 'Ask back', needsText: true, hint: 'Ask the sender a question (input-required).' },
  { action: 'complete', label: 'Complete', needsText: false, hint: 'Finish the task, with the text as closing words.' },
  { action: 'reject', label: 'Reject', needsText: false, hint: 'Refuse the task, with the text as the reason.' },
];

/** The owner's answer box of an inbox task: answer, ask back, complete or reject, with attachments. */
export function ReplyBox({ task, onAct, pickFiles = openFiles, undoMs = UNDO_MS }: ReplyBoxProps) {
  const [text, setText] = useState('');
  const [files, setFiles] = useState<OutgoingFile[]>([]);
  const [busy, setBusy] = useState<InboxAction | null>(null);
  const [error, setError] = useState<string | null>(null);
  // A Complete or Reject waiting out its undo time. Leaving the task sends it at once.
  const [pending, setPending] = useState<{ action: InboxAction; timer: ReturnType<typeof setTimeout> } | null>(null);
  const pendingRef = useRef<{ action: InboxAction; timer: ReturnType<typeof setTimeout>; send: () => void } | null>(null);
  useEffect(
    () => () => {
      const p = pendingRef.current;
      if (p) {
        clearTimeout(p.timer);
        p.send();
      }
    },
    [],
  );
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

  const later = (action: InboxAction) => {
    const timer = setTimeout(() => {
      pendingRef.current = null;
      setPending(null);
      void act(action);
    }, undoMs);
    const [t, f] = [text, files];
    pendingRef.current = { action, timer, send: () => void onAct(action, t, f).catch(() => undefined) };
    setPending({ action, timer });
  };
  const undo = () => {
    if (pendingRef.current) clearTimeout(pendingRef.current.timer);
    pendingRef.current = null;
    setPending(null);
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
      {error && <ErrorBox message={error} />}
      {pending && (
        <p className="reply-pending" role="status" data-testid="reply-pending">
          {pending.action === 'complete' ? 'Completing' : 'Rejecting'} in {Math.round(undoMs / 1000)} s…{' '}
          <button type="button" className="btn btn-small" onClick={undo}>
            Undo
          </button>
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
          const disabled = blocked || busy !== null || pending !== null || (needsText && !hasText);
          return (
            <button
              key={action}
              type="button"
              className={`btn ${action === 'answer' ? 'btn-primary' : action === 'reject' ? 'btn-danger' : ''}`}
              disabled={disabled}
              title={blocked ? reason! : needsText && !hasText ? `${hint} Write some text first.` : hint}
              aria-describedby={blocked ? reasonId : undefined}
              onClick={() => (action === 'complete' || action === 'reject' ? later(action) : void act(action))}
            >
              {busy === action ? `${label}…` : label}
            </button>
          );
        })}
      </div>
    </form>
  );
}
