// Command fakenotify stands in for a desktop's notification server (org.freedesktop.Notifications on
// the D-Bus session bus) in headless tests: it prints one line per notification,
//
//	NOTIFY app="..." summary="..." body="..." id="..."
//
// and, with -click, "clicks" each one a moment later (the ActionInvoked signal with the default
// action), printing CLICKED ID. build/desktop-smoke.sh runs it under dbus-run-session.
package main

import (
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

const (
	name = "org.freedesktop.Notifications"
	path = "/org/freedesktop/Notifications"
)

type server struct {
	conn  *dbus.Conn
	click time.Duration
	mu    sync.Mutex
	last  uint32
}

// Notify is the spec's Notify(app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout).
func (s *server) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	s.last++
	id := s.last
	s.mu.Unlock()
	nid, _ := hints["x-notification-id"].Value().(string)
	fmt.Printf("NOTIFY app=%q summary=%q body=%q id=%q\n", app, summary, body, nid)
	if s.click > 0 && len(actions) >= 2 {
		go func() {
			time.Sleep(s.click)
			if err := s.conn.Emit(path, name+".ActionInvoked", id, actions[0]); err != nil {
				fmt.Fprintln(os.Stderr, "fakenotify: emit:", err)
				return
			}
			fmt.Printf("CLICKED %d\n", id)
		}()
	}
	return id, nil
}

func (s *server) GetCapabilities() ([]string, *dbus.Error) { return []string{"body", "actions"}, nil }
func (s *server) CloseNotification(uint32) *dbus.Error     { return nil }
func (s *server) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "fakenotify", "agenthub", "1", "1.2", nil
}

func main() {
	click := flag.Duration("click", 0, "click each notification after this long (0: never)")
	flag.Parse()
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakenotify:", err)
		os.Exit(1)
	}
	if err := conn.Export(&server{conn: conn, click: *click}, path, name); err != nil {
		fmt.Fprintln(os.Stderr, "fakenotify:", err)
		os.Exit(1)
	}
	reply, err := conn.RequestName(name, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		fmt.Fprintln(os.Stderr, "fakenotify: cannot own", name, err)
		os.Exit(1)
	}
	fmt.Println("READY")
	select {}
}
