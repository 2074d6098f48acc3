package journal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"
)

// metaSealed in meta says how far the personal data a journal held before
// schema 5 was sealed (seal.go): sealedDone once every such event and record
// is sealed, sealedCompact once the file was also copied without its free
// pages (which still held the data in clear). A journal this build makes is
// marked at its first Open.
var metaSealed = []byte("personal_sealed")

// The values of metaSealed.
const (
	sealedDone    = 1
	sealedCompact = 2
)

// sealPersonal seals the personal data of a journal written before schema 5:
// every event of format 2 whose body names a person is stored again with its
// body sealed (its hash, the plaintext record's, unchanged), every order
// record that names a buyer is stored sealed (its proof, of the plaintext,
// unchanged), and every remembered customer is moved under the digest of its
// key, sealed, once its proof is checked. It runs once, in one transaction, at
// the first Open of a keyed journal by this build, after the records
// every command reads are proved, and then copies the file without its free
// pages (compactFile), so that the old pages holding the data in clear are
// gone from journal.db. Events of format 1 (written before schema 3) stay as
// they were written: their hash is of their JSON, and a buyer was not yet
// recorded then. A read-only or unkeyed journal is left as it is.
func (j *Journal) sealPersonal(opts Options) error {
	if opts.ReadOnly || j.core.rec.v == nil {
		return nil
	}
	var state uint64
	if err := j.core.view(func(tx *bolt.Tx) error { state = getU64(tx.Bucket(bucketMeta), metaSealed); return nil }); err != nil {
		return j.core.openErr(err)
	}
	if state == sealedCompact {
		return nil
	}
	if state != sealedDone {
		var sealed int
		err := j.core.update(func(tx *bolt.Tx) (err error) {
			sealed, err = j.sealOld(tx)
			if err != nil {
				return err
			}
			next := uint64(sealedDone)
			if sealed == 0 {
				next = sealedCompact // nothing in clear was ever stored
			}
			return putU64(tx.Bucket(bucketMeta), metaSealed, next)
		})
		if err != nil {
			return fmt.Errorf("journal: open: seal the customers' details: %w", err)
		}
		if sealed == 0 {
			return nil
		}
	}
	if err := j.compactFile(opts); err != nil {
		return fmt.Errorf("journal: open: copy the journal without the customers' details in clear: %w", err)
	}
	return nil
}

// sealOld is the transaction of sealPersonal; it returns how many events and
// records it sealed.
func (j *Journal) sealOld(tx *bolt.Tx) (int, error) { return j.sealIn(tx, j.core.refuse) }

// sealIn seals, in tx (this journal's file or a copy of it, keyed alike),
// what sealOld seals; a remembered customer whose proof fails is refused
// with refuse (bucket, key, reason) and nothing is sealed.
func (j *Journal) sealIn(tx *bolt.Tx, refuse func(bucket, key, reason string) error) (int, error) {
	rec, pv := &j.core.rec, j.core.proofs
	type kv struct{ k, v []byte }
	var evs, ords, custs []kv
	c := tx.Bucket(bucketEvents).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if !bytes.HasPrefix(v, recordMagic) || len(v) < recordHeader || v[3]&flagSealed != 0 {
			continue
		}
		r, err := rec.decode(v)
		if err != nil {
			continue // damaged: the verification of the chain names it
		}
		js, err := r.json()
		if err != nil || !personal(js) {
			continue
		}
		evs = append(evs, kv{bytes.Clone(k), rec.sealedForm(v, kindOpen+r.kind+`"`, r.body)})
	}
	c = tx.Bucket(bucketOrders).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if bytes.IndexByte(k, sep) < 0 && !isSealedValue(v) && personal(v) {
			ords = append(ords, kv{bytes.Clone(k), pv.v.sealValue(bucketOrders, k, v)})
		}
	}
	c = tx.Bucket(bucketSettings).Cursor()
	prefix := []byte(buyerKeyPrefix)
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if isDigestKey(k) {
			continue
		}
		if reason := pv.check(tx, bucketSettings, k, v); reason != "" {
			// Never given a proof by sealing it: the record is refused.
			return 0, refuse(string(bucketSettings), printable(k), reason)
		}
		custs = append(custs, kv{bytes.Clone(k), bytes.Clone(v)})
	}
	events, orders, settings := tx.Bucket(bucketEvents), tx.Bucket(bucketOrders), tx.Bucket(bucketSettings)
	for _, e := range evs {
		if err := events.Put(e.k, e.v); err != nil {
			return 0, err
		}
	}
	for _, o := range ords {
		if err := orders.Put(o.k, o.v); err != nil {
			return 0, err
		}
	}
	for _, s := range custs {
		if err := settings.Delete(s.k); err != nil {
			return 0, err
		}
		if proofs := tx.Bucket(bucketProofs); proofs != nil {
			if err := proofs.Delete(proofKey(bucketSettings, s.k)); err != nil {
				return 0, err
			}
		}
		if err := pv.put(tx, bucketSettings, s.k, s.v); err != nil {
			return 0, err
		}
	}
	return len(evs) + len(ords) + len(custs), nil
}

// compactFile copies the journal into a new file with bbolt's Compact (every
// bucket and key, none of the free pages), marks the copy sealedCompact, and
// puts it in place of the file, which it then opens again.
func (j *Journal) compactFile(opts Options) error {
	path := j.core.path
	tmp := path + ".sealing"
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	dst, err := bolt.Open(tmp, 0o600, &bolt.Options{FreelistType: bolt.FreelistMapType})
	if err != nil {
		return err
	}
	err = guard(func() error { return bolt.Compact(dst, j.core.db, 0) })
	if err == nil {
		err = dst.Update(func(tx *bolt.Tx) error { return putU64(tx.Bucket(bucketMeta), metaSealed, sealedCompact) })
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := j.core.db.Close(); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	err = os.Rename(tmp, path)
	if err == nil {
		syncDir(filepath.Dir(path))
	}
	db, oerr := bolt.Open(path, 0o600, boltOptions(opts))
	if oerr != nil {
		return errors.Join(err, oerr)
	}
	j.core.db = db
	return err
}

// syncDir makes a rename in dir durable where the system can sync a
// directory (not Windows, whose rename is durable by itself).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
