package pos

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"galla/receipts"
)

// OrderSummary is one order of the journal as the journal screen lists it, with
// what pos decides of it: whether it can be refunded and between which amounts.
type OrderSummary struct {
	OrderID   string
	At        time.Time
	State     OrderState
	Tender    TenderKind
	Amount    Paise
	Refunded  Paise
	Cashier   string
	ReceiptNo string
	Detail    string // card brand and last four, EMI plan
	CardLast4 string
	// Refundable is the most that can be refunded now, MinRefund the least; both
	// 0 with NoRefund saying why when the order cannot be refunded.
	Refundable Paise
	MinRefund  Paise
	NoRefund   string
}

// OrderEvent is one journaled event of an order.
type OrderEvent struct {
	At     time.Time
	Kind   string
	Detail string
}

// summaryOf is what the journal screen shows of o.
func summaryOf(o *Order) OrderSummary {
	s := OrderSummary{OrderID: o.ID, At: o.Opened, State: o.State, Tender: o.Tender, Amount: o.Amount,
		Refunded: o.Refunded, Cashier: o.Staff, CardLast4: o.CardLast4}
	s.ReceiptNo = o.NumberText()
	if o.CardLast4 != "" {
		s.Detail = o.CardBrand + " •••• " + o.CardLast4
	}
	if o.EMI != nil {
		s.Detail = strings.TrimPrefix(s.Detail+", "+PlanName(o.EMI), ", ")
	}
	s.Refundable, s.MinRefund, s.NoRefund = refundRange(o)
	return s
}

// refundRange is the range of a refund of o that Refund accepts now, or why there
// is none.
func refundRange(o *Order) (most, least Paise, no string) {
	switch {
	case !o.State.Paid() || o.State == StateRefunded:
		return 0, 0, "Only a paid order can be refunded; this one is " + string(o.State) + "."
	case o.PendingRefund() != nil:
		return 0, 0, "A refund of this order is still pending; its outcome is checked first."
	}
	most, least = o.Refundable(), Paise(1)
	if o.Tender != TenderCash {
		least = MinRefund
	}
	if most < least {
		return 0, 0, "What is left of this order (" + most.String() + ") is below the smallest refund the payment service takes (" + least.String() + ")."
	}
	return most, least, ""
}

// Orders lists the orders of day.
func (t *Till) Orders(ctx context.Context, day time.Time) ([]OrderSummary, error) {
	list, err := t.j.OrdersByDay(ctx, ToDay(day))
	if err != nil {
		return nil, err
	}
	out := make([]OrderSummary, 0, len(list))
	for _, o := range list {
		out = append(out, summaryOf(o))
	}
	return out, nil
}

// Order returns the journaled order with this merchant order id.
func (t *Till) Order(ctx context.Context, id string) (*Order, error) { return t.eng.Order(ctx, id) }

// History lists an order's events.
func (t *Till) History(ctx context.Context, orderID string) ([]OrderEvent, error) {
	evs, err := t.j.Events(ctx, orderID)
	if err != nil {
		return nil, err
	}
	out := make([]OrderEvent, 0, len(evs))
	for _, ev := range evs {
		d := EventSentence(ev)
		if ev.Staff != "" {
			d += " — " + t.staffName(ctx, ev.Staff)
		}
		out = append(out, OrderEvent{At: ev.Time, Kind: string(ev.Kind), Detail: d})
	}
	return out, nil
}

// RefundOrder refunds all or part of a paid order on a manager's PIN (the engine's
// Refund).
func (t *Till) RefundOrder(ctx context.Context, r RefundRequest) (*RefundResult, error) {
	if err := t.gate(); err != nil {
		return nil, err
	}
	res, err := t.eng.Refund(ctx, r)
	if errors.Is(err, ErrWrongPIN) || err == nil || res != nil {
		_ = t.counted(err)
	}
	if err != nil {
		t.noteErr(err)
	}
	return res, err
}

// Refund refunds amount of a paid order, authorised by a manager's PIN. A verified
// refund has Verified set; a refused one is an error; otherwise its outcome is
// still pending.
func (t *Till) Refund(ctx context.Context, orderID string, amount Paise, pin string) (PayOutcome, error) {
	res, err := t.RefundOrder(ctx, RefundRequest{OrderID: orderID, Amount: amount, PIN: pin})
	if err != nil {
		return PayOutcome{}, err
	}
	out := PayOutcome{OrderID: orderID, Amount: amount, Reason: res.Reason, Order: res.Order}
	switch res.Status {
	case RefundDone:
		out.Verified = true
	case RefundFailed:
		return out, sentenceErr("The refund was refused: " + res.Reason)
	}
	if res.Order != nil {
		out.State = res.Order.State
	}
	return out, nil
}

// Report is day's report (DayLayout): the X report, or the sealed Z once closed.
func (t *Till) Report(ctx context.Context, day string) (*Report, error) {
	return t.eng.Report(ctx, day)
}

// XReport renders day's X report as text.
func (t *Till) XReport(ctx context.Context, day time.Time) (string, error) {
	r, err := t.eng.Report(ctx, ToDay(day))
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	err = r.WriteText(&b)
	return b.String(), err
}

// CloseDayResult is a day close: its Z report, the sentence of what happened to
// the backup, and of the Z report's print.
type CloseDayResult struct {
	Report *Report
	Note   string // where the backup went, or that it failed (the day stays closed)
	// Checked receives the result of the full check of the journal as the Z
	// sealed it (its backup), run in the background (DESIGN.md section 4), and
	// is closed; nil when there is no backup to check.
	Checked <-chan error
}

// BackupVerifier checks a backup of the journal whole: pages, hash chain, every
// derived record against a replay (pos/journal's VerifyFile).
type BackupVerifier interface {
	VerifyBackup(ctx context.Context, path string) error
}

// CloseDayWithBackup takes the Z report of day on a manager's PIN and then writes
// the hot backup of the journal that DESIGN.md section 4 asks for at day close. The
// note says where the backup went, or that it failed: the day stays closed either
// way.
func (t *Till) CloseDayWithBackup(ctx context.Context, day, pin string) (*CloseDayResult, error) {
	if err := t.gate(); err != nil {
		return nil, err
	}
	rep, err := t.eng.CloseDay(ctx, day, pin)
	if errors.Is(err, ErrWrongPIN) || err == nil {
		_ = t.counted(err)
	}
	if err != nil {
		return nil, err
	}
	res := &CloseDayResult{Report: rep}
	if t.cfg.Backups == nil {
		res.Note = fmt.Sprintf("Day %s is closed with Z report no. %d.", day, rep.ZNo)
		return res, nil
	}
	path, err := t.cfg.Backups.BackupDay(day)
	if err != nil {
		res.Note = fmt.Sprintf("Day %s is closed with Z report no. %d, but the backup could not be written (%v); copy the data folder by hand.", day, rep.ZNo, err)
		return res, nil
	}
	res.Note = fmt.Sprintf("Day %s is closed with Z report no. %d; backup written to %s.", day, rep.ZNo, path)
	if v, ok := t.cfg.Backups.(BackupVerifier); ok {
		checked := make(chan error, 1)
		res.Checked = checked
		go func() {
			defer close(checked)
			err := v.VerifyBackup(context.WithoutCancel(ctx), path)
			if err != nil {
				t.mu.Lock()
				t.fullCheck = err
				t.mu.Unlock()
			}
			checked <- err
		}()
	}
	return res, nil
}

// CloseDay closes day with a Z report, authorised by a manager's PIN, prints it
// when a receipt printer is set up, and renders the report as text with what
// happened to the backup and the print.
func (t *Till) CloseDay(ctx context.Context, day time.Time, pin string) (string, error) {
	res, err := t.CloseDayWithBackup(ctx, ToDay(day), pin)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	err = res.Report.WriteText(&b)
	fmt.Fprintf(&b, "\n%s\n", res.Note)
	// The Z report prints at once on the receipt printer, when there is one.
	if msg := t.PrintZ(ctx, res.Report); msg != "" {
		fmt.Fprintf(&b, "%s\n", msg)
	}
	return b.String(), err
}

// ExportCSV writes day's orders as CSV, one row per order.
func (t *Till) ExportCSV(ctx context.Context, day time.Time, w io.Writer) error {
	r, err := t.eng.Report(ctx, ToDay(day))
	if err != nil {
		return err
	}
	return r.WriteCSV(w)
}

// OrderFromQR checks a receipt's QR text with the terminal's key and returns its
// order id.
func (t *Till) OrderFromQR(text string) (string, error) {
	p, err := receipts.ParseQR(t.cfg.QRKey, text)
	if err != nil {
		return "", sentenceErr("This code is not a receipt of this terminal.")
	}
	return p.MerchantOrderID, nil
}
