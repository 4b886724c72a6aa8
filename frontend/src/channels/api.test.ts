import { describe, expect, it } from 'vitest';
import { directId } from './api';
import { sha256Hex } from './sha256';

describe('sha256Hex', () => {
  it('is SHA-256 (FIPS 180-4 test vectors, and across a block boundary)', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe('248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
  });
});

describe('directId', () => {
  it('is the hub’s id of a direct channel, whichever side asks', () => {
    // backend/channels.DirectID("agent://alice", "user://owner")
    const id = directId('agent://alice', 'user://owner');
    expect(id).toBe('chan:direct:88579f7301ea5bf5b231b20a');
    expect(directId('user://owner', 'agent://alice')).toBe(id);
  });
});
