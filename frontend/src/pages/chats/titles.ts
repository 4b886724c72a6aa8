// How a conversation is named, shared by the sidebar's list and the open conversation's header.

import type { Conversation } from '../../api/types';
import { plainTitle } from '../../lib/format';

export function titleOf(c: Pick<Conversation, 'title' | 'agentName' | 'agentId'>): string {
  return plainTitle(c.title ?? '') || `New chat with ${c.agentName || c.agentId}`;
}
