package ui

import (
	"context"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"galla/pos"
)

// statusBar is the foot of the window: the payment service's mode and link, the
// payments pending with Check now [Ctrl+K], the journal's startup check and who is
// signed in; above it, on a row of its own, the latest background result (the
// notice), with Receipt [Ctrl+O] when it is a payment that was paid.
type statusBar struct {
	u *UI

	row         *fyne.Container // the bar's own row
	modeText    *canvas.Text
	onlineText  *widget.Label
	unknownText *widget.Label
	journalText *widget.Label // the journal's startup check: running, or failed
	userText    *widget.Label
	status      Status
	damageShown bool // the damaged journal's sentence was shown in a dialog

	notice *widget.Label // the latest background result
	// noticeOrder is the order of the latest notice of a payment paid after the
	// cashier moved on: Ctrl+O opens its receipt.
	noticeOrder string
	noticeRow   *fyne.Container
	checkA      *action // Check now [Ctrl+K]: the pending payments, in the status bar
	noticeA     *action // Receipt [Ctrl+O]: the receipt of the notice's order
}

func newStatusBar(u *UI) *statusBar {
	sb := &statusBar{u: u}
	sb.modeText = canvas.NewText("SANDBOX", colSandbox)
	sb.modeText.TextStyle = fyne.TextStyle{Bold: true}
	sb.modeText.TextSize = 20
	sb.onlineText = widget.NewLabel("Checking the payment service…")
	sb.unknownText = widget.NewLabel("")
	sb.journalText = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	sb.userText = widget.NewLabelWithStyle("Not signed in", fyne.TextAlignTrailing, fyne.TextStyle{Bold: true})
	sb.notice = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	sb.notice.Truncation = fyne.TextTruncateEllipsis
	sb.checkA = u.newAction("Check now", fyne.KeyK, fyne.KeyModifierControl, sb.checkNow)
	sb.noticeA = u.newAction("Receipt", fyne.KeyO, fyne.KeyModifierControl, sb.openNotice)
	sb.checkA.btn.Hide()
	sb.noticeA.btn.Hide()
	sb.row = container.NewHBox(sb.modeText, widget.NewSeparator(), sb.onlineText, widget.NewSeparator(),
		sb.unknownText, sb.checkA.btn, widget.NewSeparator(), sb.journalText, layout.NewSpacer(), sb.userText)
	// The notice has a row of its own: an order id and a receipt number must not
	// push the window wider than the screen.
	sb.noticeRow = container.NewBorder(nil, nil, nil, sb.noticeA.btn, sb.notice)
	sb.noticeRow.Hide()
	return sb
}

// note shows the latest background result in the status bar.
func (sb *statusBar) note(msg string) {
	sb.noticeOrder = ""
	sb.noticeA.btn.Hide()
	sb.notice.Importance = widget.MediumImportance
	sb.notice.SetText(msg)
	if msg == "" {
		sb.noticeRow.Hide()
	} else {
		sb.noticeRow.Show()
	}
}

// raise shows the notice of a payment that became final after the cashier moved
// on; a paid one's receipt opens with Ctrl+O.
func (sb *statusBar) raise(n Notice) {
	sb.note(n.Text)
	if n.Paid() {
		sb.noticeOrder = firstOf(n.Sale, n.OrderID) // a tender's sale: the sale's receipt
		sb.notice.Importance = widget.SuccessImportance
		sb.notice.Refresh()
		sb.noticeA.btn.Show()
	}
	sb.u.sale.payment.resolved(n.OrderID)
	if sb.u.current == sb.u.pay && sb.u.pay.run == nil && sb.u.pay.orderID == n.OrderID {
		sb.u.async(func(ctx context.Context) func() {
			o, err := sb.u.till.Pending.CheckOrder(ctx, n.OrderID)
			return func() { sb.u.pay.checked(n.OrderID, o, err) }
		})
	}
}

// noteOutcome raises the outcome of a payment whose screen the cashier had left.
func (sb *statusBar) noteOutcome(o Outcome, err error) {
	id := o.OrderID
	switch {
	case err != nil:
		sb.note(strings.TrimSpace("Order "+id) + ": NOT PAID — " + sentence(err))
	case o.State.Paid() && o.Verified:
		n := Notice{OrderID: id, State: o.State, Amount: o.Amount, ReceiptNo: o.ReceiptNo,
			Text: "Order " + id + ": PAID " + o.Amount.String()}
		if st := o.Sale; st != nil && st.Complete() {
			n.Sale = st.Sale.ID
		}
		if o.ReceiptNo != "" {
			n.Text += " — receipt " + o.ReceiptNo
		}
		sb.raise(n)
	case o.State == pos.StateFailed:
		sb.note("Order " + id + ": FAILED — not charged")
	default:
		sb.note("Order " + id + ": pending — its outcome is not known yet")
	}
}

// openNotice opens the receipt of the notice's paid order.
func (sb *statusBar) openNotice() {
	if sb.noticeOrder == "" {
		return
	}
	back := sb.u.current
	if back == sb.u.receipt || back == sb.u.signIn {
		back = sb.u.sale
	}
	sb.u.receipt.open(sb.noticeOrder, back)
}

// checkNow inquires the pending payments now: the cart's own, else every one the
// status bar names.
func (sb *statusBar) checkNow() {
	var ids []string
	if sb.u.sale.payment.payOrder != "" && sb.u.sale.payment.lock.Locked && sb.u.sale.payment.lockRun == nil {
		ids = []string{sb.u.sale.payment.payOrder}
	} else {
		for _, p := range sb.status.Pending {
			ids = append(ids, p.OrderID)
		}
	}
	if len(ids) == 0 {
		sb.note("No payment is pending.")
		return
	}
	sb.checkA.btn.Disable()
	sb.note("Checking " + plural(len(ids), "pending payment") + "…")
	sb.u.async(func(ctx context.Context) func() {
		outs := make([]Outcome, len(ids))
		errs := make([]error, len(ids))
		for i, id := range ids {
			outs[i], errs[i] = sb.u.till.Pending.CheckOrder(ctx, id)
		}
		return func() {
			sb.checkA.btn.Enable()
			var still []string
			for i, id := range ids {
				if errs[i] != nil {
					still = append(still, "order "+id+": "+sentence(errs[i]))
				} else if !outs[i].State.Final() {
					still = append(still, "order "+id+" still pending")
				}
				if sb.u.pay.orderID == id {
					sb.u.pay.checked(id, outs[i], errs[i])
				}
			}
			if len(still) > 0 {
				sb.note("Checked: " + strings.Join(still, "; ") + ".")
			} else {
				sb.note("Checked: nothing is pending.")
			}
			sb.u.sale.payment.checkLock()
			sb.refreshStatus() // the notices of what was resolved
		}
	})
}

// refreshStatus follows up the payments left pending, asks pos for its standing
// and shows both in the status bar.
func (sb *statusBar) refreshStatus() {
	sb.u.async(func(ctx context.Context) func() {
		notes, _ := sb.u.till.Pending.FollowUp(ctx) // what could not be inquired is tried again on the next tick
		st := sb.u.till.Counter.Status(ctx)
		return func() {
			sb.showStatus(st)
			for _, n := range notes {
				sb.raise(n)
			}
		}
	})
}

func (sb *statusBar) showStatus(st Status) {
	sb.status = st
	if st.Live {
		sb.modeText.Text = "LIVE"
		sb.modeText.Color = colLive
	} else {
		sb.modeText.Text = "SANDBOX"
		sb.modeText.Color = colSandbox
	}
	sb.modeText.Refresh()
	online := "Offline: card payments will wait"
	if st.Online {
		online = "Online"
	}
	if store := st.Store.Text(time.Now()); store != "" {
		online += " · " + store // the link to the store server (pos.StoreStatus)
	}
	if st.Gateway != "" {
		online += " · " + st.Gateway // a live service no manager approved: no card payments
	}
	sb.onlineText.SetText(online)
	switch {
	case len(st.Pending) == 1:
		sb.unknownText.SetText("Payment pending: order " + st.Pending[0].OrderID + " " + st.Pending[0].Amount.String())
	case len(st.Pending) > 1:
		sb.unknownText.SetText(strconv.Itoa(len(st.Pending)) + " payments pending")
	default:
		sb.unknownText.SetText(paymentsText(st.Unknown, st.InProgress))
	}
	if len(st.Pending) > 0 {
		sb.unknownText.Importance = widget.WarningImportance
		sb.checkA.btn.Show()
	} else {
		sb.unknownText.Importance = widget.MediumImportance
		sb.checkA.btn.Hide()
	}
	sb.unknownText.Refresh()
	sb.showJournal(st)
}

// paymentsText is the status bar's count of payments not final: those whose
// outcome is unknown, and those in progress (being created, authenticated or
// verified), which are not unknown (pos.TillStatus).
func paymentsText(unknown, inProgress int) string {
	var parts []string
	switch {
	case unknown == 1:
		parts = append(parts, "1 unknown payment")
	case unknown > 1:
		parts = append(parts, strconv.Itoa(unknown)+" unknown payments")
	}
	switch {
	case inProgress == 1:
		parts = append(parts, "1 payment in progress")
	case inProgress > 1:
		parts = append(parts, strconv.Itoa(inProgress)+" payments in progress")
	}
	if len(parts) == 0 {
		return "No unknown payments"
	}
	return strings.Join(parts, " · ")
}

// showJournal shows the journal's startup check in the status bar. A damaged
// journal's sentence (what is damaged, where the last backup is) is also shown
// once in a dialog, as soon as no other dialog is open.
func (sb *statusBar) showJournal(st Status) {
	switch {
	case st.Damaged != "":
		sb.journalText.Importance = widget.DangerImportance
		sb.journalText.SetText("JOURNAL DAMAGED — card payments stopped")
		if !sb.damageShown && (sb.u.dialogs.prompt == nil || sb.u.dialogs.prompt.closed) {
			sb.damageShown = true
			sb.u.dialogs.showMessage("The journal is damaged", st.Damaged)
		}
	case st.Checking:
		sb.journalText.Importance = widget.MediumImportance
		sb.journalText.SetText("Checking journal…")
	default:
		sb.journalText.Importance = widget.MediumImportance
		sb.journalText.SetText("")
	}
}
