package receipts

// Cancelled is how a cancelled sale document says so: a large CANCELLED between
// rules of '#' at its top and again at its end, with the reason, in every
// format (text, ESC/POS, PNG, PDF; thermal and A4).
type Cancelled struct {
	Reason string // why, as the manager typed it
	When   string // when it was cancelled, as printed: "24 Nov 2026 18:40"
	By     string // the manager who authorised it
}

// CancelledMark is the word a cancelled document carries in large type.
const CancelledMark = "CANCELLED"

// cancelMark prints the cancellation block when r is a cancelled document.
func (l *layouter) cancelMark(r Receipt) {
	c := r.Cancelled
	if c == nil {
		return
	}
	l.rule('#')
	l.bigCenter(CancelledMark)
	l.center("This document is cancelled: the supply did not take place", true)
	l.center("and the money was given back. Not valid for input tax credit.", false)
	if c.Reason != "" {
		l.text("Reason: "+c.Reason, 0, true)
	}
	if c.When != "" || c.By != "" {
		s := "Cancelled"
		if c.When != "" {
			s += " " + c.When
		}
		if c.By != "" {
			s += " by " + c.By
		}
		l.text(s, 0, false)
	}
	l.rule('#')
}
