// Package uiapi is the gateway between the frontend and the hub: one websocket, /ui/ws, on the hub's
// own HTTP server. The frontend never speaks A2A itself; it calls the methods below and receives
// pushed events, and this package turns protocol objects into the plain shapes the UI renders.
//
// # Connecting
//
//	ws://127.0.0.1:PORT/ui/ws?token=TOKEN
//
// TOKEN is random, kept owner-only (0600) in the data dir's ui-token file so that open tabs and printed
// links survive a restart, until ui.regenerateToken replaces it. `agenthub serve` prints a UI URL
// carrying it in the fragment
// (http://127.0.0.1:PORT/#token=TOKEN); the desktop window gets it from a Wails binding. A wrong or
// missing token is refused with HTTP 401 before the upgrade, a foreign Origin with 403, and (by the
// hub server's guard, on every route) a Host header that is not an allowed name (DNS rebinding) with
// 403. Refusals are logged, the first 10 a minute one line each, then one line with the count.
//
// # Frames (JSON text frames)
//
//	client → hub   {"id": 7, "method": "tasks.list", "params": {...}}
//	hub → client   {"id": 7, "result": ...}
//	               {"id": 7, "error": {"code": "not_found", "message": "..."}}
//	hub → client   {"topic": "task", "data": {...}}          (pushed, no id)
//
// Error codes: bad_request (frame not understood), unknown_method, invalid_params, not_found,
// conflict (e.g. acting on an inbox task that is not waiting), agent_error (a remote agent refused or
// failed the call; the message says how), rpc_error (an extension's JSON-RPC error, in error.rpc),
// unavailable (the hub's database cannot be reached now: nothing happened, try again shortly), internal.
//
// # Methods
//
//	hub.info      {}                          → HubInfo
//	agents.list   {}                          → {agents: AgentInfo[]}
//	agents.get    {id}                        → AgentInfo
//	agents.add    {url}                       → AgentInfo   (a base URL or the card's own URL; the card
//	                is read from /.well-known/agent-card.json, then /.well-known/agent.json, then
//	                /agent-card.json (where AgentVault serves it); the URL of
//	                an agent on this hub returns that agent, kind hub/local, listed once)
//	agents.refresh {id}                       → AgentInfo   (a failed read keeps the last card and
//	                sets lastError / online: false)
//	agents.call   {id, method, params?}       → {result}   one JSON-RPC request the owner wrote by
//	                hand, sent to the agent's JSON-RPC endpoint through the hub's client (its saved
//	                credentials; recorded in its wire log); the agent's JSON-RPC error is rpc_error; an
//	                agent without a JSON-RPC endpoint is invalid_params; params up to 1 MiB
//	agents.trustCard {id}                     → AgentInfo   the owner confirms the agent's card as last
//	                read although its signature.state is "invalid" or "key_changed" (the new key is
//	                pinned); until then chats and calls to the agent fail with conflict. Every add and
//	                refresh verifies the card's signatures with keys from the agent's own origin (its
//	                /.well-known/jwks.json, or a jku on that origin) and pins the first key that verifies
//	agents.remove {id}                        → {}   (conflict for the hub's own agents); the agent
//	                leaves every channel it was a member of (remote://ID): a "members" change of each
//	tasks.list    {agent?, state?, cursor?, limit?}
//	                                          → {tasks: TaskSummary[], next?: string}
//	                every task, in and out: the hub's own agents' tasks, the tasks the owner sent
//	                other agents from chats, and those channels sent them; newest first (by
//	                creation); limit 1..200, default 50; pass next back as cursor. agent: one of this
//	                hub's agents, or an added one
//	tasks.agents  {}                          → {agents: [{id, name}]}   the hub's own agents, then
//	                every agent the owner or a channel sent a task to (the Tasks filter)
//	tasks.get     {agent, id}                 → TaskDetail   (a task sent to an added agent from a
//	                chat: what its chat recorded, events numbered 1..n; it changes with "chat"
//	                pushes, not "task"; from a channel: the task as the agent answers tasks/get now,
//	                no events, or the summary alone when it can't be reached; it changes with
//	                "bridge" pushes)
//	tasks.cancel  {agent, id}                 → {}   asks the task's agent to cancel it over A2A (through
//	                its chat when the owner sent it from one); a refusal is agent_error
//	tasks.events  {agent, id, after}          → {events: TimelineEvent[]}   (log entries with seq > after)
//	inbox.list    {}                          → {tasks: InboxItem[], unread: number}
//	inbox.act     {id, action, text, files?}  → TaskSummary
//	                action: "answer" (reply, task stays open) | "ask" (input-required) |
//	                        "complete" | "reject"; text may be empty for complete and reject;
//	                files: [{name, mediaType, bytes (base64)}], attached to the reply
//	inbox.markRead {id}                       → {unread: number}
//	ui.regenerateToken {}                     → {token, uiUrl}   a new UI token, kept in ui-token; every
//	                other UI connection is closed, and the old token is refused (401) from then on
//	chats.list    {agentId?}                  → {conversations: Conversation[]}  most recently active first
//	chats.start   {agentId}                   → Conversation  (nothing is sent until the first message)
//	chats.get     {id}                        → {conversation: Conversation, entries: ChatEntry[]}
//	chats.send    {id, text?, files?, data?, taskId?}
//	                                          → ChatEntry (the message as recorded); the agent's answer
//	                arrives on topic "chat". taskId answers that task (input-required) in place, in the
//	                same context. files: [{name, mediaType, bytes (base64)}], 8 MiB in all. A message
//	                with no text, file or data is invalid_params.
//	chats.cancel  {id, taskId}                → {}   (the agent's answer is recorded as a status entry;
//	                a refusal is agent_error)
//	chats.rename  {id, title}                 → Conversation
//	chats.delete  {id}                        → {}   (forgets the local record only)
//	agents.setCredential   {id, scheme, apiKey? | token? | clientId? + clientSecret?} → AgentInfo
//	                the fields the scheme's kind needs; kept in the OS keyring or a user-only file,
//	                never in hub.db, never sent back to the UI
//	agents.clearCredential {id, scheme}       → AgentInfo
//	wire.list     {agentId, before?, limit?}  → {entries: WireEntry[], next?: number}
//	                newest first; limit 1..500, default 100; pass next back as before
//	access.list   {}                          → {principals: AccessKey[]}   by name; never a key
//	access.add    {name}                      → {principal: AccessKey, key}  agent://NAME and its API key,
//	                returned this once (only its hash is stored). name: 1..64 of a-z 0-9 . _ -, starting
//	                with a letter or digit (invalid_params otherwise); an existing name is conflict
//	access.rotate {name}                      → {principal: AccessKey, key}  a new key; the old key and
//	                its tokens stop working at once (not_found for an unknown name)
//	access.remove {name}                      → {}   revokes the key and its tokens at once
//	access.policy {}                          → {anonymous}
//	access.setPolicy {anonymous}              → {anonymous}   what callers without credentials may
//	                do: "off" (refused), "read-public" (read public things only), "send" (the default:
//	                send to the hub and read the tasks they started)
//	ext.call   {agent?, method, params?}      → the method's JSON-RPC result, as its spec defines it
//	                method: a channels/… or knowledge/… method (anything else is invalid_params); params
//	                as the spec defines them. agent absent: this hub, acting as the owner (user://owner);
//	                agent: an added agent's id, reached on its JSON-RPC endpoint with the credentials
//	                saved for it. A JSON-RPC error the extension answers is rpc_error, with error.rpc =
//	                {code, message, data?} as answered (e.g. -32020 ChannelNotFound); an extension
//	                method nobody serves is rpc_error -32601. With agent: invalid_params when its card
//	                does not advertise the extension (capabilities.messaging.channels, .knowledgeGraph),
//	                nothing sent; not_found for an unknown id; agent_error when the agent refuses the
//	                saved credentials (401/403), cannot be reached, or answers something not JSON-RPC
//	ext.stream {agent?, method, params?}      → {stream}   opens a streaming extension method
//	                (channels/stream, knowledge/subscribe); its results arrive on topic "ext". An error
//	                before the stream opens is this call's error (rpc_error), and no stream exists.
//	                At most 32 open streams per connection (conflict beyond)
//	ext.close  {stream}                       → {}   ends a stream early (not_found: none open by that id)
//
//	bridge.states {channelId}                 → {agents: BridgeState[]}   the added agents that are
//	                members of the channel (remote://AGENT-ID), in member order; one the bridge has
//	                not talked to yet is idle. A channel the owner may not see: not_found
//	channels.memberLog {channelId}            → {entries: [{at, actor, principal, joined}]}   the
//	                joins (joined true) and leaves of one of this hub's channels, oldest first, read
//	                from its audit rows; a channel the owner may not see: not_found
//	bridge.deliver {channelId, sequence, member} → {delivered: true}   sends the channel's message at
//	                sequence to the added agent member (remote://AGENT-ID) that it mentioned before the
//	                agent joined (the UI's "Add to #channel"); a message that does not mention it, an
//	                agent's answer, or an agent that is not a member: invalid_params
//	bridge.act {channelId, member, taskId, a2ui, a2uiDataModel?} → {event: MessageEvent}   the owner's
//	                A2UI client messages (v0.9 action/error, v0.8 userAction/error) about a surface the added
//	                agent member (remote://AGENT-ID) drew in the channel in its bridge task taskId, sent to
//	                that agent only, in that task, with a2uiDataModel (an a2uiClientDataModel of those
//	                surfaces only) in the message's metadata; the event is the owner's line in the
//	                channel ("chose …", metadata.agenthub.a2uiAction {member, taskId, surfaceId}).
//	                A surface that agent did not draw there, another surface's data model, not an
//	                action or error, or an agent that is not a member: invalid_params, nothing sent.
//	                A channel the owner may not see: not_found
//
// # Pushed topics
//
//	hello   HubInfo, once, first frame after connecting
//	task    TaskUpdate: a new entry in some task's log (every agent on this hub)
//	inbox   {unread: number, waiting: number} whenever either changes
//	agents  {id} a registered agent was added, refreshed or removed: refetch agents.list
//	chat    ChatUpdate: an entry was recorded in a conversation, or the conversation changed
//	wire    {agentId, entry: WireEntry}: something went over the wire with a remote agent
//	push    PushUpdate: a push notification of a task was delivered, will be retried, failed or
//	        was canceled
//	access  {name} a principal was added, rotated, removed or used (name "" : the anonymous policy
//	        changed): refetch access.list / access.policy
//	bridge  BridgeState: an added agent's working state in a channel changed (it was sent a
//	        message, its task got an id, it asked back, finished or failed)
//	channel {channelId, sequence, author} a new event in one of this hub's channels the owner may
//	        read (a member, or public); {channelId, change: "created"|"members"|"updated"|"deleted"}
//	        a channel the owner can see (or could see before the change) was created (a direct
//	        channel: by its first publish), gained or lost a member (or a role changed), had its
//	        name, visibility or metadata changed, or was deleted: refetch channels/list. Nothing is
//	        pushed about a private channel the owner is not in. Dropped under load like other
//	        topics: on lagged, refetch channels/list (each channel's lastSequence)
//	ext     {stream, result} one per streamed result, in order; {stream, error: {code, message, data?}}
//	        the stream's error; {stream, end: true} always last (not sent after ext.close). Unlike
//	        other topics these frames are never dropped: they wait for room like replies. A closed
//	        connection ends every stream; resume with the spec's own cursor (sinceSequence, a
//	        change id)
//	lagged  {} the client was too slow and missed events: refetch what is on screen
//
// # Shapes
//
//	HubInfo      {version, dataDir, uiUrl, agents: AgentInfo[]}
//	AgentInfo    {id, name, description, kind: "hub"|"local"|"remote", url (the agent's base URL;
//	              its endpoints are in the card's interfaces), cardUrl, online: bool,
//	              protocolVersions: string[], card: object (the agent-card.json document as served),
//	              problems: Problem[], fetchedAt?, lastError?,     (fetchedAt, lastError: remote only)
//	              dialect?: "1.0"|"0.3"|"0.1", streaming: bool, auth?: AuthInfo,   (remote only)
//	              canChat: bool}   (chats.start accepts its id: every remote agent, and the hub and the
//	              demo agent, which are registered for chats under the ids "hub" and "demo")
//	AuthInfo     {schemes: AuthScheme[], alternatives: string[][] (any one list of scheme names will do),
//	              required: bool, satisfied: bool (saved credentials cover an alternative), store}
//	AuthScheme   {name, kind: "apiKey"|"bearer"|"oauth2"|"unsupported", in?, paramName?, tokenUrl?,
//	              scopes?, description?, unsupported?, saved: bool}
//	Conversation {id, agentId, agentName, contextId?, title, createdAt, updatedAt, state?, busy: bool,
//	              dialect?, preview?: {from: "you"|"agent", text}}   preview: the newest words
//	              exchanged (a message, a status's message, or an artifact's streamed text joined)
//	ChatEntry    TimelineEvent (without raw) & {direction: "out"|"in"|"local", taskId?,
//	              error?: {kind: "auth"|"network"|"remote"|"protocol", message}}
//	              out: the owner's message; in: an event from the agent (kind task | status | artifact |
//	              message; a polled or pushing agent's changes come as whole artifacts and status entries, and a
//	              task resumed after a restart is reported again whole as kind task); local: a failed call
//	ChatUpdate   {conversationId, conversation?: Conversation (absent once deleted), entry?: ChatEntry}
//	WireEntry    {id, at, callId, kind: "request"|"response"|"event"|"error", method, url, status?,
//	              durationMs?, header: {name: value}, body}   secrets masked as •••
//	AccessKey    {id: "agent://NAME", name, keyPrefix (the key's first 12 characters), createdAt (of the
//	              current key), lastUsedAt? (absent: never; to the minute)}
//	BridgeState  {channelId, member: "remote://AGENT-ID", agentId, state: "idle"|"working"|
//	              "input-required"|"failed", taskId? (the task in hand; absent when idle),
//	              taskState? (the A2A state of the task it last had: "completed", "rejected", …,
//	              the word TaskSummary.state uses),
//	              updatedAt (ms epoch, like channel events)}
//	Problem      {path, message}   e.g. {path: "skills[0].id", message: "is required"}
//	TaskSummary  {agent, id, contextId, state, dialect: "1.0"|"0.3"|"0.1",
//	              direction: "incoming"|"outgoing"|"channel", title, createdAt, updatedAt,
//	              waitingForOwner: bool, conversationId?, channelId?, channelName?}
//	              direction is the owner's: outgoing for what they sent from a chat (conversationId
//	              names it), channel for what a channel sent an agent, the hub's or an added one
//	              (channelId names it, channelName is "" for one the owner may not see), incoming
//	              for what others sent the hub or its agents
//	              state: submitted | working | input-required | auth-required | completed | canceled |
//	                     failed | rejected | unknown
//	TaskDetail   {summary: TaskSummary, history: Message[], artifacts: Artifact[], status: Status,
//	              events: TimelineEvent[], raw: object (the task as stored, A2A v1.0 JSON),
//	              push?: PushSummary (absent when the task has no push notifications)}
//	PushSummary  {configs, delivered, pending, failed, canceled: number (notifications, over all the
//	              task's push configs), lastError?, lastStatus? (HTTP status of the most recent failed
//	              attempt; absent: no answer), lastFailureAt?, nextAttemptAt? (a pending one's next try),
//	              giveUpAfterSeconds (how long a notification is retried before it fails)}
//	PushUpdate   {agent, taskId, push: PushSummary}
//	TimelineEvent {seq, at, kind: "task"|"status"|"artifact"|"message", final: bool,
//	              state?, status?: Status, message?: Message, artifact?: Artifact, raw: object}
//	              kind "task" is the task as created (state, status); its opening message is the
//	              first of TaskDetail.history (and in raw.history)
//	TaskUpdate   {agent, taskId, summary: TaskSummary, event: TimelineEvent}
//	InboxItem    TaskSummary & {unread: bool, sender, lastMessage?: Message}
//	              sender: who sent it as the owner reads it: the principal's name, "You (from Chats)",
//	              or "Anonymous (this computer)"; waitingForOwner is false for an open task the owner
//	              answered (the sender's turn) until the sender writes again, and such a task is not
//	              in the inbox's waiting count
//	              lastMessage: the status message if the task's status carries one (a question
//	              asked back, closing words), else the newest history message (a task waiting
//	              for the owner: the newest user message)
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
