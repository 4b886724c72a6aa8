//go:build !linux

package knowledge

import "github.com/boltdb/bolt"

// releaseMapped does nothing outside Linux (see mapping_linux.go). On Windows the file's pages
// bolt has read stay in the process's working set until the memory manager trims it; on macOS
// MADV_DONTNEED does not promise to unmap a file's pages.
func releaseMapped(*bolt.DB) error { return nil }
