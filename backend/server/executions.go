package server

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"slices"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/agenthub/agenthub/backend/tasks"
)

// executions runs the agent for SendMessage, SendStreamingMessage and CancelTask in place of a2a-go's
// execution manager; every other method is a2a-go's (the embedded handler), and SubscribeToTask is
// served from the task log (durableSubscribe).
//
// Why not a2a-go's: its task manager deep-copies the whole task through encoding/gob two or three
// times for every event, with a new encoder and decoder each time, so that no one can change a task
// it handed out. In the streaming benchmark that was 64% of the hub's server CPU. Here a task is
// never changed once it was written: each event makes a new task value that shares what did not
// change with the one before (copy on write), so nothing needs copying. What a2a-go does per event
// is otherwise done the same way, in the same order, with the same errors: the task checked against
// the execution, stored with its version, the task failed when an event cannot be applied, and a
// cancel either handed to the running execution or run on its own. Push notifications are not sent
// from here: the task store's write hook records them in the push outbox, in the event's own write.
//
// The agent's events are applied on the goroutine that runs the agent, one at a time (a canceler's
// events take the same lock), and passed to the caller through an unbounded queue, so a caller who
// stops reading never holds the agent up.
type executions struct {
	a2asrv.RequestHandler
	agent        a2asrv.AgentExecutor
	store        *tasks.Store
	pushConfigs  push.ConfigStore
	capabilities *a2a.AgentCapabilities
	panicked     func(r any) error
	log          *slog.Logger

	mu        sync.Mutex
	running   map[a2a.TaskID]*execution
	canceling map[a2a.TaskID]*cancelation
}

func newExecutions(sdk a2asrv.RequestHandler, cfg Config, caps *a2a.AgentCapabilities) *executions {
	return &executions{RequestHandler: sdk, agent: cfg.Executor, store: cfg.Store, pushConfigs: cfg.PushConfigs,
		capabilities: caps, panicked: recoverer(cfg.Logger, "agent executor"), log: cfg.Logger,
		running: map[a2a.TaskID]*execution{}, canceling: map[a2a.TaskID]*cancelation{}}
}

var (
	errExecutionInProgress    = errors.New("task execution is already in progress")
	errCancelationInProgress  = errors.New("task cancelation is in progress")
	errEndedWithoutFinalState = errors.New("the agent stopped without a final state")
)

// ErrWrittenElsewhere ends an execution whose task someone else wrote since the execution last did
// (another replica of the hub over the same database): the agent's sequence ends with an error that
// wraps it. The execution's view of the task is stale, so nothing is written for it (the task is not
// failed): the run ends with the task as stored, which the caller is sent as its last event.
var ErrWrittenElsewhere = errors.New("the task was written elsewhere")

// execution is one run of the agent for a task.
type execution struct {
	id    a2a.TaskID
	stop  context.CancelCauseFunc // ends the agent's context once the execution has its result
	out   *eventQueue             // what the caller who started it is sent
	ended chan struct{}           // closed once result and err are set

	mu     sync.Mutex // one event at a time, the agent's or a canceler's
	task   taskState
	over   bool // a result was reached: later events are dropped
	result a2a.SendMessageResult
	err    error
}

// cancelation is one CancelTask in progress; concurrent ones for the same task wait for its result.
type cancelation struct {
	ended  chan struct{}
	result a2a.SendMessageResult
	err    error
}

// SendMessage runs the agent and answers once the task reaches a final state (or asks for input or
// authentication), or at once with the task as it stands when the request says returnImmediately.
func (x *executions) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	run, err := x.start(ctx, req)
	if err != nil {
		return nil, err
	}
	var last a2a.Event
	for ev, err := range run.events(ctx) {
		if err != nil {
			return nil, err
		}
		if id, interrupt := interruptsBlockingSend(req, ev); interrupt {
			stored, err := x.store.Get(ctx, id)
			if err != nil {
				return nil, fmt.Errorf("failed to load task on event processing interrupt: %w", err)
			}
			return stored.Task, nil
		}
		last = ev
	}
	if res, ok := last.(a2a.SendMessageResult); ok {
		return res, nil
	}
	if last == nil {
		return nil, fmt.Errorf("execution finished without producing any events: %w", a2a.ErrInvalidAgentResponse)
	}
	stored, err := x.store.Get(ctx, last.TaskInfo().TaskID)
	if err != nil {
		return nil, fmt.Errorf("failed to load result after execution finished: %w", err)
	}
	return stored.Task, nil
}

// SendStreamingMessage runs the agent and streams each event once it is stored, up to the final one.
func (x *executions) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if x.capabilities != nil && !x.capabilities.Streaming {
			yield(nil, a2a.ErrUnsupportedOperation)
			return
		}
		run, err := x.start(ctx, req)
		if err != nil {
			yield(nil, err)
			return
		}
		for ev, err := range run.events(ctx) {
			if !yield(ev, err) {
				return
			}
		}
	}
}

// interruptsBlockingSend says whether a blocking send answers at ev: on the first task event when the
// client asked for returnImmediately, and when the agent needs authentication.
func interruptsBlockingSend(req *a2a.SendMessageRequest, ev a2a.Event) (a2a.TaskID, bool) {
	if req.Config != nil && req.Config.ReturnImmediately {
		if _, ok := ev.(*a2a.Message); ok {
			return "", false
		}
		return ev.TaskInfo().TaskID, true
	}
	switch v := ev.(type) {
	case *a2a.Task:
		return v.ID, v.Status.State == a2a.TaskStateAuthRequired
	case *a2a.TaskStatusUpdateEvent:
		return v.TaskID, v.Status.State == a2a.TaskStateAuthRequired
	}
	return "", false
}

// endsExecution says whether ev ends an execution: a message, or a task or status in a terminal state
// or asking for input. Unlike tasks.IsFinal (what ends a stream of the log), asking for
// authentication does not: the agent goes on once the client has authenticated (a blocking send
// answers there, see interruptsBlockingSend), as in a2a-go.
func endsExecution(ev a2a.Event) bool {
	var state a2a.TaskState
	switch v := ev.(type) {
	case *a2a.Message:
		return true
	case *a2a.TaskStatusUpdateEvent:
		state = v.Status.State
	case *a2a.Task:
		state = v.Status.State
	default:
		return false
	}
	return state.Terminal() || state == a2a.TaskStateInputRequired
}

// start checks the request, prepares the task (a message to an existing task joins its history) and
// starts the agent on a goroutine of its own, detached from the request: the task goes on if the
// caller goes away.
func (x *executions) start(ctx context.Context, req *a2a.SendMessageRequest) (*execution, error) {
	switch {
	case req == nil:
		return nil, fmt.Errorf("message send params is required: %w", a2a.ErrInvalidParams)
	case req.Message == nil:
		return nil, fmt.Errorf("message is required: %w", a2a.ErrInvalidParams)
	case req.Message.ID == "":
		return nil, fmt.Errorf("message ID is required: %w", a2a.ErrInvalidParams)
	case len(req.Message.Parts) == 0:
		return nil, fmt.Errorf("message parts is required: %w", a2a.ErrInvalidParams)
	case req.Message.Role == "":
		return nil, fmt.Errorf("message role is required: %w", a2a.ErrInvalidParams)
	}
	id := req.Message.TaskID
	if id == "" {
		id = a2a.NewTaskID()
	}
	run := &execution{id: id, out: newEventQueue(), ended: make(chan struct{})}
	// The run is registered before it is set up, so a second message to the task is refused, and a
	// cancel that finds it waits (run.mu) until it has its task.
	run.mu.Lock()
	defer run.mu.Unlock()
	x.mu.Lock()
	_, busy := x.running[id]
	_, canceling := x.canceling[id]
	if !busy && !canceling {
		x.running[id] = run
	}
	x.mu.Unlock()
	switch {
	case busy:
		return nil, fmt.Errorf("create execution failure: %w: %w", errExecutionInProgress, a2a.ErrUnsupportedOperation)
	case canceling:
		return nil, fmt.Errorf("create execution failure: %w: %w", errCancelationInProgress, a2a.ErrUnsupportedOperation)
	}
	detached := context.WithoutCancel(ctx)
	execCtx, err := x.prepare(detached, id, req, &run.task)
	if err != nil {
		err = fmt.Errorf("executor setup failed: %w", err)
		x.finishLocked(run, nil, err)
		return nil, err
	}
	agentCtx, stop := context.WithCancelCause(detached)
	run.stop = stop
	go x.execute(agentCtx, run, execCtx)
	return run, nil
}

// prepare is what the agent is given: for a new task its ids; for an existing one the stored task,
// with the message added to its history (once: a retried message is already there). A push config
// in the request is saved for the task. state is set to the task as stored (nothing for a new task).
func (x *executions) prepare(ctx context.Context, id a2a.TaskID, req *a2a.SendMessageRequest, state *taskState) (*a2asrv.ExecutorContext, error) {
	msg := req.Message
	execCtx := &a2asrv.ExecutorContext{Message: msg, TaskID: id, ContextID: msg.ContextID, Metadata: req.Metadata}
	if msg.TaskID == "" {
		if execCtx.ContextID == "" {
			execCtx.ContextID = a2a.NewContextID()
		}
	} else {
		stored, err := x.store.Get(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("task loading failed: %w", err)
		}
		task := stored.Task
		if msg.ContextID != "" && msg.ContextID != task.ContextID {
			return nil, fmt.Errorf("message contextID different from task contextID: %w", a2a.ErrInvalidParams)
		}
		if task.Status.State.Terminal() {
			return nil, fmt.Errorf("task in a terminal state %q: %w", task.Status.State, a2a.ErrInvalidParams)
		}
		version := stored.Version
		if !slices.ContainsFunc(task.History, func(m *a2a.Message) bool { return m.ID == msg.ID }) {
			task.History = append(task.History, msg)
			if version, err = x.store.Update(ctx, &taskstore.UpdateRequest{Task: task, Event: msg, PrevVersion: version}); err != nil {
				return nil, fmt.Errorf("task message history update failed: %w", err)
			}
		}
		execCtx.StoredTask, execCtx.ContextID, execCtx.Tenant = task, task.ContextID, req.Tenant
		state.task, state.version = task, version
	}
	state.info = execCtx.TaskInfo()
	if callCtx, ok := a2asrv.CallContextFrom(ctx); ok {
		execCtx.User, execCtx.ServiceParams, execCtx.Tenant = callCtx.User, callCtx.ServiceParams(), callCtx.Tenant()
	}
	if req.Config != nil && req.Config.PushConfig != nil {
		if x.pushConfigs == nil {
			return nil, fmt.Errorf("message with push config received but push is not configured: %w", a2a.ErrPushNotificationNotSupported)
		}
		if _, err := x.pushConfigs.Save(ctx, id, req.Config.PushConfig); err != nil {
			return nil, fmt.Errorf("failed to save push config: %w", err)
		}
	}
	return execCtx, nil
}

// execute runs the agent and applies its events until one of them is final. An error from the agent,
// a panic, or the agent stopping before a final event is the execution's error, and fails the task.
func (x *executions) execute(ctx context.Context, run *execution, execCtx *a2asrv.ExecutorContext) {
	err := x.drive(func() iter.Seq2[a2a.Event, error] { return x.agent.Execute(ctx, execCtx) }, func(ev a2a.Event) bool {
		return x.handle(ctx, run, ev)
	})
	if err == nil {
		err = errEndedWithoutFinalState
	}
	run.mu.Lock()
	defer run.mu.Unlock()
	if run.over {
		return
	}
	if errors.Is(err, ErrWrittenElsewhere) {
		// Read from the table, once this run's own writes are decided: the task store's cache knows
		// this process's writes only.
		run.task.durable(ctx, x.store)
		row, rerr := x.store.Row(ctx, run.id)
		if rerr != nil {
			x.finishLocked(run, nil, fmt.Errorf("%w: %w", err, rerr))
			return
		}
		run.out.push(row.Task, nil)
		x.finishLocked(run, row.Task, nil)
		return
	}
	// The task does not stay working for ever, and the caller is told what went wrong as before: the
	// agent's error as it is (a panic is a bare internal error, its text stays in the server's log).
	if run.task.task != nil {
		if _, _, ferr := x.failedState(ctx, &run.task, nil, err); ferr != nil {
			x.log.Error("the task of a failed execution could not be marked failed", "task", run.id, "error", ferr)
		}
	}
	x.finishLocked(run, nil, err)
}

// drive ranges over the events seq makes, handing each to handle until it says stop. It returns the
// sequence's error, or the panic handler's for a panic; nil when handle stopped it or it ran out.
func (x *executions) drive(seq func() iter.Seq2[a2a.Event, error], handle func(a2a.Event) bool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = x.panicked(r)
		}
	}()
	for ev, err := range seq() {
		if err != nil {
			return err
		}
		if !handle(ev) {
			return nil
		}
	}
	return nil
}

// handle applies one event to the run's task and passes it on. It reports whether the event was
// taken: false once the run has ended. As with a2a-go, the event that ends the run (or fails it) is
// taken, and the agent's context is canceled: executors written for a2a-go, where a yield only
// queues the event, take a false yield for a failure (the inbox does).
func (x *executions) handle(ctx context.Context, run *execution, ev a2a.Event) bool {
	run.mu.Lock()
	defer run.mu.Unlock()
	if run.over {
		return false
	}
	emit, result, err := x.step(ctx, &run.task, ev)
	if err == nil && result != nil {
		// The run ends with this event: what its callers are answered must be stored first.
		if werr := run.task.durable(ctx, x.store); werr != nil {
			emit, result, err = x.writeFailed(ctx, &run.task, ev, werr)
		}
	}
	if err != nil {
		x.finishLocked(run, nil, err)
		return true
	}
	if result != nil {
		// Unregistered before its caller hears the last event: a message or a cancel the caller sends
		// as soon as it has the answer (input-required, say) must find the task free, not this run.
		x.unregister(run)
	}
	run.out.push(emit, run.task.pending)
	if result != nil {
		x.finishLocked(run, result, nil)
	}
	return true
}

// finishLocked records the run's result, stops the agent, lets a message to the task start a new run
// at once, and wakes whoever waits for it. run.mu is held.
func (x *executions) finishLocked(run *execution, result a2a.SendMessageResult, err error) {
	if run.over {
		return
	}
	// A run that ended with an error may still have writes queued: a message to the task that starts
	// the next run must find them stored (a run that ended with a result waited already).
	if run.task.pending != nil {
		run.task.durable(context.Background(), x.store)
	}
	run.over, run.result, run.err = true, result, err
	if run.stop != nil {
		run.stop(errors.New("execution ended"))
	}
	x.unregister(run)
	run.out.close()
	close(run.ended)
}

func (x *executions) unregister(run *execution) {
	x.mu.Lock()
	if x.running[run.id] == run {
		delete(x.running, run.id)
	}
	x.mu.Unlock()
}

// events is what the caller who started the run is sent: each event once applied, up to the one that
// ends the run. A run that ends without one (the agent failed) ends with its error.
func (run *execution) events(ctx context.Context) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		defer run.out.abandon()
		for {
			it, ok, err := run.out.pop(ctx)
			if err != nil {
				yield(nil, err)
				return
			}
			if !ok {
				break
			}
			// An event is sent once the writes up to it are stored. One that was not stored is not
			// sent: the run goes on from the task as stored (see writeFailed) and says how it ended.
			if err := it.stored.Wait(ctx); err != nil {
				if ctx.Err() != nil {
					yield(nil, err)
					return
				}
				continue
			}
			if !yield(it.ev, nil) || endsExecution(it.ev) {
				return
			}
		}
		// The queue closed before an event that ends the run: the run failed, and finishLocked set
		// its error before it closed the queue.
		if run.err != nil {
			yield(nil, run.err)
		}
	}
}

// step applies ev to the task and stores it. It returns the event to pass on (ev, or the task when ev
// could not be applied and the task failed instead) and, when the execution ends with it, the result.
func (x *executions) step(ctx context.Context, s *taskState, ev a2a.Event) (a2a.Event, a2a.SendMessageResult, error) {
	err := s.apply(ctx, x.store, ev)
	var earlier *tasks.EarlierWriteFailedError
	if errors.As(err, &earlier) {
		s.durable(ctx, x.store) // the task as stored again
		return x.writeFailed(ctx, s, ev, earlier.Err)
	}
	if err != nil {
		return x.failedState(ctx, s, ev, err)
	}
	if msg, ok := ev.(*a2a.Message); ok {
		return msg, msg, nil
	}
	if endsExecution(ev) {
		return ev, s.task, nil
	}
	return ev, nil, nil
}

// writeFailed is how a run goes on when a write it queued was not stored (s is the task as stored
// again, see durable). As in a2a-go: someone else wrote the task (a concurrent modification) ends the
// run with the task as they left it if that is final, and with an error otherwise; any other failure
// fails the task.
func (x *executions) writeFailed(ctx context.Context, s *taskState, ev a2a.Event, cause error) (a2a.Event, a2a.SendMessageResult, error) {
	if errors.Is(cause, taskstore.ErrConcurrentModification) {
		if s.task == nil || !s.task.Status.State.Terminal() {
			return nil, nil, fmt.Errorf("parallel active execution: %w", cause)
		}
		return s.task, s.task, nil
	}
	return x.failedState(ctx, s, ev, cause)
}

// failedState stores the task as failed, without saying why (the cause stays in the log, not with
// the client), and waits for it to be stored. Before there is a task there is nothing to fail: cause
// is the error.
func (x *executions) failedState(ctx context.Context, s *taskState, ev a2a.Event, cause error) (a2a.Event, a2a.SendMessageResult, error) {
	s.durable(ctx, x.store) // a queued write that failed leaves s as stored
	if s.task == nil {
		return nil, nil, fmt.Errorf("execution failed before a task was created: %w", cause)
	}
	failed := *s.task
	failed.Status = a2a.TaskStatus{State: a2a.TaskStateFailed}
	err := s.save(ctx, x.store, &failed, ev, s.version)
	if err == nil {
		err = s.durable(ctx, x.store)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("failed to store failed task state: %w: %w", err, cause)
	}
	x.log.Warn("task moved to failed state", "task", s.info.TaskID, "cause", cause)
	return s.task, s.task, nil
}

// CancelTask asks the agent to cancel the task. While the task runs, the agent's cancel events are
// applied to that run and the answer is how the run ends; otherwise they are applied on their own. A
// cancel already under way for the task is waited for. Anything but a canceled task is
// TaskNotCancelable.
func (x *executions) CancelTask(ctx context.Context, req *a2a.CancelTaskRequest) (*a2a.Task, error) {
	if req == nil || req.ID == "" {
		return nil, a2a.ErrInvalidParams
	}
	x.mu.Lock()
	c, waiting := x.canceling[req.ID]
	run := x.running[req.ID]
	if !waiting {
		c = &cancelation{ended: make(chan struct{})}
		x.canceling[req.ID] = c
	}
	x.mu.Unlock()
	if !waiting {
		go func() {
			c.result, c.err = x.cancel(context.WithoutCancel(ctx), req, run)
			x.mu.Lock()
			delete(x.canceling, req.ID)
			x.mu.Unlock()
			close(c.ended)
		}()
	}
	select {
	case <-ctx.Done():
		return nil, fmt.Errorf("failed to cancel: %w", ctx.Err())
	case <-c.ended:
	}
	if c.err != nil {
		return nil, fmt.Errorf("failed to cancel: cancelation failed: %w", c.err)
	}
	task, ok := c.result.(*a2a.Task)
	if !ok {
		return nil, fmt.Errorf("failed to cancel: the execution ended with a message: %w", a2a.ErrTaskNotCancelable)
	}
	if task.Status.State != a2a.TaskStateCanceled {
		return nil, fmt.Errorf("failed to cancel: task was in non-cancelable state: %q: %w", task.Status.State, a2a.ErrTaskNotCancelable)
	}
	return task, nil
}

// cancel runs the agent's Cancel for the task, into run when the task is running.
func (x *executions) cancel(ctx context.Context, req *a2a.CancelTaskRequest, run *execution) (result a2a.SendMessageResult, err error) {
	stored, err := x.store.Get(ctx, req.ID)
	if err != nil {
		return nil, fmt.Errorf("canceler setup failed: failed to load a task: %w", err)
	}
	task := stored.Task
	if task.Status.State.Terminal() && task.Status.State != a2a.TaskStateCanceled {
		return nil, fmt.Errorf("canceler setup failed: task in non-cancelable state %s: %w", task.Status.State, a2a.ErrTaskNotCancelable)
	}
	if task.Status.State == a2a.TaskStateCanceled {
		return task, nil
	}
	execCtx := &a2asrv.ExecutorContext{TaskID: task.ID, StoredTask: task, ContextID: task.ContextID, Metadata: req.Metadata}
	if callCtx, ok := a2asrv.CallContextFrom(ctx); ok {
		execCtx.User, execCtx.ServiceParams, execCtx.Tenant = callCtx.User, callCtx.ServiceParams(), callCtx.Tenant()
	}
	if run != nil {
		taken := false
		err := x.drive(func() iter.Seq2[a2a.Event, error] { return x.agent.Cancel(ctx, execCtx) }, func(ev a2a.Event) bool {
			ok := x.handle(ctx, run, ev)
			taken = taken || ok
			return ok
		})
		if err != nil {
			return nil, err
		}
		select {
		case <-run.ended:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if taken {
			return run.result, run.err
		}
		// The run ended on its own before the cancel reached it (its last event, input-required say,
		// was answered to its caller a moment before it unregistered): cancel the task as it is
		// stored now, as when nothing runs.
		if stored, err = x.store.Get(ctx, req.ID); err != nil {
			return nil, fmt.Errorf("canceler setup failed: failed to load a task: %w", err)
		}
		task = stored.Task
		if task.Status.State.Terminal() {
			return task, nil // CancelTask says whether it is canceled
		}
		execCtx.StoredTask = task
	}
	own := &execution{id: task.ID, out: newEventQueue(), ended: make(chan struct{})}
	own.out.abandon() // nobody reads a lone cancel's events; the log has them
	own.task = taskState{info: execCtx.TaskInfo(), task: task, version: stored.Version}
	err = x.drive(func() iter.Seq2[a2a.Event, error] { return x.agent.Cancel(ctx, execCtx) }, func(ev a2a.Event) bool {
		return x.handle(ctx, own, ev)
	})
	own.mu.Lock()
	defer own.mu.Unlock()
	if own.over {
		return own.result, own.err
	}
	if err == nil {
		err = errEndedWithoutFinalState
	}
	return nil, err
}

// taskState is an execution's task as last written. A task value is never changed once written: the
// next event makes a new one that shares what did not change. The writes are queued one after the
// other without waiting (pending is the last one not known to be stored yet): the agent goes on to
// its next event while its last ones commit, and those of an agent that yields several at once
// share a commit.
type taskState struct {
	info    a2a.TaskInfo
	task    *a2a.Task
	version taskstore.TaskVersion
	pending *tasks.Pending
}

// durable waits until the writes queued so far are stored. If one was not, the writes after it were
// refused: the task is read back as stored, and the error says why. It waits whatever ctx says: a
// queued write is always decided, and the run must know how.
func (s *taskState) durable(ctx context.Context, store *tasks.Store) error {
	p := s.pending
	s.pending = nil
	ctx = context.WithoutCancel(ctx)
	err := p.Wait(ctx)
	if err == nil {
		return nil
	}
	stored, gerr := store.Get(ctx, s.info.TaskID)
	if gerr != nil {
		return fmt.Errorf("%w (and the task could not be read back: %v)", err, gerr)
	}
	s.task, s.version = stored.Task, stored.Version
	return err
}

const maxCancelationAttempts = 10

// apply stores the task ev leads to. ev must belong to the execution's task; the first event is the
// task itself (or a message, which stores nothing); a task that ended takes no more events.
func (s *taskState) apply(ctx context.Context, store *tasks.Store, ev a2a.Event) error {
	if _, ok := ev.(*a2a.Message); ok {
		if s.task != nil {
			return fmt.Errorf("message not allowed after task was stored: %w", a2a.ErrInvalidAgentResponse)
		}
		return nil
	}
	if s.task != nil && s.task.Status.State.Terminal() {
		if t, ok := ev.(*a2a.Task); ok && t == s.task {
			return nil // the final task handed back: nothing changes
		}
		return fmt.Errorf("%q task state updates are not allowed: %w", s.task.Status.State, a2a.ErrInvalidAgentResponse)
	}
	if t, ok := ev.(*a2a.Task); ok {
		if err := s.check(t); err != nil {
			return err
		}
		return s.save(ctx, store, t, ev, s.version)
	}
	if s.task == nil {
		return fmt.Errorf("first event must be a Task or a message: %w", a2a.ErrInvalidAgentResponse)
	}
	switch v := ev.(type) {
	case *a2a.TaskArtifactUpdateEvent:
		if err := s.check(v); err != nil {
			return err
		}
		if len(v.Artifact.Parts) == 0 {
			return fmt.Errorf("artifact cannot be empty: %w", a2a.ErrInvalidAgentResponse)
		}
		next, err := tasks.WithArtifact(s.task, v)
		if err != nil {
			return err
		}
		return s.save(ctx, store, next, ev, s.version)
	case *a2a.TaskStatusUpdateEvent:
		if err := s.check(v); err != nil {
			return err
		}
		return s.applyStatus(ctx, store, v)
	default:
		return fmt.Errorf("unexpected event type %T", v)
	}
}

// applyStatus stores the new status. A cancel that lost a race with another writer of the task
// (the version moved on) is tried again on the task as it now stands, unless the task has ended.
func (s *taskState) applyStatus(ctx context.Context, store *tasks.Store, ev *a2a.TaskStatusUpdateEvent) error {
	base, version := s.task, s.version
	for range maxCancelationAttempts {
		err := s.save(ctx, store, tasks.WithStatus(base, ev), ev, version)
		if err == nil && ev.Status.State == a2a.TaskStateCanceled {
			// A cancel that lost to another writer is tried again at once: it needs its result now.
			err = s.durable(ctx, store)
		}
		if err == nil {
			return nil
		}
		if !errors.Is(err, taskstore.ErrConcurrentModification) || ev.Status.State != a2a.TaskStateCanceled {
			return err
		}
		stored, err := store.Get(ctx, ev.TaskID)
		if err != nil {
			return fmt.Errorf("failed to get task: %w", err)
		}
		if stored.Task.Status.State == a2a.TaskStateCanceled {
			s.task, s.version = stored.Task, stored.Version
			return nil
		}
		if stored.Task.Status.State.Terminal() {
			return fmt.Errorf("task moved to %q before it could be cancelled: %w", stored.Task.Status.State, taskstore.ErrConcurrentModification)
		}
		base, version = stored.Task, stored.Version
	}
	return fmt.Errorf("max task cancelation attempts reached")
}

// save queues the write of task as the version after prev (a new task when there is none yet) and
// makes it the state.
func (s *taskState) save(ctx context.Context, store *tasks.Store, task *a2a.Task, ev a2a.Event, prev taskstore.TaskVersion) error {
	var version taskstore.TaskVersion = 1
	var p *tasks.Pending
	var err error
	if s.task == nil {
		p, err = store.CreateQueued(ctx, task)
	} else {
		version, p, err = store.UpdateQueued(ctx, &taskstore.UpdateRequest{Task: task, Event: ev, PrevVersion: prev}, s.pending)
	}
	if err != nil {
		return fmt.Errorf("failed to save task state: %w", err)
	}
	s.task, s.version, s.pending = task, version, p
	return nil
}

func (s *taskState) check(p a2a.TaskInfoProvider) error {
	info := p.TaskInfo()
	if s.info.TaskID != info.TaskID {
		return fmt.Errorf("task IDs don't match: %s != %s", info.TaskID, s.info.TaskID)
	}
	if s.info.ContextID != info.ContextID {
		return fmt.Errorf("context IDs don't match: %s != %s", info.ContextID, s.info.ContextID)
	}
	return nil
}

// eventQueue hands a run's events to the caller who started it. It never blocks the run: events
// wait in a slice until taken, and once the caller has gone (abandon) they are dropped.
type eventQueue struct {
	mu        sync.Mutex
	items     []queued
	closed    bool
	abandoned bool
	ready     chan struct{} // has a token while items or closed changed since the last pop looked
}

// queued is an event waiting to be sent, and the last write before it (nil: stored already).
type queued struct {
	ev     a2a.Event
	stored *tasks.Pending
}

func newEventQueue() *eventQueue { return &eventQueue{ready: make(chan struct{}, 1)} }

func (q *eventQueue) push(ev a2a.Event, stored *tasks.Pending) {
	q.mu.Lock()
	if !q.abandoned && !q.closed {
		q.items = append(q.items, queued{ev, stored})
	}
	q.mu.Unlock()
	q.wake()
}

func (q *eventQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.wake()
}

func (q *eventQueue) abandon() {
	q.mu.Lock()
	q.abandoned, q.items = true, nil
	q.mu.Unlock()
}

func (q *eventQueue) wake() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// pop takes the next event; ok is false once the queue is closed and empty.
func (q *eventQueue) pop(ctx context.Context) (it queued, ok bool, err error) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			it, q.items[0] = q.items[0], queued{}
			q.items = q.items[1:]
			q.mu.Unlock()
			return it, true, nil
		}
		closed := q.closed
		q.mu.Unlock()
		if closed {
			return queued{}, false, nil
		}
		select {
		case <-q.ready:
		case <-ctx.Done():
			return queued{}, false, ctx.Err()
		}
	}
}
