package jsonrpc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
)

// ErrEventTooLarge is returned when one stream event exceeds MaxSSEEvent.
var ErrEventTooLarge = fmt.Errorf("a stream event is larger than the %d-byte limit", MaxSSEEvent)

// Event is one Server-Sent Event: its name and its data lines joined.
type Event struct {
	Name string
	Data []byte
	// TooLarge marks an event over the limit that was passed (ScanSSE with pass): Data is only its
	// head, Size its whole data's length.
	TooLarge bool
	Size     int
}

// ReadSSE parses Server-Sent Events: `event:` names the event, `data:` lines are joined with
// newlines, a blank line ends an event, `:` lines are comments. An event larger than max is an error.
func ReadSSE(r io.Reader, max int) iter.Seq2[Event, error] {
	return ScanSSE(r, max, false)
}

// sseHeadBytes is how much of an event too large to carry is kept: enough for the fields a
// placeholder names it by, which come before its payload.
const sseHeadBytes = 64 << 10

// ScanSSE is ReadSSE; with pass, an event larger than max is not an error but read to its end and
// yielded with TooLarge set, its Size, and only the first sseHeadBytes of its data, so the stream
// can go on past it.
func ScanSSE(r io.Reader, max int, pass bool) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		br := bufio.NewReaderSize(r, 64<<10)
		var ev Event
		hasData := false
		for {
			line, over, err := readLine(br, max, pass)
			if errors.Is(err, io.EOF) {
				if hasData { // a last event without its blank line
					yield(ev, nil)
				}
				return
			}
			if err != nil {
				yield(Event{}, err)
				return
			}
			if len(line) == 0 && over == 0 {
				if hasData && !yield(ev, nil) {
					return
				}
				ev, hasData = Event{}, false
				continue
			}
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "event":
				ev.Name = string(value)
			case "data":
				if hasData {
					ev.Data = append(ev.Data, '\n')
				}
				ev.Size = len(ev.Data) + len(value) + over
				if ev.Size > max && !pass {
					yield(Event{}, ErrEventTooLarge)
					return
				}
				ev.TooLarge = ev.TooLarge || ev.Size > max
				ev.Data = append(ev.Data, value...)
				if ev.TooLarge && len(ev.Data) > sseHeadBytes {
					ev.Data = append([]byte(nil), ev.Data[:sseHeadBytes]...)
				}
				hasData = true
			}
		}
	}
}

// readLine reads one line without its end (\n or \r\n). A line longer than an event may be is
// refused, or with readOn read to its end keeping its first bytes: over is how many were dropped.
func readLine(br *bufio.Reader, max int, readOn bool) (line []byte, over int, err error) {
	limit := max + len("data: \r\n")
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > limit {
			if !readOn {
				return nil, 0, ErrEventTooLarge
			}
			keep := limit - len(line)
			over += len(frag) - keep
			frag = frag[:keep]
		}
		line = append(line, frag...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && (!errors.Is(err, io.EOF) || len(line) == 0) {
			return nil, 0, err
		}
		if over > 0 {
			return line, over, nil // cut: its end was dropped with the rest
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		return bytes.TrimSuffix(line, []byte("\r")), 0, nil
	}
}
