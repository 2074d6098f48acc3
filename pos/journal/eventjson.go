package journal

import (
	"strconv"

	"galla/pos"
)

// appendEventJSON appends to dst the bytes json.Marshal gives for ev, the body
// of an event's record, without encoding/json's reflection. An Append spent
// about as long in encoding/json's walk of Event's fields by reflection as in
// compressing the result, and three times as long when it ran cold after the
// previous commit's fsync (docs/benchmarks.md, "The event's JSON by hand").
// It writes the fields of Event and of the payloads of a sale's events
// (Intent, Created, Abandoned, AttemptEvent, Outcome, CashEvent, PrintEvent,
// SaleEvent) itself, in their declared order with their tags' rules, with the
// order's encoders for the lines, totals and customer; the payloads a sale
// rarely holds (an EMI plan, a buyer, an origin, refunds, notes, a Z report, a
// setting, data, extra notes) and any string that needs escaping go to
// encoding/json, as appendOrderJSON does.
//
// The bytes are compressed and hashed into the record: they must be
// json.Marshal's to the byte. TestEventJSONMatchesMarshal fills every field of
// these types (a field added to one of them and not here fails it) and
// compares every event of the test scripts; FuzzEventJSON compares events made
// of fuzzed strings and numbers.
func appendEventJSON(dst []byte, ev *pos.Event) ([]byte, error) {
	var err error
	dst = append(dst, `{"v":`...)
	dst = strconv.AppendInt(dst, int64(ev.V), 10)
	dst = append(dst, `,"seq":`...)
	dst = strconv.AppendUint(dst, ev.Seq, 10)
	dst = append(dst, `,"time":`...)
	if dst, err = appendJSONTime(dst, ev.Time); err != nil {
		return nil, err
	}
	dst = append(dst, `,"kind":`...)
	dst = appendJSONString(dst, string(ev.Kind))
	dst = appendOmitString(dst, `,"order_id":`, ev.OrderID)
	dst = appendOmitString(dst, `,"day":`, ev.Day)
	dst = appendOmitString(dst, `,"staff":`, ev.Staff)
	dst = appendOmitString(dst, `,"prev_hash":`, ev.PrevHash)
	dst = appendOmitString(dst, `,"hash":`, ev.Hash)
	dst = appendOmitUint(dst, `,"receipt_no":`, ev.ReceiptNo)
	dst = appendOmitString(dst, `,"series":`, ev.Series)
	dst = appendOmitUint(dst, `,"doc_no":`, ev.DocNo)
	if in := ev.Intent; in != nil {
		dst = append(dst, `,"intent":`...)
		if dst, err = appendIntentJSON(dst, in); err != nil {
			return nil, err
		}
	}
	if c := ev.Created; c != nil {
		dst = append(dst, `,"created":{"service_order_id":`...)
		dst = appendJSONString(dst, c.ServiceOrderID)
		dst = append(dst, `,"token":`...)
		dst = appendJSONString(dst, c.Token)
		dst = append(dst, '}')
	}
	if a := ev.Abandoned; a != nil {
		dst = append(dst, `,"abandoned":{"reason":`...)
		dst = appendJSONString(dst, a.Reason)
		dst = appendOmitString(dst, `,"new_order_id":`, a.NewOrderID)
		dst = append(dst, '}')
	}
	if a := ev.Attempt; a != nil {
		dst = append(dst, `,"attempt":{"n":`...)
		dst = strconv.AppendInt(dst, int64(a.N), 10)
		dst = appendOmitString(dst, `,"card_brand":`, a.CardBrand)
		dst = appendOmitString(dst, `,"card_last4":`, a.CardLast4)
		dst = appendOmitString(dst, `,"payment_id":`, a.PaymentID)
		dst = appendOmitInt(dst, `,"amount":`, int64(a.Amount))
		dst = appendOmitString(dst, `,"code":`, a.Code)
		dst = appendOmitString(dst, `,"message":`, a.Message)
		dst = appendOmitString(dst, `,"auth_url":`, a.AuthURL)
		dst = append(dst, '}')
	}
	if o := ev.Outcome; o != nil {
		dst = append(dst, `,"outcome":`...)
		dst = appendOutcomeJSON(dst, o)
	}
	dst = appendOmitString(dst, `,"reason":`, ev.Reason)
	dst = appendOmitStrings(dst, `,"imeis":`, ev.IMEIs)
	if c := ev.Cash; c != nil {
		dst = appendPaise(dst, `,"cash":{"tendered":`, c.Tendered)
		dst = appendPaise(dst, `,"change":`, c.Change)
		dst = append(dst, '}')
	}
	if ev.Refund != nil {
		if dst, err = appendMarshal(dst, `,"refund":`, ev.Refund); err != nil {
			return nil, err
		}
	}
	if ev.Note != nil {
		if dst, err = appendMarshal(dst, `,"note":`, ev.Note); err != nil {
			return nil, err
		}
	}
	if p := ev.Print; p != nil {
		dst = append(dst, `,"print":{`...)
		n := len(dst)
		dst = appendOmitString(dst, `,"printer":`, p.Printer)
		dst = appendOmitString(dst, `,"format":`, p.Format)
		dst = appendOmitString(dst, `,"error":`, p.Error)
		dst = appendOmitString(dst, `,"refund":`, p.Refund)
		dst = append(dropComma(dst, n), '}')
	}
	if ev.DayClose != nil {
		if dst, err = appendMarshal(dst, `,"day_close":`, ev.DayClose); err != nil {
			return nil, err
		}
	}
	if ev.Setting != nil {
		if dst, err = appendMarshal(dst, `,"setting":`, ev.Setting); err != nil {
			return nil, err
		}
	}
	if s := ev.Sale; s != nil {
		dst = append(dst, `,"sale":{`...)
		n := len(dst)
		if t := s.Tender; t != nil {
			dst = append(dst, `,"tender":{"order_id":`...)
			dst = appendJSONString(dst, t.OrderID)
			dst = append(dst, `,"kind":`...)
			dst = appendJSONString(dst, string(t.Kind))
			dst = appendPaise(dst, `,"amount":`, t.Amount)
			dst = appendOmitString(dst, `,"note_no":`, t.NoteNo)
			dst = append(dst, '}')
		}
		dst = appendOmitStrings(dst, `,"covered":`, s.Covered)
		dst = appendOmitBool(dst, `,"verified":`, s.Verified)
		dst = appendOmitString(dst, `,"paid_by":`, s.PaidBy)
		dst = appendOmitString(dst, `,"note_no":`, s.NoteNo)
		dst = appendOmitBool(dst, `,"dropped":`, s.Dropped)
		dst = append(dropComma(dst, n), '}')
	}
	if len(ev.Data) > 0 {
		if dst, err = appendMarshal(dst, `,"data":`, ev.Data); err != nil {
			return nil, err
		}
	}
	if len(ev.Extra) > 0 {
		if dst, err = appendMarshal(dst, `,"extra":`, ev.Extra); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// appendIntentJSON appends the JSON of an order.intent's payload.
func appendIntentJSON(dst []byte, in *pos.Intent) ([]byte, error) {
	var err error
	dst = append(dst, `{"tender":`...)
	dst = appendJSONString(dst, string(in.Tender))
	dst = appendLinesJSON(append(dst, `,"lines":`...), in.Lines)
	dst = append(dst, `,"totals":`...)
	dst = appendTotalsJSON(dst, &in.Totals)
	dst = appendPaise(dst, `,"amount":`, in.Amount)
	if in.EMI != nil {
		if dst, err = appendMarshal(dst, `,"emi":`, in.EMI); err != nil {
			return nil, err
		}
	}
	dst = appendOmitStrings(dst, `,"imeis":`, in.IMEIs)
	dst = appendOmitString(dst, `,"replaces":`, in.Replaces)
	if c := in.Customer; c != nil {
		dst = append(dst, `,"customer":`...)
		dst = appendCustomerJSON(dst, c)
	}
	if in.Buyer != nil {
		if dst, err = appendMarshal(dst, `,"buyer":`, in.Buyer); err != nil {
			return nil, err
		}
	}
	dst = appendOmitString(dst, `,"return_url":`, in.ReturnURL)
	dst = appendOmitString(dst, `,"sale":`, in.Sale)
	dst = appendOmitString(dst, `,"gateway":`, in.Gateway)
	dst = appendOmitString(dst, `,"note":`, in.Note)
	if in.Origin != nil {
		if dst, err = appendMarshal(dst, `,"origin":`, in.Origin); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// appendOutcomeJSON appends the JSON of a verified (or unverified) answer.
func appendOutcomeJSON(dst []byte, o *pos.Outcome) []byte {
	dst = append(dst, `{"merchant_order_id":`...)
	dst = appendJSONString(dst, o.MerchantOrderID)
	dst = append(dst, `,"service_order_id":`...)
	dst = appendJSONString(dst, o.ServiceOrderID)
	dst = appendOmitString(dst, `,"payment_id":`, o.PaymentID)
	dst = append(dst, `,"order_status":`...)
	dst = appendJSONString(dst, o.OrderStatus)
	dst = appendOmitString(dst, `,"payment_status":`, o.PaymentStatus)
	dst = appendPaise(dst, `,"amount":`, o.Amount)
	dst = appendOmitInt(dst, `,"captured":`, int64(o.Captured))
	dst = appendOmitInt(dst, `,"refunded":`, int64(o.Refunded))
	dst = appendOmitInt(dst, `,"response_code":`, o.ResponseCode)
	dst = appendOmitString(dst, `,"response_message":`, o.ResponseMessage)
	dst = appendOmitString(dst, `,"payment_mode":`, o.PaymentMode)
	dst = appendOmitString(dst, `,"issuer":`, o.Issuer)
	dst = appendOmitString(dst, `,"masked_card":`, o.MaskedCard)
	dst = appendOmitString(dst, `,"auth_code":`, o.AuthCode)
	dst = appendOmitString(dst, `,"rrn":`, o.RRN)
	dst = appendOmitString(dst, `,"completed_at":`, o.CompletedAt)
	return append(dst, '}')
}

// appendCustomerJSON appends the JSON of a customer's contact.
func appendCustomerJSON(dst []byte, c *pos.Customer) []byte {
	dst = append(dst, '{')
	n := len(dst)
	dst = appendOmitString(dst, `,"country_code":`, c.CountryCode)
	dst = appendOmitString(dst, `,"mobile":`, c.Mobile)
	dst = appendOmitString(dst, `,"email":`, c.Email)
	return append(dropComma(dst, n), '}')
}

// dropComma takes out the comma the first member written after n opened with,
// if any was written.
func dropComma(dst []byte, n int) []byte {
	if len(dst) > n {
		return append(dst[:n], dst[n+1:]...)
	}
	return dst
}
