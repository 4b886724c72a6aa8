import { useState } from 'react';
import type { AgentInfo, AgentSignature } from '../api/types';
import { useHub } from '../state/hub';

const LABEL: Record<string, string> = {
  signed: 'Signed',
  unsigned: 'Unsigned',
  invalid: 'Signature invalid',
  key_changed: 'Signing key changed',
  unchecked: 'Signature not checked',
};

/** A warning state: the hub holds the agent back until the owner confirms its card. */
const isWarning = (s: AgentSignature) => s.state === 'invalid' || s.state === 'key_changed';

/** The card's signature state as a badge: ✓ signed (verified), unsigned, or ⚠ invalid / key changed. */
export function SignatureBadge({ signature }: { signature?: AgentSignature }) {
  if (!signature) return null;
  const warn = isWarning(signature);
  const cls = signature.state === 'signed' ? 'badge-ok' : warn ? 'badge-warn' : '';
  const mark = signature.state === 'signed' ? '✓ ' : warn ? '⚠ ' : '';
  return (
    <span className={`badge ${cls}`} data-testid="signature-badge" data-state={signature.state} title={signature.detail || undefined}>
      {mark}
      {LABEL[signature.state] ?? signature.state}
      {warn && signature.confirmed ? ' (accepted)' : ''}
    </span>
  );
}

/** The signature row of the card's About list. */
export function SignatureFacts({ signature }: { signature?: AgentSignature }) {
  if (!signature) return null;
  return (
    <>
      <dt>Signature</dt>
      <dd data-testid="signature-facts">
        <SignatureBadge signature={signature} />
        {signature.detail && <div className="small muted break">{signature.detail}</div>}
        {signature.pinnedKey && (
          <div className="small">
            Pinned key <code className="break">{signature.pinnedKey}</code>
          </div>
        )}
        {signature.foreignHosts && signature.foreignHosts.length > 0 && (
          <div className="small" data-testid="signature-foreign-hosts">
            ⚠ Interfaces on other hosts: {signature.foreignHosts.join(', ')}
            {signature.confirmed ? ' (accepted)' : ''}
          </div>
        )}
      </dd>
    </>
  );
}

/**
 * The warning of an invalid signature or a changed signing key, with the one action that lets the hub
 * talk to the agent again: the owner's confirmation of this card (agents.trustCard).
 */
export function SignatureWarning({ agent }: { agent: AgentInfo }) {
  const { client, updateAgent } = useHub();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const s = agent.signature;
  if (!s || !s.blocked) return null;
  const changed = s.state === 'key_changed';
  // Blocked only for its other hosts: the signature itself is fine (or absent).
  const hostsOnly = s.state !== 'key_changed' && s.state !== 'invalid' && (s.foreignHosts?.length ?? 0) > 0;
  const trust = async () => {
    setBusy(true);
    setError('');
    try {
      updateAgent(await client.call('agents.trustCard', { id: agent.id }));
    } catch (err) {
      setError((err as Error)?.message || 'Could not confirm the card.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="problems signature-warning" aria-labelledby="sig-warn-h" data-testid="signature-warning" role="alert">
      <h3 id="sig-warn-h">
        ⚠ {hostsOnly ? 'This agent’s card sends the hub to other hosts' : changed ? 'This agent’s signing key changed' : 'This agent’s card signature is invalid'}
      </h3>
      <p className="small">
        {hostsOnly
          ? `Its card was read from one host, but it lists interfaces on ${(s.foreignHosts ?? []).join(', ')}: the hub would send your messages and this agent’s credentials there. That is normal when an agent’s API lives on another name than its card — or a sign that the card was changed.`
          : changed
          ? 'Its card is now signed with a key other than the one the hub pinned when you added it. That happens when the agent rotates its key — or when someone else answers in its place.'
          : 'The card does not carry a signature the hub could verify with the agent’s own keys, so it may have been changed on the way or published by someone else.'}{' '}
        The hub will not talk to this agent until you confirm the card.
      </p>
      {s.detail && <p className="small break">{s.detail}</p>}
      {changed && (
        <dl className="kv small">
          <dt>Pinned key</dt>
          <dd>
            <code className="break">{s.pinnedKey}</code>
          </dd>
          <dt>New key</dt>
          <dd>
            <code className="break">{s.pendingKey}</code>
          </dd>
        </dl>
      )}
      <button type="button" className="btn btn-danger" disabled={busy} onClick={() => void trust()}>
        {busy ? 'Confirming…' : hostsOnly ? 'Use these hosts' : changed ? 'Trust the new key' : 'Trust this card anyway'}
      </button>
      {error && (
        <p className="small" role="status">
          {error}
        </p>
      )}
    </section>
  );
}
