import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState } from 'react';
import { TASK_STATES, isTerminal, type TaskSummary } from '../api/types';
import { CodeBlock } from '../components/CopyButton';
import { EmptyState } from '../components/EmptyState';
import { ErrorBox } from '../components/ErrorBox';
import { StateBadge } from '../components/StateBadge';
import { TaskDetailView } from '../components/TaskDetailView';
import { UnreadableTag } from '../components/Unreadable';
import { rpcEndpoint } from '../lib/card';
import { curlExample } from '../lib/examples';
import { formatRelative } from '../lib/format';
import { channelLabel } from '../lib/tasklist';
import { hrefOf } from '../lib/router';
import { taskKey } from '../lib/tasklist';
import { useListKeys } from '../lib/useListKeys';
import { agentName, useHub } from '../state/hub';
import { useTaskList } from '../state/useTaskList';

const ROW_HEIGHT = 68;

// Where a task came from, as an icon with its word; the legend above the list says what each means.
export const DIRECTIONS: Record<string, { icon: string; word: string; meaning: string }> = {
  incoming: { icon: '↙', word: 'incoming', meaning: 'sent to you or your agents' },
  outgoing: { icon: '↗', word: 'outgoing', meaning: 'sent by you from a chat' },
  channel: { icon: '#', word: 'from a channel', meaning: 'sent to an agent by a channel' },
};

function DirectionIcon({ direction }: { direction: string }) {
  const d = DIRECTIONS[direction] ?? DIRECTIONS.incoming;
  const kind = direction === 'channel' ? 'chan' : direction === 'outgoing' ? 'out' : 'in';
  return (
    <span className={`direction ${kind}`} title={`${d.word[0].toUpperCase() + d.word.slice(1)}: ${d.meaning}`}>
      <span aria-hidden="true">{d.icon}</span>
      <span className="sr-only">{d.word}</span>
    </span>
  );
}

function TaskRow({ t, selected, agentLabel, now }: { t: TaskSummary; selected: boolean; agentLabel: string; now: number }) {
  return (
    <a
      href={hrefOf({ area: 'tasks', agent: t.agent, taskId: t.id })}
      className={`task-row ${selected ? 'selected' : ''}`}
      data-testid="task-row"
      data-task-id={t.id}
      data-state={t.state}
      data-unreadable={t.unreadable ? 'true' : undefined}
      aria-current={selected ? 'true' : undefined}
    >
      <div className="task-row-top">
        <DirectionIcon direction={t.direction} />
        <span className="task-title">{t.title || '(no text)'}</span>
        <StateBadge state={t.state} />
      </div>
      <div className="task-row-bottom muted small">
        <span className="task-agent">{agentLabel}</span>
        {t.direction === 'channel' && <span className="task-channel">from {channelLabel(t)}</span>}
        <span aria-hidden="true">·</span>
        <time dateTime={t.createdAt}>{formatRelative(t.createdAt, now)}</time>
        <UnreadableTag task={t} />
        {t.waitingForOwner && <span className="tag tag-accent">waiting for you</span>}
        {!isTerminal(t.state) && t.state !== 'input-required' && t.state !== 'unknown' && <span className="live-dot" title="Running" aria-hidden="true" />}
      </div>
    </a>
  );
}

function useNow(ms: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

/** The agents the filter offers: this hub's own, then those the owner sent tasks to (tasks.agents). */
function useTaskAgents(): { id: string; name: string }[] {
  const { client, refreshKey, agents } = useHub();
  const [list, setList] = useState<{ id: string; name: string }[] | null>(null);
  useEffect(() => {
    let live = true;
    client.call('tasks.agents', {}).then(
      (r) => live && setList(Array.isArray(r?.agents) ? r.agents : []),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [client, refreshKey]);
  return list ?? agents.filter((a) => a.kind !== 'remote').map((a) => ({ id: a.id, name: a.name }));
}

export function TasksPage({ agent, taskId }: { agent?: string; taskId?: string }) {
  const { agents } = useHub();
  const filterAgents = useTaskAgents();
  const [agentFilter, setAgentFilter] = useState('');
  const [stateFilter, setStateFilter] = useState('');
  const [text, setText] = useState('');
  const list = useTaskList({ agent: agentFilter || undefined, state: stateFilter || undefined });
  const now = useNow(30_000);
  const names = useMemo(() => new Map([...filterAgents, ...agents].map((a) => [a.id, a.name || a.id])), [agents, filterAgents]);

  const shown = useMemo(() => {
    const f = text.trim().toLowerCase();
    if (!f) return list.tasks;
    return list.tasks.filter((t) => (t.title || '').toLowerCase().includes(f) || t.id.toLowerCase().includes(f));
  }, [list.tasks, text]);

  const selectedKey = agent && taskId ? taskKey({ agent, id: taskId }) : '';
  const selectedIndex = useMemo(() => (selectedKey ? shown.findIndex((t) => taskKey(t) === selectedKey) : -1), [shown, selectedKey]);

  const scrollRef = useRef<HTMLDivElement>(null);
  const count = shown.length + (list.hasMore ? 1 : 0);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
    getItemKey: (i) => (i < shown.length ? taskKey(shown[i]) : '__more__'),
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items.length ? items[items.length - 1].index : -1;

  // Load more when the end of the list comes into view.
  useEffect(() => {
    if (list.hasMore && !list.loading && lastIndex >= shown.length - 10) list.loadMore();
  }, [lastIndex, shown.length, list.hasMore, list.loading, list.loadMore]);

  useListKeys(
    useMemo(() => shown.map((t) => hrefOf({ area: 'tasks', agent: t.agent, taskId: t.id })), [shown]),
    selectedIndex,
    (i) => virtualizer.scrollToIndex(i, { align: 'auto' }),
  );

  const filtered = !!(agentFilter || stateFilter || text);
  const hubAgent = agents.find((a) => a.kind === 'hub');
  const empty = list.loaded && !filtered && list.tasks.length === 0 && !list.hasMore && !taskId;
  const demoAgent = agents.find((a) => a.kind === 'local' && /demo/i.test(a.name + a.id)) ?? agents.find((a) => a.kind === 'local');

  return (
    <div className={`page ${taskId ? 'has-detail' : ''}`}>
      <header className="page-head">
        <h1>Tasks</h1>
        <span className="muted" aria-live="polite">
          {list.loaded ? `${shown.length}${list.hasMore ? '+' : ''} ${filtered ? 'matching' : 'shown'}` : 'Loading…'}
        </span>
        <span className="spacer" />
        <div className="filters" role="group" aria-label="Task filters">
          <label className="select-label">
            <span>Agent</span>
            <select value={agentFilter} onChange={(e) => setAgentFilter(e.target.value)}>
              <option value="">All agents</option>
              {filterAgents.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name || a.id}
                </option>
              ))}
            </select>
          </label>
          <label className="select-label">
            <span>State</span>
            <select value={stateFilter} onChange={(e) => setStateFilter(e.target.value)}>
              <option value="">All states</option>
              {TASK_STATES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          <input
            id="page-filter"
            className="filter"
            type="search"
            aria-label="Filter tasks by title"
            placeholder="Filter by title  /"
            value={text}
            onChange={(e) => setText(e.target.value)}
          />
        </div>
      </header>
      {empty ? (
        <div className="page-scroll">
          <EmptyState title="No tasks yet" icon="◇">
            <p>Every task the hub receives or sends shows up here, live. Try one: ask the demo agent to work for five seconds.</p>
            {demoAgent ? (
              <CodeBlock label="curl example" code={curlExample(rpcEndpoint(demoAgent), 'slow 5')} />
            ) : hubAgent ? (
              <CodeBlock label="curl example" code={curlExample(rpcEndpoint(hubAgent), 'Hello from a terminal')} />
            ) : null}
            <p className="muted small">Messages sent to the hub itself land in your Inbox.</p>
          </EmptyState>
        </div>
      ) : (
        <div className="two-pane">
          <div className="pane-list task-list-pane">
            {/* what the icons mean, above the list (the page header keeps every page's height) */}
            <p className="task-legend muted small" data-testid="task-legend">
              {Object.values(DIRECTIONS).map((d) => (
                <span key={d.word}>
                  <span aria-hidden="true" className="task-legend-icon">
                    {d.icon}
                  </span>{' '}
                  {d.meaning}
                </span>
              ))}
            </p>
            {list.error && (
              <ErrorBox message={`Could not load tasks: ${list.error}`} />
            )}
            {list.loaded && shown.length === 0 && !list.hasMore ? (
              <EmptyState title="No tasks match">
                <p>Nothing matches these filters.</p>
                <button
                  type="button"
                  className="btn"
                  onClick={() => {
                    setAgentFilter('');
                    setStateFilter('');
                    setText('');
                  }}
                >
                  Clear filters
                </button>
              </EmptyState>
            ) : (
              <div ref={scrollRef} className="virtual-scroll" data-testid="task-list">
                <div role="list" aria-label="Tasks" style={{ height: virtualizer.getTotalSize(), position: 'relative', width: '100%' }}>
                  {items.map((vi) => {
                    const t = shown[vi.index];
                    return (
                      <div
                        key={vi.key}
                        role="listitem"
                        aria-setsize={list.hasMore ? -1 : shown.length}
                        aria-posinset={vi.index + 1}
                        className="virtual-row"
                        style={{ height: ROW_HEIGHT, transform: `translateY(${vi.start}px)` }}
                      >
                        {t ? (
                          <TaskRow t={t} selected={taskKey(t) === selectedKey} agentLabel={names.get(t.agent) ?? agentName(agents, t.agent)} now={now} />
                        ) : (
                          <div className="task-row loading-row muted">Loading more tasks…</div>
                        )}
                      </div>
                    );
                  })}
                </div>
              </div>
            )}
          </div>
          <div className="pane-detail">
            {agent && taskId ? (
              <>
                <a className="back-link" href="#/tasks">
                  ← All tasks
                </a>
                <TaskDetailView key={`${agent}\u0000${taskId}`} agent={agent} taskId={taskId} />
              </>
            ) : (
              <div className="pane-placeholder muted">
                <p>Select a task to see its live timeline.</p>
                <p className="small">
                  <kbd>j</kbd> / <kbd>k</kbd> move through the list, <kbd>/</kbd> filters.
                </p>
              </div>
            )}
          </div>
        </div>
      )}
    </div>
  );
}
