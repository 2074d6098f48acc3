package ui

import (
	"context"
	"errors"

	"galla/pos"
)

// errOverrideDeclined is the cashier backing out of the manager's override: the
// sale is refused with the store's own sentence.
var errOverrideDeclined = errors.New("ui: the manager's override was declined")

// askIMEIOverride is PayRequest.AskIMEIOverride for the window: when the store
// server cannot be asked about the sale's phones (pos.MayOverrideIMEI), it opens
// "Manager override" asking a manager's PIN, and the sale goes on with it, its
// card kept by the call in memory. cause is said above the PIN: the store's
// sentence, or why the last PIN approved nothing. Escape declines: the sale is
// refused and nothing was charged. It runs on the payment's goroutine and waits.
func (u *UI) askIMEIOverride(ctx context.Context, cause error) (string, error) {
	reply := make(chan string, 1)
	declined := make(chan struct{})
	var p *prompt // the UI goroutine's only
	u.do(func() {
		pin := newKeyEntry(u)
		pin.Password = true
		pin.SetPlaceHolder("Manager PIN")
		text := sentence(cause) + " Type a manager's PIN, or Escape to cancel the sale."
		if pos.MayOverrideIMEI(cause) {
			text = "The store server cannot be reached to approve the phone's IMEI; nothing was charged. " +
				"A manager's PIN sells it without the store's approval (journaled with the manager's name). Escape cancels the sale."
		}
		p = u.ask("Manager override", text,
			[]*keyEntry{pin}, func(p *prompt) {
				code := pin.Text
				pin.SetText("")
				if code == "" {
					p.say("Type a manager's PIN, then Enter; Escape cancels the sale.")
					return
				}
				p.close()
				reply <- code
			})
		p.onCancel = func() { close(declined) }
	})
	select {
	case pin := <-reply:
		return pin, nil
	case <-declined:
		return "", errOverrideDeclined
	case <-ctx.Done():
		u.do(func() {
			if p != nil {
				p.close()
			}
		})
		return "", ctx.Err()
	}
}
