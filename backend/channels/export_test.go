package channels

// SetBacklogRead sets a function each stream runs once it has replayed its backlog and before it
// reads live events, for tests of the seam between the two.
func SetBacklogRead(fn func()) { backlogRead = fn }

// SetStreamRun sets a function each stream runs as it starts, once its response has begun.
func SetStreamRun(fn func()) { streamRun = fn }

// SetEventsRead sets a function run before each read of a channel's events by a get, list, update
// or stream's opening (load).
func SetEventsRead(fn func(channelID string)) { eventsRead = fn }
