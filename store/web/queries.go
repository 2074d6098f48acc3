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
	Enrolled *time.Time
	LastSeen *time.Time
	Alarms   int
	// Lag says how long ago the counter last synced ("4 min"), or, for a
	// counter that has sent nothing yet, since when it is enrolled.
	Lag string
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
	Refunded pos.Paise // refunded on the order itself, at its own counter
	// Returned is what was given back for the order at any counter: its own
	// refunds and those of every return order citing it (another counter
	// taking its invoice back); ReturnedAt names the other counters.
	Returned   pos.Paise
	ReturnedAt string
	Tax        pos.Paise
	Document   string
	Card       string
	Phone      string
	Staff      string
	Updated    *time.Time
}

// Override is a manager's override flagged on the pages.
type Override struct {
	Terminal string
	Seq      int64
	Day      string
	At       time.Time
	Staff    string // the manager's name and id, or the id of a counter's own staff
	What     string
	Detail   string
}

// DoubleSale is an IMEI sold by more than one paid order.
type DoubleSale struct {
	IMEI   string
	Orders string
}

func counters(ctx context.Context, db *store.DB, now time.Time) ([]Counter, error) {
	rs, err := db.Pool().Query(ctx, `SELECT t.id, t.state, coalesce(t.blocked_reason, ''), t.last_seq, t.enrolled_at, t.last_seen_at,
		(SELECT count(*) FROM alarms a WHERE a.terminal_id = t.id AND a.cleared_at IS NULL)
		FROM terminals t WHERE t.enrolled_at IS NOT NULL ORDER BY length(t.id), t.id`)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (Counter, error) {
		var c Counter
		err := r.Scan(&c.ID, &c.State, &c.Reason, &c.Held, &c.Enrolled, &c.LastSeen, &c.Alarms)
		return c, err
	})
	for i, c := range out {
		switch {
		case c.Held == 0 || c.LastSeen == nil:
			// Enrolled, but no event of it has reached the store: say since when.
			out[i].Lag = "enrolled " + c.Enrolled.Local().Format("2 Jan 15:04") + ", nothing synced yet"
		default:
			out[i].Lag = ago(*c.LastSeen, now)
		}
	}
	return out, err
}

// ago says how long ago t was, roughly.
func ago(t time.Time, now time.Time) string {
	d := now.Sub(t)
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

// orderCols are an OrderRow's columns of orders o. The returns at other
// counters are the return orders citing o (the index orders_origin).
const orderCols = `o.terminal_id, o.order_id, coalesce(to_char(o.day, 'YYYY-MM-DD'), ''), o.state, o.tender, o.amount, o.captured, o.refunded,
	coalesce(x.refunded, 0), coalesce(x.at, ''), o.tax,
	coalesce((SELECT min(d.number) FROM documents d WHERE d.terminal_id = o.terminal_id AND d.order_id = o.order_id AND d.kind = 'receipt'), ''),
	CASE WHEN o.card_last4 <> '' THEN o.card_brand || ' ' || o.card_last4 ELSE '' END, o.phone, o.staff, o.updated_at`

// returnsJoin joins orders o to x: what the return orders citing o refunded,
// and their counters.
const returnsJoin = ` LEFT JOIN LATERAL (SELECT sum(r.refunded) AS refunded, string_agg(DISTINCT r.terminal_id, ', ') AS at FROM orders r
	WHERE r.origin_order <> '' AND r.origin_terminal = o.terminal_id AND r.origin_order = o.order_id
	AND r.refunded > 0) x ON true`

func scanOrders(rs pgx.Rows) ([]OrderRow, error) {
	return pgx.CollectRows(rs, func(r pgx.CollectableRow) (OrderRow, error) {
		var o OrderRow
		var amount, captured, refunded, elsewhere, tax int64
		err := r.Scan(&o.Terminal, &o.OrderID, &o.Day, &o.State, &o.Tender, &amount, &captured, &refunded, &elsewhere, &o.ReturnedAt, &tax,
			&o.Document, &o.Card, &o.Phone, &o.Staff, &o.Updated)
		o.Amount, o.Captured, o.Refunded, o.Tax = pos.Paise(amount), pos.Paise(captured), pos.Paise(refunded), pos.Paise(tax)
		o.Returned = o.Refunded + pos.Paise(elsewhere)
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
	rs, err := db.Pool().Query(ctx, "SELECT "+orderCols+" FROM orders o"+returnsJoin+" WHERE o.state = ANY($1) ORDER BY o.updated_at LIMIT 200", statesWhere(pending))
	if err != nil {
		return nil, err
	}
	return scanOrders(rs)
}

// overrides returns the IMEI overrides of day (its start and end in the
// store's time zone), each with its manager's name, and every IMEI sold by
// more than one order that holds its goods. An override's day is the one its
// counter journaled, else its order's, else the local date of its event.
func overrides(ctx context.Context, db *store.DB, day time.Time) ([]Override, []DoubleSale, error) {
	from := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.Local)
	rs, err := db.Pool().Query(ctx, `SELECT v.terminal_id, v.seq, coalesce(to_char(coalesce(v.day, o.day), 'YYYY-MM-DD'), ''),
			(e.body->>'time')::timestamptz, v.staff, coalesce(s.name, ''), v.what, v.detail::text
		FROM overrides v
		JOIN events e ON e.terminal_id = v.terminal_id AND e.seq = v.seq
		LEFT JOIN orders o ON o.terminal_id = v.terminal_id AND o.order_id = v.detail->>'order_id'
		LEFT JOIN store_staff s ON s.id = v.staff
		WHERE v.what = 'imei' AND (coalesce(v.day, o.day) = $1
			OR (coalesce(v.day, o.day) IS NULL AND (e.body->>'time')::timestamptz >= $2 AND (e.body->>'time')::timestamptz < $3))
		ORDER BY (e.body->>'time')::timestamptz, v.terminal_id, v.seq LIMIT 100`, day, from, from.AddDate(0, 0, 1))
	if err != nil {
		return nil, nil, err
	}
	ovs, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (Override, error) {
		var o Override
		var detail, id, name string
		var at time.Time
		err := r.Scan(&o.Terminal, &o.Seq, &o.Day, &at, &id, &name, &o.What, &detail)
		if o.Day == "" {
			o.Day = at.Local().Format(pos.DayLayout)
		}
		o.At = at
		o.Staff = id
		if name != "" {
			o.Staff = name + " (" + id + ")"
		}
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
		// The payment contact in clear, or the buyer's phone by its keyed
		// digest (the number is sealed).
		p := strings.ReplaceAll(q, " ", "")
		arg = p[len(p)-10:]
		where = "(o.phone = $1 OR o.buyer_phone = $2)"
	default:
		where = "o.order_id = $1"
	}
	args := []any{arg}
	if kind == "phone" {
		args = append(args, db.BuyerPhoneKey(arg.(string)))
	}
	rs, err := db.Pool().Query(ctx, "SELECT "+orderCols+" FROM orders o"+returnsJoin+" WHERE "+where+" ORDER BY o.opened_at DESC NULLS LAST LIMIT 200", args...)
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

// Return is a return against an order, at its own counter or another
// (a return order citing its invoice): its document and where the money went.
type Return struct {
	Terminal string
	OrderID  string // the order the refund is journaled on: the sale, or a return order
	Number   string // the credit note or refund receipt as printed
	Kind     string
	Day      string
	Amount   pos.Paise
	To       string // card, cash or note; "" when the store does not know
}

// Detail is one order's page.
type Detail struct {
	Order     OrderRow
	Reason    string
	Buyer     *pos.Buyer // the buyer named on the invoice, opened with the store key
	Lines     []Line
	Payments  []Payment
	Documents []Document
	// Returns are every return against the order, wherever it was made.
	Returns []Return
}

func detail(ctx context.Context, db *store.DB, terminal, order string) (*Detail, error) {
	rs, err := db.Pool().Query(ctx, "SELECT "+orderCols+" FROM orders o"+returnsJoin+" WHERE o.terminal_id = $1 AND o.order_id = $2", terminal, order)
	if err != nil {
		return nil, err
	}
	os, err := scanOrders(rs)
	if err != nil || len(os) == 0 {
		return nil, err
	}
	d := &Detail{Order: os[0]}
	var snap []byte
	if err := db.Pool().QueryRow(ctx, "SELECT snapshot FROM orders WHERE terminal_id = $1 AND order_id = $2", terminal, order).Scan(&snap); err != nil {
		return nil, err
	}
	var o struct {
		Reason string     `json:"reason"`
		Buyer  *pos.Buyer `json:"buyer"`
	}
	if err := db.Unmarshal(snap, &o); err != nil {
		return nil, err
	}
	d.Reason, d.Buyer = o.Reason, o.Buyer
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
	if err != nil {
		return nil, err
	}
	d.Returns, err = returnsOf(ctx, db, terminal, order)
	return d, err
}

// returnsOf lists the returns against terminal's order: the documents of its
// own refunds and of the return orders citing it, at any counter. The two are
// read each by its index (documents_order; orders_origin, then
// documents_order) and put together: one condition with an OR between them
// read every document the store ever printed.
func returnsOf(ctx context.Context, db *store.DB, terminal, order string) ([]Return, error) {
	rs, err := db.Pool().Query(ctx, `SELECT d.terminal_id, d.order_id, d.number, d.kind, coalesce(to_char(d.day, 'YYYY-MM-DD'), ''), d.amount,
			coalesce(c.refund_to, p.refund_to, '')
		FROM (SELECT * FROM documents WHERE terminal_id = $1 AND order_id = $2
			UNION ALL
			SELECT d.* FROM orders r JOIN documents d ON d.terminal_id = r.terminal_id AND d.order_id = r.order_id
			WHERE r.origin_order <> '' AND r.origin_terminal = $1 AND r.origin_order = $2) d
		LEFT JOIN credit_notes c ON c.number = d.number
		LEFT JOIN LATERAL (SELECT p.refund_to FROM payments p WHERE p.terminal_id = d.terminal_id AND p.order_id = d.order_id
			AND p.day = d.day AND p.amount = d.amount AND p.refund_to <> '' ORDER BY p.seq LIMIT 1) p ON c.number IS NULL
		WHERE d.kind <> 'receipt' AND NOT d.cancelled
		ORDER BY d.day, length(d.terminal_id), d.terminal_id, d.number`, terminal, order)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rs, func(r pgx.CollectableRow) (Return, error) {
		var x Return
		var amount int64
		err := r.Scan(&x.Terminal, &x.OrderID, &x.Number, &x.Kind, &x.Day, &amount, &x.To)
		x.Amount = pos.Paise(amount)
		return x, err
	})
}

// OpenSale is a split sale still taking its tenders, with each tender's
// order as it stands: neither an unknown payment nor a sale yet.
type OpenSale struct {
	Terminal string
	OrderID  string
	Day      string
	Amount   pos.Paise
	Paid     pos.Paise // taken on its tenders and not given back
	Tenders  []OpenTender
	Updated  *time.Time
}

// OpenTender is one tender of an open sale.
type OpenTender struct {
	OrderID string
	Kind    string
	Amount  pos.Paise
	State   string
	Reason  string // why a tender failed or was abandoned, as its counter said
}

// openSale is the state of a split sale taking its tenders.
func openSale(s pos.OrderState) bool { return s == pos.StateOpen }

// openSales lists the split sales still open, oldest first, with their
// tenders.
func openSales(ctx context.Context, db *store.DB) ([]OpenSale, error) {
	rs, err := db.Pool().Query(ctx, `SELECT o.terminal_id, o.snapshot, o.updated_at FROM orders o WHERE o.state = ANY($1)
		ORDER BY o.opened_at NULLS LAST, o.terminal_id, o.order_id LIMIT 100`, statesWhere(openSale))
	if err != nil {
		return nil, err
	}
	type row struct {
		terminal string
		order    pos.Order
		updated  *time.Time
	}
	rows, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (row, error) {
		var x row
		var snap []byte
		if err := r.Scan(&x.terminal, &snap, &x.updated); err != nil {
			return x, err
		}
		return x, db.Unmarshal(snap, &x.order)
	})
	if err != nil {
		return nil, err
	}
	var ts, ids []string
	for _, x := range rows {
		for _, t := range x.order.Tenders {
			ts, ids = append(ts, x.terminal), append(ids, t.OrderID)
		}
	}
	tenders := map[[2]string]*pos.Order{}
	// A tender's order abandoned before any payment moved the tender to a new
	// order (MovedTo): those are read in turn, a few moves at most.
	for range 4 {
		if len(ids) == 0 {
			break
		}
		rs, err = db.Pool().Query(ctx, `SELECT o.terminal_id, o.snapshot FROM orders o
			JOIN unnest($1::text[], $2::text[]) AS k(terminal_id, order_id) USING (terminal_id, order_id)`, ts, ids)
		if err != nil {
			return nil, err
		}
		read, cerr := pgx.CollectRows(rs, func(r pgx.CollectableRow) (struct{}, error) {
			var t string
			var snap []byte
			o := new(pos.Order)
			if err := r.Scan(&t, &snap); err != nil {
				return struct{}{}, err
			}
			if err := db.Unmarshal(snap, o); err != nil {
				return struct{}{}, err
			}
			tenders[[2]string{t, o.ID}] = o
			return struct{}{}, nil
		})
		if cerr != nil {
			return nil, cerr
		}
		if len(read) == 0 {
			break
		}
		ts, ids = nil, nil
		for k, o := range tenders {
			if o.MovedTo != "" && tenders[[2]string{k[0], o.MovedTo}] == nil {
				ts, ids = append(ts, k[0]), append(ids, o.MovedTo)
			}
		}
	}
	// follow is the order that holds a tender's payment now.
	follow := func(terminal, id string) *pos.Order {
		o := tenders[[2]string{terminal, id}]
		for n := 0; o != nil && o.MovedTo != "" && n < 4; n++ {
			next := tenders[[2]string{terminal, o.MovedTo}]
			if next == nil {
				break
			}
			o = next
		}
		return o
	}
	out := make([]OpenSale, 0, len(rows))
	for _, x := range rows {
		s := OpenSale{Terminal: x.terminal, OrderID: x.order.ID, Day: x.order.Day, Amount: x.order.Amount, Updated: x.updated}
		for _, t := range x.order.Tenders {
			ot := OpenTender{OrderID: t.OrderID, Kind: string(t.Kind), Amount: t.Amount, State: "not synced yet"}
			if o := follow(x.terminal, t.OrderID); o != nil {
				ot.OrderID, ot.State, ot.Reason = o.ID, string(o.State), o.Reason
				if o.State.Paid() {
					s.Paid += o.Captured - o.Refunded
				}
			}
			s.Tenders = append(s.Tenders, ot)
		}
		out = append(out, s)
	}
	return out, nil
}

// dayOrders are the orders of day (opened or paid that day), for the CSV.
func dayOrders(ctx context.Context, db *store.DB, day time.Time) ([]OrderRow, error) {
	rs, err := db.Pool().Query(ctx, "SELECT "+orderCols+" FROM orders o"+returnsJoin+` WHERE o.day = $1 OR o.paid_day = $1
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
		out += " (" + causeText(m["cause"]) + ")"
	}
	return out
}

// causeText says why a counter could not ask the store, in words: the error
// a counter journaled may carry a network error's text ("dial tcp …:
// connection refused"), which is said as what it means.
func causeText(cause string) string {
	low := strings.ToLower(cause)
	switch {
	case strings.Contains(low, "no such host"):
		return "the store server's name was not found on the network"
	case strings.Contains(low, "connection refused"):
		return "the store server refused the connection: it was not running, or listens at another port"
	case strings.Contains(low, "timeout") || strings.Contains(low, "deadline exceeded"):
		return "the store server did not answer in time"
	case strings.Contains(low, "certificate") || strings.Contains(low, "x509") || strings.Contains(low, "tls:"):
		return "the store server's certificate was not accepted"
	case strings.Contains(low, "dial ") || strings.Contains(low, "unreachable") || strings.Contains(low, "no route to host") ||
		strings.Contains(low, "connection reset") || strings.Contains(cause, "EOF"):
		return "the store server could not be reached over the network"
	}
	// A sentence of pos, perhaps with an error's details after a colon.
	if i := strings.Index(cause, ": "); i > 0 {
		cause = cause[:i]
	}
	return strings.TrimSuffix(cause, ".")
}
