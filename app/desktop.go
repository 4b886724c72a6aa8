//go:build desktop

package app

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/logger"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/agenthub/agenthub/backend/hub"
)

// Available reports whether this binary has the desktop window.
const Available = true

//go:embed appicon.png
var appIcon []byte // a copy of build/appicon.png (go:embed cannot reach ../build)

// background is the window's colour before the page paints: the UI's own background in the theme
// the page is expected to pick.
func background() *options.RGBA {
	c := lightBackground
	if goruntime.GOOS == "linux" && prefersDark(os.Getenv, os.ReadFile) {
		c = darkBackground
	}
	return options.NewRGB(c[0], c[1], c[2])
}

// Run starts the hub, opens the window on the built frontend, and stops the hub when the window
// closes (or on SIGINT/SIGTERM, which Wails turns into a clean quit).
//
// The hub starts before the window, so Connection always has an answer; that costs the window
// nothing visible (hub.Start takes a few tens of milliseconds, WebKit's start-up several hundred).
func Run(opts Options) error {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	if err := checkDisplay(); err != nil {
		return err
	}
	cfg := opts.Hub
	if cfg.Logger == nil {
		cfg.Logger = log
	}
	cfg.UIOrigins = append(slices.Clone(cfg.UIOrigins), webviewOrigins(goruntime.GOOS)...)
	assets, fallback := withFallback(opts.Assets)
	if fallback {
		log.Warn("the frontend is not built; the window shows a placeholder (npm --prefix frontend run build)")
	}

	// SIGINT/SIGTERM before Wails handles them (it quits cleanly once GTK's main loop runs) must not
	// kill the process halfway: note them, and quit as soon as the page has loaded.
	var quit atomic.Bool
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer func() { signal.Stop(sigs); close(sigs) }()
	go func() {
		for range sigs {
			quit.Store(true)
		}
	}()

	hubCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	began := time.Now()
	h, err := hub.Start(hubCtx, cfg)
	if err != nil {
		// The data dir is another window's: with the same single-instance lock as that window, Wails
		// hands this launch over to it (which comes forward) and exits this process with status 1
		// before the dialog can show. Where it cannot (no D-Bus session on Linux), the dialog says why.
		var lock *options.SingleInstanceLock
		if errors.Is(err, hub.ErrInUse) {
			lock = singleInstanceLock(cfg.DataDir, log, nil)
			if lock != nil {
				log.Info("the data directory is in use: handing over to the AgentHub window that has it")
			}
		}
		errorDialog(log, "AgentHub cannot start", startErrorMessage(err), lock)
		return err
	}
	log.Info("hub started", "hub", h.Agent.BaseURL, "data", h.DataDir, "took", time.Since(began).Round(time.Millisecond))

	a := &App{hub: h, log: log, ready: make(chan struct{}), began: began, quit: &quit}
	if quit.Load() {
		log.Info("signal received while starting; not opening the window")
		return a.stopHub()
	}
	err = wails.Run(&options.App{
		Title:              "AgentHub",
		Width:              1280,
		Height:             800,
		MinWidth:           900,
		MinHeight:          600,
		BackgroundColour:   background(),
		AssetServer:        &assetserver.Options{Assets: assets},
		OnStartup:          a.startup,
		OnDomReady:         a.domReady,
		OnShutdown:         a.shutdown,
		SingleInstanceLock: singleInstanceLock(h.DataDir, log, a.secondLaunch),
		Bind:               []any{a},
		Logger:             wailsLogger{log.With("component", "wails")},
		LogLevel:           logger.INFO,
		LogLevelProduction: logger.WARNING,
		Linux: &linux.Options{
			Icon:             appIcon,
			ProgramName:      "agenthub", // WM_CLASS: matches the .desktop file's StartupWMClass
			WebviewGpuPolicy: gpuPolicy(log),
		},
	})
	// OnShutdown has normally stopped the hub already; this covers wails.Run failing before the
	// window opened. stopHub runs once.
	return errors.Join(err, a.stopHub())
}

// App is what the frontend calls through Wails (window.go.app.App): native things only. Everything
// else goes through the hub's UI websocket, the same as in a browser.
type App struct {
	hub *hub.Hub
	log *slog.Logger

	ready    chan struct{}   // closed once ctx is set
	ctx      context.Context // Wails' runtime context
	cancel   context.CancelFunc
	dialogMu sync.Mutex // one native dialog at a time (Wails' GTK side shares one result channel)

	began    time.Time    // when Run started the hub
	quit     *atomic.Bool // a signal arrived before Wails handled them
	stopOnce sync.Once
	stopErr  error
}

// Connection is where the hub's UI websocket is and the token that opens it.
func (a *App) Connection() (Connection, error) {
	return Connection{WSURL: a.hub.WSURL(), Token: a.hub.UIToken(), UIURL: a.hub.UIURL()}, nil
}

// OpenURL opens an http(s) link in the system browser.
func (a *App) OpenURL(url string) error {
	u, err := checkOpenURL(url)
	if err != nil {
		return err
	}
	runtime.BrowserOpenURL(a.wails(), u)
	return nil
}

// SaveFile asks where to save base64Data (proposing suggestedName), writes it there and returns the
// path, or "" when the person cancels.
func (a *App) SaveFile(suggestedName string, base64Data string) (string, error) {
	data, err := decodeBase64(base64Data)
	if err != nil {
		return "", err
	}
	a.dialogMu.Lock()
	path, err := runtime.SaveFileDialog(a.wails(), runtime.SaveDialogOptions{
		Title:                "Save file",
		DefaultDirectory:     downloadsDir(),
		DefaultFilename:      safeFileName(suggestedName),
		CanCreateDirectories: true,
	})
	a.dialogMu.Unlock()
	if err != nil || path == "" {
		return "", err
	}
	if err := writeFile(path, data); err != nil {
		return "", fmt.Errorf("could not save %s: %w", path, err)
	}
	return path, nil
}

// OpenFiles lets the person pick files to attach (none when they cancel). Files over MaxFileBytes,
// or more than that together, are refused with an error saying so.
func (a *App) OpenFiles() ([]PickedFile, error) {
	a.dialogMu.Lock()
	paths, err := runtime.OpenMultipleFilesDialog(a.wails(), runtime.OpenDialogOptions{Title: "Attach files"})
	a.dialogMu.Unlock()
	if err != nil {
		return nil, err
	}
	return readPicked(paths)
}

// wails waits for OnStartup: a binding called that early still gets the runtime context.
func (a *App) wails() context.Context {
	<-a.ready
	return a.ctx
}

func (a *App) startup(ctx context.Context) {
	a.ctx, a.cancel = context.WithCancel(ctx)
	close(a.ready)
	go a.notifyInbox(a.ctx)
}

func (a *App) domReady(ctx context.Context) {
	a.log.Info("window loaded", "took", time.Since(a.began).Round(time.Millisecond))
	// A signal that came before GTK's main loop ran was lost on Wails (its quit needs the loop);
	// the loop runs now.
	if a.quit.Load() {
		runtime.Quit(ctx)
	}
}

func (a *App) shutdown(context.Context) {
	if a.cancel != nil {
		a.cancel()
	}
	if err := a.stopHub(); err != nil {
		a.log.Error("stopping the hub", "err", err)
	}
}

// secondLaunch runs when AgentHub is launched again on this data dir (from the menu, say): the
// running window comes forward instead of a second one failing to start.
func (a *App) secondLaunch(d options.SecondInstanceData) {
	a.log.Info("launched again: bringing the window forward", "args", d.Args)
	ctx := a.wails()
	runtime.WindowUnminimise(ctx) // gtk_window_present on Linux: raises and focuses
	runtime.WindowShow(ctx)
}

// singleInstanceLock is Wails' single-instance lock for the window on dataDir. On Linux it needs a
// D-Bus session bus; without one it is nil (the D-Bus library would otherwise autolaunch a bus
// daemon that outlives the app), and a second launch gets the "already running" dialog instead.
func singleInstanceLock(dataDir string, log *slog.Logger, onSecond func(options.SecondInstanceData)) *options.SingleInstanceLock {
	if goruntime.GOOS == "linux" && !sessionBus() {
		return nil
	}
	id, err := instanceID(dataDir)
	if err != nil {
		log.Warn("no single-instance lock", "err", err)
		return nil
	}
	return &options.SingleInstanceLock{UniqueId: id, OnSecondInstanceLaunch: onSecond}
}

func (a *App) stopHub() error {
	a.stopOnce.Do(func() {
		began := time.Now()
		a.stopErr = a.hub.Stop()
		a.log.Info("hub stopped", "took", time.Since(began).Round(time.Millisecond))
	})
	return a.stopErr
}

// notifyInbox shows a desktop notification for each task arriving in the owner's inbox. Without a
// notification service (no D-Bus session, as under Xvfb) it logs once and does nothing else.
func (a *App) notifyInbox(ctx context.Context) {
	if goruntime.GOOS == "linux" && !sessionBus() {
		a.log.Info("desktop notifications unavailable: no D-Bus session bus")
		return
	}
	if err := runtime.InitializeNotifications(ctx); err != nil {
		a.log.Info("desktop notifications unavailable", "err", err)
		return
	}
	context.AfterFunc(ctx, func() { runtime.CleanupNotifications(ctx) })
	if ok, err := runtime.RequestNotificationAuthorization(ctx); err != nil || !ok {
		a.log.Info("desktop notifications not authorized", "err", err)
		return
	}
	runtime.OnNotificationResponse(ctx, func(r runtime.NotificationResult) {
		if r.Error != nil {
			return
		}
		// Clicking the notification brings the window forward, and tells the frontend which task
		// to open (Wails event "inbox:open" with the task id).
		id, _ := r.Response.UserInfo["taskId"].(string)
		a.log.Info("notification clicked", "task", id, "action", r.Response.ActionIdentifier)
		runtime.WindowUnminimise(ctx)
		runtime.WindowShow(ctx)
		if id != "" {
			runtime.EventsEmit(ctx, "inbox:open", id)
		}
	})
	a.hub.WatchInbox(ctx, func(t hub.InboxArrival) {
		title := strings.TrimSpace(t.Title)
		if title == "" {
			title = "A new task is waiting for you."
		}
		err := runtime.SendNotification(ctx, runtime.NotificationOptions{
			ID:    "inbox-" + t.TaskID,
			Title: "New in your AgentHub inbox",
			Body:  title,
			Data:  map[string]any{"taskId": t.TaskID},
		})
		if err != nil {
			a.log.Warn("desktop notification failed", "task", t.TaskID, "err", err)
		}
	})
}

// gpuPolicy is WebKitGTK's hardware acceleration policy. AGENTHUB_WEBVIEW_GPU=never|ondemand|always
// decides when set ("never" is the usual fix for blank or flickering windows with some GPU drivers).
// Otherwise: WebKit's default (GPU compositing) when the machine has a GPU render node, and "never"
// when it has none (a VM, Xvfb, remote X): GL would then be Mesa's software rasteriser, which
// costs about 90 MB more memory and paints the first frame later than WebKit's CPU path.
func gpuPolicy(log *slog.Logger) linux.WebviewGpuPolicy {
	switch v := os.Getenv("AGENTHUB_WEBVIEW_GPU"); v {
	case "ondemand":
		return linux.WebviewGpuPolicyOnDemand
	case "never":
		return linux.WebviewGpuPolicyNever
	case "always":
		return linux.WebviewGpuPolicyAlways
	case "":
	default:
		log.Warn("ignoring AGENTHUB_WEBVIEW_GPU: want never, ondemand or always", "value", v)
	}
	if goruntime.GOOS == "linux" && !gpuRenderNode() {
		log.Info("no usable GPU render node (/dev/dri/renderD*): the window renders on the CPU")
		return linux.WebviewGpuPolicyNever
	}
	return linux.WebviewGpuPolicyOnDemand
}

// gpuRenderNode reports whether this user can open a DRM render node (a node can exist and still be
// closed to the user, e.g. in an xrdp session).
func gpuRenderNode() bool {
	nodes, _ := filepath.Glob("/dev/dri/renderD*")
	for _, n := range nodes {
		if f, err := os.OpenFile(n, os.O_RDWR, 0); err == nil {
			f.Close()
			return true
		}
	}
	return false
}

// sessionBus reports whether a D-Bus session bus is there to find. Without one, the D-Bus library
// would try `dbus-launch --autolaunch`, which starts a bus daemon that outlives the app.
func sessionBus() bool {
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
		return true
	}
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir == "" {
		dir = fmt.Sprintf("/run/user/%d", os.Getuid())
	}
	_, err := os.Stat(filepath.Join(dir, "bus"))
	return err == nil
}

// checkDisplay fails early and clearly where GTK would panic ("failed to init GTK").
func checkDisplay() error {
	if goruntime.GOOS != "linux" && goruntime.GOOS != "freebsd" {
		return nil
	}
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return errors.New("no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset); run `agenthub serve` for the hub without a window")
	}
	return nil
}

func startErrorMessage(err error) string {
	msg := err.Error()
	if strings.Contains(msg, "in use by another AgentHub") {
		return "AgentHub is already running with this data directory.\n\n" + msg
	}
	if strings.Contains(msg, "address already in use") {
		return "Another program is using AgentHub's port.\n\n" + msg + "\n\nStart AgentHub with --addr 127.0.0.1:PORT (and --demo-addr) to use other ports."
	}
	return msg
}

// errorDialog shows a native error box when the window cannot open at all: a hidden Wails app whose
// only job is the dialog.
// lock, when set, is the running window's single-instance lock: Wails then hands over to that
// window and exits instead.
func errorDialog(log *slog.Logger, title, message string, lock *options.SingleInstanceLock) {
	err := wails.Run(&options.App{
		SingleInstanceLock: lock,
		Title:              title,
		Width:              480,
		Height:             240,
		StartHidden:        true,
		BackgroundColour:   background(),
		AssetServer:        &assetserver.Options{Assets: must(withFallback(nil))},
		Logger:             wailsLogger{log.With("component", "wails")},
		LogLevelProduction: logger.ERROR,
		Linux:              &linux.Options{Icon: appIcon, ProgramName: "agenthub"},
		OnStartup: func(ctx context.Context) {
			_, err := runtime.MessageDialog(ctx, runtime.MessageDialogOptions{
				Type:    runtime.ErrorDialog,
				Title:   title,
				Message: strings.ReplaceAll(message, "%", "%%"), // the GTK side treats it as a format string
			})
			if err != nil {
				log.Warn("error dialog", "err", err)
			}
			runtime.Quit(ctx)
		},
	})
	if err != nil {
		log.Warn("could not show the error dialog", "err", err)
	}
}

func must(fsys fs.FS, _ bool) fs.FS { return fsys }

// wailsLogger sends Wails' own log lines to the app's slog logger.
type wailsLogger struct{ l *slog.Logger }

func (w wailsLogger) Print(m string)   { w.l.Info(m) }
func (w wailsLogger) Trace(m string)   { w.l.Debug(m) }
func (w wailsLogger) Debug(m string)   { w.l.Debug(m) }
func (w wailsLogger) Info(m string)    { w.l.Info(m) }
func (w wailsLogger) Warning(m string) { w.l.Warn(m) }
func (w wailsLogger) Error(m string)   { w.l.Error(m) }
func (w wailsLogger) Fatal(m string)   { w.l.Error(m) } // Wails exits after calling it
