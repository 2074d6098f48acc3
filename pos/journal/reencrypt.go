package journal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// The backups made before the customers' details were sealed (schema 5) hold
// them in clear, and the keeping rule keeps month-ends for two years and
// year-ends for ever. SealBackups rewrites each of them with the details
// sealed, as sealPersonal did the journal: a sealed event keeps its hash (of
// the plaintext record) and a sealed record its proof, so the copy's chain
// and proofs stay what they were, and the copy is the same days, events and
// numbers, verified before it replaces the file.

// EvBackupsSealed is the journal's own event recording that backups holding
// the customers' details in clear were rewritten with them sealed, on a
// manager's authority (Staff; Data: a backupsSealed). It changes no order and
// no number.
const EvBackupsSealed pos.EventKind = "journal.backups_sealed"

// schemaSealed is the schema from which the customers' details are sealed
// (sealedRecords).
const schemaSealed = 5

// backupsSealed is the Data of journal.backups_sealed.
type backupsSealed struct {
	Files []string `json:"files"` // the backups rewritten, by name
}

// SealBackups rewrites every backup of the backup directory that holds the
// customers' details in clear (Archive.BackupSpace's Clear) with them sealed,
// and journals journal.backups_sealed naming the manager by (a staff id) and
// the files. Each backup's hash chain is first verified whole with this
// journal's key (verifyChain); its copy is sealed and compacted beside it
// (synced) and verified whole (VerifyFileWith: the chain, and every derived
// record against a replay), and must hold the same events and numbers and no detail in
// clear before it is renamed over the backup. A backup that does not verify,
// or whose copy does not, is left as it was and named in the error; the
// others are sealed. It returns the names of the backups sealed.
func (j *Journal) SealBackups(ctx context.Context, by string) ([]string, error) {
	if j.core.readOnly {
		return nil, fmt.Errorf("journal: seal backups: %w", ErrReadOnly)
	}
	if j.core.rec.v == nil {
		return nil, errors.New("journal: seal backups: the journal has no key to seal them with")
	}
	space, err := j.Archive.BackupSpace()
	if err != nil {
		return nil, fmt.Errorf("journal: seal backups: %w", err)
	}
	var sealed []string
	var errs []error
	for _, name := range space.Clear {
		if err := ctx.Err(); err != nil {
			errs = append(errs, err)
			break
		}
		if err := j.sealBackup(ctx, filepath.Join(j.core.backupDir, name)); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		sealed = append(sealed, name)
	}
	if len(sealed) > 0 {
		data, err := json.Marshal(backupsSealed{Files: sealed})
		if err == nil {
			_, err = j.Log.Append(ctx, pos.Event{Kind: EvBackupsSealed, Time: j.core.now(), Staff: by, Data: data})
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("journal the sealed backups: %w", err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return sealed, fmt.Errorf("journal: seal backups: %w", err)
	}
	return sealed, nil
}

// sealBackup rewrites the backup at path with the customers' details sealed
// (SealBackups).
func (j *Journal) sealBackup(ctx context.Context, path string) error {
	opts := Options{ChainKey: j.core.rec.key, BackupDir: j.core.backupDir}
	if deps := dependents(filepath.Dir(path), filepath.Base(path)); len(deps) > 0 {
		// Rewritten, its pages would no longer be those its increments
		// were taken against.
		return fmt.Errorf("it is the base of the backups %s, so it is left as it is", strings.Join(deps, ", "))
	}
	before, err := verifyChain(ctx, path, opts)
	if err != nil {
		return fmt.Errorf("it does not verify, so it is left as it is: %w", err)
	}
	work, out := path+".sealing", path+".sealed"
	for _, p := range []string{work, out} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	defer os.Remove(work)
	if err := copyFile(path, work); err != nil {
		return err
	}
	if err := j.sealCopy(work, out); err != nil {
		_ = os.Remove(out)
		return err
	}
	after, err := VerifyFileWith(ctx, out, opts)
	switch {
	case err != nil:
		err = fmt.Errorf("its sealed copy does not verify, so it is left as it is: %w", err)
	case after.Events != before.Events || !reflect.DeepEqual(after.Numbers, before.Numbers):
		err = fmt.Errorf("its sealed copy holds %d events and numbers %+v where it holds %d and %+v, so it is left as it is", after.Events, after.Numbers, before.Events, before.Numbers)
	case holdsClear(out):
		err = errors.New("its sealed copy still reads as holding the details in clear, so it is left as it is")
	}
	if err != nil {
		_ = os.Remove(out)
		return err
	}
	if err := os.Rename(out, path); err != nil {
		_ = os.Remove(out)
		return err
	}
	syncDir(filepath.Dir(path))
	// Its bytes are no longer those a BackupTo of this run wrote.
	j.core.backupMu.Lock()
	delete(j.core.backupSums, path)
	j.core.backupMu.Unlock()
	return nil
}

// verifyChain opens the journal copy at path read-only and checks its hash
// chain whole, with opts' key, and returns its events and numbers. Its
// derived records are not compared with a replay: this build's replay stores
// a remembered customer sealed under a digest, which a copy made before the
// sealing is not; the sealed copy is verified whole (VerifyFileWith).
func verifyChain(ctx context.Context, path string, opts Options) (Report, error) {
	rep := Report{Path: path}
	b, err := Open(path, Options{ReadOnly: true, DeferVerify: true, Create: CreateNever, ChainKey: opts.ChainKey, BackupDir: opts.BackupDir})
	if err != nil {
		return rep, err
	}
	defer b.Close()
	if rep.Numbers, err = b.Numbers(); err != nil {
		return rep, err
	}
	if rep.Events, err = b.Log.LastSeq(ctx); err != nil {
		return rep, err
	}
	if err := b.Log.checkPages(false); err != nil {
		return rep, err
	}
	return rep, b.Log.VerifyAll(ctx)
}

// sealCopy seals the details of the journal copy at work in place and writes
// it compacted (no free page keeps them in clear) to out, synced. A copy of
// schema 4 becomes schema 5, as the migration makes it (sealedRecords): a
// build of schema 4 then refuses it as newer rather than reading its sealed
// records as damage.
func (j *Journal) sealCopy(work, out string) error {
	src, err := bolt.Open(work, 0o600, &bolt.Options{Timeout: time.Second, FreelistType: bolt.FreelistMapType})
	if err != nil {
		return err
	}
	defer src.Close()
	refuse := func(bucket, key, reason string) error {
		return fmt.Errorf("%s %q: %s: %w", bucket, key, reason, ErrDerivedMismatch)
	}
	err = guard(func() error {
		return src.Update(func(tx *bolt.Tx) error {
			meta := tx.Bucket(bucketMeta)
			if meta == nil || tx.Bucket(bucketEvents) == nil {
				return errors.New("it is not a journal")
			}
			if _, err := j.sealIn(tx, refuse); err != nil {
				return err
			}
			if getU64(meta, metaSchema) == schemaSealed-1 {
				if err := putU64(meta, metaSchema, schemaSealed); err != nil {
					return err
				}
			}
			return putU64(meta, metaSealed, sealedDone)
		})
	})
	if err != nil {
		return err
	}
	dst, err := bolt.Open(out, 0o600, &bolt.Options{FreelistType: bolt.FreelistMapType})
	if err != nil {
		return err
	}
	err = guard(func() error { return bolt.Compact(dst, src, 0) })
	if err == nil {
		err = dst.Update(func(tx *bolt.Tx) error { return putU64(tx.Bucket(bucketMeta), metaSealed, sealedCompact) })
	}
	if err == nil {
		err = dst.Sync()
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	return err
}
