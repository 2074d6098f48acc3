package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"galla/pos"
)

// wholeTill is a value that plays every service of the window, as pos.Till does
// and the fakes here do.
type wholeTill interface {
	Counter
	Staffer
	Catalog
	Customers
	Checkout
	Pending
	IMEIs
	Returns
	Drawer
	Books
	Documents
	Admin
	Stock
}

// servicesOf fills every field of the window's Services with t.
func servicesOf(t wholeTill) Services {
	return Services{Counter: t, Staffer: t, Catalog: t, Customers: t, Checkout: t, Pending: t, IMEIs: t,
		Returns: t, Drawer: t, Books: t, Documents: t, Admin: t, Stock: t}
}

// The services below are the fake till's part of what no test here drives (the
// window's own tests at the repository's root drive them over the real till):
// enough to stand in, each as plain as the screens allow.

// errFakeNotKept is the fake's answer to a change it does not keep.
var errFakeNotKept = errors.New("fake: not kept by the fake till")

// Customers: a walk-in shop with no customer to remember; every supply is within
// the state.

func (f *fakeTill) CheckBuyer(context.Context, []Line, *pos.Buyer) error { return nil }

func (f *fakeTill) FindBuyer(context.Context, string) (pos.Buyer, bool, error) {
	return pos.Buyer{}, false, nil
}

func (f *fakeTill) RememberBuyer(context.Context, string, pos.Buyer) error { return nil }

func (f *fakeTill) Registration(context.Context) (pos.Registration, error) {
	if f.composition {
		return pos.Composition, nil
	}
	return pos.Regular, nil
}
func (f *fakeTill) PlaceOf(context.Context, *pos.Buyer) (pos.Place, error) { return pos.Place{}, nil }

// Holder: the held bills in memory.

func (f *fakeTill) HoldBill(_ context.Context, lines []Line, imeis []IMEI, staff, note string) (HeldBill, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := HeldBill{ID: fmt.Sprintf("H%d", len(f.held)+1), Lines: lines, IMEIs: imeis, Note: note, Staff: staff, At: f.clock()}
	for _, l := range lines {
		b.Items += l.Qty
		b.Total += l.Product.Price * pos.Paise(l.Qty)
	}
	f.held = append(f.held, b)
	return b, nil
}

func (f *fakeTill) HeldBills(context.Context) ([]HeldBill, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.held), nil
}

func (f *fakeTill) RecallBill(ctx context.Context, id, _ string) (HeldBill, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, b := range f.held {
		if b.ID == id {
			f.held = slices.Delete(f.held, i, i+1)
			return b, nil
		}
	}
	return HeldBill{}, errFakeNotKept
}

func (f *fakeTill) DiscardBill(ctx context.Context, id, staff string) error {
	_, err := f.RecallBill(ctx, id, staff)
	return err
}

// Drawer: no shift is kept.

func (f *fakeTill) CurrentShift(context.Context) (*pos.Shift, error) { return nil, nil }

func (f *fakeTill) OpenShift(context.Context, string, pos.Paise) (*pos.Shift, error) {
	return nil, errFakeNotKept
}

func (f *fakeTill) MoveCash(context.Context, string, pos.CashMoveKind, pos.Paise, string) (*pos.Shift, error) {
	return nil, errFakeNotKept
}

func (f *fakeTill) CloseShift(context.Context, string, pos.CashCount) (*pos.ShiftReport, error) {
	return nil, errFakeNotKept
}

func (f *fakeTill) ShiftReport(context.Context, string) (*pos.ShiftReport, error) {
	return nil, pos.ErrShiftNotFound
}

// Tenderer: no split sale is open, and none is opened.

func (f *fakeTill) OpenSale(context.Context, PayRequest) (*SaleStatus, error) {
	return nil, errFakeNotKept
}

func (f *fakeTill) SaleStatus(context.Context, string) (*SaleStatus, error) {
	return nil, errFakeNotKept
}

func (f *fakeTill) OpenSales(context.Context) ([]*SaleStatus, error) { return nil, nil }

func (f *fakeTill) VoidSale(context.Context, string, string, string) (*SaleStatus, error) {
	return nil, errFakeNotKept
}

func (f *fakeTill) DropSale(context.Context, string, string, string) (*SaleStatus, error) {
	return nil, errFakeNotKept
}

func (f *fakeTill) UPIRequest(context.Context, string, pos.Paise) (UPIRequest, error) {
	return UPIRequest{}, errFakeNotKept
}

func (f *fakeTill) SaleEMIOffers(context.Context, string, pos.Paise) ([]EMIOffer, error) {
	return nil, errFakeNotKept
}

// StaffAdmin: the staff list as signed in with; no change is kept.

func (f *fakeTill) StaffList(context.Context) ([]StaffInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var list []StaffInfo
	for _, m := range f.staff {
		list = append(list, StaffInfo{ID: m.ID, Name: m.Name, Role: m.Role})
	}
	return list, nil
}

func (f *fakeTill) AddStaffBy(context.Context, string, Role, string, string) (StaffMember, error) {
	return StaffMember{}, errFakeNotKept
}

func (f *fakeTill) ChangeStaff(context.Context, string, pos.StaffChange, string, string) (StaffInfo, error) {
	return StaffInfo{}, errFakeNotKept
}

func (f *fakeTill) SetStaffLimits(context.Context, string, *pos.StaffLimits, string) (StaffInfo, error) {
	return StaffInfo{}, errFakeNotKept
}

// IMEIs: every IMEI is free and no sale carries one.

func (f *fakeTill) CheckIMEIFree(_ context.Context, imei string) error { return f.stockCheck(imei) }

func (f *fakeTill) FindIMEI(context.Context, string) ([]OrderSummary, error) { return nil, nil }

// Books: the business day is the clock's; a day closes accepting the unknown
// payments as CloseDay closes it.

func (f *fakeTill) BusinessDate() time.Time { return f.clock() }

// clock is the fake's time: the harness's clock when it set one.
func (f *fakeTill) clock() time.Time {
	if f.now != nil {
		return f.now()
	}
	return time.Now()
}
