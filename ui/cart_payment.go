package ui

import (
	"context"

	"galla/pos"
)

// cartPayment is the sale's open payment: the run in flight (nil once its call
// ended) and its order. While pos says the cart is locked to it (CartLock), no
// tender is taken and no line changes.
type cartPayment struct {
	s        *saleScreen
	lockRun  *payRun
	payOrder string
	lock     CartLock
}

// paymentStarted locks the cart to the payment run takes of it. A tender of an
// open split sale is that sale's: it neither locks nor, once paid, empties the
// counter's cart, which may be the next customer's by then.
func (cp *cartPayment) paymentStarted(run *payRun) {
	if run.req.Sale != "" {
		return
	}
	cp.lockRun, cp.payOrder = run, run.req.OrderID
	cp.lock = CartLock{Locked: true, Reason: "A payment of this cart is in progress: wait for its result before another tender or a change to the cart."}
	cp.s.refresh()
}

// paymentOrder records the order of the cart's payment run.
func (cp *cartPayment) paymentOrder(run *payRun, id string) {
	if cp.lockRun == run {
		cp.payOrder = id
	}
}

// paymentDone ends the call of the cart's payment run: a verified PAID sells the
// cart; anything else is for pos to say (CartLock).
func (cp *cartPayment) paymentDone(run *payRun, o Outcome, err error) {
	if cp.lockRun != run {
		return
	}
	cp.lockRun = nil
	if o.OrderID != "" {
		cp.payOrder = o.OrderID
	}
	if err == nil && o.State.Paid() && o.Verified {
		cp.s.clear()
		return
	}
	if st := o.Sale; err == nil && o.State == pos.StateFailed && st != nil && st.Sale.State == pos.StateOpen {
		// The tender failed and its sale stays open, holding the cart: it is
		// paid again, replaced or dropped on the sale's own screen.
		cp.payOrder = ""
		cp.lock = CartLock{}
		cp.s.clear()
		return
	}
	cp.checkLock()
}

// resolved is told that order id became final in the background.
func (cp *cartPayment) resolved(id string) {
	if id != "" && cp.payOrder == id && cp.lockRun == nil {
		cp.checkLock()
	}
}

// checkLock asks pos whether the cart is still locked to its payment.
func (cp *cartPayment) checkLock() {
	id := cp.payOrder
	if cp.lockRun != nil {
		return
	}
	if id == "" {
		cp.lock = CartLock{}
		cp.s.refresh()
		return
	}
	cp.s.u.async(func(ctx context.Context) func() {
		l := cp.s.u.till.Pending.CartLock(ctx, id)
		return func() {
			if cp.payOrder != id || cp.lockRun != nil {
				return // the cart moved on meanwhile
			}
			if l.Paid {
				cp.s.clear()
				cp.s.message.SetText(l.Reason + " That cart is sold; this is the next sale.")
				return
			}
			cp.lock = l
			if !l.Locked {
				cp.payOrder = ""
			}
			cp.s.message.SetText(l.Reason)
			cp.s.refresh()
		}
	})
}

// locked says why the cart takes no tender and no change now, if it is locked.
func (cp *cartPayment) locked() bool {
	if cp.lock.Locked {
		cp.s.message.SetText(cp.lock.Reason)
	}
	return cp.lock.Locked
}
