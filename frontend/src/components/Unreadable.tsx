import type { TaskSummary } from '../api/types';

/** A tag on a list row whose stored task could not be read back; the reason is in its tooltip. */
export function UnreadableTag({ task }: { task: Pick<TaskSummary, 'unreadable'> }) {
  if (!task.unreadable) return null;
  return (
    <span className="tag tag-danger" data-testid="unreadable" title={`The stored task could not be read: ${task.unreadable}`}>
      unreadable
    </span>
  );
}

/** The explanation at the top of an unreadable task's detail view. */
export function UnreadableNotice({ task }: { task: Pick<TaskSummary, 'unreadable'> }) {
  if (!task.unreadable) return null;
  return (
    <p className="error-line" role="note" data-testid="unreadable-notice">
      This task is stored but its data could not be read ({task.unreadable}). Its id, state and times come from the database row;
      its messages and artifacts cannot be shown, and it cannot be answered.
    </p>
  );
}
