package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// NewStartupProblem returns a small window that says why the terminal cannot open
// (another copy running, a damaged journal, a bad configuration) to a person who
// started Galla from its icon and would never see standard error. Enter, Escape or
// the button closes it.
func NewStartupProblem(a fyne.App, sentence string) fyne.Window {
	w := a.NewWindow("Galla cannot start")
	msg := widget.NewLabel(sentence)
	msg.Wrapping = fyne.TextWrapWord
	closeBtn := widget.NewButton("Close  [Enter]", w.Close)
	closeBtn.Importance = widget.HighImportance
	w.SetContent(container.NewBorder(
		widget.NewLabelWithStyle("Galla cannot start", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		closeBtn, nil, nil, msg))
	w.Canvas().SetOnTypedKey(func(k *fyne.KeyEvent) {
		if k.Name == fyne.KeyReturn || k.Name == fyne.KeyEnter || k.Name == fyne.KeyEscape {
			w.Close()
		}
	})
	w.Resize(fyne.NewSize(560, 220))
	return w
}
