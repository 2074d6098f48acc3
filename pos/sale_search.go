package pos

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The journal screen lists sales, not payment orders: a split sale's tenders
// are each an order of their own (docs/adr/0005-split-tender.md), but a
// cashier looks for the sale, so each is listed under its sale (saleView), and
// the search finds a sale by what is printed on its documents or known of its
// customer.

// searchDays is how far back, in days, the search by customer phone or card
// last four reads the journal's day index.
const searchDays = 400

// searchMax is how many sales one search returns at most, newest first.
const searchMax = 50

// Orders lists day's sales for the journal screen: one row per sale, in the
// order they began, each split sale followed at once by its tenders (their
// Sale names it), read through saleView. A tender journaled on day whose sale
// began on another day is listed under that sale, which is listed too.
func (bs *Books) Orders(ctx context.Context, day time.Time) ([]OrderSummary, error) {
	list, err := bs.j.OrdersByDay(ctx, ToDay(day))
	if err != nil {
		return nil, err
	}
	out := make([]OrderSummary, 0, len(list))
	done := map[string]bool{}
	for _, o := range list {
		if o.Sale != "" {
			if done[o.Sale] {
				continue // listed under its sale
			}
			s, err := bs.j.Order(ctx, o.Sale)
			if errors.Is(err, ErrOrderNotFound) {
				out = append(out, summaryOf(o, bs.cfg.Terminal)) // a tender whose sale is not journaled: shown alone
				done[o.ID] = true
				continue
			}
			if err != nil {
				return nil, err
			}
			o = s
		}
		if done[o.ID] {
			continue
		}
		rows, err := bs.saleRows(ctx, o)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			done[r.OrderID] = true
		}
		out = append(out, rows...)
	}
	return oneTenderSummaries(out, list), nil
}

// saleRows is sale o as the journal lists it: its own row, then, for a split
// sale, one row per tender that reached the journal.
func (bs *Books) saleRows(ctx context.Context, o *Order) ([]OrderSummary, error) {
	st, err := saleView(o, func(id string) (*Order, error) {
		t, err := bs.j.Order(ctx, id)
		if errors.Is(err, ErrOrderNotFound) {
			return nil, nil
		}
		return t, err
	})
	if err != nil {
		return nil, err
	}
	rows := []OrderSummary{summaryOf(o, bs.cfg.Terminal)}
	if !st.split {
		return rows, nil
	}
	var kinds []string
	for _, t := range st.Tenders {
		if t.Order == nil {
			continue
		}
		rows = append(rows, summaryOf(t.Order, bs.cfg.Terminal))
		kinds = append(kinds, string(t.Kind)+" "+t.Amount.String())
	}
	if len(kinds) > 0 {
		rows[0].Detail = strings.TrimPrefix(rows[0].Detail+", "+strings.Join(kinds, " + "), ", ")
	}
	return rows, nil
}

// FindSales finds the sales the journal screen's search names, newest first,
// each as its sale's row (a tender found gives its sale): a document number,
// invoice or credit note, with or without the counter and the financial year
// ("T1/2627/000002", "2627/000002", "C2627/00001", or "2" in this financial
// year's series); an IMEI; a customer's mobile number; a card's last four
// digits. None found is an empty list; a number of another counter is refused
// with a sentence.
func (bs *Books) FindSales(ctx context.Context, text string) ([]OrderSummary, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, nil
	}
	var ids []string
	add := func(id string) {
		if id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if CheckIMEI(text) == nil {
		im := IMEIs{bs.core}
		found, err := im.FindIMEI(ctx, text)
		if err != nil {
			return nil, err
		}
		for _, o := range found {
			add(o.OrderID)
		}
		return bs.salesOf(ctx, ids)
	}
	docs, err := bs.findDocuments(ctx, text)
	if err != nil {
		return nil, err
	}
	for _, id := range docs {
		add(id)
	}
	digits := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		if r == ' ' || r == '-' || r == '+' {
			return -1
		}
		return 'x'
	}, text)
	phone := mobileNumber(digits)
	if phone != "" || len(digits) == 4 && allDigits(digits) {
		err := bs.scanDays(ctx, func(o *Order) {
			switch {
			case phone != "" && o.Buyer != nil && o.Buyer.Phone == phone:
				add(o.ID)
			case len(digits) == 4 && o.CardLast4 == digits:
				add(o.ID)
			}
		}, func() bool { return len(ids) >= searchMax })
		if err != nil {
			return nil, err
		}
	}
	return bs.salesOf(ctx, ids)
}

// mobileNumber is digits as an Indian mobile number of ten digits (a leading
// 0 or 91 dropped), or "" when it is none.
func mobileNumber(digits string) string {
	if !allDigits(digits) {
		return ""
	}
	switch {
	case len(digits) == 12 && strings.HasPrefix(digits, "91"):
		digits = digits[2:]
	case len(digits) == 11 && digits[0] == '0':
		digits = digits[1:]
	}
	if len(digits) != 10 || digits[0] < '6' {
		return ""
	}
	return digits
}

// findDocuments reads text as a document number and returns the orders it
// names. A number alone ("2", "000002") is looked up in this financial year's
// series of invoices, bills of supply and credit notes.
func (bs *Books) findDocuments(ctx context.Context, text string) ([]string, error) {
	var series []string
	var no uint64
	parts := strings.Split(strings.ToUpper(text), "/")
	switch {
	case len(parts) == 1 && allDigits(parts[0]) && len(parts[0]) <= 6:
		n, err := strconv.ParseUint(parts[0], 10, 64)
		if err != nil || n == 0 {
			return nil, nil
		}
		now := bs.eng.Now()
		no = n
		for _, k := range []DocKind{DocInvoice, DocBillOfSupply, DocCreditNote} {
			series = append(series, SeriesOf(k, now))
		}
	default:
		if len(parts) == 3 && !strings.EqualFold(parts[0], bs.cfg.Terminal) {
			return nil, sentenceErr("Document " + text + " is of counter " + parts[0] + ", not of this counter (" + bs.cfg.Terminal + "): look it up there.")
		}
		s, n, ok := ParseDocNumber(strings.Join(parts, "/"))
		if !ok {
			return nil, nil
		}
		series, no = []string{s}, n
	}
	var ids []string
	for _, s := range series {
		id, _, err := bs.j.FindDocument(ctx, s, no)
		switch {
		case errors.Is(err, ErrOrderNotFound):
		case err != nil:
			return nil, err
		default:
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// scanDays calls each with every order of the business days from today back
// searchDays days, newest day first, until enough reports true.
func (bs *Books) scanDays(ctx context.Context, each func(*Order), enough func() bool) error {
	day, err := time.ParseInLocation(DayLayout, bs.eng.Today(), bs.eng.Now().Location())
	if err != nil {
		return err
	}
	day = day.Add(12 * time.Hour)
	for range searchDays {
		list, err := bs.j.OrdersByDay(ctx, ToDay(day))
		if err != nil {
			return err
		}
		for i := len(list) - 1; i >= 0; i-- {
			each(list[i])
		}
		if enough() {
			return nil
		}
		day = day.AddDate(0, 0, -1)
	}
	return nil
}

// salesOf returns the sale row of each order (a tender's sale), newest first,
// each sale once.
func (bs *Books) salesOf(ctx context.Context, ids []string) ([]OrderSummary, error) {
	var out []OrderSummary
	seen := map[string]bool{}
	for _, id := range ids {
		o, err := bs.j.Order(ctx, id)
		if errors.Is(err, ErrOrderNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if o.Sale != "" {
			if s, err := bs.j.Order(ctx, o.Sale); err == nil {
				o = s
			} else if !errors.Is(err, ErrOrderNotFound) {
				return nil, err
			}
		}
		if seen[o.ID] {
			continue
		}
		seen[o.ID] = true
		out = append(out, summaryOf(o, bs.cfg.Terminal))
	}
	slices.SortStableFunc(out, func(a, b OrderSummary) int { return b.At.Compare(a.At) })
	if len(out) > searchMax {
		out = out[:searchMax]
	}
	return out, nil
}
