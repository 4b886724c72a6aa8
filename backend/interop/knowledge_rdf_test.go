package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rdfDataset is a bit of everything RDF has: well-known and other IRIs, a type and a label, plain,
// typed and language-tagged literals ("chat"@fr and "chat"@en beside "chat"), lexical forms a
// number would lose ("042", "1.50"), escapes and non-ASCII text, blank nodes (linked, and in a
// chain), and named graphs, one of them a blank node. Its double is in XSD's canonical form, as
// jsonld.js rewrites every xsd:double it reads from JSON-LD to that form.
const rdfDataset = `<http://example.org/acme> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://schema.org/Organization> .
<http://example.org/acme> <http://www.w3.org/2000/01/rdf-schema#label> "Acme Widgets" .
<http://example.org/acme> <https://schema.org/name> "Acme" .
<http://example.org/cat> <http://www.w3.org/2000/01/rdf-schema#label> "chat"@fr .
<http://example.org/cat> <http://www.w3.org/2000/01/rdf-schema#label> "chat"@en .
<http://example.org/cat> <http://www.w3.org/2000/01/rdf-schema#label> "chat" .
<http://example.org/cat> <http://www.w3.org/2004/02/skos/core#altLabel> "Katze"@de-CH .
<http://example.org/acme> <http://example.org/employees> "042"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://example.org/acme> <http://example.org/rating> "1.50"^^<http://www.w3.org/2001/XMLSchema#decimal> .
<http://example.org/acme> <http://example.org/ratio> "2.5E-1"^^<http://www.w3.org/2001/XMLSchema#double> .
<http://example.org/acme> <http://example.org/listed> "true"^^<http://www.w3.org/2001/XMLSchema#boolean> .
<http://example.org/acme> <http://purl.org/dc/terms/created> "1999-01-01"^^<http://www.w3.org/2001/XMLSchema#date> .
<http://example.org/acme> <http://example.org/code> "AC-1"^^<http://example.org/types#code> .
<http://example.org/acme> <http://example.org/motto> "Zoë says \"hi\"\nand\tleaves \\ now" .
<http://example.org/acme> <http://xmlns.com/foaf/0.1/based_near> _:place .
_:place <http://example.org/city> "Zürich" .
_:place <http://example.org/near> _:other .
_:other <http://example.org/city> "Genève"@fr .
<http://example.org/acme> <http://example.org/owns> <http://example.org/bolt> <http://example.org/graphs/inventory> .
<http://example.org/bolt> <http://www.w3.org/2000/01/rdf-schema#label> "Bolt"@en <http://example.org/graphs/inventory> .
<http://example.org/bolt> <http://example.org/size> "M8" _:scratch .
<ex:thing> <http://example.org/p> <urn:isbn:0451450523> .
`

// rdfContext compacts the dataset's JSON-LD: prefixes, a typed term, a language default and an
// alias, so compaction has something to do.
var rdfContext = map[string]any{
	"eg":      "http://example.org/", // not "ex": the dataset's <ex:thing> is an IRI of the scheme ex, which JSON-LD cannot compact beside a prefix ex
	"schema":  "https://schema.org/",
	"rdfs":    "http://www.w3.org/2000/01/rdf-schema#",
	"xsd":     "http://www.w3.org/2001/XMLSchema#",
	"label":   "rdfs:label",
	"created": map[string]any{"@id": "http://purl.org/dc/terms/created", "@type": "xsd:date"},
}

// TestKnowledgeRDFRoundTrip: an RDF dataset imported through knowledge/update and exported through
// knowledge/query loses nothing, as N-Quads and as JSON-LD (expanded and compacted), through two
// hubs (export → import → export). Parsing, writing and the comparison are independent libraries'
// (N3.js and jsonld.js, pinned in js/package.json): the canonical N-Quads (URDNA2015) of the input
// and of each hub's export must be equal. The JSON-LD inputs are jsonld.js's own forms of the
// dataset, expanded and compacted.
func TestKnowledgeRDFRoundTrip(t *testing.T) {
	for _, pkg := range []string{"jsonld", "n3"} {
		if _, err := os.Stat(filepath.Join(jsDir, "node_modules", pkg, "package.json")); err != nil {
			t.Fatalf("npm %s is not installed; run: npm ci --prefix backend/interop/js", pkg)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node (v20 or later) is not on PATH")
	}
	run := func(t *testing.T, format, input string) rdfRoundTrip {
		t.Helper()
		a, ka := kgHub(t, t.TempDir(), nil)
		b, kb := kgHub(t, t.TempDir(), nil)
		cfg, _ := json.Marshal(map[string]any{
			"hubs":    []map[string]string{{"url": a.Agent.BaseURL, "key": ka["X-Api-Key"]}, {"url": b.Agent.BaseURL, "key": kb["X-Api-Key"]}},
			"format":  format,
			"input":   input,
			"context": map[string]any{"@context": rdfContext},
		})
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, "kg-rdf-roundtrip.mjs")
		cmd.Dir = jsDir
		cmd.Stdin = bytes.NewReader(cfg)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("kg-rdf-roundtrip.mjs: %v\n%s", err, stderr.String())
		}
		var res rdfRoundTrip
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return res
	}
	check := func(t *testing.T, res rdfRoundTrip) {
		t.Helper()
		n := strings.Count(rdfDataset, "\n")
		if res.Statements != [3]int{n, n, n} {
			t.Errorf("statements (input, hub A, hub B) = %v, want %d each", res.Statements, n)
		}
		if res.HubA != res.Input {
			t.Errorf("hub A's export differs from the input:\ninput\n%s\nhub A\n%s\nfile\n%s", res.Input, res.HubA, res.FileA)
		}
		if res.HubB != res.Input {
			t.Errorf("hub B's export (of hub A's file) differs from the input:\ninput\n%s\nhub B\n%s\nfile\n%s", res.Input, res.HubB, res.FileB)
		}
	}

	t.Run("nquads", func(t *testing.T) {
		res := run(t, "nquads", rdfDataset)
		check(t, res)
		// The canonical form is language-tag and datatype aware: the check above can fail on them.
		for _, want := range []string{`"chat"@fr`, `"chat"@en`, `"042"^^<http://www.w3.org/2001/XMLSchema#integer>`, `"Katze"@de-ch`} {
			if !strings.Contains(strings.ToLower(res.HubB), strings.ToLower(want)) {
				t.Errorf("hub B's export lacks %s", want)
			}
		}
	})
	// The JSON-LD inputs: the dataset in jsonld.js's expanded and compacted forms (hub A's own
	// files of the N-Quads round trip are those forms of its export; here they are the input).
	for _, format := range []string{"jsonld-expanded", "jsonld-compacted"} {
		t.Run(format, func(t *testing.T) {
			first := run(t, format+"-from-nquads", rdfDataset)
			check(t, first)
			check(t, run(t, format, first.FileA))
		})
	}
}

type rdfRoundTrip struct {
	Input, HubA, HubB string
	Statements        [3]int
	FileA, FileB      string
}
