import { describe, expect, it } from 'vitest';
import { directId } from './api';

describe('directId', () => {
  it('is the hub’s id of a direct channel, whichever side asks', async () => {
    // backend/channels.DirectID("agent://alice", "user://owner")
    const id = await directId('agent://alice', 'user://owner');
    expect(id).toBe('chan:direct:88579f7301ea5bf5b231b20a');
    expect(await directId('user://owner', 'agent://alice')).toBe(id);
  });
});
