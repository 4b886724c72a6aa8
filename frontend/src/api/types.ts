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
  /** Remote agents: the A2A dialect the hub speaks to it ("1.0", "0.3", "0.1"). */
  dialect?: string;
  /** Remote agents: whether the hub streams its calls to it. */
  streaming?: boolean;
  /** Remote agents: what its card asks for, and what the hub holds for it. */
  auth?: AgentAuth;
  /** chats.start accepts it: every added agent, and the hub's own agents (the hub, the demo agent). */
  canChat?: boolean;
  /** What the hub made of the card's signatures (A2A §8.4), and the key it pinned for the agent. */
  signature?: AgentSignature;
  /** Remote agents: the bindings its card offers that the hub speaks ("JSONRPC", "HTTP+JSON", "GRPC"). */
  bindings?: string[] | null;
  /** Remote agents: the owner's choice of binding ("auto" leaves it to the hub; agents.setBinding). */
  binding?: string;
  /** Remote agents: the binding in use ("" before the hub first called the agent). */
  bindingInUse?: string;
}

export type SignatureState = 'signed' | 'unsigned' | 'invalid' | 'key_changed' | 'unchecked';

export interface AgentSignature {
  state: SignatureState | string;
  /** What was checked, or what failed, in words. */
  detail?: string;
  /** RFC 7638 thumbprints: the key pinned on first use, and the new key of a key_changed card. */
  pinnedKey?: string;
  pendingKey?: string;
  /** The hub will not talk to the agent until the owner confirms the card (agents.trustCard). */
  blocked: boolean;
  /** The owner confirmed this card in spite of its invalid signature or its other hosts. */
  confirmed?: boolean;
  /** Hosts the card's interfaces are on besides the one its card was read from. */
  foreignHosts?: string[] | null;
}

export type AuthSchemeKind = 'apiKey' | 'bearer' | 'oauth2' | 'unsupported';

export interface AuthScheme {
  name: string;
  kind: AuthSchemeKind | string;
  /** apiKey: where the key is sent */
  in?: 'header' | 'query' | 'cookie' | string;
  paramName?: string;
  tokenUrl?: string;
  scopes?: string[] | null;
  description?: string;
  /** unsupported: why the hub cannot use it */
  unsupported?: string;
  /** the hub holds a credential for this scheme (never shown) */
  saved: boolean;
}

export interface AgentAuth {
  schemes: AuthScheme[] | null;
  /** The card's security requirements: any one inner list (all of its schemes together) is enough. */
  alternatives: string[][] | null;
  required: boolean;
  satisfied: boolean;
  /** "keyring" | "file <path>" */
  store: string;
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
  /** incoming: sent to the hub or its agents; outgoing: sent by the owner from a chat; channel: a
   * channel sent it to the agent (channelId names it) */
  direction: 'incoming' | 'outgoing' | 'channel' | string;
  title: string;
  createdAt: string;
  updatedAt: string;
  waitingForOwner: boolean;
  /** The chat the owner sent it from (absent when it did not come from a chat). */
  conversationId?: string;
  /** The channel that started it (direction "channel"), and its name ("" if the owner can't see it). */
  channelId?: string;
  channelName?: string;
  /** Set when the stored task could not be read: why. The other fields come from its database row. */
  unreadable?: string;
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
  /** what the data is: application/a2ui+json is a list of A2UI messages (lib/a2ui.ts) */
  mediaType?: string;
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
  /** absent when the task has no push notifications */
  push?: PushSummary;
}

/** How a task's push notifications are being delivered, over all its push configs. */
export interface PushSummary {
  configs: number;
  delivered: number;
  pending: number;
  failed: number;
  canceled: number;
  lastError?: string;
  /** HTTP status of the most recent failed attempt; absent: no answer */
  lastStatus?: number;
  lastFailureAt?: string;
  nextAttemptAt?: string;
  giveUpAfterSeconds: number;
}

export interface PushUpdate {
  agent: string;
  taskId: string;
  push: PushSummary;
}

export interface TaskUpdate {
  agent: string;
  taskId: string;
  summary: TaskSummary;
  event: TimelineEvent;
}

export interface InboxItem extends TaskSummary {
  unread: boolean;
  /** Who sent it, as the owner reads it: a principal's name, "You (from Chats)", "Anonymous (this computer)". */
  sender?: string;
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

// ---- chats: the owner's conversations with remote agents

export interface Conversation {
  id: string;
  agentId: string;
  agentName: string;
  contextId?: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  /** the state of its newest task */
  state?: TaskState | string;
  /** a call to the agent is in flight */
  busy: boolean;
  dialect?: '1.0' | '0.3' | '0.1' | string;
  /** the newest words exchanged, for the list */
  preview?: { from: 'you' | 'agent' | string; text: string };
}

export type ChatErrorKind = 'auth' | 'network' | 'protocol' | 'remote';

export interface ChatError {
  kind: ChatErrorKind | string;
  message: string;
  code?: number;
}

/** A recorded exchange of a conversation: a timeline event (without raw) with who it came from. */
export interface ChatEntry extends Omit<TimelineEvent, 'raw' | 'kind'> {
  direction: 'out' | 'in' | 'local' | string;
  taskId?: string;
  kind: 'message' | 'task' | 'status' | 'artifact' | 'error' | string;
  error?: ChatError;
}

/** An entry was recorded in a conversation, or only the conversation changed (no entry), or it was deleted (no conversation). */
export interface ChatUpdate {
  conversationId: string;
  conversation?: Conversation;
  entry?: ChatEntry;
}

export interface ChatSendParams {
  id: string;
  text?: string;
  files?: OutgoingFile[];
  data?: unknown;
  /** answer that task in place (input-required): same task, same context */
  taskId?: string;
  /** A2UI client messages (an action, an error), sent as one application/a2ui+json data part */
  a2ui?: unknown[];
  /** the data model of the surface that asked for it (sendDataModel): a2uiClientDataModel */
  a2uiDataModel?: unknown;
}

// ---- the raw wire log of the hub's calls to a remote agent

export interface WireEntry {
  id: number;
  at: string;
  callId: string;
  kind: 'request' | 'response' | 'event' | 'error' | string;
  method: string;
  url: string;
  status?: number;
  durationMs?: number;
  header: Record<string, string> | null;
  body: string;
}

export type CredentialParams =
  | { id: string; scheme: string; apiKey: string }
  | { id: string; scheme: string; token: string }
  | { id: string; scheme: string; clientId: string; clientSecret: string };

// ---- access: principals' API keys and what callers without one may do (Settings → Access)

/** A principal of the hub as listed: never its key, only the key's first characters. */
export interface AccessKey {
  id: string; // agent://NAME
  name: string;
  keyPrefix: string;
  createdAt: string;
  /** absent: never used */
  lastUsedAt?: string;
}

export type AnonymousPolicy = 'off' | 'read-public' | 'send';

/** A key as access.add and access.rotate return it: the only time the key crosses the gateway. */
export interface IssuedKey {
  principal: AccessKey;
  key: string;
}

/** A JSON-RPC error an extension answered (gateway error code "rpc_error"), e.g. -32020 ChannelNotFound. */
export interface RpcErrorDetail {
  code: number;
  message: string;
  data?: unknown;
}

/** ext.call / ext.stream params: a channels/… or knowledge/… method of this hub (agent absent) or of an
 * added agent, with the spec's own params. */
export interface ExtParams {
  agent?: string;
  method: string;
  params?: unknown;
}

/** Topic "ext": one frame of an ext.stream stream; `end` is always its last. */
export interface ExtFrame {
  stream: string;
  result?: unknown;
  error?: RpcErrorDetail;
  end?: boolean;
}

/** Method name → [params, result]. */
export interface Methods {
  'hub.info': [Record<string, never>, HubInfo];
  'agents.list': [Record<string, never>, { agents: AgentInfo[] | null }];
  'agents.get': [{ id: string }, AgentInfo];
  'agents.add': [{ url: string }, AgentInfo];
  'agents.refresh': [{ id: string }, AgentInfo];
  'agents.call': [{ id: string; method: string; params?: unknown }, { result: unknown }];
  'agents.trustCard': [{ id: string }, AgentInfo];
  'agents.setBinding': [{ id: string; binding: string }, AgentInfo];
  'agents.remove': [{ id: string }, Record<string, never>];
  'tasks.list': [
    { agent?: string; state?: string; cursor?: string; limit?: number },
    { tasks: TaskSummary[] | null; next?: string },
  ];
  'tasks.get': [{ agent: string; id: string }, TaskDetail];
  'tasks.agents': [Record<string, never>, { agents: { id: string; name: string }[] }];
  'tasks.cancel': [{ agent: string; id: string }, Record<string, never>];
  'tasks.events': [{ agent: string; id: string; after: number }, { events: TimelineEvent[] | null }];
  'inbox.list': [Record<string, never>, { tasks: InboxItem[] | null; unread: number }];
  'inbox.act': [{ id: string; action: InboxAction; text?: string; files?: OutgoingFile[]; a2ui?: unknown[] }, TaskSummary];
  'inbox.markRead': [{ id: string }, { unread: number }];
  'ui.regenerateToken': [Record<string, never>, { token: string; uiUrl: string }];
  'chats.list': [{ agentId?: string }, { conversations: Conversation[] | null }];
  'chats.start': [{ agentId: string }, Conversation];
  'chats.get': [{ id: string }, { conversation: Conversation; entries: ChatEntry[] | null }];
  'chats.send': [ChatSendParams, ChatEntry];
  'chats.cancel': [{ id: string; taskId: string }, Record<string, never>];
  'chats.rename': [{ id: string; title: string }, Conversation];
  'chats.delete': [{ id: string }, Record<string, never>];
  'agents.setCredential': [CredentialParams, AgentInfo];
  'agents.clearCredential': [{ id: string; scheme: string }, AgentInfo];
  'scenarios.list': [Record<string, never>, { scenarios: ScenarioSummary[] | null }];
  'scenarios.get': [{ id: string }, { scenario: SavedScenario; runs: RunSummary[] | null }];
  'scenarios.save': [{ id?: string; source: string }, SavedScenario];
  'scenarios.delete': [{ id: string }, Record<string, never>];
  'scenarios.fromConversation': [{ conversationId: string }, SavedScenario];
  'scenarios.run': [{ id: string; agent?: string }, StoredRun];
  'scenarios.getRun': [{ id: string }, StoredRun];
  'wire.list': [{ agentId: string; before?: number; limit?: number }, { entries: WireEntry[] | null; next?: number }];
  'access.list': [Record<string, never>, { principals: AccessKey[] | null }];
  'access.add': [{ name: string }, IssuedKey];
  'access.rotate': [{ name: string }, IssuedKey];
  'access.remove': [{ name: string }, Record<string, never>];
  'access.policy': [Record<string, never>, { anonymous: AnonymousPolicy | string }];
  'access.setPolicy': [{ anonymous: AnonymousPolicy }, { anonymous: AnonymousPolicy | string }];
  'ext.call': [ExtParams, unknown];
  'ext.stream': [ExtParams, { stream: string }];
  'ext.close': [{ stream: string }, Record<string, never>];
}

export type MethodName = keyof Methods;

/** Topic "channel": {channelId, sequence, author} for a new event, {channelId, change} otherwise. */
export interface ChannelPush {
  channelId: string;
  sequence?: number;
  author?: string;
  change?: 'created' | 'members' | 'updated' | 'deleted';
}

/** Pushed topic → data. */
export interface Topics {
  hello: HubInfo;
  task: TaskUpdate;
  inbox: InboxCounts;
  lagged: Record<string, never>;
  agents: { id: string };
  chat: ChatUpdate;
  wire: { agentId: string; entry: WireEntry };
  /** a principal was added, rotated, removed or used (name "": the anonymous policy changed) */
  access: { name: string };
  /** a push notification of a task was delivered, will be retried, failed or was canceled */
  push: PushUpdate;
  /** this hub's channels: a new event in one the owner may read, or a channel it sees changed */
  channel: ChannelPush;
  /** an added agent's working state in a channel changed (channels/model.ts BridgeState) */
  bridge: { channelId: string; member: string; agentId: string; state: string; taskId?: string; taskState?: string; updatedAt?: number };
  /** a frame of an ext.stream stream */
  ext: ExtFrame;
  /** a saved scenario changed, or one of its runs advanced */
  scenario: { id: string };
}

export type TopicName = keyof Topics;

/** A scenario saved in the hub: a file as `agenthub scenario run` reads it. */
export interface SavedScenario {
  id: string;
  name: string;
  agent: string;
  source: string;
  createdAt: string;
  updatedAt: string;
}

export interface RunSummary {
  id: string;
  agent: string;
  startedAt: string;
  status: 'running' | 'passed' | 'failed' | string;
  steps: number;
  failed: number;
  binding?: string;
  dialect?: string;
}

export interface ScenarioSummary extends SavedScenario {
  lastRun?: RunSummary;
}

export interface ScenarioAssertion {
  name: string;
  passed: boolean;
  detail?: string;
}

export interface ScenarioStep {
  index: number;
  name: string;
  line: number;
  passed: boolean;
  skipped?: boolean;
  state?: string;
  taskId?: string;
  events: number;
  error?: string;
  durationNs: number;
  assertions: ScenarioAssertion[] | null;
  /** what the agent answered: its reply text, its data parts as JSON (each cut at 4 KiB) */
  text?: string;
  data?: string;
}

export interface ScenarioResult {
  name: string;
  agent: string;
  dialect?: string;
  binding?: string;
  error?: string;
  passed: boolean;
  durationNs: number;
  steps: ScenarioStep[] | null;
}

/** One run of a saved scenario: the file as it ran and its result (the steps so far while it runs). */
export interface StoredRun {
  id: string;
  scenarioId: string;
  agent: string;
  source: string;
  startedAt: string;
  status: 'running' | 'passed' | 'failed' | string;
  result: ScenarioResult | null;
}
