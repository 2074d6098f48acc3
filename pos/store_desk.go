package pos

import (
	"context"
	"errors"
	"strings"
)

// StoreDesk asks the store for what is decided store-wide: each IMEI sold once
// across the counters, a return of another counter's invoice reserved before it
// is paid out, and the credit notes redeemed and released in the store's ledger.
// With no store decisions set (SetDecisions) the counter decides alone.
type StoreDesk struct{ *engineCore }

// Credit notes store-wide (DESIGN.md section 11). A terminal enrolled in a
// store redeems every credit note through the store server before it journals
// the redemption: the store keeps each note's balance (from the note as its
// issuing counter journaled it), so a note issued at one counter is spent at
// any, and two counters never spend the same rupee of it. A refusal is the
// store's sentence; no answer refuses the note (no manager override: a note is
// money). A note of this counter is also journaled on the order that issued it,
// as before; another counter's note is journaled on the sale only (its
// tender.note_redeemed or note.tendered), the store's balance being its ledger.
// A note tender given back (a voided split sale) is released at the store.

// checkNoteNumber refuses what is not a credit note number.
func checkNoteNumber(number string) error {
	series, _, ok := ParseDocNumber(strings.TrimSpace(number))
	if !ok || !strings.HasPrefix(series, "C") {
		return Errorf("%q is not a credit note number; it reads like T1/C2627/00012.", number)
	}
	return nil
}

// NoteIssuer records at the store a credit note issued at this counter, so
// that the store can redeem it before the counter has sent its events
// (store/link implements it beside StoreDecisions).
type NoteIssuer interface {
	IssueCreditNote(ctx context.Context, number string, value Paise) error
}

// reserveIMEIs asks the store server, when the terminal has one, to reserve the
// phones of lines for the sale id; a sale without serialised units asks nothing.
// A refusal (sold at another counter) or no answer stops the sale before
// anything is journaled or charged, unless approve (the sale's OverrideIMEIs,
// nil when none) approves the phones the store could not be asked about.
func (sd *StoreDesk) reserveIMEIs(ctx context.Context, id string, lines []Line, approve IMEIApprover) error {
	sd.numMu.Lock()
	d := sd.cfg.Decisions
	sd.numMu.Unlock()
	imeis := allIMEIs(lines)
	if d == nil || len(imeis) == 0 {
		return nil
	}
	rctx, cancel := context.WithTimeout(ctx, storeDecisionWait)
	defer cancel()
	err := d.ReserveIMEIs(rctx, id, imeis)
	if approve != nil && MayOverrideIMEI(err) {
		return approve.ApproveIMEIs(ctx, id, imeis, err)
	}
	return err
}

// SetDecisions gives the engine the store server's decisions once the link to
// it is up (nil: none).
func (sd *StoreDesk) SetDecisions(d StoreDecisions) {
	sd.numMu.Lock()
	defer sd.numMu.Unlock()
	sd.cfg.Decisions = d
}

// decisions returns the store server's decisions, nil when not enrolled.
func (sd *StoreDesk) decisions() StoreDecisions {
	sd.numMu.Lock()
	defer sd.numMu.Unlock()
	return sd.cfg.Decisions
}

// useNotes gives the engine the counter's credit-note ledger for the note
// tenders of split sales, unless it was configured with one (Config.Notes),
// and the terminal's name its documents are numbered under (terminal), which
// tells its own credit notes from another counter's (foreignNote).
func (sd *StoreDesk) useNotes(notes NoteRedeemer, terminal string) {
	sd.numMu.Lock()
	defer sd.numMu.Unlock()
	if sd.cfg.Notes == nil {
		sd.cfg.Notes = notes
	}
	sd.noteTerminal = terminal
}

// foreignNote reports whether the credit note number was issued by another
// counter (its number names another terminal).
func (sd *StoreDesk) foreignNote(number string) bool {
	term, rest, ok := strings.Cut(strings.TrimSpace(number), "/")
	sd.numMu.Lock()
	own := sd.noteTerminal // the till's name on its documents (useNotes)
	sd.numMu.Unlock()
	if own == "" {
		own = "T1" // as NewTill names a terminal named nowhere
	}
	return ok && strings.Contains(rest, "/") && term != own
}

// redeemAtStore asks the store to redeem amount of note number for the order
// ref, within storeDecisionWait, and returns what the store says is left on
// the note. Asking again for the same order and amount is harmless (the store
// answers with what is left).
func (sd *StoreDesk) redeemAtStore(ctx context.Context, d StoreDecisions, number, ref string, amount Paise) (left Paise, err error) {
	rctx, cancel := context.WithTimeout(ctx, storeDecisionWait)
	defer cancel()
	return d.RedeemCreditNote(rctx, strings.TrimSpace(number), ref, amount)
}

// redeemOwnAtStore is redeemAtStore for a note of this counter: a note the
// store does not know yet (issued here, not synced) is recorded there first
// with what this journal says is left on it (left), and asked again. It
// returns what the store says is left on the note once redeemed.
func (sd *StoreDesk) redeemOwnAtStore(ctx context.Context, d StoreDecisions, number, ref string, amount, left Paise) (Paise, error) {
	storeLeft, err := sd.redeemAtStore(ctx, d, number, ref, amount)
	var refusal *StoreRefusal
	ni, ok := d.(NoteIssuer)
	if !ok || !errors.As(err, &refusal) || refusal.Code != "not_found" || left <= 0 {
		return storeLeft, err
	}
	rctx, cancel := context.WithTimeout(ctx, storeDecisionWait)
	ierr := ni.IssueCreditNote(rctx, strings.TrimSpace(number), left)
	cancel()
	if ierr != nil {
		return 0, ierr
	}
	return sd.redeemAtStore(ctx, d, number, ref, amount)
}

// releaseAtStore gives back at the store what was reserved for the order ref
// (a note tender undone, or a sale that took nothing), joined to cause.
func (sd *StoreDesk) releaseAtStore(ctx context.Context, d StoreDecisions, ref string, cause error) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeDecisionWait)
	defer cancel()
	if err := d.Release(rctx, ref, ""); err != nil {
		return errors.Join(cause, err)
	}
	return cause
}

// A return of this counter's own invoice, when it is enrolled, is reserved at
// the store too, so that it and returns of the same invoice at other counters
// never add up to more than was paid. The store refusing (more than is left)
// refuses the return; the store not knowing the invoice (not synced yet: no
// other counter can have returned it) leaves the decision to this counter's
// journal, which caps it at what was paid here. The store not answering
// leaves it to the journal too, unless the store last said another counter
// returned some of the invoice (StoreDecisions.ReturnedElsewhere): that return waits for the
// store (docs/security.md "Offline returns").
//
// reserveOwnReturn reserves so amount of the refund uid of this counter's
// sale o, its invoice number (RefundRequest.reserveAt; "" reserves nothing),
// with its items, and returns how to release it should the refund not happen.
func (sd *StoreDesk) reserveOwnReturn(ctx context.Context, o *Order, number, uid string, amount Paise, items []ReturnItem) (release func(error) error, err error) {
	d := sd.decisions()
	if d == nil || number == "" {
		return noRelease, nil
	}
	_, err = reserveReturn(ctx, d, number, uid, amount, items)
	var refusal *StoreRefusal
	switch {
	case err == nil:
	case errors.As(err, &refusal) && refusal.Code == "not_found":
		return noRelease, nil // not synced yet: no other counter returned any of it
	case errors.As(err, &refusal):
		return nil, wrapf(ErrNotRefundable, "The store refused: %s. Nothing was refunded.", refusal.Msg)
	default:
		// The store is away: this journal decides, unless the store said
		// another counter returned some of it.
		if err := returnedElsewhereOffline(d, o, number); err != nil {
			return nil, err
		}
		return noRelease, nil
	}
	return func(cause error) error {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeDecisionWait)
		defer cancel()
		if err := d.Release(rctx, "", uid); err != nil {
			return errors.Join(cause, err)
		}
		return cause
	}, nil
}

// reserveReturn asks the store d, within storeDecisionWait, to reserve amount
// of the refund uid of invoice document: with its items, line by line, when
// they add up to amount, else by amount alone.
// It returns what may still be returned of the invoice.
func reserveReturn(ctx context.Context, d StoreDecisions, document, uid string, amount Paise, items []ReturnItem) (Paise, error) {
	rctx, cancel := context.WithTimeout(ctx, storeDecisionWait)
	defer cancel()
	if len(items) > 0 && ItemsAmount(items) == amount {
		return d.ReserveReturnItems(rctx, document, uid, amount, items)
	}
	return d.ReserveReturn(rctx, document, uid, amount)
}
