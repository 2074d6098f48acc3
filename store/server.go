package store

import (
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"galla/store/api"
)

// Server is the store server's HTTP side: the terminals' API and, beside it,
// the manager's pages when whoever builds the server hands them over
// (WithManagerPages). It keeps no state of its own: every request is answered
// from the database.
type Server struct {
	db    *DB
	mux   *http.ServeMux
	log   *slog.Logger
	pages http.Handler // WithManagerPages
}

// ServerOption sets up a Server made by NewServer.
type ServerOption func(*Server)

// WithManagerPages serves pages under /manager/: the manager's pages
// (store/web.New), which this package cannot import (they import it).
func WithManagerPages(pages http.Handler) ServerOption {
	return func(s *Server) { s.pages = pages }
}

// NewServer returns the server over db; log nil is slog.Default(). Without
// WithManagerPages it serves the terminals only.
func NewServer(db *DB, log *slog.Logger, opts ...ServerOption) *Server {
	if log == nil {
		log = slog.Default()
	}
	s := &Server{db: db, mux: http.NewServeMux(), log: log}
	for _, o := range opts {
		o(s)
	}
	s.routes()
	return s
}

// routes registers every endpoint. Each area of the server adds its routes
// here, one line calling a method of its own file:
//
//	/api/v1/enrol, /api/v1/rotate-key,
//	/api/v1/events, /api/v1/status                  the terminals (this file)
//	/api/v1/...                                     store-wide decisions: s.handleSigned
//	/manager/..., and / (sent on to /manager/)      the manager's pages: s.pages
func (s *Server) routes() {
	s.mux.HandleFunc("GET /healthz", s.health)
	s.mux.HandleFunc("POST "+api.PathEnrol, s.enrol)
	s.mux.HandleFunc("POST "+api.PathRotateKey, s.rotateKey)
	s.handleSignedUpTo("POST "+api.PathEvents, api.MaxBody, s.events)
	s.handleSigned("GET "+api.PathStatus, s.status)
	s.reserveRoutes()
	s.masterRoutes()
	if s.pages != nil {
		s.mux.Handle("/manager/", s.pages)
		s.mux.Handle("GET /{$}", s.pages)
	}
}

// ServeHTTP serves the routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// SignedHandler answers a request signed by an enrolled terminal: terminal is
// its id and body the request's body, read and checked already.
type SignedHandler func(w http.ResponseWriter, r *http.Request, terminal string, body []byte)

// handleSigned registers h for pattern behind the terminal's signature
// (api.Auth), for a request of at most api.MaxRequest bytes: a decision, a
// question. See handleSignedUpTo.
func (s *Server) handleSigned(pattern string, h SignedHandler) {
	s.handleSignedUpTo(pattern, api.MaxRequest, h)
}

// handleSignedUpTo registers h for pattern behind the terminal's signature,
// for a body of at most max bytes. Nothing of the body is read before the
// request is known to be the terminal's: a body said to be larger than max is
// refused (413) unread; the signature is checked against the body's hash that
// the header names, and only then is the body read (max bytes at most) and
// held to that hash. An unsigned, wrongly signed or replayed request is
// refused (401) and recorded as an alarm (bounded: dbCore.alarm) before h is
// called. A header of an earlier version without the body's hash is checked
// once its body is read, which may then be api.MaxUndigested bytes at most.
func (s *Server) handleSignedUpTo(pattern string, max int64, h SignedHandler) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > max {
			s.fail(w, tooLarge(max))
			return
		}
		a, err := api.ParseAuth(r.Header.Get("Authorization"))
		if err != nil {
			s.db.core.alarm(r.Context(), "", AlarmUnauthorized, 0, "a request without a terminal's signature reached "+r.URL.Path)
			s.fail(w, &api.Error{HTTPStatus: http.StatusUnauthorized, Code: api.CodeUnauthorized, Message: "the request carries no terminal signature: enrol the terminal (galla enrol STORE_URL CODE --fingerprint SHA256 --staff MANAGER)"})
			return
		}
		var body []byte
		if a.Body == "" {
			// A terminal of an earlier version: its signature covers the
			// body, which must be read first; only a small one is.
			if body, err = readBody(w, r, min(max, api.MaxUndigested)); err != nil {
				s.fail(w, err)
				return
			}
			if err := s.db.Access.authenticate(r.Context(), a, func(pub ed25519.PublicKey) bool { return a.Verify(pub, r.Method, r.URL.Path, body) }); err != nil {
				s.fail(w, err)
				return
			}
			h(w, r, a.Terminal, body)
			return
		}
		if err := s.db.Access.authenticate(r.Context(), a, func(pub ed25519.PublicKey) bool { return a.VerifyHeader(pub, r.Method, r.URL.Path) }); err != nil {
			s.fail(w, err)
			return
		}
		if body, err = readBody(w, r, max); err != nil {
			s.fail(w, err)
			return
		}
		if api.BodyDigest(body) != a.Body {
			// The same alarm as a wrong signature: the signed request was edited.
			s.db.core.alarm(r.Context(), a.Terminal, AlarmUnauthorized, 0, badSignature)
			s.fail(w, &api.Error{HTTPStatus: http.StatusUnauthorized, Code: api.CodeUnauthorized, Message: "the request's body is not the one it is signed for: nothing was stored"})
			return
		}
		h(w, r, a.Terminal, body)
	})
}

// readBody reads r's body, max bytes at most: more is a 413 *api.Error.
func readBody(w http.ResponseWriter, r *http.Request, max int64) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	var big *http.MaxBytesError
	switch {
	case errors.As(err, &big):
		return nil, tooLarge(max)
	case err != nil:
		// The request was cut on its way: nobody is left to answer.
		return nil, &api.Error{HTTPStatus: http.StatusBadRequest, Code: api.CodeMalformed, Message: "the request was cut before its end: nothing stored"}
	}
	return body, nil
}

// tooLarge refuses a body larger than max bytes.
func tooLarge(max int64) *api.Error {
	msg := fmt.Sprintf("the request is larger than %d bytes, the most this address takes: nothing stored", max)
	if max == api.MaxBody {
		msg += "; send smaller batches"
	} else if max <= api.MaxUndigested {
		msg += "; a terminal whose requests do not carry the body's hash (an earlier version of Galla) must be updated to send more"
	}
	return &api.Error{HTTPStatus: http.StatusRequestEntityTooLarge, Code: api.CodeMalformed, Message: msg}
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	if err := s.db.core.pool.Ping(r.Context()); err != nil {
		s.fail(w, s.db.core.wrap("health", err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// maxEnrol is the most bytes of an enrolment request ({"code": "..."}).
const maxEnrol = 4096

func (s *Server) enrol(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > maxEnrol {
		s.fail(w, tooLarge(maxEnrol))
		return
	}
	var req api.EnrolRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxEnrol)).Decode(&req); err != nil || req.Code == "" {
		s.fail(w, &api.Error{HTTPStatus: http.StatusBadRequest, Code: api.CodeMalformed, Message: "the enrolment request must be {\"code\": \"...\", \"public_key\": \"...\"}"})
		return
	}
	pub, err := api.ParsePublicKey(req.PublicKey)
	if err != nil {
		s.fail(w, &api.Error{HTTPStatus: http.StatusBadRequest, Code: api.CodeMalformed, Message: "the enrolment carries no Ed25519 public key of 64 hex digits: update the counter's Galla; the code stays valid"})
		return
	}
	resp, err := s.db.Access.Enrol(r.Context(), req.Code, pub)
	if errors.Is(err, ErrBadCode) {
		s.fail(w, &api.Error{HTTPStatus: http.StatusForbidden, Code: api.CodeBadCode, Message: "the enrolment code is unknown, used already or expired: ask the manager for a new one (galla store enrol-code TERMINAL_ID)"})
		return
	}
	if err != nil {
		s.fail(w, err)
		return
	}
	s.log.Info("terminal enrolled", "terminal", resp.TerminalID)
	writeJSON(w, http.StatusOK, resp)
}

// rotateKey moves a terminal enrolled with a credential of an earlier version
// to a key (Access.RotateKey) and answers its status.
func (s *Server) rotateKey(w http.ResponseWriter, r *http.Request) {
	var req api.RotateRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&req); err != nil || req.TerminalID == "" || req.Credential == "" {
		s.fail(w, &api.Error{HTTPStatus: http.StatusBadRequest, Code: api.CodeMalformed, Message: "the key rotation must be {\"terminal_id\", \"credential\", \"public_key\"}"})
		return
	}
	if err := s.db.Access.RotateKey(r.Context(), req); err != nil {
		s.fail(w, err)
		return
	}
	st, err := s.db.Events.Status(r.Context(), req.TerminalID)
	if err != nil {
		s.fail(w, err)
		return
	}
	s.log.Info("terminal moved to a key", "terminal", req.TerminalID)
	writeJSON(w, http.StatusOK, st)
}

func (s *Server) events(w http.ResponseWriter, r *http.Request, terminal string, body []byte) {
	var b api.Batch
	// Fields a newer terminal adds are ignored, not refused.
	if err := json.Unmarshal(body, &b); err != nil {
		s.db.core.alarm(r.Context(), terminal, AlarmMalformed, 0, "a batch that is not JSON: "+err.Error())
		s.fail(w, &api.Error{HTTPStatus: http.StatusBadRequest, Code: api.CodeMalformed, Message: "the batch was refused, nothing of it stored: it is not the JSON of a batch (" + err.Error() + ")"})
		return
	}
	if b.TerminalID != terminal {
		s.db.core.alarm(r.Context(), terminal, AlarmUnauthorized, 0, fmt.Sprintf("terminal %s sent a batch naming terminal %q", terminal, b.TerminalID))
		s.fail(w, &api.Error{HTTPStatus: http.StatusForbidden, Code: api.CodeUnauthorized, Message: fmt.Sprintf("the batch names terminal %q, but is signed by terminal %s", b.TerminalID, terminal)})
		return
	}
	// Stored and projected before the answer; a failure of the projection
	// is logged only: the events are stored, and the next batch or read
	// catches up.
	resp, projected, err := s.db.Events.IngestAndProject(r.Context(), terminal, b.Events)
	if err != nil {
		s.fail(w, err)
		return
	}
	if projected != nil && r.Context().Err() == nil {
		s.log.Warn("store: project", "terminal", terminal, "err", projected)
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) status(w http.ResponseWriter, r *http.Request, terminal string, _ []byte) {
	st, err := s.db.Events.Status(r.Context(), terminal)
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

// fail writes err as an api.Error: its own, 503 when the database cannot be
// reached (nothing was stored), else 500 with a generic sentence and a log line.
func (s *Server) fail(w http.ResponseWriter, err error) {
	var ae *api.Error
	switch {
	case errors.As(err, &ae):
	case errors.Is(err, ErrUnavailable):
		ae = &api.Error{HTTPStatus: http.StatusServiceUnavailable, Code: api.CodeUnavailable, Message: "the store's database cannot be reached: nothing was stored; the terminal sends again later"}
	case errors.Is(err, context.Canceled):
		// The terminal went away; the transaction was rolled back.
		ae = &api.Error{HTTPStatus: http.StatusServiceUnavailable, Code: api.CodeUnavailable, Message: "the request was cancelled: nothing was stored"}
	default:
		s.log.Error("store: request failed", "err", err)
		ae = &api.Error{HTTPStatus: http.StatusInternalServerError, Code: api.CodeInternal, Message: "the store server failed on an internal error: nothing was stored; see the server's log"}
	}
	if ae.HTTPStatus == 0 {
		ae.HTTPStatus = http.StatusBadRequest
	}
	writeJSON(w, ae.HTTPStatus, ae)
}

// writeJSON writes v as the JSON body of a status answer.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Serve serves HTTPS on ln with the certificate in the database until ctx
// ends, then shuts down gracefully. It forgets old request nonces every minute.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	cert, _, err := s.db.Keys.TLSCertificate(ctx)
	if err != nil {
		return err
	}
	hs := &http.Server{
		Handler:           s,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    64 << 10, // a signed request's headers are a few hundred bytes
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Minute)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				_ = hs.Shutdown(sctx)
				cancel()
				close(done)
				return
			case <-t.C:
				if err := s.db.Access.PurgeNonces(ctx); err != nil && ctx.Err() == nil {
					s.log.Warn("store: purge nonces", "err", err)
				}
			}
		}
	}()
	err = hs.ServeTLS(ln, "", "")
	if errors.Is(err, http.ErrServerClosed) {
		<-done
		return nil
	}
	return err
}

// masterRoutes registers the terminals' fetch of the master data.
func (s *Server) masterRoutes() {
	s.staffRoutes()
	s.handleSigned("POST "+api.PathMaster, func(w http.ResponseWriter, r *http.Request, terminal string, body []byte) {
		var req api.MasterRequest
		if err := decodeStrict(body, &req); err != nil {
			s.fail(w, err)
			return
		}
		up, err := s.db.Master.MasterSince(r.Context(), req.Since)
		if err != nil {
			s.fail(w, err)
			return
		}
		if req.Since > up.Version {
			s.fail(w, &api.Error{HTTPStatus: http.StatusConflict, Code: api.CodeGap, Held: up.Version,
				Message: fmt.Sprintf("the terminal asks for master data after version %d, but the store's newest is %d: the store's database was replaced; fetch from 0", req.Since, up.Version)})
			return
		}
		writeJSON(w, http.StatusOK, up)
	})
}

// staffRoutes registers a terminal's signed request for the store's staff
// pepper (a terminal enrolled before the store had staff asks once).
func (s *Server) staffRoutes() {
	s.handleSigned("POST "+api.PathStaffPepper, func(w http.ResponseWriter, r *http.Request, terminal string, body []byte) {
		pep, err := s.db.Staff.StaffPepper(r.Context())
		if err != nil {
			s.fail(w, err)
			return
		}
		writeJSON(w, http.StatusOK, api.StaffPepper{Pepper: hex.EncodeToString(pep)})
	})
}
