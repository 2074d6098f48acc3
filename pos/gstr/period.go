package gstr

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Period is a return period: one month (a monthly filer's GSTR-1, or the
// Invoice Furnishing Facility of a quarterly filer's first or second month) or
// a quarter of three months (a GSTR-1 under the QRMP scheme, CGST Rule 59(1)).
type Period struct {
	First  Month // the first month
	Months int   // 1 or 3
}

// MonthPeriod is the period of one month.
func MonthPeriod(m Month) Period { return Period{First: m, Months: 1} }

// ErrBadQuarter is returned by ParseQuarter for text that is not a quarter.
var ErrBadQuarter = errors.New("gstr: a quarter is written YYYY-Qn, n from 1 to 4")

// ParseQuarter reads a quarter written YYYY-Qn: the calendar quarters the GST
// quarters are, Q1 January–March, Q2 April–June, Q3 July–September, Q4
// October–December ("2026-Q3" is July to September 2026, return period
// 092026).
func ParseQuarter(s string) (Period, error) {
	y, q, ok := strings.Cut(strings.ToUpper(strings.TrimSpace(s)), "-Q")
	var year, n int
	if !ok || len(y) != 4 || len(q) != 1 {
		return Period{}, ErrBadQuarter
	}
	if _, err := fmt.Sscanf(y+" "+q, "%d %d", &year, &n); err != nil || n < 1 || n > 4 {
		return Period{}, ErrBadQuarter
	}
	return Period{First: Month{Year: year, Month: time.Month(3*(n-1) + 1)}, Months: 3}, nil
}

// QuarterOf is the quarter m falls in.
func QuarterOf(m Month) Period {
	return Period{First: Month{Year: m.Year, Month: time.Month(3*((int(m.Month)-1)/3) + 1)}, Months: 3}
}

// Last is the period's last month, whose MMYYYY is the return period (fp).
func (p Period) Last() Month {
	t := time.Date(p.First.Year, p.First.Month+time.Month(max(p.Months, 1)-1), 1, 0, 0, 0, 0, time.UTC)
	return Month{Year: t.Year(), Month: t.Month()}
}

// Contains reports whether t's calendar date falls in p.
func (p Period) Contains(t time.Time) bool {
	m := Month{Year: t.Year(), Month: t.Month()}
	return !m.before(p.First.Year, p.First.Month) && !p.Last().before(m.Year, m.Month)
}

// Days returns the first and the last day of p, at midnight in loc.
func (p Period) Days(loc *time.Location) (first, last time.Time) {
	first, _ = p.First.Days(loc)
	_, last = p.Last().Days(loc)
	return first, last
}

// String writes p as YYYY-MM for a month and YYYY-Qn for a quarter.
func (p Period) String() string {
	if p.Months == 3 && (int(p.First.Month)-1)%3 == 0 {
		return fmt.Sprintf("%04d-Q%d", p.First.Year, (int(p.First.Month)-1)/3+1)
	}
	return p.First.String()
}

// ErrIFFMonth refuses an IFF for the last month of a quarter, which the
// quarter's GSTR-1 covers.
var ErrIFFMonth = errors.New("gstr: the Invoice Furnishing Facility is for the first and second months of a quarter")

// IFF builds the Invoice Furnishing Facility of month for a quarterly (QRMP)
// filer: its B2B invoices (table 4A) and the credit notes to registered buyers
// (table 9B), nothing else. Only the first two months of a quarter have one.
func IFF(month Month, shopGSTIN string, docs []Document) (*Return, error) {
	if QuarterOf(month).Last() == month {
		return nil, ErrIFFMonth
	}
	r, err := GSTR1(month, shopGSTIN, docs)
	if err != nil {
		return nil, err
	}
	return &Return{GSTIN: r.GSTIN, FP: r.FP, Version: r.Version, Hash: r.Hash, B2B: r.B2B, CDNR: r.CDNR}, nil
}

// furnished reports whether d went in an IFF of quarter q: a B2B invoice or
// a credit note to a registered buyer dated in the quarter's first or second
// month. The quarter's GSTR-1 leaves it out of b2b and cdnr (the portal has
// it), and still counts it in doc_issue and the HSN summary, which the IFF
// does not have.
func furnished(q Period, d Document) bool {
	return q.Months == 3 && d.Registered() && (d.Kind == Invoice || d.Kind == CreditNote) &&
		(Month{Year: d.Date.Year(), Month: d.Date.Month()}) != q.Last()
}
