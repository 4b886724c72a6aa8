package knowledge

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// mappedKiB is how much of file this process has mapped and resident (the Rss of its mappings in
// /proc/self/smaps), in KiB.
func mappedKiB(t *testing.T, file string) int {
	t.Helper()
	raw, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	total, in := 0, false
	for _, line := range strings.Split(string(raw), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") { // a mapping's header
			in = len(fields) >= 6 && fields[len(fields)-1] == file
			continue
		}
		if in && fields[0] == "Rss:" {
			kb, _ := strconv.Atoi(fields[1])
			total += kb
		}
	}
	return total
}

// After a graph write the bolt file's pages are no longer mapped into the process (they were: every
// page a commit read stayed in the RSS, with its fault-around neighbours), and the graph still reads
// back every statement.
func TestGraphWriteReleasesMappedPages(t *testing.T) {
	dir := t.TempDir()
	s := openIn(t, dir, openHubDB(t, dir))
	defer s.Close()
	file := filepath.Join(dir, StoreDir, boltFile)
	for batch := range 4 {
		var ps []Patch
		for i := range 1000 {
			n := batch*1000 + i
			ps = append(ps, Patch{Op: OpAdd, Statement: Statement{Subject: Subject{ID: fmt.Sprintf("ex:m%d", n)},
				Predicate: Predicate{ID: "ex:knows"}, Object: Object{ID: fmt.Sprintf("ex:m%d", (n*7)%4000)}}})
		}
		if _, err := s.apply(t.Context(), "hub", ps, "test"); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() < 1<<20 {
		t.Fatalf("the bolt file is %d bytes; the test needs one of several MiB", fi.Size())
	}
	// Nothing reads the graph between the write and this look (the background sync records its
	// position, then releases the pages as a graph write does, and fsyncs).
	if kib := mappedKiB(t, file); kib > 64 {
		t.Fatalf("%d KiB of the %d KiB bolt file still mapped after the write; want at most 64", kib, fi.Size()>>10)
	}
	if got, want := graphQuads(t, s), tableQuads(t, s); !slices.Equal(got, want) {
		t.Fatalf("graph has %d quads, kg_statements %d", len(got), len(want))
	}
	// A read maps pages again (else this test could not see a mapping at all). The background sync
	// may release them between the read and the look (every half second, slower under -race): read
	// again a few times before concluding.
	for try := 1; mappedKiB(t, file) == 0; try++ {
		if try == 5 {
			t.Fatal("reading the graph mapped no page of its file: the test does not find the mapping")
		}
		graphQuads(t, s)
	}
}
