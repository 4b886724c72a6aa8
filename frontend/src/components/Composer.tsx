import { useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import type { Message, OutgoingFile } from '../api/types';
import { base64Size } from '../lib/format';
import { Attachments } from './Attachments';
import { ErrorBox } from './ErrorBox';
import { textOf } from '../lib/parts';
import { filesToOutgoing, hasNativeFilePicker, openFiles } from '../native';
import { applyMention, mentionAt } from '../channels/names';

/** The most the composer attaches: per file, and all files of one message together (the hub's limit). */
export const MAX_ATTACHMENT_BYTES = 8 * 1024 * 1024;
const MAX_LABEL = '8 MiB';

export interface ComposerSend {
  text: string;
  files: OutgoingFile[];
  /** set when the message answers an input-required task in place */
  taskId?: string;
}

export interface ComposerProps {
  agentName: string;
  /** the newest task asks a question: the message answers it (same task, same context) */
  answering?: { taskId: string; question?: Pick<Message, 'parts'>; from?: string };
  /**
   * set: ✕ on the answer chip calls it (the owner leaves the reply, e.g. a channel's Answer); unset: ✕
   * sets the question aside, with a way back, while it stays open (1:1 chat)
   */
  onSetAside?: () => void;
  /** changes when the owner picks a question to answer (its task line's Answer): brings the chip back and focuses */
  answerKey?: number;
  /** why nothing can be sent (e.g. the agent was removed), or undefined */
  blocked?: string;
  onSend: (msg: ComposerSend) => Promise<unknown>;
  /** the native file dialog (desktop); defaults to the Wails binding when there is one */
  pickNative?: () => Promise<OutgoingFile[]>;
  autoFocus?: boolean;
  /** text put at the start of the message (e.g. "@demo " to answer that agent); a new key puts it again */
  insert?: { text: string; key: number };
  /** channels: the members an @query completes to (handle inserted as "@handle ") */
  mentions?: (query: string) => { handle: string; label: string; note?: string }[];
}

function tooBig(name: string): string {
  return `“${name}” is larger than ${MAX_LABEL} and was not attached.`;
}

function overTotal(name: string): string {
  return `“${name}” was not attached: the files of one message may take ${MAX_LABEL} in all.`;
}

/**
 * Writes to the agent: Enter sends, Shift+Enter starts a new line; files are attached with the native
 * dialog in the desktop window or a file input in a browser, at most 8 MiB each and 8 MiB in all (the hub’s limit for one message).
 */
export function Composer({ agentName, answering: asked, answerKey, blocked, onSend, pickNative, autoFocus, mentions, insert, onSetAside }: ComposerProps) {
  // The owner may set the question aside (✕ on its chip) and send a new message instead; a new
  // question brings the chip back.
  const [setAside, setSetAside] = useState<string | null>(null);
  const answering = asked && asked.taskId !== setAside ? asked : undefined;
  const [text, setText] = useState('');
  const [files, setFiles] = useState<OutgoingFile[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notes, setNotes] = useState<string[]>([]);
  const textId = useId();
  const hintId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const boxRef = useRef<HTMLTextAreaElement>(null);
  const empty = text.trim() === '' && files.length === 0;
  // @mention completion: the mention being typed at the caret, and the highlighted option.
  const listId = useId();
  const [mention, setMention] = useState<{ start: number; query: string; caret: number } | null>(null);
  const [active, setActive] = useState(0);
  const options = mention && mentions ? mentions(mention.query).slice(0, 8) : [];
  const completing = options.length > 0;
  const track = (el: HTMLTextAreaElement) => {
    if (!mentions) return;
    const caret = el.selectionStart ?? el.value.length;
    const m = el.selectionStart === el.selectionEnd ? mentionAt(el.value, caret) : null;
    setMention((cur) => (m ? { ...m, caret } : cur ? null : cur));
    if (!m || m.query !== mention?.query) setActive(0);
  };
  // Where the caret goes once the text the composer wrote itself (a completed mention, an inserted
  // one) is in the box: set in the same commit, before the next keystroke. A later frame would move it
  // back over what was typed in between.
  const pendingCaret = useRef<number | 'end' | null>(null);
  useLayoutEffect(() => {
    const el = boxRef.current;
    const pos = pendingCaret.current;
    if (pos === null || !el) return;
    pendingCaret.current = null;
    const at = pos === 'end' ? el.value.length : pos;
    el.focus();
    el.setSelectionRange(at, at);
  }, [text]);
  const complete = (handle: string) => {
    if (!mention) return;
    const r = applyMention(text, mention.caret, mention.start, handle);
    setMention(null);
    if (r.text === text) {
      boxRef.current?.setSelectionRange(r.caret, r.caret);
      return;
    }
    pendingCaret.current = r.caret;
    setText(r.text);
  };
  const disabled = blocked !== undefined;

  useEffect(() => {
    if (autoFocus && !disabled) boxRef.current?.focus();
  }, [autoFocus, disabled]);
  useEffect(() => {
    if (answerKey === undefined) return;
    setSetAside(null);
    boxRef.current?.focus();
  }, [answerKey]);

  useEffect(() => {
    if (!insert) return;
    const el = boxRef.current;
    if (text.startsWith(insert.text)) {
      el?.focus();
      el?.setSelectionRange(el.value.length, el.value.length);
      return;
    }
    pendingCaret.current = 'end';
    setText(insert.text + text);
  }, [insert?.key]); // eslint-disable-line react-hooks/exhaustive-deps

  const addFiles = (picked: OutgoingFile[], refused: string[]) => {
    const ok: OutgoingFile[] = [];
    const msgs = [...refused];
    let total = files.reduce((n, f) => n + base64Size(f.bytes), 0);
    for (const f of picked) {
      const size = base64Size(f.bytes);
      if (size > MAX_ATTACHMENT_BYTES) msgs.push(tooBig(f.name));
      else if (total + size > MAX_ATTACHMENT_BYTES) msgs.push(overTotal(f.name));
      else {
        ok.push(f);
        total += size;
      }
    }
    setNotes(msgs);
    if (ok.length) setFiles((fs) => [...fs, ...ok]);
  };

  const attach = () => {
    setError(null);
    const native = pickNative ?? (hasNativeFilePicker() ? openFiles : undefined);
    if (native) {
      void native().then(
        (picked) => addFiles(picked ?? [], []),
        (e: Error) => setError(`Could not attach files: ${e?.message ?? e}`),
      );
    } else {
      inputRef.current?.click();
    }
  };

  const [dragging, setDragging] = useState(false);
  const onInputFiles = (list: FileList | File[] | null) => {
    const all = Array.from(list ?? []);
    // check sizes before reading anything into memory
    const refused = all.filter((f) => f.size > MAX_ATTACHMENT_BYTES).map((f) => tooBig(f.name));
    const fine = all.filter((f) => f.size <= MAX_ATTACHMENT_BYTES);
    if (inputRef.current) inputRef.current.value = '';
    void filesToOutgoing(fine).then(
      (picked) => addFiles(picked, refused),
      (e: Error) => setError(`Could not read the files: ${e?.message ?? e}`),
    );
  };

  const send = async () => {
    if (empty || busy || disabled) return;
    setBusy(true);
    setError(null);
    try {
      await onSend({ text: text.replace(/^\s*\n/, '').trimEnd(), files, ...(answering ? { taskId: answering.taskId } : {}) });
      setText('');
      setFiles([]);
      setNotes([]);
    } catch (e) {
      setError((e as Error)?.message || 'The message was not sent.');
    } finally {
      setBusy(false);
      boxRef.current?.focus();
    }
  };

  const question = answering?.question ? textOf(answering.question).trim() : '';
  return (
    <form
      className={`composer ${answering ? 'is-answering' : ''} ${dragging ? 'is-dragging' : ''}`}
      aria-label="Composer"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
      // Files dropped on the composer, or pasted into it, are attached like picked ones.
      onDragOver={(e) => {
        if (disabled || !Array.from(e.dataTransfer?.types ?? []).includes('Files')) return;
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(e) => {
        setDragging(false);
        if (disabled || !e.dataTransfer?.files?.length) return;
        e.preventDefault();
        setError(null);
        onInputFiles(e.dataTransfer.files);
      }}
      onPaste={(e) => {
        const pasted = Array.from(e.clipboardData?.files ?? []);
        if (disabled || pasted.length === 0) return;
        e.preventDefault(); // a pasted image is attached, not inserted as its file name
        setError(null);
        onInputFiles(pasted);
      }}
    >
      {answering && !disabled && (
        <div className="composer-answering answer-chip">
          <p id={hintId} data-testid="composer-answering">
            <span aria-hidden="true">↩ </span>
            Your message answers {answering.from ?? agentName}’s question{question ? <>: “{question.length > 160 ? question.slice(0, 160) + '…' : question}”</> : ''} (same
            task, same context).
          </p>
          <button
            type="button"
            className="btn btn-ghost btn-small chip-close"
            aria-label="Don’t answer: send a new message instead"
            title="Don’t answer: send a new message instead"
            onClick={() => {
              if (onSetAside) onSetAside();
              else setSetAside(asked!.taskId);
              boxRef.current?.focus();
            }}
          >
            ✕
          </button>
        </div>
      )}
      {asked && !answering && !disabled && (
        <p className="composer-new muted small" data-testid="composer-new-message">
          A new message (the question stays open).{' '}
          <button type="button" className="btn btn-ghost btn-small" onClick={() => setSetAside(null)}>
            Answer the question instead
          </button>
        </p>
      )}
      {disabled && (
        <p id={hintId} className="reply-blocked" data-testid="composer-blocked">
          {blocked}
        </p>
      )}
      <label htmlFor={textId} className="sr-only">
        Message
      </label>
      {completing && (
        <ul id={listId} role="listbox" aria-label="Agents and members to mention" className="mention-list" data-testid="mention-list">
          {options.map((o, i) => (
            <li
              key={o.handle}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === active}
              className={i === active ? 'active' : ''}
              onMouseDown={(e) => {
                e.preventDefault(); // keep the focus in the textarea
                complete(o.handle);
              }}
            >
              <span className="mention-handle">@{o.handle}</span> <span className="muted small">{o.label}</span>
              {o.note && <span className="mention-note small"> · {o.note}</span>}
            </li>
          ))}
        </ul>
      )}
      <textarea
        id={textId}
        ref={boxRef}
        value={text}
        rows={2}
        placeholder={
          disabled
            ? ''
            : answering
              ? 'Write your answer… (Enter sends, Shift+Enter for a new line)'
              : `Message ${agentName}… (${mentions ? '@ to mention, ' : ''}Enter sends, Shift+Enter for a new line)`
        }
        disabled={disabled}
        aria-describedby={answering || disabled ? hintId : undefined}
        aria-autocomplete={mentions ? 'list' : undefined}
        aria-controls={completing ? listId : undefined}
        aria-activedescendant={completing ? `${listId}-${Math.min(active, options.length - 1)}` : undefined}
        onChange={(e) => {
          setText(e.target.value);
          track(e.target);
        }}
        onSelect={(e) => track(e.currentTarget)}
        onKeyDown={(e) => {
          if (completing) {
            const n = options.length;
            if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
              e.preventDefault();
              setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
              return;
            }
            if ((e.key === 'Enter' || e.key === 'Tab') && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              complete(options[Math.min(active, n - 1)].handle);
              return;
            }
            if (e.key === 'Escape') {
              e.preventDefault();
              e.stopPropagation();
              setMention(null);
              return;
            }
          }
          if (e.key === 'Enter' && !e.shiftKey && !e.ctrlKey && !e.altKey && !e.metaKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            void send();
          }
        }}
      />
      <Attachments files={files} disabled={busy} onRemove={(i) => setFiles((fs) => fs.filter((_, j) => j !== i))} />
      {notes.length > 0 && (
        <div className="reply-error" role="alert" data-testid="attach-refused">
          {notes.map((n, i) => (
            <p key={i}>{n}</p>
          ))}
        </div>
      )}
      {error && <ErrorBox message={error} context="send" onRetry={empty ? undefined : () => void send()} retryLabel="Send again" busy={busy} />}
      <div className="reply-actions">
        <button type="button" className="btn" disabled={disabled || busy} onClick={attach} title={`Files up to ${MAX_LABEL} each; or drop or paste them here`}>
          Attach files
        </button>
        {dragging && <span className="muted small">Drop to attach</span>}
        <input
          ref={inputRef}
          type="file"
          multiple
          hidden
          aria-label="Files to attach"
          data-testid="composer-file-input"
          onChange={(e) => onInputFiles(e.currentTarget.files)}
        />
        <span className="spacer" />
        <button type="submit" className="btn btn-primary" disabled={disabled || busy || empty} aria-describedby={answering && !disabled ? hintId : undefined}>
          {busy ? 'Sending…' : 'Send'}
        </button>
      </div>
    </form>
  );
}
