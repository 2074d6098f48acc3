package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/assert"
)

func TestStartupProblemSaysWhy(t *testing.T) {
	a := test.NewTempApp(t)
	const why = "Galla is already running on this data directory (journal /d/journal.db): close the other window first."
	w := NewStartupProblem(a, why)
	w.Show()
	var texts []string
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *widget.Label:
			texts = append(texts, v.Text)
		case *fyne.Container:
			for _, c := range v.Objects {
				walk(c)
			}
		}
	}
	walk(w.Content())
	assert.Contains(t, texts, why)

	closed := false
	w.SetOnClosed(func() { closed = true })
	w.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	assert.True(t, closed, "Escape closes the window")
}
