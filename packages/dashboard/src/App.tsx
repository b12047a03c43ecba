/** The route table: path -> view, inside the shell (docs/dashboard.md). */
import { Shell } from './components/Shell.js';
import { Toasts } from './components/toasts.js';
import { Empty } from './components/ui.js';
import { decodeSegment, useLocation, useTitle } from './router.js';
import { AnalyticsView } from './views/Analytics.js';
import { ConsumersView } from './views/Consumers.js';
import { DashboardView } from './views/Dashboard.js';
import { DlqView } from './views/Dlq.js';
import { MessagesView } from './views/Messages.js';
import { MigrationView } from './views/Migration.js';
import { OperationsView } from './views/Operations.js';
import { QueueDetailView } from './views/QueueDetail.js';
import { QueuesView } from './views/Queues.js';
import { SystemView } from './views/System.js';
import { TracesView } from './views/Traces.js';

function pick(path: string): { title: string; view: () => preact.JSX.Element } {
  const queue = /^\/queues\/([^/]+)$/.exec(path);
  const name = queue === null ? null : decodeSegment(queue[1]!);
  if (name !== null) {
    return { title: name, view: () => <QueueDetailView key={name} name={name} /> };
  }
  switch (path) {
    case '/': return { title: 'Dashboard', view: () => <DashboardView /> };
    case '/operations': return { title: 'Queue Operations', view: () => <OperationsView /> };
    case '/queues': return { title: 'Queues', view: () => <QueuesView /> };
    case '/consumers': return { title: 'Consumers', view: () => <ConsumersView /> };
    case '/messages': return { title: 'Messages', view: () => <MessagesView /> };
    case '/traces': return { title: 'Traces', view: () => <TracesView /> };
    case '/analytics': return { title: 'Analytics', view: () => <AnalyticsView /> };
    case '/dlq': return { title: 'Dead letter', view: () => <DlqView /> };
    case '/system': return { title: 'System', view: () => <SystemView /> };
    case '/migration': return { title: 'Migration', view: () => <MigrationView /> };
    default: return { title: 'Not found', view: () => <Empty>No page at {path}. <a href="/">Back to the dashboard</a></Empty> };
  }
}

/** The application. */
export function App() {
  const loc = useLocation();
  const route = pick(loc.path.length > 1 && loc.path.endsWith('/') ? loc.path.slice(0, -1) : loc.path);
  useTitle(route.title);
  return (
    <>
      <Shell title={route.title}>{route.view()}</Shell>
      <Toasts />
    </>
  );
}
