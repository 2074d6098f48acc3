package ui

import (
	"context"
	"strings"

	"fyne.io/fyne/v2/widget"
)

// VPASetter reads and sets the shop's UPI address (VPA).
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
	vpa, err := s.u.till.Admin.VPA(ctx)
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
	v := s.u.till.Admin
	return func(ctx context.Context) error {
		return v.SaveVPA(ctx, by, vpa)
	}
}
