package uiapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agenthub/agenthub/backend/agents"
	"github.com/agenthub/agenthub/backend/scenario"
)

// The Scenarios page: scenarios saved in the hub (a file each, as `agenthub scenario run` reads
// them), made from a conversation or written by hand, run against any agent through the hub's own
// client (its saved credentials, its wire log), each run stored with its result so two can be
// compared.

// scenarioRunsShown is how many of a scenario's runs scenarios.get returns.
const scenarioRunsShown = 50

// ScenarioSummary is a saved scenario in the list, with its last run.
type ScenarioSummary struct {
	scenario.Saved
	LastRun *RunSummary `json:"lastRun,omitempty"`
}

// RunSummary is a run without its steps.
type RunSummary struct {
	ID        string `json:"id"`
	Agent     string `json:"agent"`
	StartedAt string `json:"startedAt"`
	Status    string `json:"status"`
	Steps     int    `json:"steps"`
	Failed    int    `json:"failed"`
	Binding   string `json:"binding,omitempty"`
	Dialect   string `json:"dialect,omitempty"`
}

func runSummary(r scenario.StoredRun) RunSummary {
	s := RunSummary{ID: r.ID, Agent: r.Agent, StartedAt: timeString(r.StartedAt), Status: r.Status}
	if r.Result != nil {
		s.Steps, s.Binding, s.Dialect = len(r.Result.Steps), r.Result.Binding, r.Result.Dialect
		for _, st := range r.Result.Steps {
			if !st.Passed {
				s.Failed++
			}
		}
	}
	return s
}

// scenarioCall dispatches the scenarios.* methods; ok is false for any other method.
func (g *Gateway) scenarioCall(ctx context.Context, method string, params json.RawMessage) (result any, err error, ok bool) {
	if !strings.HasPrefix(method, "scenarios.") {
		return nil, nil, false
	}
	st := g.cfg.Scenarios
	if st == nil {
		return nil, &Error{Code: CodeUnavailable, Message: "this hub keeps no scenarios"}, true
	}
	switch method {
	case "scenarios.list":
		result, err = g.scenariosList(ctx)
	case "scenarios.get":
		var p struct{ ID string }
		if err = decode(params, &p); err == nil {
			result, err = g.scenarioDetail(ctx, p.ID)
		}
	case "scenarios.save":
		var p struct{ ID, Source string }
		if err = decode(params, &p); err == nil {
			var sv scenario.Saved
			if sv, err = st.Save(ctx, p.ID, p.Source); err == nil {
				result = sv
			}
		}
	case "scenarios.delete":
		var p struct{ ID string }
		if err = decode(params, &p); err == nil {
			err = st.Delete(ctx, p.ID)
			result = struct{}{}
		}
	case "scenarios.fromConversation":
		var p struct{ ConversationID string }
		if err = decode(params, &p); err == nil {
			result, err = g.scenarioFromConversation(ctx, p.ConversationID)
		}
	case "scenarios.run":
		var p struct{ ID, Agent string }
		if err = decode(params, &p); err == nil {
			result, err = g.scenarioRun(ctx, p.ID, p.Agent)
		}
	case "scenarios.getRun":
		var p struct{ ID string }
		if err = decode(params, &p); err == nil {
			result, err = st.GetRun(ctx, p.ID)
		}
	default:
		return nil, &Error{Code: CodeUnknownMethod, Message: fmt.Sprintf("unknown method %q", method)}, true
	}
	var bad *scenario.Error
	if errors.As(err, &bad) { // the file does not parse: where and why, for the editor
		return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("line %d: %s", bad.Line, bad.Reason)}, true
	}
	if errors.Is(err, scenario.ErrNotFound) {
		return nil, &Error{Code: CodeNotFound, Message: err.Error()}, true
	}
	return result, err, true
}

func (g *Gateway) scenariosList(ctx context.Context) (any, error) {
	list, err := g.cfg.Scenarios.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ScenarioSummary, 0, len(list))
	for _, sv := range list {
		sum := ScenarioSummary{Saved: sv}
		if runs, err := g.cfg.Scenarios.Runs(ctx, sv.ID, 1); err == nil && len(runs) == 1 {
			r := runSummary(runs[0])
			sum.LastRun = &r
		}
		out = append(out, sum)
	}
	return map[string]any{"scenarios": out}, nil
}

func (g *Gateway) scenarioDetail(ctx context.Context, id string) (any, error) {
	sv, err := g.cfg.Scenarios.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	runs, err := g.cfg.Scenarios.Runs(ctx, id, scenarioRunsShown)
	if err != nil {
		return nil, err
	}
	sums := make([]RunSummary, 0, len(runs))
	for _, r := range runs {
		sums = append(sums, runSummary(r))
	}
	return map[string]any{"scenario": sv, "runs": sums}, nil
}

// scenarioFromConversation records a conversation as a scenario file and saves it: its messages as
// steps, each expecting what the agent answered then (suggestions the owner edits).
func (g *Gateway) scenarioFromConversation(ctx context.Context, convID string) (any, error) {
	conv, entries, err := g.cfg.Chats.Get(ctx, convID)
	if err != nil {
		return nil, err
	}
	src, err := scenario.Record(conv, entries, conv.AgentID)
	if err != nil {
		return nil, invalid("%s", err.Error())
	}
	return g.cfg.Scenarios.Save(ctx, "", string(src))
}

// scenarioRun starts a run of the saved scenario against agent (its own agent when ""), and returns
// it running; its steps are stored (and pushed on the scenarios topic) as each ends.
func (g *Gateway) scenarioRun(ctx context.Context, id, agent string) (any, error) {
	sv, err := g.cfg.Scenarios.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	parsed, err := scenario.Parse("scenario.yaml", []byte(sv.Source))
	if err != nil {
		return nil, err
	}
	if agent == "" {
		agent = parsed.Agent
	}
	if agent == "" {
		return nil, invalid("the scenario names no agent: pick one to run it against")
	}
	run, err := g.cfg.Scenarios.StartRun(ctx, sv, agent)
	if err != nil {
		return nil, err
	}
	g.runs.Add(1)
	go func() {
		defer g.runs.Done()
		opt := scenario.Options{Agent: agent, Connect: g.scenarioConnect,
			OnStep: func(res *scenario.Result) {
				if err := g.cfg.Scenarios.UpdateRun(context.WithoutCancel(g.ctx), sv.ID, run.ID, res, false); err != nil {
					g.cfg.Logger.Warn("recording a scenario step", "run", run.ID, "err", err)
				}
			}}
		res := scenario.Run(g.ctx, parsed, opt)
		res.File, res.Name = "", sv.Name
		if err := g.cfg.Scenarios.UpdateRun(context.WithoutCancel(g.ctx), sv.ID, run.ID, res, true); err != nil {
			g.cfg.Logger.Warn("recording a scenario run", "run", run.ID, "err", err)
		}
	}()
	return run, nil
}

// scenarioConnect reaches a scenario's agent the way the hub reaches it: an added (or this hub's
// own) agent through its saved credentials and the wire log, a URL as `agenthub scenario run` does.
func (g *Gateway) scenarioConnect(ctx context.Context, agent string, force scenario.Force, key string) (*agents.Conn, error) {
	if strings.Contains(agent, "://") {
		return scenario.ConnectURL(ctx, agent, force, key)
	}
	b := agents.Automatic
	if force.Binding != "" {
		b, _ = agents.ParseBinding(force.Binding)
	}
	return g.cfg.Clients.DialOnly(ctx, agent, agents.Dialect(force.Dialect), b)
}
