package ui

import (
	"fyne.io/fyne/v2"
)

// The window on the counter's screen (DESIGN.md section 10): it opens at the size
// it had when it was last closed (1366×768 the first time), fitted to the screen it
// opens on, in the theme last chosen, and never grows past the screen, whatever
// the screens inside it ask for.

// Preference keys of the window's size and theme (Fyne's preferences of the app,
// not the journal: they are the counter PC's, not the shop's records).
const (
	prefWidth  = "window.width"
	prefHeight = "window.height"
	prefDark   = "theme.dark"
)

// defaultSize is the window's size the first time.
var defaultSize = fyne.NewSize(1366, 768)

// screenMargin is kept free of the window on the screen: the title bar and a task
// bar or dock.
var screenMargin = fyne.NewSize(0, 80)

// capped lays its one object out at the window's size and reports a minimum size
// no bigger than max, so that a screen whose content asks for more (a long
// sentence, a wide table) is squeezed, or scrolls, instead of pushing the window
// past the screen.
type capped struct {
	max fyne.Size // zero: no limit known yet
}

func (c *capped) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (c *capped) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var m fyne.Size
	for _, o := range objs {
		m = m.Max(o.MinSize())
	}
	if c.max.Width > 0 && m.Width > c.max.Width {
		m.Width = c.max.Width
	}
	if c.max.Height > 0 && m.Height > c.max.Height {
		m.Height = c.max.Height
	}
	return m
}

// windowFit keeps the window's size and theme between starts and fits the window
// to the screen it opens on.
type windowFit struct {
	u   *UI
	cap *capped // the window's content: no bigger than the screen
}

// rememberedDark is the theme last chosen on this computer, or dark when none was.
func (wf *windowFit) rememberedDark(dark bool) bool {
	return wf.u.app.Preferences().BoolWithFallback(prefDark, dark)
}

// rememberedSize is the window's size when it was last closed, or defaultSize.
func (wf *windowFit) rememberedSize() fyne.Size {
	if s, ok := wf.remembered(); ok {
		return s
	}
	return defaultSize
}

// remembered is the window's size when it was last closed on this computer; ok
// is false on the first start.
func (wf *windowFit) remembered() (fyne.Size, bool) {
	p := wf.u.app.Preferences()
	w, h := p.Float(prefWidth), p.Float(prefHeight)
	if w < 320 || h < 240 {
		return fyne.Size{}, false
	}
	return fyne.NewSize(float32(w), float32(h)), true
}

// rememberWindow keeps the window's size and theme for the next start.
func (wf *windowFit) rememberWindow() {
	p := wf.u.app.Preferences()
	s := wf.u.win.Canvas().Size()
	if s.Width >= 320 && s.Height >= 240 {
		p.SetFloat(prefWidth, float64(s.Width))
		p.SetFloat(prefHeight, float64(s.Height))
	}
	p.SetBool(prefDark, wf.u.theme.dark)
}

// fitScreen caps the window at the screen Options.Screen reports (less
// screenMargin): on the first start the window fills it, later it keeps the size
// it was closed at and shrinks to fit when that is bigger. With no screen known it
// does nothing. The desktop calls it once the window system runs.
func (wf *windowFit) fitScreen() {
	if wf.u.opts.Screen == nil {
		return
	}
	w, h := wf.u.opts.Screen()
	scale := wf.u.win.Canvas().Scale()
	if w <= 0 || h <= 0 || scale <= 0 {
		return
	}
	scr := fyne.NewSize(float32(w)/scale, float32(h)/scale)
	limit := fyne.NewSize(scr.Width-screenMargin.Width, scr.Height-screenMargin.Height)
	wf.cap.max = limit
	size := wf.u.win.Canvas().Size()
	if size.Width <= 0 || size.Height <= 0 {
		size = wf.rememberedSize()
	}
	want := size
	if _, ok := wf.remembered(); !ok {
		want = limit // the first start: the counter's whole screen
	}
	fit := fyne.NewSize(min(want.Width, limit.Width), min(want.Height, limit.Height))
	if fit != size {
		wf.u.win.Resize(fit)
	}
}
