package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServicesCheck: a Services with every field set passes; one with a field
// left nil, or set to a nil pointer, is named in the error.
func TestServicesCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(s *Services)
		want string
	}{
		{"every field set", func(*Services) {}, ""},
		{"returns left out", func(s *Services) { s.Returns = nil }, "ui: the window's services lack Returns"},
		{"two left out", func(s *Services) { s.Drawer, s.Admin = nil, nil }, "ui: the window's services lack Drawer, Admin"},
		{"a nil pointer", func(s *Services) { s.Books = (*fakeBooks)(nil) }, "ui: the window's services lack Books"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := servicesOf(newFakeTill())
			tc.edit(&s)
			err := s.Check()
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.EqualError(t, err, tc.want)
		})
	}
	assert.Error(t, Services{}.Check(), "the zero Services")
}

// TestNewRefusesMissingService: a window wired without one of its services is
// a programming error said at once, naming the service, not a screen that
// finds out at the counter.
func TestNewRefusesMissingService(t *testing.T) {
	s := servicesOf(newFakeTill())
	s.Drawer = nil
	assert.PanicsWithError(t, "ui: the window's services lack Drawer", func() {
		New(test.NewTempApp(t), s, Options{Do: func(func()) {}})
	})
}

// TestScreensReachTheirServices: the shift, the staff list and the held bills,
// which once said they were kept elsewhere when the till lacked a method, open on
// the service the window was given.
func TestScreensReachTheirServices(t *testing.T) {
	f := newFakeTill()
	h := newHarness(t, f)
	u := h.u
	h.signIn("Asha", "4321")

	h.press(fyne.KeyF12)
	h.settle()
	require.Equal(t, screen(u.shift), u.current, "F12 opens the shift screen")
	assert.Contains(t, u.shift.state.Text, "No shift is open at this terminal")

	h.press(fyne.KeyF10)
	h.settle()
	h.press(fyne.KeyF7)
	h.settle()
	require.Equal(t, screen(u.staff), u.current, "F7 in Settings opens the staff list")
	assert.Len(t, u.staff.rows, 2, "the fake's Asha and Ravi")

	h.press(fyne.KeyF2)
	h.enter("CABLE")
	h.settle()
	h.ctrl(fyne.KeyH)
	require.NotNil(t, u.dialogs.prompt, "Ctrl+H asks for a note")
	h.enter("Mr Rao")
	h.settle()
	assert.Empty(t, u.sale.lines, "the cart is held and the counter is clear")
	require.Len(t, f.held, 1)
	assert.Equal(t, "Mr Rao", f.held[0].Note)
}
