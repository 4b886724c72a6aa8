package secrets

import "sync"

// Pinned returns st with the credential of one agent's scheme kept in this process's memory instead:
// the hub's key for calling itself, which is new at every start and differs per replica. Kept in a
// shared store (the database of a team hub's replicas) the last replica to start would overwrite the
// others', and their calls to themselves would be refused.
func Pinned(st Store, agentID, scheme string, s Secret) Store {
	return &pinned{Store: st, agentID: agentID, scheme: scheme, secret: s}
}

type pinned struct {
	Store
	agentID, scheme string

	mu     sync.Mutex
	secret Secret
}

func (p *pinned) is(agentID, scheme string) bool { return agentID == p.agentID && scheme == p.scheme }

func (p *pinned) Get(agentID, scheme string) (Secret, bool, error) {
	if !p.is(agentID, scheme) {
		return p.Store.Get(agentID, scheme)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.secret, !p.secret.IsZero(), nil
}

func (p *pinned) Put(agentID, scheme string, s Secret) error {
	if !p.is(agentID, scheme) {
		return p.Store.Put(agentID, scheme, s)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.secret = s
	return nil
}

func (p *pinned) Delete(agentID, scheme string) error {
	return p.Put(agentID, scheme, Secret{})
}

func (p *pinned) DeleteAgent(agentID string) error {
	if agentID == p.agentID {
		p.Put(p.agentID, p.scheme, Secret{})
	}
	return p.Store.DeleteAgent(agentID)
}
