// One conversation with an agent: its header (title, rename, delete, raw log), its transcript and
// the composer. It owns the conversation's own state (useConversation) and tells the page when the
// conversation changed or was deleted; the list of conversations belongs to the page.

import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import type { Conversation } from '../../api/types';
import { Composer, type ComposerSend } from '../../components/Composer';
import { Dialog } from '../../components/Dialog';
import { MoreMenu } from '../../components/MoreMenu';
import { EmptyState } from '../../components/EmptyState';
import { ErrorBox } from '../../components/ErrorBox';
import { StateBadge } from '../../components/StateBadge';
import { buildTranscript, continuesGroup, isActiveState, taskStateText } from '../../lib/chat';
import { formatRelative } from '../../lib/format';
import { hrefOf, navigate } from '../../lib/router';
import { useHub } from '../../state/hub';
import { useConversation, useStartChat } from '../../state/useChat';
import { titleOf } from './titles';
import { readCard } from '../../lib/card';
import { actionMessage, errorMessage, surfaceVersion } from '../../lib/a2ui';
import { ActionLine, Bubble, endedTasksOf, ErrorNotice, failedSend, SurfaceBubble, TaskLine } from './transcript';

function TitleEditor({ conversation, onDone }: { conversation: Conversation; onDone: (c?: Conversation) => void }) {
  const { client } = useHub();
  const [title, setTitle] = useState(conversation.title);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!title.trim() || busy) return;
    setBusy(true);
    try {
      const c = await client.call('chats.rename', { id: conversation.id, title: title.trim() });
      onDone(c);
    } catch (err) {
      setError((err as Error)?.message || 'Could not rename.');
      setBusy(false);
    }
  };
  return (
    <form className="title-editor" aria-label="Rename the conversation" onSubmit={submit}>
      <input
        type="text"
        aria-label="Title"
        value={title}
        autoFocus
        maxLength={200}
        onChange={(e) => setTitle(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            onDone();
          }
        }}
      />
      <button type="submit" className="btn btn-primary btn-small" disabled={busy || !title.trim()}>
        Save
      </button>
      <button type="button" className="btn btn-small" onClick={() => onDone()}>
        Cancel
      </button>
      {error && (
        <span className="reply-error small" role="alert">
          {error}
        </span>
      )}
    </form>
  );
}

export function ChatView({
  id,
  onConversation,
  onDeleted,
  logOpen = false,
  onToggleLog,
}: {
  id: string;
  onConversation: (c: Conversation) => void;
  onDeleted: (id: string) => void;
  /** the raw log shows beside the conversation */
  logOpen?: boolean;
  onToggleLog?: () => void;
}) {
  const { client, agents, agentsLoaded } = useHub();
  const view = useConversation(id);
  const { conversation, entries } = view;
  const { start, busy: starting, error: startError } = useStartChat();
  const [renaming, setRenaming] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [insert, setInsert] = useState<{ text: string; key: number }>(); // an example put in the composer
  const [deleteError, setDeleteError] = useState('');
  const [scenarioError, setScenarioError] = useState('');
  const transcript = useMemo(() => buildTranscript(entries), [entries]);
  const endedTasks = useMemo(() => endedTasksOf(entries, transcript.tasks), [entries, transcript]);
  // A question the owner chose to answer from its task line (an older one, or one set aside).
  const [target, setTarget] = useState<{ taskId: string; key: number } | null>(null);
  const targetTask = target ? transcript.tasks.find((t) => t.taskId === target.taskId && t.state === 'input-required') : undefined;
  const answering = targetTask ? { taskId: targetTask.taskId, question: targetTask.question } : transcript.answering;

  useEffect(() => {
    if (conversation) onConversation(conversation);
  }, [conversation, onConversation]);

  // Follow the conversation while the person is at its end; leave them alone when they scrolled up.
  const scrollRef = useRef<HTMLOListElement>(null);
  const stick = useRef(true);
  const [away, setAway] = useState(false); // scrolled up: offer "Jump to latest"
  const onScroll = () => {
    const el = scrollRef.current;
    if (el) stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 160;
    setAway(!stick.current);
  };
  useEffect(() => {
    const el = scrollRef.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [entries, conversation?.busy]);
  const jump = () => {
    const el = scrollRef.current;
    if (el) el.scrollTop = el.scrollHeight;
    stick.current = true;
    setAway(false);
  };

  const send = useCallback(
    async ({ text, files, taskId }: ComposerSend) => {
      const entry = await client.call('chats.send', {
        id,
        ...(text ? { text } : {}),
        ...(files.length ? { files } : {}),
        ...(taskId ? { taskId } : {}),
      });
      if (entry && typeof entry === 'object') view.addEntry(entry);
      if (taskId) setTarget(null);
      stick.current = true;
    },
    [client, id, view.addEntry], // eslint-disable-line react-hooks/exhaustive-deps
  );
  // A2UI: the person acted on a surface: a new message in the same context and task, carrying the
  // action (and the surface's data model when it asked for it; a conversation has one agent, the
  // surface's creator, so it goes nowhere else).
  const surfaceAction = useCallback(
    async (item: { taskId?: string }, action: Parameters<typeof actionMessage>[0], dataModel?: Record<string, unknown>) => {
      const entry = await client.call('chats.send', {
        id,
        ...(item.taskId ? { taskId: item.taskId } : {}),
        a2ui: [actionMessage(action)],
        ...(dataModel ? { a2uiDataModel: dataModel } : {}),
      });
      if (entry && typeof entry === 'object') view.addEntry(entry);
      stick.current = true;
    },
    [client, id, view.addEntry], // eslint-disable-line react-hooks/exhaustive-deps
  );
  // Renderer errors go back to the agent as A2UI error messages, once per surface and problem.
  const reported = useRef(new Set<string>());
  const surfaceError = useCallback(
    (item: { taskId?: string; surfaceId: string; messages: Parameters<typeof surfaceVersion>[0] }, err: { code: string; message: string; path?: string }) => {
      const key = `${item.surfaceId}\u0000${err.code}\u0000${err.message}`;
      if (reported.current.has(key)) return;
      reported.current.add(key);
      void client
        .call('chats.send', { id, ...(item.taskId ? { taskId: item.taskId } : {}), a2ui: [errorMessage(item.surfaceId, err.message, err.code, err.path, surfaceVersion(item.messages))] })
        .then((entry) => entry && typeof entry === 'object' && view.addEntry(entry))
        .catch(() => undefined);
    },
    [client, id, view.addEntry], // eslint-disable-line react-hooks/exhaustive-deps
  );
  const cancel = useCallback((taskId: string) => client.call('chats.cancel', { id, taskId }), [client, id]);
  // Retry on a failed send: the same message again (only the newest failure offers it).
  const lastError = useMemo(() => Math.max(-1, ...transcript.items.filter((i) => i.type === 'error').map((i) => (i as { seq: number }).seq)), [transcript]);
  // Retry on a failed task (the agent failed it, or it was interrupted): the message that started it.
  const retryTask = (taskId: string) => {
    const t = transcript.tasks.find((x) => x.taskId === taskId);
    const msg = t && t.state === 'failed' ? failedSend(entries, t.firstSeq) : null;
    return msg ? () => send({ ...msg, taskId: undefined }).catch(() => undefined) : undefined;
  };
  const retryOf = (seq: number) => {
    if (seq !== lastError) return undefined;
    const msg = failedSend(entries, seq);
    return msg ? () => send(msg).catch(() => undefined) : undefined;
  };

  if (view.deleted) {
    return (
      <EmptyState title="This conversation was deleted" icon="○">
        <p>
          It was deleted in another window. <a href="#/chats">Back to all chats</a>.
        </p>
      </EmptyState>
    );
  }
  if (view.error && !conversation) {
    return view.error.code === 'not_found' ? (
      <EmptyState title="Conversation not found" icon="?">
        <p>
          It may have been deleted. <a href="#/chats">Back to all chats</a>.
        </p>
      </EmptyState>
    ) : (
      <EmptyState title="Could not open this conversation" icon="!">
        <p>{view.error.message}</p>
        <button type="button" className="btn" onClick={view.reload}>
          Try again
        </button>
      </EmptyState>
    );
  }
  if (!conversation) return <p className="muted pad">Loading…</p>;

  const agent = agents.find((a) => a.id === conversation.agentId);
  const agentName = agent?.name || conversation.agentName || conversation.agentId;
  // What the agent's card offers to try (its skills' examples), for an empty conversation.
  const examples = agent ? [...new Set(readCard(agent.card).skills.flatMap((sk) => sk.examples))].slice(0, 8) : [];
  const blocked = agentsLoaded && !agent ? `${agentName} was removed from this hub: this conversation can be read, not continued.` : undefined;
  const anyActive = transcript.tasks.some((t) => !t.ended && isActiveState(t.state));
  const newest = transcript.newest;

  const remove = async () => {
    setDeleteError('');
    try {
      await client.call('chats.delete', { id });
      setConfirmDelete(false);
      onDeleted(id);
    } catch (e) {
      setDeleteError((e as Error)?.message || 'Could not delete.');
    }
  };

  return (
    <article className="detail chat-view" data-testid="chat-view" aria-labelledby="chat-title">
      <header className="detail-head column chat-head">
        {renaming ? (
          <TitleEditor
            conversation={conversation}
            onDone={(c) => {
              setRenaming(false);
              if (c) view.setConversation(c);
            }}
          />
        ) : (
          <div className="title-row">
            <h2 id="chat-title">{titleOf(conversation)}</h2>
            {conversation.state && <StateBadge state={conversation.state} />}
          </div>
        )}
        <div className="chat-meta">
          <span className="muted small">
            with{' '}
            <a href={hrefOf({ area: 'agents', agentId: conversation.agentId })} data-testid="chat-agent-link">
              {agentName}
            </a>
            {conversation.dialect && <> · A2A {conversation.dialect}</>} · started {formatRelative(conversation.createdAt)}
          </span>
          <span className="spacer" />
          <button type="button" className="btn btn-small" disabled={!!blocked || starting} onClick={() => void start(conversation.agentId)}>
            New conversation
          </button>
          {onToggleLog && (
            <button type="button" className="btn btn-small" aria-pressed={logOpen} onClick={onToggleLog}>
              Raw log
            </button>
          )}
          {/* The rarer actions fold into one menu, so the header stays one line at 1280 px. */}
          <MoreMenu label="More actions for this conversation">
            <button
              type="button"
              className="btn btn-small"
              title="Keep this conversation as a test you can run again, against this agent or another"
              onClick={() =>
                void client
                  .call('scenarios.fromConversation', { conversationId: conversation.id })
                  .then((sv) => navigate({ area: 'scenarios', scenarioId: sv.id }))
                  .catch((e) => setScenarioError((e as Error).message))
              }
            >
              Save as scenario
            </button>
            <button type="button" className="btn btn-small" onClick={() => setRenaming(true)} disabled={renaming}>
              Rename
            </button>
            <button type="button" className="btn btn-small btn-danger" onClick={() => setConfirmDelete(true)}>
              Delete
            </button>
          </MoreMenu>
        </div>
        {startError && <ErrorBox message={startError} context="agent" />}
        {scenarioError && <ErrorBox message={scenarioError} />}
      </header>

      <ol className="conversation chat-transcript" aria-label="Transcript" ref={scrollRef} onScroll={onScroll} tabIndex={0}>
        {transcript.items.length === 0 && view.loaded && (
          <li className="chat-empty muted">
            Say hello to {agentName}. The first message opens the conversation with the agent; each new conversation is a new context.
            {examples.length > 0 && (
              <span className="chat-examples" role="group" aria-label={`What ${agentName} offers to try`}>
                <span>Its card suggests:</span>
                {examples.map((x) => (
                  <button key={x} type="button" className="btn btn-small chat-example" onClick={() => setInsert((cur) => ({ text: x, key: (cur?.key ?? 0) + 1 }))}>
                    {x}
                  </button>
                ))}
              </span>
            )}
          </li>
        )}
        {transcript.items.map((it, i, items) =>
          it.type === 'task' ? (
            <TaskLine
              key={it.key}
              item={it}
              agentId={conversation.agentId}
              entries={entries}
              onCancel={cancel}
              took={endedTasks.get(it.taskId)?.took}
              onRetry={retryTask(it.taskId)}
              onAnswer={
                it.state === 'input-required' && answering?.taskId !== it.taskId ? (taskId) => setTarget((t) => ({ taskId, key: (t?.key ?? 0) + 1 })) : undefined
              }
            />
          ) : it.type === 'error' ? (
            <ErrorNotice
              key={it.key}
              item={it}
              agentId={conversation.agentId}
              agentName={agentName}
              onRetry={retryOf(it.seq)}
            />
          ) : it.type === 'surface' ? (
            <SurfaceBubble
              key={it.key}
              item={it}
              agentName={agentName}
              readOnly={!!blocked || (!!it.taskId && !!transcript.tasks.find((t) => t.taskId === it.taskId)?.ended)}
              onAction={surfaceAction}
              onError={(item, err) => {
                // a closed form reports nothing: its task is over
                if (!blocked && !(item.taskId && transcript.tasks.find((t) => t.taskId === item.taskId)?.ended)) surfaceError(item, err);
              }}
            />
          ) : it.type === 'action' ? (
            <ActionLine key={it.key} item={it} />
          ) : (
            <Bubble key={it.key} item={it} agentName={agentName} endedTasks={endedTasks} continued={continuesGroup(items, i)} />
          ),
        )}
        {conversation.busy && !anyActive && (
          <li className="typing" data-testid="chat-busy">
            <span className="working-dots" aria-hidden="true" />
            Waiting for {agentName}…
          </li>
        )}
      </ol>
      {away && (
        <button type="button" className="btn btn-small jump-latest" onClick={jump} data-testid="jump-latest">
          ↓ Jump to latest
        </button>
      )}
      <p className="sr-only" role="status" aria-live="polite">
        {newest?.state ? `${agentName}: ${taskStateText(newest.state)}` : ''}
      </p>

      <Composer
        agentName={agentName}
        answering={answering}
        answerKey={target?.key}
        blocked={blocked}
        onSend={send}
        autoFocus={view.loaded && transcript.items.length === 0}
        insert={insert}
      />

      {confirmDelete && (
        <Dialog title="Delete this conversation?" onClose={() => setConfirmDelete(false)}>
          <p>This forgets the conversation on this computer. {agentName} keeps whatever it recorded.</p>
          {deleteError && (
            <p className="reply-error" role="alert">
              {deleteError}
            </p>
          )}
          <div className="reply-actions">
            <span className="spacer" />
            <button type="button" className="btn" onClick={() => setConfirmDelete(false)}>
              Keep
            </button>
            <button type="button" className="btn btn-danger" onClick={() => void remove()}>
              Delete conversation
            </button>
          </div>
        </Dialog>
      )}
    </article>
  );
}
