import { describe, expect, it } from 'vitest';
import { isPolicy, keysOf, maskedKey, nameProblem, NAME_MAX, POLICIES, snippets, validName } from './access';

describe('nameProblem', () => {
  it('accepts what auth.ValidName accepts', () => {
    for (const n of ['a', 'bot', 'ci-bot', 'build_bot.2', '0day', 'a'.repeat(NAME_MAX), 'a-', 'x.y_z-1']) {
      expect(nameProblem(n), n).toBeNull();
      expect(validName(n), n).toBe(true);
    }
  });

  it('refuses what auth.ValidName refuses, saying why', () => {
    expect(nameProblem('a'.repeat(NAME_MAX + 1))).toMatch(/At most 64 characters/);
    expect(nameProblem('Bot')).toBe('Use lower-case letters only.');
    expect(nameProblem('ci bot')).toMatch(/^A space is not allowed/);
    expect(nameProblem('bot/1')).toMatch(/“\/” is not allowed/);
    expect(nameProblem('bøt')).toMatch(/“ø” is not allowed/);
    expect(nameProblem('Bad Name')).toMatch(/A space is not allowed/);
    for (const n of ['-bot', '.bot', '_bot']) expect(nameProblem(n), n).toBe('Start with a letter or a digit.');
    for (const n of ['', 'Bot', '-x', 'a b']) expect(validName(n), n).toBe(false);
  });

  it('an empty name is not reported (the button is just disabled)', () => {
    expect(nameProblem('')).toBeNull();
  });

  it('points to Rotate for a name that already has a key', () => {
    expect(nameProblem('bot', ['bot', 'other'])).toMatch(/already a key named bot. Rotate/);
    expect(nameProblem('bot2', ['bot'])).toBeNull();
  });
});

describe('policies', () => {
  it('are the three the hub stores, send first (the default)', () => {
    expect(POLICIES.map((p) => p.value)).toEqual(['send', 'read-public', 'off']);
    expect(POLICIES[0].explanation).toMatch(/default/);
    expect(isPolicy('off')).toBe(true);
    expect(isPolicy('on')).toBe(false);
    expect(isPolicy(undefined)).toBe(false);
  });
});

describe('snippets', () => {
  it('use the key as X-Api-Key at the A2A endpoint and as HTTP Basic at the token endpoint', () => {
    const [send, token] = snippets('http://127.0.0.1:47470/', 'http://127.0.0.1:47470/a2a', 'ci-bot', 'ahk_abc');
    // As the shell sees them: continuation lines joined.
    const line = (code: string) => code.replace(/ \\\n\s*/g, ' ');
    expect(line(send.code)).toMatch(/^curl -s http:\/\/127\.0\.0\.1:47470\/a2a -H 'X-Api-Key: ahk_abc' -H 'Content-Type: application\/json' -d '/);
    const rpc = JSON.parse(/-d '(.*)'$/.exec(send.code)![1]);
    expect(rpc.method).toBe('SendMessage');
    expect(rpc.params.configuration.returnImmediately).toBe(true); // the inbox answers when the owner does

    expect(line(token.code)).toContain("curl -s http://127.0.0.1:47470/oauth/token -u 'ci-bot:ahk_abc' -d grant_type=client_credentials\n");
    expect(token.code).toContain('Authorization: Bearer ACCESS_TOKEN');
  });

  it('carry placeholders without a name and key', () => {
    const all = snippets('http://127.0.0.1:PORT', 'http://127.0.0.1:PORT/a2a').map((s) => s.code).join('\n');
    expect(all).toContain('X-Api-Key: KEY');
    expect(all).toContain("-u 'NAME:KEY'");
  });
});

describe('keysOf', () => {
  it('keeps well-formed entries, by name', () => {
    const k = (name: string) => ({ id: `agent://${name}`, name, keyPrefix: 'ahk_12345678', createdAt: '2026-01-01T00:00:00Z' });
    expect(keysOf({ principals: [k('zeta'), null as never, { name: 3 } as never, k('alpha')] }).map((x) => x.name)).toEqual(['alpha', 'zeta']);
    expect(keysOf(null)).toEqual([]);
    expect(keysOf({ principals: null })).toEqual([]);
    expect(maskedKey(k('a'))).toBe('ahk_12345678…');
  });
});
