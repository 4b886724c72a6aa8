package bus

import "testing"

func TestPublishFiltersAndSignalsLagInsteadOfBlocking(t *testing.T) {
	b := New()
	mine := b.Subscribe(func(e Event) bool { return e.Key == "a" }, 1)
	defer mine.Close()
	b.Publish(Event{Topic: "task", Key: "b", Seq: 1}) // filtered out
	b.Publish(Event{Topic: "task", Key: "a", Seq: 1})
	b.Publish(Event{Topic: "task", Key: "a", Seq: 2}) // buffer full: dropped, lag signalled
	if e := <-mine.C; e.Seq != 1 {
		t.Fatalf("got seq %d", e.Seq)
	}
	select {
	case <-mine.Lagged:
	default:
		t.Fatal("a dropped event was not signalled")
	}
	select {
	case e := <-mine.C:
		t.Fatalf("unexpected %+v", e)
	default:
	}
	mine.Close()
	b.Publish(Event{Topic: "task", Key: "a", Seq: 3}) // no subscriber left: must not block or panic
}
