package gateway

import (
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseAuthForm(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want *authForm
	}{
		{"auto-submitting page", `<!DOCTYPE html><html><head><title>Redirecting <form></title>
			<script>var s = "<form action='/evil'>"; document.forms[0].submit();</script></head>
			<body onload="document.forms[0].submit()"><!-- <form action="/comment"> -->
			<FORM Method="post" ACTION="/acs/77?x=1&amp;y=2" name=f>
			<input type="hidden" name="payment_id" value="77">
			<input type=hidden name=md value=a&lt;b>
			<input type='hidden' name='pareq' value='e30=' />
			<input type="submit" name="go" value="Continue">
			<input type="checkbox" name="remember">
			<input type="checkbox" name="agree" checked>
			<input name="otp" value="">
			<input value="no name">
			</form><form action="/second"><input name="z" value="1"></form></body></html>`,
			&authForm{Action: "/acs/77?x=1&y=2", Method: "POST", Fields: url.Values{
				"payment_id": {"77"}, "md": {"a<b"}, "pareq": {"e30="}, "agree": {"on"}, "otp": {""},
			}}},
		{"get by default", `<form action="https://bank.example/acs"><input name="a" value="1"></form>`,
			&authForm{Action: "https://bank.example/acs", Method: "GET", Fields: url.Values{"a": {"1"}}}},
		{"unclosed form", `<form method=POST action=/acs/1><input type=hidden name=a value="x y">`,
			&authForm{Action: "/acs/1", Method: "POST", Fields: url.Values{"a": {"x y"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseAuthForm(tt.doc)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	for _, doc := range []string{"", "plain text", "<p>no form</p>", "<form", "a < b", `<script><form action=x></script>`} {
		_, err := parseAuthForm(doc)
		assert.Error(t, err, "parseAuthForm(%q)", doc)
	}
}

func TestSubmitAuthentication(t *testing.T) {
	f := setup(t)
	var returned, posted atomic.Int32
	content := `<html><body onload="document.forms[0].submit()">
		<form method="post" action="acs/77"><input type="hidden" name="payment_id" value="77">
		<input type="hidden" name="otp" value="000000"></form></body></html>`
	f.mux.HandleFunc("POST /acs/77", func(w http.ResponseWriter, r *http.Request) {
		posted.Add(1)
		assert.Equal(t, "application/x-www-form-urlencoded", r.Header.Get("Content-Type"))
		assert.Empty(t, r.Header.Get("Authorization"))
		require.NoError(t, r.ParseForm())
		assert.Equal(t, "77", r.PostForm.Get("payment_id"))
		assert.Equal(t, []string{"123456"}, r.PostForm["otp"], "fields replace the form's inputs")
		http.Redirect(w, r, "https://shop.invalid/return?payment_id=77&service_order_id=42", http.StatusFound)
	})
	f.mux.HandleFunc("/return", func(http.ResponseWriter, *http.Request) { returned.Add(1) })
	// The relative action resolves against the base URL (with its prefix).
	require.NoError(t, f.client.SubmitAuthentication(t.Context(), content, url.Values{"otp": {"123456"}}))
	assert.Equal(t, int32(1), posted.Load())
	assert.Equal(t, int32(0), returned.Load(), "the redirect to merchant_return_url is not followed")
}

func TestSubmitAuthenticationAbsoluteActionAndCancel(t *testing.T) {
	f := setup(t)
	f.mux.HandleFunc("POST /acs/9", func(w http.ResponseWriter, r *http.Request) {
		require.NoError(t, r.ParseForm())
		assert.Equal(t, "cancel", r.PostForm.Get("action"))
		w.WriteHeader(http.StatusOK)
	})
	content := `<form method="POST" action="` + apiPrefix + `/acs/9"></form>`
	require.NoError(t, f.client.SubmitAuthentication(t.Context(), content, url.Values{"action": {"cancel"}}))
}

func TestSubmitAuthenticationFailures(t *testing.T) {
	f := setup(t)
	var n atomic.Int32
	f.mux.HandleFunc("POST /acs/5", func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if n.Load() == 1 {
			writeJSON(w, http.StatusNotFound, `{"error_code":"404","error_message":"ORDER_NOT_FOUND"}`)
			return
		}
		hijackClose(t, w)
	})
	content := `<form method="post" action="acs/5"></form>`
	err := f.client.SubmitAuthentication(t.Context(), content, nil)
	assert.ErrorIs(t, err, ErrNotFound)
	err = f.client.SubmitAuthentication(t.Context(), content, nil)
	assert.ErrorIs(t, err, ErrOutcomeUnknown, "a lost answer of the authentication step")
	assert.Equal(t, int32(2), n.Load(), "never re-sent")

	err = f.client.SubmitAuthentication(t.Context(), "<p>nothing</p>", nil)
	assert.ErrorIs(t, err, ErrInvalidInput)
	err = f.client.SubmitAuthentication(t.Context(), `<form action="javascript:alert(1)"></form>`, nil)
	assert.ErrorIs(t, err, ErrInvalidInput)
}
