package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"galla/pos"
	"galla/store/api"
)

// reserveRoutes registers the store-wide decisions, signed like every terminal
// request.
func (s *Server) reserveRoutes() {
	s.handleSigned("POST "+api.PathReserveIMEI, s.reserveIMEI)
	s.handleSigned("POST "+api.PathIssueCreditNote, s.issueCreditNote)
	s.handleSigned("POST "+api.PathReserveCreditNote, s.reserveCreditNote)
	s.handleSigned("POST "+api.PathReserveReturn, s.reserveReturn)
	s.handleSigned("POST "+api.PathRelease, s.release)
	s.handleSigned("POST "+api.PathInvoice, s.invoice)
	s.handleSigned("POST "+api.PathReturnedElsewhere, s.returnedElsewhere)
}

// decodeStrict reads body into v, refusing unknown fields and trailing data.
func decodeStrict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badRequest(fmt.Sprintf("the request is not the JSON expected (%v): nothing was reserved", err))
	}
	if dec.More() {
		return badRequest("the request carries data after its JSON: nothing was reserved")
	}
	return nil
}

func (s *Server) reserveIMEI(w http.ResponseWriter, r *http.Request, terminal string, body []byte) {
	var req api.ReserveIMEI
	if err := decodeStrict(body, &req); err != nil {
		s.fail(w, err)
		return
	}
	if err := s.db.Decisions.ReserveIMEIs(r.Context(), terminal, req.OrderID, req.IMEIs); err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, api.Reserved{})
}

func (s *Server) issueCreditNote(w http.ResponseWriter, r *http.Request, terminal string, body []byte) {
	var req api.IssueCreditNote
	if err := decodeStrict(body, &req); err != nil {
		s.fail(w, err)
		return
	}
	if err := s.db.Decisions.IssueCreditNote(r.Context(), terminal, req.Number, pos.Paise(req.Value)); err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, api.Reserved{Remaining: req.Value})
}

func (s *Server) reserveCreditNote(w http.ResponseWriter, r *http.Request, terminal string, body []byte) {
	var req api.ReserveCreditNote
	if err := decodeStrict(body, &req); err != nil {
		s.fail(w, err)
		return
	}
	left, err := s.db.Decisions.RedeemCreditNote(r.Context(), terminal, req.Number, req.OrderID, pos.Paise(req.Amount))
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, api.Reserved{Remaining: int64(left)})
}

func (s *Server) reserveReturn(w http.ResponseWriter, r *http.Request, terminal string, body []byte) {
	var req api.ReserveReturn
	if err := decodeStrict(body, &req); err != nil {
		s.fail(w, err)
		return
	}
	out, err := s.db.Decisions.ReserveReturn(r.Context(), terminal, req.Document, req.RefundID, pos.Paise(req.Amount), req.Lines)
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) release(w http.ResponseWriter, r *http.Request, terminal string, body []byte) {
	var req api.Release
	if err := decodeStrict(body, &req); err != nil {
		s.fail(w, err)
		return
	}
	n, err := s.db.Decisions.Release(r.Context(), terminal, req.OrderID, req.RefundID)
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, api.Reserved{Released: n})
}

func (s *Server) invoice(w http.ResponseWriter, r *http.Request, _ string, body []byte) {
	var req api.InvoiceRequest
	if err := decodeStrict(body, &req); err != nil {
		s.fail(w, err)
		return
	}
	out, err := s.db.Decisions.Invoice(r.Context(), req.Document)
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) returnedElsewhere(w http.ResponseWriter, r *http.Request, terminal string, body []byte) {
	var req api.ReturnedElsewhereRequest
	if err := decodeStrict(body, &req); err != nil {
		s.fail(w, err)
		return
	}
	out, err := s.db.Decisions.ReturnedElsewhere(r.Context(), terminal)
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}
