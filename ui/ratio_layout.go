package ui

import "fyne.io/fyne/v2"

// ratioLayout puts two objects side by side, the first taking ratio of the width.
type ratioLayout struct{ ratio float32 }

func (r *ratioLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	if len(objs) < 2 {
		return
	}
	pad := float32(12)
	w := size.Width*r.ratio - pad/2
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(fyne.NewSize(w, size.Height))
	objs[1].Move(fyne.NewPos(w+pad, 0))
	objs[1].Resize(fyne.NewSize(size.Width-w-pad, size.Height))
}

func (r *ratioLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	if len(objs) < 2 {
		return fyne.NewSize(0, 0)
	}
	a, b := objs[0].MinSize(), objs[1].MinSize()
	return fyne.NewSize(a.Width+b.Width+12, max(a.Height, b.Height))
}
