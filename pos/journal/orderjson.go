package journal

import (
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"

	"galla/pos"
)

// appendOrderJSON appends to dst the bytes json.Marshal gives for o, the stored
// value of an order, without encoding/json's reflection: its encoder of a
// time.Time or a pos.Rate allocates the result of their MarshalJSON, about
// seven heap allocations an Append in all (docs/benchmarks.md, "Allocations
// per Append"). It writes the fields of Order, Line, Totals, RateTotal and
// Attempt and Customer itself, in their declared order with their tags' rules,
// and hands the values a checkout rarely holds (a buyer, an EMI plan, a
// credit note, refunds, tenders, a cancellation, an origin) and any string
// that needs escaping to encoding/json, which then allocates as before.
//
// The bytes are the stored record and its proof's input: they must be
// json.Marshal's to the byte. TestOrderJSONMatchesMarshal fills every field
// of these types (a field added to one of them and not here fails it) and
// compares the orders of the test scripts' days.
func appendOrderJSON(dst []byte, o *pos.Order) ([]byte, error) {
	var err error
	dst = append(dst, `{"id":`...)
	dst = appendJSONString(dst, o.ID)
	dst = append(dst, `,"day":`...)
	dst = appendJSONString(dst, o.Day)
	dst = append(dst, `,"state":`...)
	dst = appendJSONString(dst, string(o.State))
	dst = append(dst, `,"tender":`...)
	dst = appendJSONString(dst, string(o.Tender))
	dst = appendOmitString(dst, `,"staff":`, o.Staff)
	dst = append(dst, `,"opened":`...)
	if dst, err = appendJSONTime(dst, o.Opened); err != nil {
		return nil, err
	}
	dst = append(dst, `,"updated":`...)
	if dst, err = appendJSONTime(dst, o.Updated); err != nil {
		return nil, err
	}
	dst = append(dst, `,"seq":`...)
	dst = strconv.AppendUint(dst, o.Seq, 10)
	dst = appendLinesJSON(append(dst, `,"lines":`...), o.Lines)
	dst = append(dst, `,"totals":`...)
	dst = appendTotalsJSON(dst, &o.Totals)
	dst = append(dst, `,"amount":`...)
	dst = strconv.AppendInt(dst, int64(o.Amount), 10)
	if c := o.Customer; c != nil {
		dst = append(dst, `,"customer":`...)
		dst = appendCustomerJSON(dst, c)
	}
	if o.Buyer != nil {
		if dst, err = appendMarshal(dst, `,"buyer":`, o.Buyer); err != nil {
			return nil, err
		}
	}
	dst = appendOmitString(dst, `,"replaces":`, o.Replaces)
	dst = appendOmitString(dst, `,"moved_to":`, o.MovedTo)
	dst = appendOmitString(dst, `,"return_url":`, o.ReturnURL)
	dst = appendOmitString(dst, `,"gateway":`, o.Gateway)
	dst = appendOmitString(dst, `,"service_order_id":`, o.ServiceOrderID)
	dst = appendOmitString(dst, `,"token":`, o.Token)
	if len(o.Attempts) > 0 {
		dst = append(dst, `,"attempts":[`...)
		for i := range o.Attempts {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendAttemptJSON(dst, &o.Attempts[i]); err != nil {
				return nil, err
			}
		}
		dst = append(dst, ']')
	}
	dst = appendOmitString(dst, `,"card_brand":`, o.CardBrand)
	dst = appendOmitString(dst, `,"card_last4":`, o.CardLast4)
	if o.EMI != nil {
		if dst, err = appendMarshal(dst, `,"emi":`, o.EMI); err != nil {
			return nil, err
		}
	}
	dst = appendOmitStrings(dst, `,"imeis":`, o.IMEIs)
	dst = appendOmitBool(dst, `,"imeis_validated":`, o.IMEIsValidated)
	dst = appendOmitInt(dst, `,"cash_tendered":`, int64(o.CashTendered))
	dst = appendOmitInt(dst, `,"change":`, int64(o.Change))
	if o.Note != nil {
		if dst, err = appendMarshal(dst, `,"note":`, o.Note); err != nil {
			return nil, err
		}
	}
	dst = appendOmitInt(dst, `,"captured":`, int64(o.Captured))
	dst = appendOmitBool(dst, `,"verified":`, o.Verified)
	if !o.PaidAt.IsZero() {
		dst = append(dst, `,"paid_at":`...)
		if dst, err = appendJSONTime(dst, o.PaidAt); err != nil {
			return nil, err
		}
	}
	dst = appendOmitString(dst, `,"paid_day":`, o.PaidDay)
	dst = appendOmitString(dst, `,"payment_id":`, o.PaymentID)
	dst = appendOmitString(dst, `,"payment_mode":`, o.PaymentMode)
	dst = appendOmitString(dst, `,"auth_code":`, o.AuthCode)
	dst = appendOmitString(dst, `,"rrn":`, o.RRN)
	if len(o.Refunds) > 0 {
		if dst, err = appendMarshal(dst, `,"refunds":`, o.Refunds); err != nil {
			return nil, err
		}
	}
	dst = appendOmitInt(dst, `,"refunded":`, int64(o.Refunded))
	dst = appendOmitUint(dst, `,"receipt_no":`, o.ReceiptNo)
	dst = appendOmitString(dst, `,"series":`, o.Series)
	dst = appendOmitUint(dst, `,"doc_no":`, o.DocNo)
	dst = appendOmitBool(dst, `,"printed":`, o.Printed)
	dst = appendOmitInt(dst, `,"reprints":`, int64(o.Reprints))
	dst = appendOmitString(dst, `,"print_error":`, o.PrintError)
	dst = appendOmitString(dst, `,"reason":`, o.Reason)
	dst = appendOmitString(dst, `,"sale":`, o.Sale)
	if len(o.Tenders) > 0 {
		if dst, err = appendMarshal(dst, `,"tenders":`, o.Tenders); err != nil {
			return nil, err
		}
	}
	dst = appendOmitStrings(dst, `,"covered":`, o.Covered)
	dst = appendOmitString(dst, `,"paid_by":`, o.PaidBy)
	dst = appendOmitString(dst, `,"confirmed_by":`, o.ConfirmedBy)
	dst = appendOmitString(dst, `,"note_no":`, o.NoteNo)
	if o.Cancelled != nil {
		if dst, err = appendMarshal(dst, `,"cancelled":`, o.Cancelled); err != nil {
			return nil, err
		}
	}
	if o.Origin != nil {
		if dst, err = appendMarshal(dst, `,"origin":`, o.Origin); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// appendLinesJSON appends the JSON of lines (null when nil, as encoding/json
// writes a nil slice).
func appendLinesJSON(dst []byte, lines []pos.Line) []byte {
	if lines == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i := range lines {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendLineJSON(dst, &lines[i])
	}
	return append(dst, ']')
}

// appendLineJSON appends the JSON of one pos.Line.
func appendLineJSON(dst []byte, l *pos.Line) []byte {
	dst = append(dst, `{"sku":`...)
	dst = appendJSONString(dst, l.SKU)
	dst = append(dst, `,"name":`...)
	dst = appendJSONString(dst, l.Name)
	dst = appendOmitString(dst, `,"brand":`, l.Brand)
	dst = appendOmitString(dst, `,"product_code":`, l.ProductCode)
	dst = append(dst, `,"hsn":`...)
	dst = appendJSONString(dst, l.HSN)
	dst = append(dst, `,"qty":`...)
	dst = strconv.AppendInt(dst, int64(l.Qty), 10)
	dst = appendOmitString(dst, `,"unit":`, string(l.Unit))
	dst = append(dst, `,"unit_price":`...)
	dst = strconv.AppendInt(dst, int64(l.UnitPrice), 10)
	dst = appendOmitInt(dst, `,"discount":`, int64(l.Discount))
	dst = appendOmitString(dst, `,"approved_by":`, l.ApprovedBy)
	dst = append(dst, `,"gst_rate":`...)
	dst = append(dst, l.GSTRate.Decimal()...)
	if !l.Cess.IsZero() {
		dst = append(dst, `,"cess_rate":`...)
		dst = append(dst, l.Cess.Decimal()...)
	}
	dst = appendOmitBool(dst, `,"serialised":`, l.Serialised)
	dst = appendOmitStrings(dst, `,"imeis":`, l.IMEIs)
	dst = appendOmitString(dst, `,"supply":`, string(l.Supply))
	return append(dst, '}')
}

// appendTotalsJSON appends the JSON of a pos.Totals.
func appendTotalsJSON(dst []byte, t *pos.Totals) []byte {
	dst = append(dst, `{"items":`...)
	dst = strconv.AppendInt(dst, int64(t.Items), 10)
	dst = appendPaise(dst, `,"gross":`, t.Gross)
	dst = appendPaise(dst, `,"discount":`, t.Discount)
	dst = appendPaise(dst, `,"total":`, t.Total)
	dst = appendPaise(dst, `,"taxable":`, t.Taxable)
	dst = appendPaise(dst, `,"tax":`, t.Tax)
	dst = appendPaise(dst, `,"cgst":`, t.CGST)
	dst = appendPaise(dst, `,"sgst":`, t.SGST)
	dst = appendOmitInt(dst, `,"igst":`, int64(t.IGST))
	dst = appendOmitInt(dst, `,"cess":`, int64(t.Cess))
	dst = appendOmitInt(dst, `,"round_off":`, int64(t.RoundOff))
	dst = append(dst, `,"by_rate":`...)
	if t.ByRate == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range t.ByRate {
			if i > 0 {
				dst = append(dst, ',')
			}
			r := &t.ByRate[i]
			dst = append(dst, `{"rate":`...)
			dst = append(dst, r.Rate.Decimal()...)
			dst = appendPaise(dst, `,"amount":`, r.Amount)
			dst = appendPaise(dst, `,"taxable":`, r.Taxable)
			dst = appendPaise(dst, `,"tax":`, r.Tax)
			dst = appendPaise(dst, `,"cgst":`, r.CGST)
			dst = appendPaise(dst, `,"sgst":`, r.SGST)
			dst = appendOmitInt(dst, `,"igst":`, int64(r.IGST))
			dst = appendOmitInt(dst, `,"cess":`, int64(r.Cess))
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// appendAttemptJSON appends the JSON of one pos.Attempt.
func appendAttemptJSON(dst []byte, a *pos.Attempt) ([]byte, error) {
	dst = append(dst, `{"n":`...)
	dst = strconv.AppendInt(dst, int64(a.N), 10)
	dst = appendOmitString(dst, `,"payment_id":`, a.PaymentID)
	dst = appendOmitString(dst, `,"card_brand":`, a.CardBrand)
	dst = appendOmitString(dst, `,"card_last4":`, a.CardLast4)
	dst = append(dst, `,"status":`...)
	dst = appendJSONString(dst, string(a.Status))
	dst = appendOmitString(dst, `,"reason":`, a.Reason)
	dst = append(dst, `,"started":`...)
	dst, err := appendJSONTime(dst, a.Started)
	if err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

// appendJSONString appends s as encoding/json writes a string, with
// json.Marshal's HTML escaping: ASCII here, by its rules (", \\ and the
// control characters escaped, and <, > and &), and a string with any other
// byte as json.Marshal writes it (it replaces invalid UTF-8 and escapes
// U+2028 and U+2029).
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			js, err := json.Marshal(s)
			if err != nil {
				panic(err) // a string always encodes
			}
			return append(dst, js...)
		}
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch b {
		case '"', '\\':
			dst = append(dst, '\\', b)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// hexDigits are the digits of encoding/json's \u escapes.
const hexDigits = "0123456789abcdef"

// appendJSONTime appends t as time.Time.MarshalJSON writes it: RFC 3339 with
// nanoseconds between quotes. A time it refuses (a year outside 0–9999, a
// zone offset of a day or more) is left to it, for its error.
func appendJSONTime(dst []byte, t time.Time) ([]byte, error) {
	_, off := t.Zone()
	if y := t.Year(); y < 0 || y > 9999 || off <= -24*60*60 || off >= 24*60*60 {
		js, err := t.MarshalJSON()
		if err != nil {
			return nil, err
		}
		return append(dst, js...), nil
	}
	dst = append(dst, '"')
	dst = t.AppendFormat(dst, time.RFC3339Nano)
	return append(dst, '"'), nil
}

// appendMarshal appends name and json.Marshal's bytes of v.
func appendMarshal(dst []byte, name string, v any) ([]byte, error) {
	js, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(append(dst, name...), js...), nil
}

// appendPaise appends name and p.
func appendPaise(dst []byte, name string, p pos.Paise) []byte {
	return strconv.AppendInt(append(dst, name...), int64(p), 10)
}

// appendOmitString appends name and s unless s is empty (omitempty).
func appendOmitString(dst []byte, name, s string) []byte {
	if s == "" {
		return dst
	}
	return appendJSONString(append(dst, name...), s)
}

// appendOmitStrings appends name and ss unless ss is empty (omitempty).
func appendOmitStrings(dst []byte, name string, ss []string) []byte {
	if len(ss) == 0 {
		return dst
	}
	dst = append(append(dst, name...), '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, s)
	}
	return append(dst, ']')
}

// appendOmitInt appends name and n unless n is 0 (omitempty).
func appendOmitInt(dst []byte, name string, n int64) []byte {
	if n == 0 {
		return dst
	}
	return strconv.AppendInt(append(dst, name...), n, 10)
}

// appendOmitUint appends name and n unless n is 0 (omitempty).
func appendOmitUint(dst []byte, name string, n uint64) []byte {
	if n == 0 {
		return dst
	}
	return strconv.AppendUint(append(dst, name...), n, 10)
}

// appendOmitBool appends name and true when b is (omitempty).
func appendOmitBool(dst []byte, name string, b bool) []byte {
	if !b {
		return dst
	}
	return append(append(dst, name...), "true"...)
}
