package scenario

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// Mask is what a secret is replaced with in every report.
const Mask = "********"

// Failures counts the failed (or skipped) steps of the results.
func Failures(results []*Result) (steps, failed int) {
	for _, r := range results {
		for _, s := range r.Steps {
			steps++
			if !s.Passed {
				failed++
			}
		}
	}
	return steps, failed
}

// WriteLines prints one line per step and a summary line per file and for the run.
func WriteLines(w io.Writer, results []*Result, key string) error {
	var b bytes.Buffer
	for _, r := range results {
		b.WriteString(r.File)
		if r.Name != r.File {
			fmt.Fprintf(&b, ": %s", r.Name)
		}
		fmt.Fprintf(&b, " (agent %s", r.Agent)
		if r.Dialect != "" {
			fmt.Fprintf(&b, ", dialect %s", r.Dialect)
		}
		if r.Binding != "" {
			fmt.Fprintf(&b, " over %s", r.Binding)
		}
		b.WriteString(")\n")
		if r.Error != "" {
			fmt.Fprintf(&b, "  ERROR %s\n", r.Error)
		}
		for _, s := range r.Steps {
			verdict := "PASS"
			if s.Skipped {
				verdict = "SKIP"
			} else if !s.Passed {
				verdict = "FAIL"
			}
			fmt.Fprintf(&b, "  %s step %d %s (line %d)", verdict, s.Index, s.Name, s.Line)
			if s.State != "" {
				fmt.Fprintf(&b, " %s", s.State)
			}
			if !s.Skipped {
				fmt.Fprintf(&b, " %s", s.Duration.Round(time.Millisecond))
			}
			if why := s.why(); why != "" && !s.Skipped {
				fmt.Fprintf(&b, ": %s", why)
			}
			b.WriteByte('\n')
		}
		passed := 0
		for _, s := range r.Steps {
			if s.Passed {
				passed++
			}
		}
		fmt.Fprintf(&b, "  %d of %d steps passed in %s\n", passed, len(r.Steps), r.Duration.Round(time.Millisecond))
	}
	steps, failed := Failures(results)
	verdict := "PASS"
	if failed > 0 {
		verdict = "FAIL"
	}
	fmt.Fprintf(&b, "%s: %d scenario(s), %d step(s), %d passed, %d failed\n", verdict, len(results), steps, steps-failed, failed)
	_, err := w.Write(mask(b.Bytes(), key))
	return err
}

// why says what failed in a step: its failed assertions, each with what was seen.
func (s StepResult) why() string {
	var out []string
	for _, a := range s.Assertions {
		if !a.Passed {
			out = append(out, fmt.Sprintf("%s (%s)", a.Name, a.Detail))
		}
	}
	if len(out) == 0 && s.Error != "" {
		return s.Error
	}
	return strings.Join(out, "; ")
}

// WriteJSON prints the results as one JSON document: {"passed", "steps", "failed", "scenarios"}.
func WriteJSON(w io.Writer, results []*Result, key string) error {
	steps, failed := Failures(results)
	b, err := json.MarshalIndent(struct {
		Passed    bool      `json:"passed"`
		Steps     int       `json:"steps"`
		Failed    int       `json:"failed"`
		Scenarios []*Result `json:"scenarios"`
	}{failed == 0, steps, failed, results}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(mask(append(b, '\n'), key))
	return err
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	File     string      `xml:"file,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr"`
	Line      int           `xml:"line,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitFailure `xml:"skipped,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// WriteJUnit writes the results as JUnit XML: a testsuite per file, a testcase per step.
func WriteJUnit(w io.Writer, results []*Result, key string) error {
	all := junitSuites{Name: "agenthub scenario run"}
	var total time.Duration
	for _, r := range results {
		suite := junitSuite{Name: r.Name, File: r.File, Time: seconds(r.Duration)}
		for _, s := range r.Steps {
			c := junitCase{Name: fmt.Sprintf("step %d: %s", s.Index, s.Name), Classname: r.Name, File: r.File, Line: s.Line, Time: seconds(s.Duration)}
			switch {
			case s.Skipped:
				c.Skipped = &junitFailure{Message: s.Error}
				suite.Skipped++
			case !s.Passed:
				var detail []string
				for _, a := range s.Assertions {
					mark := "ok  "
					if !a.Passed {
						mark = "FAIL"
					}
					detail = append(detail, strings.TrimSpace(fmt.Sprintf("%s %s %s", mark, a.Name, a.Detail)))
				}
				c.Failure = &junitFailure{Message: s.why(), Text: strings.Join(detail, "\n")}
				suite.Failures++
			}
			suite.Cases = append(suite.Cases, c)
		}
		suite.Tests = len(suite.Cases)
		all.Tests += suite.Tests
		all.Failures += suite.Failures
		all.Skipped += suite.Skipped
		total += r.Duration
		all.Suites = append(all.Suites, suite)
	}
	all.Time = seconds(total)
	b, err := xml.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	out := append([]byte(xml.Header), b...)
	_, err = w.Write(mask(append(out, '\n'), key))
	return err
}

// mask replaces the secret in a report, as written and as JSON or XML would escape it.
func mask(b []byte, secret string) []byte {
	if secret == "" {
		return b
	}
	forms := []string{secret}
	if j, err := json.Marshal(secret); err == nil {
		forms = append(forms, string(j[1:len(j)-1]))
	}
	var x bytes.Buffer
	if xml.EscapeText(&x, []byte(secret)) == nil {
		forms = append(forms, x.String())
	}
	for _, f := range forms {
		b = bytes.ReplaceAll(b, []byte(f), []byte(Mask))
	}
	return b
}
