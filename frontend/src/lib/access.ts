// Settings → Access: the rules of a principal's name (as backend/auth.ValidName has them), the
// anonymous policies in plain words, and the curl snippets that show what a key is for.

import type { AccessKey, AnonymousPolicy } from '../api/types';

export const NAME_MAX = 64;

/**
 * Why `name` cannot name a key, in words for the person typing it, or null when it can. An empty
 * name is not a problem to report (the Create button is simply disabled). Mirrors auth.ValidName:
 * 1 to 64 of a–z 0–9 . _ -, starting with a letter or digit.
 */
export function nameProblem(name: string, existing: readonly string[] = []): string | null {
  if (name === '') return null;
  if (name.length > NAME_MAX) return `At most ${NAME_MAX} characters (this is ${name.length}).`;
  const bad = [...name].find((c) => !/[a-zA-Z0-9._-]/.test(c));
  if (bad !== undefined) {
    const shown = bad === ' ' ? 'A space' : `“${bad}”`;
    return `${shown} is not allowed: use a–z, 0–9, “.”, “_” and “-”.`;
  }
  if (/[A-Z]/.test(name)) return 'Use lower-case letters only.';
  if (!/^[a-z0-9]/.test(name)) return 'Start with a letter or a digit.';
  if (existing.includes(name)) return `There is already a key named ${name}. Rotate it instead to get a new key.`;
  return null;
}

export function validName(name: string): boolean {
  return name !== '' && nameProblem(name) === null;
}

export interface PolicyOption {
  value: AnonymousPolicy;
  label: string;
  explanation: string;
}

export const POLICIES: PolicyOption[] = [
  {
    value: 'send',
    label: 'Let them send messages',
    explanation:
      'Programs on this computer can send you messages and follow the tasks they started, without a key. Anything else still needs a key. This is the default.',
  },
  {
    value: 'read-public',
    label: 'Let them read only',
    explanation: 'Programs on this computer can read what the hub makes public, but need a key to send anything.',
  },
  {
    value: 'off',
    label: 'Refuse them',
    explanation: 'Every call needs a key or a token. The agent card stays readable, so callers can find out how to sign in.',
  },
];

export function isPolicy(v: unknown): v is AnonymousPolicy {
  return POLICIES.some((p) => p.value === v);
}

/** The list as the hub sent it, keeping only well-formed entries, by name. */
export function keysOf(v: { principals?: AccessKey[] | null } | null | undefined): AccessKey[] {
  const list = Array.isArray(v?.principals) ? v!.principals! : [];
  return list
    .filter((k) => k && typeof k === 'object' && typeof k.name === 'string' && k.name !== '')
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export interface Snippet {
  label: string;
  code: string;
}

/**
 * What a key is for, as commands to paste: calling the hub's A2A endpoint with the key, and trading
 * the key for a bearer token. Without a name and key they carry placeholders. Names and keys hold no
 * character a single-quoted shell word would mangle.
 */
export function snippets(hubUrl: string, rpcUrl: string, name = 'NAME', key = 'KEY'): Snippet[] {
  const base = hubUrl.replace(/\/+$/, '');
  // returnImmediately: a message to the inbox waits for the owner, and a blocking send with it.
  const body = `'{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello"}]},"configuration":{"returnImmediately":true}}}'`;
  const send = [`curl -s ${rpcUrl} \\`, `  -H 'X-Api-Key: ${key}' \\`, `  -H 'Content-Type: application/json' \\`, `  -d ${body}`].join('\n');
  const token = [
    `curl -s ${base}/oauth/token \\`,
    `  -u '${name}:${key}' \\`,
    '  -d grant_type=client_credentials',
    "# then call the hub as above with -H 'Authorization: Bearer ACCESS_TOKEN' instead of the key",
  ].join('\n');
  return [
    { label: 'Call the hub with the key', code: send },
    { label: 'Or trade name and key for a token (valid one hour)', code: token },
  ];
}

/** The key as the list shows it: its first characters, so keys can be told apart. */
export function maskedKey(k: AccessKey): string {
  return k.keyPrefix ? `${k.keyPrefix}…` : '…';
}
