package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"

	"github.com/go-gl/glfw/v3.4/glfw"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"

	"galla/assets"
	"galla/pos"
	"galla/ui"
)

// cmdWindow opens the terminal window: it opens the journal, picks the payment
// service (the embedded sandbox unless a live one is configured), builds pos and
// hands it to ui.
func cmdWindow(c *cli, args []string) int {
	if _, err := c.parse(c.flagSet("galla"), args); err != nil {
		return exitBadInput
	}
	t, err := openTerminal(c, true)
	if err != nil {
		code := c.failOpen(err)
		if haveDisplay(c.getenv) {
			// Started from an icon, nobody reads standard error: say it in a window.
			a := app.NewWithID("in.galla.pos")
			ui.NewStartupProblem(a, openSentence(err)).ShowAndRun()
		}
		return code
	}
	defer t.close()
	// The journal's startup check (DESIGN.md section 4) runs in the background so
	// that the window opens at once however long the journal is; payments wait for
	// it. Then restart (DESIGN.md section 2): settle what an earlier run left
	// unknown now rather than at the first payment; the status bar shows what
	// stays unknown. The engine runs it once more before a payment if this has not
	// finished, and never two at once.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reconcileAfterCheck(ctx, t, c.stderr)
	a := app.NewWithID("in.galla.pos")
	icon := fyne.NewStaticResource("icon.png", assets.Icon())
	a.SetIcon(icon)
	w := ui.New(a, windowServices(t.Till), ui.Options{Title: "Galla — " + t.Terminal(), Icon: icon, ReceiptDir: filepath.Join(c.dataDir, "receipts"), ExportDir: filepath.Join(c.dataDir, "exports"),
		Screen: primaryScreen, Version: buildInfo().String(), DataDir: dataDirLine(c),
		StartNotice: keyringLine(c, nil), Store: windowStoreActs(c, t)})
	w.ShowAndRun()
	return exitOK
}

// windowServices gives the window each service it uses, every field the one
// pos service that implements it; the till itself only stands for the status
// bar (Counter), whose Status is the facade's own.
func windowServices(t *pos.Till) ui.Services {
	return ui.Services{Counter: t, Staffer: t.Crew, Catalog: t.Shelf, Customers: t.Customers, Checkout: t.Checkout,
		Pending: t.Pending, IMEIs: t.IMEIs, Returns: t.Returns, Drawer: t.Drawer, Books: t.Books, Documents: t.Documents,
		Admin: t.Setup, Stock: t.Stock}
}

// reconcileAfterCheck waits for the journal's startup check that openTerminal
// started and, when the journal is whole, reconciles: the reconciler appends, so it
// never runs on a damaged journal. It returns a channel closed when both are over.
// A damaged journal is said once on w; the status bar and every payment say it too.
func reconcileAfterCheck(ctx context.Context, t *terminal, w io.Writer) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-t.checked:
		case <-ctx.Done():
			return
		}
		if ok, err := t.j.Log.Verified(); !ok || err != nil {
			if err != nil {
				fmt.Fprintln(w, "galla: "+pos.Sentence(err))
			}
			return
		}
		if _, err := t.Pending.Reconcile(ctx); err != nil && ctx.Err() == nil {
			fmt.Fprintln(w, "galla: the payments left open by the last run could not all be checked yet: "+pos.Sentence(err))
		}
	}()
	return done
}

// haveDisplay reports whether a window can be shown: always on Windows and macOS,
// on Linux and the BSDs only with an X11 or Wayland display.
func haveDisplay(getenv func(string) string) bool {
	switch runtime.GOOS {
	case "windows", "darwin":
		return true
	}
	return getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != ""
}

// primaryScreen is the size in pixels of the primary monitor, from the window
// system Fyne runs on (Fyne has no call for it); 0, 0 when none answers. It runs
// on the window system's thread, once it has started.
func primaryScreen() (int, int) {
	m := glfw.GetPrimaryMonitor()
	if m == nil {
		return 0, 0
	}
	mode := m.GetVideoMode()
	if mode == nil {
		return 0, 0
	}
	return mode.Width, mode.Height
}
