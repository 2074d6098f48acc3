package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// metaGallaVersion is the meta key holding the version of the last Galla that
// opened the journal for writing (Options.AppVersion): text such as "0.1.0".
// An older build that finds a newer schema names it in its refusal.
var metaGallaVersion = []byte("galla_version")

// EvOpenedBy is the journal's own event recording that a Galla of another
// version than the last one opened the journal for writing, or that it moved
// the file to a newer schema (Data: an openedBy). It changes no order and no
// number; it sets meta's galla_version, on Append and on every replay alike.
const EvOpenedBy pos.EventKind = "journal.opened_by"

// openedBy is the Data of journal.opened_by.
type openedBy struct {
	Version  string `json:"version"`            // the Galla that opened it
	Previous string `json:"previous,omitempty"` // the one before ("" when none was recorded)
	// From and To are the schema versions of a migration this Open made; both
	// zero when it made none.
	From   uint64 `json:"schema_from,omitempty"`
	To     uint64 `json:"schema_to,omitempty"`
	Backup string `json:"backup,omitempty"` // the verified copy taken before the migration
}

// deriveOpenedBy applies journal.opened_by.
func deriveOpenedBy(tx *bolt.Tx, ev *pos.Event) error {
	var d openedBy
	if err := json.Unmarshal(ev.Data, &d); err != nil || d.Version == "" {
		return fmt.Errorf("%w: journal.opened_by without a version", pos.ErrBadEvent)
	}
	return tx.Bucket(bucketMeta).Put(metaGallaVersion, []byte(d.Version))
}

// versionOf reads the Galla version recorded in the file; "" when none is.
func versionOf(tx *bolt.Tx) string {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		return ""
	}
	return string(meta.Get(metaGallaVersion))
}

// NewerSchemaError is the error Open returns for a file whose schema is newer
// than this build's: a newer Galla wrote it, and this one cannot read it
// without the risk of damaging it. It matches ErrNewerSchema.
type NewerSchemaError struct {
	Path        string
	FileSchema  uint64 // the file's schema version
	FileVersion string // the Galla that last wrote it, "" when not recorded
	Schema      uint64 // the newest schema this build knows
	Version     string // this Galla's version (Options.AppVersion), "" when not given
}

func (e *NewerSchemaError) Error() string {
	return fmt.Sprintf("journal: open %s: file schema %d (Galla %s), this build (Galla %s) knows %d: %v",
		e.Path, e.FileSchema, orUnknown(e.FileVersion), orUnknown(e.Version), e.Schema, ErrNewerSchema)
}

// Is makes errors.Is(err, ErrNewerSchema) hold.
func (e *NewerSchemaError) Is(target error) bool { return target == ErrNewerSchema }

// Sentence is what the manager reads (pos.Sentencer).
func (e *NewerSchemaError) Sentence() string {
	writer := "a newer Galla"
	install := "the newer Galla"
	switch {
	case e.FileVersion != "" && e.FileVersion == e.Version:
		// Two builds of one version (a development build, or one rebuilt):
		// the version does not tell them apart, the schema does.
		writer = "a newer build of Galla " + e.FileVersion
		install = "that newer build"
	case e.FileVersion != "":
		writer = "Galla " + e.FileVersion
		install = "Galla " + e.FileVersion + " or later"
	}
	this := "This Galla"
	if e.Version != "" {
		this = "This is Galla " + e.Version + ", which"
	}
	return fmt.Sprintf("The journal %s was written by %s (journal schema %d). %s reads journal schema %d at most, so it will not open it and has changed nothing in it: install %s again to keep working.",
		e.Path, writer, e.FileSchema, this, e.Schema, install)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// ErrUpgradeCopy is matched (errors.Is) by the error Open returns when the
// copy it takes before a migration cannot be written or does not check out: an
// *UpgradeCopyError. Nothing was migrated.
var ErrUpgradeCopy = errors.New("journal: the copy before the upgrade failed")

// UpgradeCopyError says that a journal of an older schema was left as it was
// because its copy could not be made first.
type UpgradeCopyError struct {
	Path      string
	BackupDir string
	From, To  uint64 // the schemas
	Err       error
}

func (e *UpgradeCopyError) Error() string {
	return fmt.Sprintf("journal: migrate from schema %d: the copy before it: %v", e.From, e.Err)
}

func (e *UpgradeCopyError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrUpgradeCopy) hold.
func (e *UpgradeCopyError) Is(target error) bool { return target == ErrUpgradeCopy }

// Sentence is what the manager reads (pos.Sentencer).
func (e *UpgradeCopyError) Sentence() string {
	return fmt.Sprintf("This Galla moves the journal %s from schema %d to %d, and first copies it to %s; the copy could not be made (%v), so nothing was changed. Free space on the disk or make that folder writable, then start Galla again.",
		e.Path, e.From, e.To, e.BackupDir, e.Err)
}

// fileHead is what checkCopy compares of a file and its copy: the head in meta
// where the file keeps one (schema 7 and before), the mark of the head
// (headMark, schema 8 on) and the last event's sequence and hash.
func fileHead(tx *bolt.Tx) []byte {
	events := tx.Bucket(bucketEvents)
	head := bytes.Clone(tx.Bucket(bucketMeta).Get(metaHead))
	head = append(head, u64(events.Sequence())...)
	seq, h, _ := headIn(events)
	return append(head, headValue(seq, h)...)
}

// checkCopy opens the copy at path read-only and checks it holds schema and head.
func checkCopy(path string, schema uint64, head []byte) error {
	var db *bolt.DB
	err := guard(func() error {
		var err error
		db, err = bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
		return err
	})
	if err != nil {
		return err
	}
	defer db.Close()
	return guard(func() error {
		return db.View(func(tx *bolt.Tx) error {
			for err := range tx.Check() {
				return err
			}
			if got := schemaOf(tx); got != schema {
				return fmt.Errorf("schema %d, want %d", got, schema)
			}
			if !bytes.Equal(fileHead(tx), head) {
				return errors.New("its last event is not the journal's")
			}
			return nil
		})
	})
}

// migrated is what migrate did: the schema it started from (0 when it made no
// migration, or made a new file) and the verified copy it took before.
type migrated struct {
	from   uint64
	backup string
}
