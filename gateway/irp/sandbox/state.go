package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"galla/gateway/irp"
	"galla/internal/atomicfile"
)

// The sandbox's state file. Open keeps every registered document, its
// cancellation and the last acknowledgement number in one JSON snapshot
// (irp-sandbox.json in the terminal's data directory), so that an IRN
// registered by one run of the program is known to the next: a second generate
// answers as a duplicate, get-by-document finds it, cancel cancels it. Each
// call that changes the state writes the whole snapshot before its answer is
// given: a temporary file in the same directory, synced, then renamed over the
// state file, so the file is always a whole snapshot, the old or the new. A
// call whose snapshot cannot be written is undone and refused (HTTP 500, code
// 5001, with the reason), as if it had not been made. A file that cannot be read as
// a snapshot stops Open with a sentence and is never overwritten. Each call
// reads the file again first when another sandbox on it (a command run beside
// the window) has written it since (refresh), so that two runs one after the
// other never answer from a stale copy nor drop each other's registrations;
// two calls at the same instant from two processes are not serialised. Tokens
// are not kept: each run authenticates again.

// stateVersion is the snapshot's format.
const stateVersion = 1

// snapshot is the state file's content.
type snapshot struct {
	V     int        `json:"v"`
	AckNo int64      `json:"ack_no"`
	Docs  []savedDoc `json:"docs"`
}

// savedDoc is one registered document in the snapshot.
type savedDoc struct {
	GSTIN     string           `json:"gstin"`
	Invoice   irp.Invoice      `json:"invoice"`
	Reg       irp.Registration `json:"registration"`
	Ack       time.Time        `json:"ack"`
	Cancelled bool             `json:"cancelled,omitempty"`
}

// ErrDamaged is matched (errors.Is) by Open's refusal of a state file that is
// not a snapshot.
var ErrDamaged = errors.New("sandbox: the state file is damaged")

// Open is a sandbox whose state is kept in the file at path (created on the
// first registration) on the clock now (time.Now when nil): the documents an
// earlier sandbox on the same file registered are registered here too.
func Open(path string, now func() time.Time) (*Sandbox, error) {
	s := New(now)
	s.path = path
	atomicfile.RemoveTemps(path)
	if err := s.refresh(); err != nil {
		return nil, err
	}
	return s, nil
}

// refresh reads the state file again when another sandbox on it (a command
// run beside the window) has written it since this one last read or wrote it,
// so that each call answers from the file's registrations, not from a copy
// that predates them. A file that does not exist leaves the state as it is.
// s.mu is held, or s is not shared yet.
func (s *Sandbox) refresh() error {
	if s.path == "" {
		return nil
	}
	fi, err := os.Stat(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sandbox: read %s: %w", s.path, err)
	}
	if s.seen != nil && os.SameFile(s.seen, fi) && s.seen.ModTime().Equal(fi.ModTime()) && s.seen.Size() == fi.Size() {
		return nil
	}
	raw, err := os.ReadFile(s.path)
	if err != nil {
		return fmt.Errorf("sandbox: read %s: %w", s.path, err)
	}
	var snap snapshot
	if err := json.Unmarshal(raw, &snap); err != nil || snap.V != stateVersion {
		why := fmt.Sprintf("its version is %d, not %d", snap.V, stateVersion)
		if err != nil {
			why = err.Error()
		}
		return fmt.Errorf("%w: %s cannot be read as the IRP sandbox's registrations (%s); it is left as it is: move it away to start an empty sandbox, which knows none of the IRNs registered before", ErrDamaged, s.path, why)
	}
	s.ackNo = max(s.ackNo, snap.AckNo)
	s.docs, s.byIRN = make(map[string]*record, len(snap.Docs)), make(map[string]*record, len(snap.Docs))
	for _, d := range snap.Docs {
		rec := &record{gstin: d.GSTIN, inv: d.Invoice, reg: d.Reg, ack: d.Ack, cancelled: d.Cancelled}
		s.docs[key(d.GSTIN, d.Invoice.DocDtls.Typ, d.Invoice.DocDtls.No)] = rec
		s.byIRN[d.Reg.Irn] = rec
	}
	s.seen = fi
	return nil
}

// save writes the state to the state file, when there is one. s.mu is held.
func (s *Sandbox) save() error {
	if s.path == "" {
		return nil
	}
	snap := snapshot{V: stateVersion, AckNo: s.ackNo, Docs: make([]savedDoc, 0, len(s.docs))}
	for _, rec := range s.docs {
		snap.Docs = append(snap.Docs, savedDoc{GSTIN: rec.gstin, Invoice: rec.inv, Reg: rec.reg, Ack: rec.ack, Cancelled: rec.cancelled})
	}
	// One order for one state, whatever the map's: by acknowledgement.
	sortDocs(snap.Docs)
	b, err := json.Marshal(snap)
	if err != nil {
		return fmt.Errorf("sandbox: save state: %w", err)
	}
	if err := atomicfile.Write(s.path, append(b, '\n')); err != nil {
		return fmt.Errorf("sandbox: save state: %w", err)
	}
	if fi, err := os.Stat(s.path); err == nil {
		s.seen = fi
	} else {
		s.seen = nil // read it again on the next call
	}
	return nil
}

func sortDocs(docs []savedDoc) {
	slices.SortFunc(docs, func(a, b savedDoc) int {
		if c := a.Ack.Compare(b.Ack); c != 0 {
			return c
		}
		return strings.Compare(a.Reg.AckNo, b.Reg.AckNo)
	})
}
