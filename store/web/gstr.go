package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"galla/pos/gstr"
	"galla/store"
)

// The store's GSTR-1 (JSON for the GST offline tool) and the lines CSV of a
// month, for the accountant.

// month reads ?month=YYYY-MM (the current month when absent), or answers
// with a sentence.
func (p *Pages) month(w http.ResponseWriter, r *http.Request, s session) (gstr.Month, bool) {
	q := strings.TrimSpace(r.URL.Query().Get("month"))
	if q == "" {
		q = p.Now().Format("2006-01")
	}
	m, err := gstr.ParseMonth(q)
	if err != nil {
		p.render(w, http.StatusBadRequest, "error", view{Title: "Error", Manager: s.Manager, CSRF: s.CSRF,
			Error: "The month is written YYYY-MM, for example 2026-11."})
		return m, false
	}
	return m, true
}

// refused answers the store's refusal of a GSTR-1 with its sentence.
func (p *Pages) refused(w http.ResponseWriter, s session, err error) bool {
	if errors.Is(err, store.ErrNoGSTIN) || errors.Is(err, store.ErrComposition) || errors.Is(err, store.ErrGSTINNotHeld) {
		msg := err.Error()
		p.render(w, http.StatusConflict, "error", view{Title: "Error", Manager: s.Manager, CSRF: s.CSRF,
			Error: strings.ToUpper(msg[:1]) + msg[1:] + "."})
		return true
	}
	return false
}

func (p *Pages) gstr1(w http.ResponseWriter, r *http.Request, s session) {
	m, ok := p.month(w, r, s)
	if !ok {
		return
	}
	// ?gstin= names an earlier GSTIN of the store (after a new registration).
	ret, err := p.db.Reports.GSTR1Of(r.Context(), m, p.Now().Location(), r.URL.Query().Get("gstin"))
	if err != nil {
		if !p.refused(w, s, err) {
			p.fail(w, s, err)
		}
		return
	}
	body, err := json.MarshalIndent(ret, "", "  ")
	if err != nil {
		p.fail(w, s, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", `attachment; filename="GSTR1-`+ret.GSTIN+`-`+m.FP()+`.json"`)
	_, _ = w.Write(body)
}

func (p *Pages) monthCSV(w http.ResponseWriter, r *http.Request, s session) {
	m, ok := p.month(w, r, s)
	if !ok {
		return
	}
	var buf bytes.Buffer
	if err := p.db.Reports.WriteMonthCSV(r.Context(), m, p.Now().Location(), &buf); err != nil {
		p.fail(w, s, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="store-lines-`+m.String()+`.csv"`)
	_, _ = w.Write(buf.Bytes())
}
