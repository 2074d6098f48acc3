// Command barewindow is the floor of Galla's cold-start budget (DESIGN.md section
// 7): a bare Fyne window of the terminal's size with one label, nothing else.
// scripts/bench-start.sh builds it and starts it in turn with the real galla. It
// lives under testdata so that ./... (build, vet, the dependency check) skips it.
package main

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/widget"
)

func main() {
	a := app.NewWithID("in.galla.barewindow")
	w := a.NewWindow("Bare Fyne window")
	w.SetContent(widget.NewLabel("bare"))
	w.Resize(fyne.NewSize(1366, 768))
	w.ShowAndRun()
}
