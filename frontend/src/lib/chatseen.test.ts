import { describe, expect, it } from 'vitest';
import type { Conversation } from '../api/types';
import { adopt, isUnread, markSeen } from './chatseen';

const conv = (id: string, updatedAt: string): Conversation => ({ id, agentId: 'a', agentName: 'A', title: 't', createdAt: updatedAt, updatedAt, busy: false });

describe('unread conversations', () => {
  it('marks only what changed after it was first seen, until it is looked at', () => {
    let seen = adopt({}, [conv('c1', '2025-01-01T00:00:00Z')]);
    expect(isUnread(seen, conv('c1', '2025-01-01T00:00:00Z'))).toBe(false);
    const changed = conv('c1', '2025-01-01T00:00:05Z');
    expect(isUnread(seen, changed)).toBe(true);
    seen = markSeen(seen, changed);
    expect(isUnread(seen, changed)).toBe(false);
    expect(adopt(seen, [changed])).toBe(seen);
  });
});
