// What the credentials form of a remote agent shows: the schemes its card asks for, the fields each
// kind needs, and where the hub keeps secrets. The hub never sends a secret back; "saved" is all we know.

import type { AgentAuth, AuthScheme, CredentialParams } from '../api/types';

function schemesOf(auth: AgentAuth | null | undefined): AuthScheme[] {
  return Array.isArray(auth?.schemes) ? auth!.schemes!.filter((s) => s && typeof s === 'object' && typeof s.name === 'string') : [];
}

function alternativesOf(auth: AgentAuth | null | undefined): string[][] {
  return Array.isArray(auth?.alternatives) ? auth!.alternatives!.filter(Array.isArray).map((alt) => alt.filter((n) => typeof n === 'string')) : [];
}

/** The schemes the card asks for: those named in its alternatives, or all of them when it names none. */
export function schemesToShow(auth: AgentAuth | null | undefined): AuthScheme[] {
  const schemes = schemesOf(auth);
  const alts = alternativesOf(auth);
  if (alts.length === 0) return schemes;
  const wanted = new Set(alts.flat());
  return schemes.filter((s) => wanted.has(s.name));
}

/** "oauth", "apiKey or bearer", "apiKey + oauth or bearer". Empty when the card names none. */
export function alternativesText(auth: AgentAuth | null | undefined): string {
  return alternativesOf(auth)
    .filter((alt) => alt.length > 0)
    .map((alt) => alt.join(' + '))
    .join(' or ');
}

/** Where secrets live, for people: "the system keyring" or "the file /path (readable only by you)". */
export function storeText(store: string | undefined): string {
  const s = (store ?? '').trim();
  if (s === 'keyring') return 'the system keyring';
  if (s.startsWith('file ')) return `the file ${s.slice(5).trim()} (readable only by you)`;
  return s || 'the hub’s credential store';
}

/** Where an API key goes: "the X-Api-Key header", "the query parameter key", "the cookie session". */
export function whereSent(s: Pick<AuthScheme, 'in' | 'paramName'>): string {
  const name = s.paramName || '(unnamed)';
  switch (s.in) {
    case 'query':
      return `the query parameter ${name}`;
    case 'cookie':
      return `the cookie ${name}`;
    case 'header':
    default:
      return `the ${name} header`;
  }
}

export type CredentialField = 'apiKey' | 'token' | 'clientId' | 'clientSecret';

export interface FieldSpec {
  field: CredentialField;
  label: string;
  secret: boolean;
}

/** The fields a scheme's form needs; none for an unsupported scheme. */
export function fieldsFor(kind: string): FieldSpec[] {
  switch (kind) {
    case 'apiKey':
      return [{ field: 'apiKey', label: 'API key', secret: true }];
    case 'bearer':
      return [{ field: 'token', label: 'Bearer token', secret: true }];
    case 'oauth2':
      return [
        { field: 'clientId', label: 'Client ID', secret: false },
        { field: 'clientSecret', label: 'Client secret', secret: true },
      ];
    default:
      return [];
  }
}

/** The params of agents.setCredential, or null while a field the kind needs is empty. */
export function credentialParams(agentId: string, scheme: Pick<AuthScheme, 'name' | 'kind'>, values: Partial<Record<CredentialField, string>>): CredentialParams | null {
  const v = (f: CredentialField) => (values[f] ?? '').trim();
  switch (scheme.kind) {
    case 'apiKey':
      return v('apiKey') ? { id: agentId, scheme: scheme.name, apiKey: v('apiKey') } : null;
    case 'bearer':
      return v('token') ? { id: agentId, scheme: scheme.name, token: v('token') } : null;
    case 'oauth2':
      return v('clientId') && v('clientSecret') ? { id: agentId, scheme: scheme.name, clientId: v('clientId'), clientSecret: v('clientSecret') } : null;
    default:
      return null;
  }
}
