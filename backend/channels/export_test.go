package channels

// SetBacklogRead sets a function each stream runs once it has replayed its backlog and before it
// reads live events, for tests of the seam between the two.
func SetBacklogRead(fn func()) { backlogRead = fn }
