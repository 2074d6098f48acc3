package ui

import (
	"context"
	"strings"

	"fyne.io/fyne/v2/widget"
)

// VPASetter reads and sets the shop's UPI address (VPA); a till that is not one
// shows no UPI field.
type VPASetter interface {
	VPA(ctx context.Context) (string, error)
	SaveVPA(ctx context.Context, by StaffMember, vpa string) error
}

// upiSetting is the settings screen's field of the shop's UPI address.
type upiSetting struct {
	u     *UI
	entry *keyEntry
}

func newUPISetting(u *UI) *upiSetting {
	e := newKeyEntry(u)
	e.SetPlaceHolder("shopname@okhdfcbank (empty: no UPI)")
	return &upiSetting{u: u, entry: e}
}

func (s *upiSetting) item() *widget.FormItem { return widget.NewFormItem("UPI address (VPA)", s.entry) }

// load shows the stored address (called off the UI goroutine; the returned
// function runs on it).
func (s *upiSetting) load(ctx context.Context) func() {
	v, ok := s.u.till.(VPASetter)
	if !ok {
		return func() { s.entry.Disable() }
	}
	vpa, err := v.VPA(ctx)
	return func() {
		if err == nil {
			s.entry.SetText(vpa)
		}
	}
}

// saver returns the save of what is typed now, as the manager by, to run off
// the UI goroutine after the other settings.
func (s *upiSetting) saver(by StaffMember) func(ctx context.Context) error {
	vpa := strings.TrimSpace(s.entry.Text)
	v, ok := s.u.till.(VPASetter)
	return func(ctx context.Context) error {
		if !ok {
			return nil
		}
		return v.SaveVPA(ctx, by, vpa)
	}
}
