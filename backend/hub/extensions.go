package hub

import (
	"context"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/channels"
	"github.com/agenthub/agenthub/backend/demoagent"
	"github.com/agenthub/agenthub/backend/inbox"
	"github.com/agenthub/agenthub/backend/knowledge"
	"github.com/agenthub/agenthub/backend/server"
)

// openExtensions opens the extensions the hub serves on its JSON-RPC endpoint, over its database,
// and keeps each one on h for the UI gateway. Each extension package owns its tables and its
// rules; this is only where they are plugged in.
func (h *Hub) openExtensions(ctx context.Context, env ExtensionEnv) ([]server.Extension, error) {
	var exts []server.Extension
	ch, err := channels.Open(ctx, env.DB, env.Bus, env.Source, env.Logger)
	if err != nil {
		return nil, err
	}
	h.Channels = ch
	exts = append(exts, ch)
	kg, err := knowledge.Open(ctx, knowledge.Options{DB: env.DB, Bus: env.Bus, Source: env.Source,
		Dir: env.Dir, Logger: env.Logger, Seed: sampleGraph()})
	if err != nil {
		return nil, err
	}
	h.Knowledge = kg
	exts = append(exts, kg)
	return exts, nil
}

// extensionMethods is every method of exts by name: what the UI gateway's ext.call and ext.stream
// run on this hub.
func extensionMethods(exts []server.Extension) map[string]server.ExtensionMethod {
	out := map[string]server.ExtensionMethod{}
	for _, e := range exts {
		for name, m := range e.Methods() {
			out[name] = m
		}
	}
	return out
}

// sampleGraph is what a new hub's knowledge graph starts with: the hub, the demo agent and their
// skills, so the first query has something to show.
func sampleGraph() []knowledge.Statement {
	var out []knowledge.Statement
	add := func(s, p string, o knowledge.Object) {
		out = append(out, knowledge.Statement{Subject: knowledge.Subject{ID: s}, Predicate: knowledge.Predicate{ID: p}, Object: o})
	}
	agent := func(id, name string, skills []a2a.AgentSkill) {
		add(id, knowledge.RDFType, knowledge.Object{ID: "a2a:Agent"})
		add(id, knowledge.RDFSLabel, knowledge.Object{Value: name})
		for _, sk := range skills {
			sid := "agenthub:skill/" + sk.ID
			add(id, "a2a:hasSkill", knowledge.Object{ID: sid})
			add(sid, knowledge.RDFType, knowledge.Object{ID: "a2a:Skill"})
			add(sid, knowledge.RDFSLabel, knowledge.Object{Value: sk.Name})
			if sk.Description != "" {
				add(sid, "schema:description", knowledge.Object{Value: sk.Description})
			}
		}
	}
	agent("agenthub:hub", "AgentHub", []a2a.AgentSkill{inbox.Skill, knowledge.Skill})
	agent("agenthub:agent/demo", "Demo agent", demoagent.Skills)
	add("agenthub:hub", "agenthub:hosts", knowledge.Object{ID: "agenthub:agent/demo"})
	return out
}
