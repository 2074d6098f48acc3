package web

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"galla/pos"
	"galla/store"
)

// Counter is a terminal's sync as the pages show it.
type Counter struct {
	ID       string
	State    string
	Reason   string
	Held     int64
	LastSeen *time.Time
	Alarms   int
	Lag      string // "4 min", "never"
}

// OrderRow is an order in a list.
type OrderRow struct {
	Terminal string
	OrderID  string
	Day      string
	State    string
	Tender   string
	Amount   pos.Paise
	Captured pos.Paise
	Refunded pos.Paise
	Tax      pos.Paise
	Document string
	Card     string
	Phone    string
	Staff    string
	Updated  *time.Time
}

// Override is a manager's override flagged on the pages.
type Override struct {
	Terminal string
	Seq      int64
	Day      string
	Staff    string
	What     string
	Detail   string
}

// DoubleSale is an IMEI sold by more than one paid order.
type DoubleSale struct {
	IMEI   string
	Orders string
}

func counters(ctx context.Context, db *store.DB, now time.Time) ([]Counter, error) {
	rs, err := db.Pool().Query(ctx, `SELECT t.id, t.state, coalesce(t.blocked_reason, ''), t.last_seq, t.last_seen_at,
		(SELECT count(*) FROM alarms a WHERE a.terminal_id = t.id AND a.cleared_at IS NULL)
		FROM terminals t WHERE t.enrolled_at IS NOT NULL ORDER BY length(t.id), t.id`)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (Counter, error) {
		var c Counter
		err := r.Scan(&c.ID, &c.State, &c.Reason, &c.Held, &c.LastSeen, &c.Alarms)
		return c, err
	})
	for i := range out {
		out[i].Lag = lag(out[i].LastSeen, now)
	}
	return out, err
}

// lag says how long ago t was, roughly.
func lag(t *time.Time, now time.Time) string {
	if t == nil {
		return "never synced"
	}
	d := now.Sub(*t)
	switch {
	case d < time.Minute:
		return "under a minute"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + " min"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + " h"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + " days"
}

const orderCols = `o.terminal_id, o.order_id, coalesce(to_char(o.day, 'YYYY-MM-DD'), ''), o.state, o.tender, o.amount, o.captured, o.refunded, o.tax,
	coalesce((SELECT min(d.number) FROM documents d WHERE d.terminal_id = o.terminal_id AND d.order_id = o.order_id AND d.kind = 'receipt'), ''),
	CASE WHEN o.card_last4 <> '' THEN o.card_brand || ' ' || o.card_last4 ELSE '' END, o.phone, o.staff, o.updated_at`

func scanOrders(rs pgx.Rows) ([]OrderRow, error) {
	return pgx.CollectRows(rs, func(r pgx.CollectableRow) (OrderRow, error) {
		var o OrderRow
		var amount, captured, refunded, tax int64
		err := r.Scan(&o.Terminal, &o.OrderID, &o.Day, &o.State, &o.Tender, &amount, &captured, &refunded, &tax, &o.Document, &o.Card, &o.Phone, &o.Staff, &o.Updated)
		o.Amount, o.Captured, o.Refunded, o.Tax = pos.Paise(amount), pos.Paise(captured), pos.Paise(refunded), pos.Paise(tax)
		return o, err
	})
}

// statesWhere is every state of an order (pos.AllOrderStates) for which rule
// holds, as the text[] a query compares with state = ANY($n): the pages' SQL
// takes its states from pos's rules and writes none of its own.
func statesWhere(rule func(pos.OrderState) bool) []string {
	var out []string
	for _, s := range pos.AllOrderStates() {
		if rule(s) {
			out = append(out, string(s))
		}
	}
	return out
}

// pending is a state whose payment's outcome is not known yet (a draft is
// never projected).
func pending(s pos.OrderState) bool { return !s.Final() }

// holdsGoods is a paid order whose goods were not all given back: one of two
// such orders with the same IMEI sold a phone twice.
func holdsGoods(s pos.OrderState) bool { return s.Paid() && s != pos.StateRefunded }

func unknownPayments(ctx context.Context, db *store.DB) ([]OrderRow, error) {
	rs, err := db.Pool().Query(ctx, "SELECT "+orderCols+" FROM orders o WHERE o.state = ANY($1) ORDER BY o.updated_at LIMIT 200", statesWhere(pending))
	if err != nil {
		return nil, err
	}
	return scanOrders(rs)
}

func overrides(ctx context.Context, db *store.DB) ([]Override, []DoubleSale, error) {
	rs, err := db.Pool().Query(ctx, `SELECT terminal_id, seq, coalesce(to_char(day, 'YYYY-MM-DD'), ''), staff, what, detail::text
		FROM overrides WHERE what = 'imei' ORDER BY day DESC NULLS LAST, terminal_id, seq LIMIT 100`)
	if err != nil {
		return nil, nil, err
	}
	ovs, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (Override, error) {
		var o Override
		var detail string
		err := r.Scan(&o.Terminal, &o.Seq, &o.Day, &o.Staff, &o.What, &detail)
		o.Detail = overrideText(detail)
		return o, err
	})
	if err != nil {
		return nil, nil, err
	}
	rs, err = db.Pool().Query(ctx, `SELECT u.imei, string_agg(u.terminal_id || ' ' || u.order_id, ', ' ORDER BY u.terminal_id, u.order_id)
		FROM imei_repeats r JOIN imei_units u USING (imei) JOIN orders o USING (terminal_id, order_id) WHERE o.state = ANY($1)
		GROUP BY u.imei HAVING count(*) > 1 ORDER BY u.imei LIMIT 100`, statesWhere(holdsGoods))
	if err != nil {
		return nil, nil, err
	}
	doubles, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (DoubleSale, error) {
		var d DoubleSale
		err := r.Scan(&d.IMEI, &d.Orders)
		return d, err
	})
	return ovs, doubles, err
}

var (
	digits = regexp.MustCompile(`^[0-9]+$`)
	phone  = regexp.MustCompile(`^(\+?91)?[6-9][0-9]{9}$`)
)

// searchKind says what q looks like: a document number, an IMEI, a card's
// last four, a phone number or an order id.
func searchKind(q string) string {
	switch {
	case strings.Contains(q, "/"):
		return "document"
	case digits.MatchString(q) && len(q) == 15:
		return "IMEI"
	case digits.MatchString(q) && len(q) == 4:
		return "card"
	case phone.MatchString(strings.ReplaceAll(q, " ", "")):
		return "phone"
	}
	return "order"
}

// search finds the orders q names (see searchKind).
func search(ctx context.Context, db *store.DB, q string) (string, []OrderRow, error) {
	q = strings.TrimSpace(q)
	kind := searchKind(q)
	var where string
	arg := any(q)
	switch kind {
	case "document":
		where = "(o.terminal_id, o.order_id) IN (SELECT d.terminal_id, d.order_id FROM documents d WHERE d.number = upper($1) OR substr(d.number, length(d.terminal_id) + 2) = upper($1))"
	case "IMEI":
		where = "EXISTS (SELECT 1 FROM imei_units u WHERE u.terminal_id = o.terminal_id AND u.order_id = o.order_id AND u.imei = $1)"
	case "card":
		where = "o.card_last4 = $1"
	case "phone":
		p := strings.ReplaceAll(q, " ", "")
		arg = p[len(p)-10:]
		where = "o.phone = $1"
	default:
		where = "o.order_id = $1"
	}
	rs, err := db.Pool().Query(ctx, "SELECT "+orderCols+" FROM orders o WHERE "+where+" ORDER BY o.opened_at DESC NULLS LAST LIMIT 200", arg)
	if err != nil {
		return kind, nil, err
	}
	out, err := scanOrders(rs)
	return kind, out, err
}

// Line is an order's line on its page.
type Line struct {
	SKU, Name, HSN string
	Qty            int
	UnitPrice      pos.Paise
	Discount       pos.Paise
	GSTRate        pos.Rate
	Amount, Tax    pos.Paise
	IMEIs          []string
}

// Payment is a money movement of an order.
type Payment struct {
	Seq       int64
	Kind      string
	Day       string
	Amount    pos.Paise
	Status    string
	PaymentID string
}

// Document is a printed document of an order.
type Document struct {
	Number, Kind, Day string
	Amount            pos.Paise
}

// Detail is one order's page.
type Detail struct {
	Order     OrderRow
	Reason    string
	Lines     []Line
	Payments  []Payment
	Documents []Document
}

func detail(ctx context.Context, db *store.DB, terminal, order string) (*Detail, error) {
	rs, err := db.Pool().Query(ctx, "SELECT "+orderCols+" FROM orders o WHERE o.terminal_id = $1 AND o.order_id = $2", terminal, order)
	if err != nil {
		return nil, err
	}
	os, err := scanOrders(rs)
	if err != nil || len(os) == 0 {
		return nil, err
	}
	d := &Detail{Order: os[0]}
	_ = db.Pool().QueryRow(ctx, "SELECT coalesce(snapshot->>'reason', '') FROM orders WHERE terminal_id = $1 AND order_id = $2", terminal, order).Scan(&d.Reason)
	rs, err = db.Pool().Query(ctx, `SELECT sku, name, hsn, qty, unit_price, discount, gst_rate, amount, tax, imeis FROM order_lines
		WHERE terminal_id = $1 AND order_id = $2 ORDER BY n`, terminal, order)
	if err != nil {
		return nil, err
	}
	if d.Lines, err = pgx.CollectRows(rs, func(r pgx.CollectableRow) (Line, error) {
		var l Line
		var up, disc, amount, tax int64
		var bp int
		err := r.Scan(&l.SKU, &l.Name, &l.HSN, &l.Qty, &up, &disc, &bp, &amount, &tax, &l.IMEIs)
		l.GSTRate = pos.RateBP(bp)
		l.UnitPrice, l.Discount, l.Amount, l.Tax = pos.Paise(up), pos.Paise(disc), pos.Paise(amount), pos.Paise(tax)
		return l, err
	}); err != nil {
		return nil, err
	}
	rs, err = db.Pool().Query(ctx, `SELECT seq, kind, coalesce(to_char(day, 'YYYY-MM-DD'), ''), amount, status, payment_id FROM payments
		WHERE terminal_id = $1 AND order_id = $2 ORDER BY seq`, terminal, order)
	if err != nil {
		return nil, err
	}
	if d.Payments, err = pgx.CollectRows(rs, func(r pgx.CollectableRow) (Payment, error) {
		var p Payment
		var amount int64
		err := r.Scan(&p.Seq, &p.Kind, &p.Day, &amount, &p.Status, &p.PaymentID)
		p.Amount = pos.Paise(amount)
		return p, err
	}); err != nil {
		return nil, err
	}
	rs, err = db.Pool().Query(ctx, `SELECT number, kind, coalesce(to_char(day, 'YYYY-MM-DD'), ''), amount FROM documents
		WHERE terminal_id = $1 AND order_id = $2 ORDER BY number`, terminal, order)
	if err != nil {
		return nil, err
	}
	d.Documents, err = pgx.CollectRows(rs, func(r pgx.CollectableRow) (Document, error) {
		var x Document
		var amount int64
		err := r.Scan(&x.Number, &x.Kind, &x.Day, &amount)
		x.Amount = pos.Paise(amount)
		return x, err
	})
	return d, err
}

// dayOrders are the orders of day (opened or paid that day), for the CSV.
func dayOrders(ctx context.Context, db *store.DB, day time.Time) ([]OrderRow, error) {
	rs, err := db.Pool().Query(ctx, "SELECT "+orderCols+` FROM orders o WHERE o.day = $1 OR o.paid_day = $1
		ORDER BY length(o.terminal_id), o.terminal_id, o.opened_at, o.order_id`, day)
	if err != nil {
		return nil, err
	}
	return scanOrders(rs)
}

// overrideText says an IMEI override's notes in words: the order, the IMEIs
// and why the store was not asked.
func overrideText(detail string) string {
	var m map[string]string
	if json.Unmarshal([]byte(detail), &m) != nil {
		return detail
	}
	var imeis []string
	for k, v := range m {
		if strings.HasPrefix(k, "imei") {
			imeis = append(imeis, v)
		}
	}
	slices.Sort(imeis)
	out := "order " + m["order_id"] + ", IMEI " + strings.Join(imeis, ", ")
	if m["cause"] != "" {
		out += " (" + m["cause"] + ")"
	}
	return out
}
