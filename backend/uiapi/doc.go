// Package uiapi is the gateway between the frontend and the hub: one websocket, /ui/ws, on the hub's
// own HTTP server. The frontend never speaks A2A itself; it calls the methods below and receives
// pushed events, and this package turns protocol objects into the plain shapes the UI renders.
//
// # Connecting
//
//	ws://127.0.0.1:PORT/ui/ws?token=TOKEN
//
// TOKEN is random per run. `agenthub serve` prints a UI URL carrying it in the fragment
// (http://127.0.0.1:PORT/#token=TOKEN); the desktop window gets it from a Wails binding. A wrong or
// missing token is refused with HTTP 401 before the upgrade, a foreign Origin with 403, and a Host
// header that is not a loopback name (DNS rebinding) with 403.
//
// # Frames (JSON text frames)
//
//	client → hub   {"id": 7, "method": "tasks.list", "params": {...}}
//	hub → client   {"id": 7, "result": ...}
//	               {"id": 7, "error": {"code": "not_found", "message": "..."}}
//	hub → client   {"topic": "task", "data": {...}}          (pushed, no id)
//
// Error codes: bad_request (frame not understood), unknown_method, invalid_params, not_found,
// conflict (e.g. acting on an inbox task that is not waiting), internal.
//
// # Methods
//
//	hub.info      {}                          → HubInfo
//	agents.list   {}                          → {agents: AgentInfo[]}
//	agents.get    {id}                        → AgentInfo
//	agents.add    {url}                       → AgentInfo   (a base URL or the card's own URL; the card
//	                is read from /.well-known/agent-card.json, then /.well-known/agent.json)
//	agents.refresh {id}                       → AgentInfo   (a failed read keeps the last card and
//	                sets lastError / online: false)
//	agents.remove {id}                        → {}
//	tasks.list    {agent?, state?, cursor?, limit?}
//	                                          → {tasks: TaskSummary[], next?: string}
//	                newest first (by creation); limit 1..200, default 50; pass next back as cursor
//	tasks.get     {agent, id}                 → TaskDetail
//	tasks.events  {agent, id, after}          → {events: TimelineEvent[]}   (log entries with seq > after)
//	inbox.list    {}                          → {tasks: InboxItem[], unread: number}
//	inbox.act     {id, action, text, files?}  → TaskSummary
//	                action: "answer" (reply, task stays open) | "ask" (input-required) |
//	                        "complete" | "reject"; text may be empty for complete and reject;
//	                files: [{name, mediaType, bytes (base64)}], attached to the reply
//	inbox.markRead {id}                       → {unread: number}
//
// # Pushed topics
//
//	hello   HubInfo, once, first frame after connecting
//	task    TaskUpdate: a new entry in some task's log (every agent on this hub)
//	inbox   {unread: number, waiting: number} whenever either changes
//	agents  {id} a registered agent was added, refreshed or removed: refetch agents.list
//	lagged  {} the client was too slow and missed events: refetch what is on screen
//
// # Shapes
//
//	HubInfo      {version, dataDir, uiUrl, agents: AgentInfo[]}
//	AgentInfo    {id, name, description, kind: "hub"|"local"|"remote", url (the agent's base URL;
//	              its endpoints are in the card's interfaces), cardUrl, online: bool,
//	              protocolVersions: string[], card: object (the agent-card.json document as served),
//	              problems: Problem[], fetchedAt?, lastError?}   (fetchedAt, lastError: remote only)
//	Problem      {path, message}   e.g. {path: "skills[0].id", message: "is required"}
//	TaskSummary  {agent, id, contextId, state, dialect: "1.0"|"0.3"|"0.1", direction: "incoming"|"outgoing",
//	              title, createdAt, updatedAt, waitingForOwner: bool}
//	              state: submitted | working | input-required | auth-required | completed | canceled |
//	                     failed | rejected | unknown
//	TaskDetail   {summary: TaskSummary, history: Message[], artifacts: Artifact[], status: Status,
//	              events: TimelineEvent[], raw: object (the task as stored, A2A v1.0 JSON)}
//	TimelineEvent {seq, at, kind: "task"|"status"|"artifact"|"message", final: bool,
//	              state?, status?: Status, message?: Message, artifact?: Artifact, raw: object}
//	              kind "task" is the task as created (state, status); its opening message is the
//	              first of TaskDetail.history (and in raw.history)
//	TaskUpdate   {agent, taskId, summary: TaskSummary, event: TimelineEvent}
//	InboxItem    TaskSummary & {unread: bool, lastMessage?: Message}
//	              lastMessage: the status message if the task's status carries one (a question
//	              asked back, closing words), else the newest history message
//	Status       {state, message?: Message, at?}
//	Message      {id, role: "user"|"agent", parts: Part[]}
//	Artifact     {id, name?, description?, parts: Part[], append?: bool, lastChunk?: bool}
//	Part         {kind: "text", text} | {kind: "file", name?, mediaType?, bytes? (base64), url?, size?}
//	             | {kind: "data", data}
//
// All times are RFC 3339 strings with nanoseconds, UTC.
//
// # Back-pressure
//
// Each connection has a bounded outgoing queue. Pushed events that do not fit are dropped and the
// client gets one "lagged" event; replies are never dropped. A client that does not read for the
// write timeout is disconnected. Nothing the UI does can block the hub or its A2A clients.
package uiapi
