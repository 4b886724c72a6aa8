package knowledge

import (
	"syscall"

	"github.com/boltdb/bolt"
)

// releaseMapped takes the pages of the bolt file out of this process's mapping of it
// (madvise(MADV_DONTNEED) over the part of the mapping the file's pages use).
//
// Why: bolt reads its B+tree through a shared, read-only mmap of the file, and every page a
// transaction reads stays mapped into the process, so it counts in its RSS; the kernel also maps up
// to 15 neighbours of each page read that are in the page cache (fault-around), which every page
// bolt just wrote is. A graph commit reads pages all over the file (Cayley keeps each node in one of
// 65,536 buckets by hash), so loading 1M statements left 267-272 MiB of the file mapped.
//
// What it does not change: for a shared file mapping MADV_DONTNEED only removes the page-table
// entries. The pages stay in the page cache (as hub.db's do, which SQLite reads with pread), nothing
// is written or lost, and the next read of a page maps it again from the cache (a minor fault; a
// read from disk only if the kernel has evicted it meanwhile). It frees no memory the system would
// not reclaim anyway; it makes the process's RSS what it holds itself.
//
// The caller must hold what keeps a write transaction from running (s.mu): bolt remaps the file
// only inside one, and the range advised must be bolt's mapping. The read transaction held here
// keeps the mapping in place too, and its Size (the pages in use) is within the mapping.
func releaseMapped(db *bolt.DB) error {
	if db == nil {
		return nil
	}
	tx, err := db.Begin(false)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	size := tx.Size()
	if size <= 0 {
		return nil
	}
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, db.Info().Data, uintptr(size), syscall.MADV_DONTNEED)
	if errno != 0 {
		return errno
	}
	return nil
}
