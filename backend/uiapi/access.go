package uiapi

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/agenthub/agenthub/backend/auth"
)

// AccessKey is a principal as Settings → Access lists it: never its key, only the key's first
// characters, so the owner can tell keys apart.
type AccessKey struct {
	ID         string `json:"id"` // agent://NAME
	Name       string `json:"name"`
	KeyPrefix  string `json:"keyPrefix"`
	CreatedAt  string `json:"createdAt"` // when its current key was issued
	LastUsedAt string `json:"lastUsedAt,omitempty"`
}

func accessKeyOf(i auth.Info) AccessKey {
	k := AccessKey{ID: i.ID, Name: i.Name, KeyPrefix: i.KeyPrefix, CreatedAt: timeString(i.CreatedAt)}
	if !i.LastUsedAt.IsZero() { // absent: never used
		k.LastUsedAt = timeString(i.LastUsedAt)
	}
	return k
}

// accessCall dispatches the access.* methods; ok is false for any other method.
func (g *Gateway) accessCall(ctx context.Context, method string, params json.RawMessage) (result any, err error, ok bool) {
	switch method {
	case "access.list", "access.add", "access.rotate", "access.remove", "access.policy", "access.setPolicy":
	default:
		return nil, nil, false
	}
	if g.cfg.Auth == nil {
		return nil, &Error{Code: CodeNotFound, Message: "this hub has no access settings"}, true
	}
	result, err = g.access(ctx, method, params)
	return result, accessError(err), true
}

func (g *Gateway) access(ctx context.Context, method string, params json.RawMessage) (any, error) {
	ps := g.cfg.Auth.Principals
	switch method {
	case "access.list":
		if err := decode(params, &struct{}{}); err != nil {
			return nil, err
		}
		list, err := ps.List(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]AccessKey, len(list))
		for i, p := range list {
			out[i] = accessKeyOf(p)
		}
		return map[string]any{"principals": out}, nil
	case "access.add", "access.rotate":
		var p struct{ Name string }
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		issue := ps.Add
		if method == "access.rotate" {
			issue = ps.Rotate
		}
		info, key, err := issue(ctx, p.Name)
		if err != nil {
			return nil, err
		}
		// The only time the key crosses the gateway: it is not stored, so it cannot be shown again.
		return map[string]any{"principal": accessKeyOf(info), "key": key}, nil
	case "access.remove":
		var p struct{ Name string }
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		return map[string]any{}, ps.Remove(ctx, p.Name)
	case "access.policy":
		if err := decode(params, &struct{}{}); err != nil {
			return nil, err
		}
		return map[string]any{"anonymous": g.cfg.Auth.AnonymousPolicy()}, nil
	case "access.setPolicy":
		var p struct{ Anonymous string }
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		if err := g.cfg.Auth.SetAnonymousPolicy(ctx, auth.AnonymousPolicy(p.Anonymous)); err != nil {
			return nil, err
		}
		return map[string]any{"anonymous": g.cfg.Auth.AnonymousPolicy()}, nil
	}
	return nil, nil
}

// accessError says an auth error in the gateway's codes; anything else is left to errorOf.
func accessError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, auth.ErrBadName), errors.Is(err, auth.ErrBadPolicy):
		return &Error{Code: CodeInvalidParams, Message: err.Error()}
	case errors.Is(err, auth.ErrExists):
		return &Error{Code: CodeConflict, Message: err.Error()}
	case errors.Is(err, auth.ErrNotFound):
		return &Error{Code: CodeNotFound, Message: err.Error()}
	}
	return err
}
