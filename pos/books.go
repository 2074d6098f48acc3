package pos

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"galla/receipts"
)

// Books is the counter's books: the journal's orders of a day and each one's
// history, the X report, the business day and its close with the Z report and
// the backup, and the day's orders exported as CSV. The close passes the
// Crew's count of wrong manager PINs and waits for the Drawer's shifts to be
// closed.
type Books struct{ *core }

// OrderSummary is one order of the journal as the journal screen lists it, with
// what pos decides of it: whether it can be refunded and between which amounts.
type OrderSummary struct {
	OrderID   string
	At        time.Time
	Day       string // the business day the sale is listed under (DayLayout)
	State     OrderState
	Tender    TenderKind
	Amount    Paise
	Refunded  Paise
	Cashier   string
	ReceiptNo string
	Detail    string // card brand and last four, EMI plan
	CardLast4 string
	// Sale is, for a tender of a split sale, that sale's order id.
	Sale string
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

// summaryOf is what the journal screen shows of o, its document number printed
// with terminal.
func summaryOf(o *Order, terminal string) OrderSummary {
	s := OrderSummary{OrderID: o.ID, At: o.Opened, Day: o.Day, State: o.State, Tender: o.Tender, Amount: o.Amount,
		Refunded: o.Refunded, Cashier: o.Staff, CardLast4: o.CardLast4, Sale: o.Sale}
	s.ReceiptNo = o.Number(terminal)
	if o.CardLast4 != "" {
		s.Detail = o.CardBrand + " •••• " + o.CardLast4
	}
	if o.EMI != nil {
		s.Detail = strings.TrimPrefix(s.Detail+", "+PlanName(o.EMI), ", ")
	}
	s.Refundable, s.MinRefund, s.NoRefund = refundRange(o)
	if o.Cancelled != nil {
		s.State, s.Refundable, s.MinRefund = StatusCancelled, 0, 0
		s.NoRefund = "This invoice is cancelled: " + o.Cancelled.Reason + "."
	}
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
	if RefundDestination(o, "") == RefundToCard {
		least = MinRefund // only the payment service has a smallest refund
	}
	if most < least {
		return 0, 0, "What is left of this order (" + most.String() + ") is below the smallest refund the payment service takes (" + least.String() + ")."
	}
	return most, least, ""
}

// Order returns the journaled order with this merchant order id.
func (bs *Books) Order(ctx context.Context, id string) (*Order, error) { return bs.eng.Order(ctx, id) }

// History lists an order's events.
func (bs *Books) History(ctx context.Context, orderID string) ([]OrderEvent, error) {
	evs, err := bs.j.Events(ctx, orderID)
	if err != nil {
		return nil, err
	}
	out := make([]OrderEvent, 0, len(evs))
	for _, ev := range evs {
		d := EventSentence(ev, bs.cfg.Terminal)
		if ev.Staff != "" {
			d += " — " + bs.staffName(ctx, ev.Staff)
		}
		out = append(out, OrderEvent{At: ev.Time, Kind: string(ev.Kind), Detail: d})
	}
	return out, nil
}

// Report is day's report (DayLayout): the X report, or the sealed Z once closed.
func (bs *Books) Report(ctx context.Context, day string) (*Report, error) {
	return bs.eng.Ledger.Report(ctx, day)
}

// XReport renders the X report of day's open period as text: after a Z report
// of the date, what was sold since (ADR 0010).
func (bs *Books) XReport(ctx context.Context, day time.Time) (string, error) {
	r, err := bs.eng.Ledger.XReport(ctx, ToDay(day))
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
	// Printed is what printing the Z said (CloseDayRequest.Print); "" when it
	// was not asked or there is no printer.
	Printed string
	// OpenSales are the split sales still open when the day closed (no
	// invoice yet): each is finished or voided on a later day.
	OpenSales []*SaleStatus
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

// BackupSpace is what the backup directory of the journal holds: its files (the
// day backups and any other copy kept there) and their size.
type BackupSpace struct {
	Files int
	Bytes int64
	// Clear names the files among them that hold customers' details in
	// clear: copies made before the journal sealed those details (a build
	// before journal schema 5), which the keeping rule may keep for years
	// (a month-end, a year-end, the copy taken before the migration).
	Clear []string
}

// String reads "17 files, 4.2 GB".
func (s BackupSpace) String() string {
	files := "files"
	if s.Files == 1 {
		files = "file"
	}
	return fmt.Sprintf("%d %s, %s", s.Files, files, SizeText(s.Bytes))
}

// ClearText names the backups that hold customers' details in clear (Clear)
// and says what to do about them, a sentence; "" when there are none.
func (s BackupSpace) ClearText() string {
	switch n := len(s.Clear); {
	case n == 1:
		return fmt.Sprintf("The backup %s was made before the customers' details were sealed and holds them in clear: a manager seals it with galla journal seal-backups (docs/security.md).", s.Clear[0])
	case n > 1:
		names := strings.Join(s.Clear[:min(n, 3)], ", ")
		if n > 3 {
			names += fmt.Sprintf(" and %d more", n-3)
		}
		return fmt.Sprintf("%d backups (%s) were made before the customers' details were sealed and hold them in clear: a manager seals them with galla journal seal-backups (docs/security.md).", n, names)
	}
	return ""
}

// BackupPrune is what a day close removed from the backups under the keeping
// rule (pos/journal's PruneBackups), and what is kept after.
type BackupPrune struct {
	Removed []string // the file names removed
	Freed   int64    // their size
	Kept    BackupSpace
	// Discarded says why the next base being built from the backups (a copy
	// of the newest base made a chunk a close-day) was discarded at the day's
	// backup, if it was, as backups.log says it.
	Discarded []string
}

// Line is the line of the Z report's note on the backups kept, with the
// backups that hold customers' details in clear named (ClearText) and a next
// base discarded (Discarded).
func (p BackupPrune) Line() string {
	var line string
	if len(p.Removed) == 0 {
		line = fmt.Sprintf("Backups kept: %s.", p.Kept)
	} else {
		copies := "copies"
		if len(p.Removed) == 1 {
			copies = "copy"
		}
		line = fmt.Sprintf("Backups: %d old %s removed by the keeping rule (%s freed); kept %s.", len(p.Removed), copies, SizeText(p.Freed), p.Kept)
	}
	for _, why := range p.Discarded {
		line += fmt.Sprintf(" The next base being built from the backups was discarded: %s; the day's backup was written without it, and it is started again when due (backups.log).", why)
	}
	if clear := p.Kept.ClearText(); clear != "" {
		line += " " + clear
	}
	return line
}

// BackupKeeper keeps the day backups by the keeping rule (every day of the
// last two weeks, every month-end of the last two years, every financial-year
// end) and says the space they use; pos/journal implements it.
type BackupKeeper interface {
	// PruneBackups removes the backups the rule no longer keeps, counted back
	// from day, the day being closed.
	PruneBackups(day string) (BackupPrune, error)
	// BackupSpace returns what the backup directory holds.
	BackupSpace() (BackupSpace, error)
}

// SizeText writes a number of bytes for people: "512 B", "3.4 MB", "12.0 GB"
// (powers of 1000).
func SizeText(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, suffix := float64(n), ""
	for _, s := range []string{"kB", "MB", "GB", "TB"} {
		f /= unit
		suffix = s
		if f < unit {
			break
		}
	}
	return fmt.Sprintf("%.1f %s", f, suffix)
}

// BackupSpace returns the space the journal's backups use (Settings shows it);
// ok is false when the terminal keeps no backups it can measure.
func (bs *Books) BackupSpace() (space BackupSpace, ok bool, err error) {
	k, ok := bs.cfg.Backups.(BackupKeeper)
	if !ok {
		return BackupSpace{}, false, nil
	}
	space, err = k.BackupSpace()
	return space, err == nil, err
}

// BusinessDay returns the business day open at now (DayLayout): the calendar date
// of now in its own location (ADR 0010). A Z report closes the period of its
// date; what is sold after it on the same date still carries that date and
// belongs to the date's next period, which a later Z of the date closes. j is
// not read; it stays in the signature for the callers that name the journal.
func BusinessDay(_ context.Context, _ Journal, now time.Time) string {
	return ToDay(now)
}

// BusinessDay returns the business day open now (DayLayout).
func (bs *Books) BusinessDay() string { return bs.eng.Today() }

// BusinessDate returns the business day open now as a date at noon of the till's
// time zone, for screens that pick a day.
func (bs *Books) BusinessDate() time.Time {
	now := bs.eng.Now()
	d, err := time.ParseInLocation(DayLayout, bs.eng.Today(), now.Location())
	if err != nil {
		return now
	}
	return d.Add(12 * time.Hour)
}

// ErrUnknownAtClose refuses a Z report while a payment's outcome is unknown.
var ErrUnknownAtClose = errors.New("payments are still unknown")

// UnknownPaymentsError lists the payments whose outcome is unknown when a Z
// report is asked for; it matches ErrUnknownAtClose.
type UnknownPaymentsError struct {
	Orders []OrderSummary
	// OpenSales are the split sales still open; an unknown payment that is a
	// tender of one is named with it.
	OpenSales []*SaleStatus
}

func (e *UnknownPaymentsError) Error() string {
	return fmt.Sprintf("pos: close day: %d %v", len(e.Orders), ErrUnknownAtClose)
}

// Is makes an *UnknownPaymentsError match ErrUnknownAtClose.
func (e *UnknownPaymentsError) Is(target error) bool { return target == ErrUnknownAtClose }

// Sentence names the payments and the two ways on.
func (e *UnknownPaymentsError) Sentence() string {
	var ids []string
	for _, o := range e.Orders {
		id := o.At.Format("2 Jan 15:04") + " " + string(o.Tender) + " " + o.Amount.String()
		if o.Sale != "" {
			id += ", a tender of open sale " + o.Sale
			for _, st := range e.OpenSales {
				if st.Sale.ID == o.Sale {
					id += " (" + saleWords(st) + ")"
				}
			}
		}
		ids = append(ids, id)
	}
	return fmt.Sprintf("The day cannot be closed yet: the outcome of %d payment(s) is not known: %s. Check them now (Reconcile), or a manager may accept listing them as unknown on the Z report.",
		len(e.Orders), strings.Join(ids, ", "))
}

// UnknownList is the payload (Data) of day.unknown_accepted: the business day and
// the payments still unknown that a manager accepted at its Z report.
type UnknownList struct {
	Day    string           `json:"day"`
	Orders []UnknownPayment `json:"orders"`
}

// UnknownPayment is one payment of an UnknownList.
type UnknownPayment struct {
	OrderID string     `json:"order_id"`
	Amount  Paise      `json:"amount"`
	Tender  TenderKind `json:"tender"`
	State   OrderState `json:"state"`
}

// CloseDayRequest asks for the Z report of a business day.
type CloseDayRequest struct {
	Day string // DayLayout; "" is the business day open now
	PIN string // a manager's
	// AcceptUnknown is the manager accepting that the payments still unknown
	// are listed as such: the acceptance is journaled with the list.
	AcceptUnknown bool
	// Print prints the Z at once on the receipt printer, when there is one.
	Print bool
}

// ErrShiftOpenAtClose refuses a Z report while a shift is open.
var ErrShiftOpenAtClose = errors.New("a shift is still open")

// CloseDay takes the Z report of a business day (all its shifts) on a
// manager's PIN: it refuses while a shift is open, and while a payment is
// unknown unless the manager accepts listing them (r.AcceptUnknown); then it
// writes the hot backup of the journal that DESIGN.md section 4 asks for (the
// note says where it went, or that it failed: the day stays closed either way)
// and the date's next period starts at once (ADR 0010). It is the one way a day closes:
// the window and galla close-day call it, and render the result with ZText.
// With r.Print the Z prints at once on the receipt printer, when there is one.
func (bs *Books) CloseDay(ctx context.Context, r CloseDayRequest) (*CloseDayResult, error) {
	res, err := bs.closeDay(ctx, r)
	if err == nil && r.Print {
		res.Printed = bs.docs.PrintZ(ctx, res.Report)
	}
	return res, err
}

// closeDay is CloseDay but for the print.
func (bs *Books) closeDay(ctx context.Context, r CloseDayRequest) (*CloseDayResult, error) {
	if err := bs.crew.gate(); err != nil {
		return nil, err
	}
	day, pin := r.Day, r.PIN
	if day == "" {
		day = bs.eng.Today()
	}
	if _, _, err := bs.eng.Ledger.NextPeriod(ctx, day); err != nil {
		return nil, err // a period is closed once, and only with a sale in it
	}
	if kept, _ := bs.drawer.keepsShifts(ctx); kept {
		if s, err := bs.drawer.CurrentShift(ctx); err == nil && s != nil {
			return nil, wrapf(ErrShiftOpenAtClose, "Shift %s is still open; close it with the counted cash before the Z report.", s.ID)
		}
	}
	un, err := bs.j.Unresolved(ctx)
	if err != nil {
		return nil, err
	}
	open, err := bs.checkout.OpenSales(ctx)
	if err != nil {
		return nil, err
	}
	if len(un) > 0 {
		if !r.AcceptUnknown {
			e := &UnknownPaymentsError{OpenSales: open}
			for _, o := range un {
				e.Orders = append(e.Orders, summaryOf(o, bs.cfg.Terminal))
			}
			return nil, e
		}
		mgr, err := bs.crew.authorise(ctx, pin)
		if err != nil {
			return nil, err
		}
		list := UnknownList{Day: day}
		for _, o := range un {
			list.Orders = append(list.Orders, UnknownPayment{OrderID: o.ID, Amount: o.Amount, Tender: o.Tender, State: o.State})
		}
		data, err := json.Marshal(list)
		if err != nil {
			return nil, err
		}
		if err := bs.audit(ctx, Event{Kind: EvUnknownAccepted, Staff: mgr.ID, Data: data}); err != nil {
			return nil, err
		}
	}
	rep, err := bs.eng.Ledger.CloseDay(ctx, day, pin)
	if errors.Is(err, ErrWrongPIN) || err == nil {
		_ = bs.crew.counted(err)
	}
	if err != nil {
		return nil, err
	}
	open = slices.DeleteFunc(open, func(st *SaleStatus) bool { return slices.Contains(rep.Dropped, st.Sale.ID) })
	res := &CloseDayResult{Report: rep, OpenSales: open}
	if bs.cfg.Backups == nil {
		res.Note = fmt.Sprintf("Day %s is closed with Z report no. %d.", day, rep.ZNo) + openSalesNote(open)
		return res, nil
	}
	path, err := bs.cfg.Backups.BackupDay(day)
	if err != nil {
		res.Note = fmt.Sprintf("Day %s is closed with Z report no. %d, but the backup could not be written (%v); copy the data folder by hand.", day, rep.ZNo, err) + openSalesNote(open)
		return res, nil
	}
	res.Note = fmt.Sprintf("Day %s is closed with Z report no. %d; backup written to %s.", day, rep.ZNo, path)
	if k, ok := bs.cfg.Backups.(BackupKeeper); ok {
		p, err := k.PruneBackups(day)
		if err != nil {
			res.Note += fmt.Sprintf(" Old backups could not all be removed (%v).", err)
		} else {
			res.Note += " " + p.Line()
		}
	}
	res.Note += openSalesNote(open)
	if v, ok := bs.cfg.Backups.(BackupVerifier); ok {
		checked := make(chan error, 1)
		res.Checked = checked
		go func() {
			defer close(checked)
			err := v.VerifyBackup(context.WithoutCancel(ctx), path)
			if err != nil {
				bs.mu.Lock()
				bs.fullCheck = err
				bs.mu.Unlock()
			}
			checked <- err
		}()
	}
	return res, nil
}

// ZText renders a closed day as the screen shows it: the Z report, the day's
// shifts, the note on the backup and what printing it said.
func (bs *Books) ZText(ctx context.Context, res *CloseDayResult) string {
	var b bytes.Buffer
	if err := res.Report.WriteText(&b); err != nil {
		fmt.Fprintf(&b, "%s\n", Sentence(err))
	}
	if st := bs.drawer.ShiftsText(ctx, res.Report.Day); st != "" {
		fmt.Fprintf(&b, "\n%s", st)
	}
	fmt.Fprintf(&b, "\n%s\n", res.Note)
	if res.Printed != "" {
		fmt.Fprintf(&b, "%s\n", res.Printed)
	}
	return b.String()
}

// ExportCSV writes day's orders as CSV, one row per order: the whole date,
// every period of it (Ledger.Report).
func (bs *Books) ExportCSV(ctx context.Context, day time.Time, w io.Writer) error {
	r, err := bs.eng.Ledger.Report(ctx, ToDay(day))
	if err != nil {
		return err
	}
	return r.WriteCSVFor(w, bs.cfg.Terminal)
}

// OrderFromQR checks a receipt's QR text with the terminal's key and returns its
// order id.
func (bs *Books) OrderFromQR(text string) (string, error) {
	p, err := receipts.ParseQR(bs.cfg.QRKey, text)
	if err != nil {
		return "", sentenceErr("This code is not a receipt of this terminal.")
	}
	return p.MerchantOrderID, nil
}
