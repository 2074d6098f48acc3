package ui

import "fyne.io/fyne/v2"

// columnLayout centres its one object in a column of width (or the whole width
// when the window is narrower), at the full height. A form in a column of a known
// width wraps its sentences the same on every screen, where a third of the window
// wrapped them into more lines than a 1280×720 screen has room for.
type columnLayout struct{ width float32 }

func (c *columnLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		w := min(size.Width, max(c.width, o.MinSize().Width))
		o.Move(fyne.NewPos((size.Width-w)/2, 0))
		o.Resize(fyne.NewSize(w, size.Height))
	}
}

func (c *columnLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var m fyne.Size
	for _, o := range objs {
		m = m.Max(o.MinSize())
	}
	return m
}
