package web

import (
	"net/http"
)

// staffPage lists the store's staff (ADR 0007): who signs in at every counter,
// their role, limits and whether they are disabled. Changes are made with
// galla store staff on the server.
func (p *Pages) staffPage(w http.ResponseWriter, r *http.Request, s session) {
	list, err := p.db.Staff.ListStaff(r.Context())
	if err != nil {
		p.fail(w, s, err)
		return
	}
	p.render(w, http.StatusOK, "staff", view{Title: "The store's staff", Manager: s.Manager, CSRF: s.CSRF, Data: list})
}
