package pos

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// callLog records the paths of the requests a gateway client sends.
type callLog struct {
	rt    http.RoundTripper
	mu    sync.Mutex
	paths []string
}

func (c *callLog) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.paths = append(c.paths, r.Method+" "+r.URL.Path)
	c.mu.Unlock()
	return c.rt.RoundTrip(r)
}

// kinds names each request of the log by what it is: create, pay, inquiry,
// acs.
func (c *callLog) kinds() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, p := range c.paths {
		switch {
		case strings.Contains(p, "/order/create"):
			out = append(out, "create")
		case strings.Contains(p, "/card/process/payment"):
			out = append(out, "pay")
		case strings.Contains(p, "/inquiry/"):
			out = append(out, "inquiry")
		case strings.Contains(p, "/acs/"):
			out = append(out, "acs")
		default:
			out = append(out, p)
		}
	}
	return out
}

// TestAuthenticationStep: with the embedded sandbox, an OTP given with the
// sale (the command line's --otp) is posted to the card's authentication page
// at once, with no inquiry before it; a frictionless card, whose page sends
// on to the merchant whatever is posted, is paid the same way. Without an OTP
// given, the counter asks the service first whether the card was captured
// already, and a frictionless card is paid without anyone being asked for
// one.
func TestAuthenticationStep(t *testing.T) {
	for _, c := range []struct {
		name, card string
		otp        bool
		want       []string
	}{
		{"OTP given", "4111111111111111", true, []string{"create", "pay", "acs", "inquiry"}},
		{"OTP given, frictionless card", "5555555555554444", true, []string{"create", "pay", "acs", "inquiry"}},
		{"no OTP, frictionless card", "5555555555554444", false, []string{"create", "pay", "inquiry", "inquiry"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			log := &callLog{}
			r := newRigVia(t, func(rt http.RoundTripper) http.RoundTripper { log.rt = rt; return log })
			tl := r.till(t)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second) // a wait for an OTP would hang
			defer cancel()
			lines, _, err := tl.Shelf.ParseItems(ctx, "ACC-CASE", nil)
			require.NoError(t, err)
			req := PayRequest{Lines: lines, Tender: TenderCard, Card: card(c.card), Cashier: "001"}
			if c.otp {
				req.OTP, req.Unattended = r.td.OTP, true
			}
			asked := false
			out, err := tl.Checkout.Pay(ctx, req, func(p PayProgress) { asked = asked || p.OTP })
			require.NoError(t, err)
			require.Equal(t, StatePaid, out.State, out.Reason)
			assert.True(t, out.Verified)
			assert.False(t, asked, "nobody is asked for an OTP")
			assert.Equal(t, c.want, log.kinds())
		})
	}
}
