package ui

import (
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
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
		{"a nil pointer", func(s *Services) { s.Books = (*fakeTill)(nil) }, "ui: the window's services lack Books"},
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
