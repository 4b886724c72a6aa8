// Who is in a channel, with their roles; an owner adds and removes principals (keys made in
// Settings → Access) and added agents (which then answer when mentioned).

import { useEffect, useMemo, useRef, useState } from 'react';
import type { AccessKey } from '../api/types';
import { Dialog } from '../components/Dialog';
import { ErrorBox } from '../components/ErrorBox';
import { useHub } from '../state/hub';
import { setMember, type Ext } from './api';
import { membersOf, OWNER, type Channel } from './model';
import { displayName, handleOf, memberKind } from './names';

/** Who could join: the added agents (remote://ID; not the hub itself) and the hub's principals. */
export function candidates(agents: { id: string; name: string; kind: string }[], principals: Pick<AccessKey, 'id' | 'name'>[], have: Set<string>) {
  const out: { id: string; label: string; group: 'Agents' | 'Principals' }[] = [];
  for (const a of agents) if (a.kind !== 'hub' && !have.has(`remote://${a.id}`)) out.push({ id: `remote://${a.id}`, label: a.name || a.id, group: 'Agents' });
  for (const p of principals) if (!have.has(p.id)) out.push({ id: p.id, label: p.name || handleOf(p.id), group: 'Principals' });
  return out;
}

export function MembersDialog({
  ext,
  agent,
  channel,
  isOwner,
  onChannel,
  onClose,
}: {
  ext: Ext;
  agent?: string;
  channel: Channel;
  isOwner: boolean;
  /** the channel after a change; null when the owner removed themselves */
  onChannel: (c: Channel | null) => void;
  onClose: () => void;
}) {
  const { client, agents } = useHub();
  const [principals, setPrincipals] = useState<AccessKey[]>([]);
  const [pick, setPick] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const members = membersOf(channel);
  // After a change the button pressed may be disabled or gone: the focus goes back to the picker, so
  // it stays in the dialog (and Escape still closes the dialog, not the channel).
  const pickRef = useRef<HTMLSelectElement & HTMLInputElement>(null);
  useEffect(() => {
    if (agent || !isOwner) return; // another hub's principals are not ours to list
    client.call('access.list', {}).then(
      (r) => setPrincipals(Array.isArray(r?.principals) ? r.principals : []),
      () => {},
    );
  }, [client, agent, isOwner]);
  const options = useMemo(
    () => (agent ? [] : candidates(agents, principals, new Set(members.map((m) => m.principalId)))),
    [agent, agents, principals, members],
  );

  const keepFocus = () => {
    const el = pickRef.current;
    if (el && !el.disabled) el.focus();
    else el?.closest<HTMLElement>('[role="dialog"]')?.focus();
  };
  const change = async (add: boolean, principalId: string) => {
    keepFocus(); // the button pressed is about to be disabled or removed
    setBusy(true);
    setError('');
    try {
      const c = await setMember(ext, add, channel.id, principalId, agent);
      onChannel(c);
      if (add) setPick('');
      if (!c) onClose();
    } catch (e) {
      setError((e as Error)?.message || 'The change was refused.');
    } finally {
      setBusy(false);
      requestAnimationFrame(keepFocus);
    }
  };

  return (
    <Dialog title={`Members of #${channel.name || channel.id}`} onClose={onClose}>
      <ul className="chan-members" aria-label="Members">
        {members.map((m) => (
          <li key={m.principalId} data-testid="channel-member" data-principal={m.principalId}>
            <span className="avatar" aria-hidden="true">
              {displayName(m.principalId, agents).charAt(0).toUpperCase()}
            </span>
            <span className="chan-member-name" title={m.principalId}>
              {displayName(m.principalId, agents)}
            </span>
            <span className={`tag ${m.role === 'owner' ? 'tag-accent' : ''}`}>{m.role}</span>
            <span className="muted small">{memberKind(m.principalId) === 'agent' ? 'agent' : memberKind(m.principalId) === 'you' ? '' : 'access key'}</span>
            {isOwner && m.principalId !== OWNER && (
              <button
                type="button"
                className="btn btn-small btn-danger"
                disabled={busy}
                aria-label={`Remove ${displayName(m.principalId, agents)}`}
                onClick={() => void change(false, m.principalId)}
              >
                Remove
              </button>
            )}
          </li>
        ))}
      </ul>
      {isOwner ? (
        agent ? (
          <form
            className="chan-add"
            onSubmit={(e) => {
              e.preventDefault();
              if (pick.trim()) void change(true, pick.trim());
            }}
          >
            <label htmlFor="chan-add-id">Add a member by the id that hub gives them</label>
            <input id="chan-add-id" ref={pickRef} value={pick} onChange={(e) => setPick(e.target.value)} placeholder="agent://name" />
            <button type="submit" className="btn btn-primary" disabled={busy || !pick.trim()}>
              Add
            </button>
          </form>
        ) : (
          <form
            className="chan-add"
            onSubmit={(e) => {
              e.preventDefault();
              if (pick) void change(true, pick);
            }}
          >
            <label htmlFor="chan-add-pick">Add a member</label>
            <select id="chan-add-pick" ref={pickRef} value={pick} onChange={(e) => setPick(e.target.value)} disabled={options.length === 0}>
              <option value="">{options.length ? 'Choose an agent or a person…' : 'Everyone is in already'}</option>
              {(['Agents', 'Principals'] as const).map((g) =>
                options.some((o) => o.group === g) ? (
                  <optgroup key={g} label={g === 'Agents' ? 'Agents' : 'People and programs with an access key'}>
                    {options
                      .filter((o) => o.group === g)
                      .map((o) => (
                        // names only; two of one name are told apart by the start of their id
                        <option key={o.id} value={o.id} title={o.id}>
                          {o.label}
                          {options.filter((x) => x.label === o.label).length > 1 ? ` (${handleOf(o.id).slice(0, 8)})` : ''}
                        </option>
                      ))}
                  </optgroup>
                ) : null,
              )}
            </select>
            <button type="submit" className="btn btn-primary" disabled={busy || !pick}>
              Add
            </button>
          </form>
        )
      ) : (
        <p className="muted small">Only an owner of the channel adds or removes members.</p>
      )}
      <p className="muted small">
        An agent in the channel answers when a message mentions it (@name, or @all for every agent). Principals are the keys made in Settings →
        Access.
      </p>
      {error && <ErrorBox message={error} context="agent" />}
    </Dialog>
  );
}
