import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { UnreadableNotice, UnreadableTag } from './Unreadable';

describe('Unreadable', () => {
  it('labels a task the hub could not read, with the reason, and nothing else', () => {
    const { rerender } = render(
      <>
        <UnreadableTag task={{ unreadable: 'unknown part content type: [raw]' }} />
        <UnreadableNotice task={{ unreadable: 'unknown part content type: [raw]' }} />
      </>,
    );
    expect(screen.getByTestId('unreadable').textContent).toBe('unreadable');
    expect(screen.getByTestId('unreadable').title).toContain('unknown part content type: [raw]');
    expect(screen.getByTestId('unreadable-notice').textContent).toContain('could not be read (unknown part content type: [raw])');
    rerender(
      <>
        <UnreadableTag task={{}} />
        <UnreadableNotice task={{ unreadable: '' }} />
      </>,
    );
    expect(screen.queryByTestId('unreadable')).toBeNull();
    expect(screen.queryByTestId('unreadable-notice')).toBeNull();
  });
});
