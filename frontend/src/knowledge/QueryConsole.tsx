// The Knowledge page's "Query" tab (contract §3). The console itself (QueryConsoleView) loads with
// the tab: graphql-js and its language service stay out of the app's first download.

import { lazy, Suspense } from 'react';

const View = lazy(() => import('./QueryConsoleView').then((m) => ({ default: m.QueryConsoleView })));

export function QueryConsole(props: { agent?: string; onShowInGraph?: (nodeIds: string[]) => void }) {
  return (
    <Suspense fallback={<p className="muted">Loading the query console…</p>}>
      <View {...props} />
    </Suspense>
  );
}
