// The shapes of backend/uiapi/doc.go (the contract). Everything here comes from the hub, and much of
// it from remote agents: treat strings as untrusted text and objects as possibly malformed.

export type TaskState =
  | 'submitted'
  | 'working'
  | 'input-required'
  | 'auth-required'
  | 'completed'
  | 'canceled'
  | 'failed'
  | 'rejected'
  | 'unknown';

export const TASK_STATES: TaskState[] = [
  'submitted',
  'working',
  'input-required',
  'auth-required',
  'completed',
  'canceled',
  'failed',
  'rejected',
  'unknown',
];

export const TERMINAL_STATES: ReadonlySet<string> = new Set(['completed', 'canceled', 'failed', 'rejected']);

export function isTerminal(state: string | undefined): boolean {
  return state !== undefined && TERMINAL_STATES.has(state);
}

export interface Problem {
  path: string;
  message: string;
}

export interface AgentInfo {
  id: string;
  name: string;
  description: string;
  kind: 'hub' | 'local' | 'remote' | string;
  url: string;
  cardUrl: string;
  online: boolean;
  protocolVersions: string[] | null;
  card: unknown;
  problems: Problem[] | null;
  /** Remote agents: when the card was last read, and why the last read failed ("" or absent if it did not). */
  fetchedAt?: string;
  lastError?: string;
}

export interface HubInfo {
  version: string;
  dataDir: string;
  uiUrl: string;
  agents: AgentInfo[] | null;
}

export interface TaskSummary {
  agent: string;
  id: string;
  contextId: string;
  state: TaskState | string;
  dialect: '1.0' | '0.3' | '0.1' | string;
  direction: 'incoming' | 'outgoing' | string;
  title: string;
  createdAt: string;
  updatedAt: string;
  waitingForOwner: boolean;
}

export interface TextPart {
  kind: 'text';
  text: string;
}
export interface FilePart {
  kind: 'file';
  name?: string;
  mediaType?: string;
  bytes?: string; // base64
  url?: string;
  size?: number;
}
export interface DataPart {
  kind: 'data';
  data: unknown;
}
export type Part = TextPart | FilePart | DataPart;

export interface Message {
  id: string;
  role: 'user' | 'agent' | string;
  parts: Part[] | null;
}

export interface Artifact {
  id: string;
  name?: string;
  description?: string;
  parts: Part[] | null;
  append?: boolean;
  lastChunk?: boolean;
}

export interface Status {
  state: TaskState | string;
  message?: Message;
  at?: string;
}

export interface TimelineEvent {
  seq: number;
  at: string;
  kind: 'task' | 'status' | 'artifact' | 'message' | string;
  final: boolean;
  state?: TaskState | string;
  status?: Status;
  message?: Message;
  artifact?: Artifact;
  raw: unknown;
}

export interface TaskDetail {
  summary: TaskSummary;
  history: Message[] | null;
  artifacts: Artifact[] | null;
  status: Status;
  events: TimelineEvent[] | null;
  raw: unknown;
}

export interface TaskUpdate {
  agent: string;
  taskId: string;
  summary: TaskSummary;
  event: TimelineEvent;
}

export interface InboxItem extends TaskSummary {
  unread: boolean;
  lastMessage?: Message;
}

export interface InboxCounts {
  unread: number;
  waiting: number;
}

export type InboxAction = 'answer' | 'ask' | 'complete' | 'reject';

export interface OutgoingFile {
  name: string;
  mediaType: string;
  bytes: string; // base64
}

/** Method name → [params, result]. */
export interface Methods {
  'hub.info': [Record<string, never>, HubInfo];
  'agents.list': [Record<string, never>, { agents: AgentInfo[] | null }];
  'agents.get': [{ id: string }, AgentInfo];
  'agents.add': [{ url: string }, AgentInfo];
  'agents.refresh': [{ id: string }, AgentInfo];
  'agents.remove': [{ id: string }, Record<string, never>];
  'tasks.list': [
    { agent?: string; state?: string; cursor?: string; limit?: number },
    { tasks: TaskSummary[] | null; next?: string },
  ];
  'tasks.get': [{ agent: string; id: string }, TaskDetail];
  'tasks.events': [{ agent: string; id: string; after: number }, { events: TimelineEvent[] | null }];
  'inbox.list': [Record<string, never>, { tasks: InboxItem[] | null; unread: number }];
  'inbox.act': [{ id: string; action: InboxAction; text: string; files?: OutgoingFile[] }, TaskSummary];
  'inbox.markRead': [{ id: string }, { unread: number }];
}

export type MethodName = keyof Methods;

/** Pushed topic → data. */
export interface Topics {
  hello: HubInfo;
  task: TaskUpdate;
  inbox: InboxCounts;
  lagged: Record<string, never>;
  agents: { id: string };
}

export type TopicName = keyof Topics;
