import type { ReactNode } from 'react';

export function EmptyState({ title, children, icon = '○' }: { title: string; children?: ReactNode; icon?: string }) {
  return (
    <div className="empty-state">
      <div className="empty-icon" aria-hidden="true">
        {icon}
      </div>
      <h2>{title}</h2>
      {children}
    </div>
  );
}
