package channels

// SetBacklogRead sets a function each stream runs once it has replayed its backlog and before it
// reads live events, for tests of the seam between the two.
func SetBacklogRead(fn func()) { backlogRead = fn }

// SetStreamRun sets a function each stream runs as it starts, once its response has begun.
func SetStreamRun(fn func()) { streamRun = fn }
