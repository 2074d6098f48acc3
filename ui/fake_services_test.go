package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"galla/pos"
)

// The fake till is split by capability, as the real till is: fakeTill holds
// the state the tests script and read, and each type below plays one service
// of the window (or two closely related ones) on that shared state, so what a
// test changes in a fakeTill every service sees.
type (
	// fakePending plays the Counter and Pending: the status bar and the
	// payments left pending.
	fakePending struct{ *fakeTill }
	// fakeStaffer plays the Staffer: sign-in, overrides and the staff list.
	fakeStaffer struct{ *fakeTill }
	// fakeCatalog plays the Catalog: products, prices and held bills.
	fakeCatalog struct{ *fakeTill }
	// fakeCustomers plays the Customers.
	fakeCustomers struct{ *fakeTill }
	// fakeCheckout plays the Checkout: payments, split tenders, the EMI IMEI check.
	fakeCheckout struct{ *fakeTill }
	// fakeStockroom plays the Stock and the IMEIs: the goods on hand and the
	// units scanned.
	fakeStockroom struct{ *fakeTill }
	// fakeReturns plays the Returns: credit notes, refunds, cancellations.
	fakeReturns struct{ *fakeTill }
	// fakeDrawer plays the Drawer.
	fakeDrawer struct{ *fakeTill }
	// fakeBooks plays the Books: the journal's orders and the reports.
	fakeBooks struct{ *fakeTill }
	// fakeDocuments plays the Documents: receipts and slips, drawn and printed.
	fakeDocuments struct{ *fakeTill }
	// fakeAdmin plays the Admin: the settings and the shop's UPI address.
	fakeAdmin struct{ *fakeTill }
)

// servicesOf fills every field of the window's Services with the fake of f
// that plays it.
func servicesOf(f *fakeTill) Services {
	pending, stock := &fakePending{f}, &fakeStockroom{f}
	return Services{Counter: pending, Staffer: &fakeStaffer{f}, Catalog: &fakeCatalog{f}, Customers: &fakeCustomers{f},
		Checkout: &fakeCheckout{f}, Pending: pending, IMEIs: stock, Returns: &fakeReturns{f}, Drawer: &fakeDrawer{f},
		Books: &fakeBooks{f}, Documents: &fakeDocuments{f}, Admin: &fakeAdmin{f}, Stock: stock}
}

// The services below are the fake till's part of what no test here drives (the
// window's own tests at the repository's root drive them over the real till):
// enough to stand in, each as plain as the screens allow.

// errFakeNotKept is the fake's answer to a change it does not keep.
var errFakeNotKept = errors.New("fake: not kept by the fake till")

// Customers: a walk-in shop with no customer to remember; every supply is within
// the state.

func (f *fakeCustomers) CheckBuyer(context.Context, []Line, *pos.Buyer) error { return nil }

func (f *fakeCustomers) FindBuyer(context.Context, string) (pos.Buyer, bool, error) {
	return pos.Buyer{}, false, nil
}

func (f *fakeCustomers) RememberBuyer(context.Context, string, pos.Buyer) error { return nil }

func (f *fakeCustomers) Registration(context.Context) (pos.Registration, error) {
	if f.composition {
		return pos.Composition, nil
	}
	return pos.Regular, nil
}
func (f *fakeCustomers) PlaceOf(context.Context, *pos.Buyer) (pos.Place, error) {
	return pos.Place{}, nil
}

// Holder: the held bills in memory.

func (f *fakeCatalog) HoldBill(_ context.Context, lines []Line, imeis []IMEI, staff, note string) (HeldBill, error) {
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

func (f *fakeCatalog) HeldBills(context.Context) ([]HeldBill, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.held), nil
}

func (f *fakeCatalog) RecallBill(ctx context.Context, id, _ string) (HeldBill, error) {
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

func (f *fakeCatalog) DiscardBill(ctx context.Context, id, staff string) error {
	_, err := f.RecallBill(ctx, id, staff)
	return err
}

// Drawer: no shift is kept.

func (f *fakeDrawer) CurrentShift(context.Context) (*pos.Shift, error) { return nil, nil }

func (f *fakeDrawer) OpenShift(context.Context, string, pos.Paise) (*pos.Shift, error) {
	return nil, errFakeNotKept
}

func (f *fakeDrawer) MoveCash(context.Context, string, pos.CashMoveKind, pos.Paise, string) (*pos.Shift, error) {
	return nil, errFakeNotKept
}

func (f *fakeDrawer) CloseShift(context.Context, string, pos.CashCount) (*pos.ShiftReport, error) {
	return nil, errFakeNotKept
}

func (f *fakeDrawer) ShiftReport(context.Context, string) (*pos.ShiftReport, error) {
	return nil, pos.ErrShiftNotFound
}

// Tenderer: no split sale is open, and none is opened.

func (f *fakeCheckout) OpenSale(context.Context, PayRequest) (*SaleStatus, error) {
	return nil, errFakeNotKept
}

func (f *fakeCheckout) SaleStatus(context.Context, string) (*SaleStatus, error) {
	return nil, errFakeNotKept
}

func (f *fakeCheckout) OpenSales(context.Context) ([]*SaleStatus, error) { return nil, nil }

func (f *fakeCheckout) VoidSale(context.Context, string, string, string) (*SaleStatus, error) {
	return nil, errFakeNotKept
}

func (f *fakeCheckout) DropSale(context.Context, string, string, string) (*SaleStatus, error) {
	return nil, errFakeNotKept
}

func (f *fakeCheckout) UPIRequest(context.Context, string, pos.Paise) (UPIRequest, error) {
	return UPIRequest{}, errFakeNotKept
}

func (f *fakeCheckout) SaleEMIOffers(context.Context, string, pos.Paise) ([]EMIOffer, error) {
	return nil, errFakeNotKept
}

// StaffAdmin: the staff list as signed in with; no change is kept.

func (f *fakeStaffer) StaffList(context.Context) ([]StaffInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var list []StaffInfo
	for _, m := range f.staff {
		list = append(list, StaffInfo{ID: m.ID, Name: m.Name, Role: m.Role})
	}
	return list, nil
}

func (f *fakeStaffer) AddStaffBy(context.Context, string, Role, string, string) (StaffMember, error) {
	return StaffMember{}, errFakeNotKept
}

func (f *fakeStaffer) ChangeStaff(context.Context, string, pos.StaffChange, string, string) (StaffInfo, error) {
	return StaffInfo{}, errFakeNotKept
}

func (f *fakeStaffer) SetStaffLimits(context.Context, string, *pos.StaffLimits, string) (StaffInfo, error) {
	return StaffInfo{}, errFakeNotKept
}

// IMEIs: every IMEI is free and no sale carries one.

func (f *fakeStockroom) CheckIMEIFree(_ context.Context, imei string) error {
	return f.stockCheck(imei)
}

func (f *fakeStockroom) FindIMEI(context.Context, string) ([]OrderSummary, error) { return nil, nil }

// Books: the business day is the clock's; a day closes accepting the unknown
// payments as CloseDay closes it.

func (f *fakeBooks) BusinessDate() time.Time { return f.clock() }

// clock is the fake's time: the harness's clock when it set one.
func (f *fakeTill) clock() time.Time {
	if f.now != nil {
		return f.now()
	}
	return time.Now()
}
