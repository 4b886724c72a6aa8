package agents

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
)

// Problem is one thing wrong with a card, at a JSON path such as "skills[0].id".
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// CardReport is what a card says about the protocol versions it speaks, and what is wrong with it.
type CardReport struct {
	Versions []string  // "1.0", "0.3", "0.1": the dialects the card is shaped for, newest first
	Problems []Problem // empty for a valid card; a card with problems may still be usable
}

// CheckCard validates an agent card document against every version it claims: v1.0 (it has
// supportedInterfaces), v0.3 (it has protocolVersion) or, failing both, the v0.1 draft. It never
// refuses a card: it lists what is wrong, so a person can judge.
func CheckCard(doc []byte) CardReport {
	var card map[string]any
	if err := json.Unmarshal(doc, &card); err != nil {
		return CardReport{Problems: []Problem{{Path: "", Message: "is not a JSON object: " + err.Error()}}}
	}
	c := checker{}
	_, v1 := card["supportedInterfaces"]
	_, v03 := card["protocolVersion"]
	var versions []string
	if v1 {
		versions = append(versions, "1.0")
		c.v1(card)
	}
	if v03 {
		versions = append(versions, "0.3")
		c.v03(card)
	}
	if !v1 && !v03 {
		versions = append(versions, "0.1")
	}
	c.common(card, !v1 && !v03)
	return CardReport{Versions: versions, Problems: c.problems}
}

type checker struct{ problems []Problem }

func (c *checker) add(path, format string, args ...any) {
	p := Problem{Path: path, Message: fmt.Sprintf(format, args...)}
	if !slices.Contains(c.problems, p) {
		c.problems = append(c.problems, p)
	}
}

// requireString reports a missing, empty or non-string field.
func (c *checker) requireString(obj map[string]any, path, key string) (string, bool) {
	v, ok := obj[key]
	if !ok || v == nil {
		c.add(join(path, key), "is required")
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		c.add(join(path, key), "must be a string")
		return "", false
	}
	if s == "" {
		c.add(join(path, key), "must not be empty")
		return "", false
	}
	return s, true
}

func (c *checker) requireURL(obj map[string]any, path, key string) {
	if s, ok := c.requireString(obj, path, key); ok {
		c.checkURL(join(path, key), s)
	}
}

func (c *checker) optionalURL(obj map[string]any, path, key string) {
	if v, ok := obj[key]; ok && v != nil {
		s, isString := v.(string)
		if !isString {
			c.add(join(path, key), "must be a string")
			return
		}
		c.checkURL(join(path, key), s)
	}
}

func (c *checker) checkURL(path, s string) {
	u, err := url.Parse(s)
	if err != nil || !u.IsAbs() || u.Host == "" {
		c.add(path, "must be an absolute URL, got %q", s)
		return
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		c.add(path, "must be an http or https URL, got %q", s)
	}
}

func (c *checker) requireStrings(obj map[string]any, path, key string, nonEmpty bool) {
	v, ok := obj[key]
	if !ok || v == nil {
		c.add(join(path, key), "is required")
		return
	}
	list, ok := v.([]any)
	if !ok {
		c.add(join(path, key), "must be a list of strings")
		return
	}
	if nonEmpty && len(list) == 0 {
		c.add(join(path, key), "must not be empty")
	}
	for i, item := range list {
		if _, ok := item.(string); !ok {
			c.add(fmt.Sprintf("%s[%d]", join(path, key), i), "must be a string")
		}
	}
}

func (c *checker) objects(obj map[string]any, path, key string, required bool) []map[string]any {
	v, ok := obj[key]
	if !ok || v == nil {
		if required {
			c.add(join(path, key), "is required")
		}
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		c.add(join(path, key), "must be a list")
		return nil
	}
	out := make([]map[string]any, len(list))
	for i, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			c.add(fmt.Sprintf("%s[%d]", join(path, key), i), "must be an object")
			m = map[string]any{}
		}
		out[i] = m
	}
	return out
}

func (c *checker) object(obj map[string]any, path, key string, required bool) map[string]any {
	v, ok := obj[key]
	if !ok || v == nil {
		if required {
			c.add(join(path, key), "is required")
		}
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		c.add(join(path, key), "must be an object")
	}
	return m
}

// common holds the rules every version shares: identity, capabilities, skills, links, schemes.
func (c *checker) common(card map[string]any, draft bool) {
	c.requireString(card, "", "name")
	c.requireString(card, "", "version")
	if !draft {
		c.requireString(card, "", "description")
		c.requireStrings(card, "", "defaultInputModes", true)
		c.requireStrings(card, "", "defaultOutputModes", true)
	} else {
		c.requireURL(card, "", "url")
	}
	c.object(card, "", "capabilities", true)
	skills := c.objects(card, "", "skills", true)
	if _, ok := card["skills"]; ok && len(skills) == 0 {
		c.add("skills", "lists no skills: the card does not say what the agent can do")
	}
	for i, s := range skills {
		p := fmt.Sprintf("skills[%d]", i)
		c.requireString(s, p, "id")
		c.requireString(s, p, "name")
		if !draft {
			c.requireString(s, p, "description")
			c.requireStrings(s, p, "tags", false)
		}
	}
	c.optionalURL(card, "", "documentationUrl")
	c.optionalURL(card, "", "iconUrl")
	if prov := c.object(card, "", "provider", false); prov != nil {
		c.requireString(prov, "provider", "organization")
		c.requireURL(prov, "provider", "url")
	}
	if schemes := c.object(card, "", "securitySchemes", false); schemes != nil {
		for _, name := range slices.Sorted(maps.Keys(schemes)) {
			c.securityScheme(join("securitySchemes", name), schemes[name])
		}
	}
}

// securityScheme checks the URLs a client would follow; the scheme's shape differs between versions
// (v1.0 wraps it in a oneof key, v0.3 has a "type"), so both are read.
func (c *checker) securityScheme(path string, v any) {
	m, ok := v.(map[string]any)
	if !ok {
		c.add(path, "must be an object")
		return
	}
	var walk func(p string, x any)
	walk = func(p string, x any) {
		switch t := x.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(t)) {
				val := t[k]
				switch k {
				case "tokenUrl", "authorizationUrl", "refreshUrl", "openIdConnectUrl", "oauth2MetadataUrl":
					if s, ok := val.(string); ok && s != "" {
						c.checkURL(join(p, k), s)
					}
				default:
					walk(join(p, k), val)
				}
			}
		}
	}
	walk(path, m)
}

// v1 checks the v1.0 fields: the interfaces a client picks from.
func (c *checker) v1(card map[string]any) {
	ifaces := c.objects(card, "", "supportedInterfaces", true)
	if _, ok := card["supportedInterfaces"]; ok && len(ifaces) == 0 {
		c.add("supportedInterfaces", "must not be empty")
	}
	for i, it := range ifaces {
		p := fmt.Sprintf("supportedInterfaces[%d]", i)
		c.requireURL(it, p, "url")
		if b, ok := c.requireString(it, p, "protocolBinding"); ok && !slices.Contains([]string{"JSONRPC", "GRPC", "HTTP+JSON"}, b) {
			c.add(join(p, "protocolBinding"), "is %q; known bindings are JSONRPC, GRPC and HTTP+JSON", b)
		}
		c.requireString(it, p, "protocolVersion")
	}
}

// v03 checks the v0.3 fields: the main URL and its transport, and any additional interfaces.
func (c *checker) v03(card map[string]any) {
	c.requireURL(card, "", "url")
	c.requireString(card, "", "protocolVersion")
	if t, ok := card["preferredTransport"].(string); ok && !slices.Contains([]string{"JSONRPC", "GRPC", "HTTP+JSON"}, t) {
		c.add("preferredTransport", "is %q; known transports are JSONRPC, GRPC and HTTP+JSON", t)
	}
	for i, it := range c.objects(card, "", "additionalInterfaces", false) {
		p := fmt.Sprintf("additionalInterfaces[%d]", i)
		c.requireURL(it, p, "url")
		c.requireString(it, p, "transport")
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
