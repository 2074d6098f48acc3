package journal

import (
	"context"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// IMEIs reads the record of each IMEI (schema 6): the orders that carried it
// and the order whose return freed it last (pos.IMEIRecord), one record in the
// imeis bucket under the IMEI, derived in the transaction of every event that
// sells or frees the unit (deriveIMEIs) and proved as staff and settings are
// (proof.go). A check of one IMEI reads that record and the orders it names,
// whatever the number of phones sold before.
type IMEIs struct{ *journalCore }

// IMEI returns the record of imei, empty when no event named it. A record
// whose proof fails is a *MismatchError, never believed; a journal of an older
// schema opened read-only, which has no records, gives pos.ErrNoIMEIIndex.
func (im *IMEIs) IMEI(ctx context.Context, imei string) (pos.IMEIRecord, error) {
	var r pos.IMEIRecord
	if err := ctx.Err(); err != nil {
		return r, fmt.Errorf("journal: IMEI: %w", err)
	}
	err := im.view(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketIMEIs) == nil {
			return pos.ErrNoIMEIIndex
		}
		if !imeiKey(imei) {
			return nil // no event can have named it (deriveIMEIs)
		}
		raw, err := im.provedGet(tx, bucketIMEIs, []byte(imei))
		if err != nil || raw == nil {
			return err
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return im.refuse(string(bucketIMEIs), imei, fmt.Sprintf("the record does not decode: %v", err))
		}
		return nil
	})
	if err != nil {
		return pos.IMEIRecord{}, fmt.Errorf("journal: IMEI %s: %w", imei, err)
	}
	return r, nil
}

// imeiKey reports whether imei can be a key of the imeis bucket: not empty,
// at most 200 bytes, no NUL byte (checkID). An IMEI the counter accepts (15
// digits) always can; a string that cannot is left out of the records, and
// the till never looks one up (pos.CheckIMEI refuses it first).
func imeiKey(imei string) bool { return checkID(imei) == nil }

// deriveIMEIs updates, inside tx, the record of every IMEI ev sells or frees
// (pos.IMEIEffect): the same code for Append and for Rebuild's replay. Each
// record is checked against its proof before it is built on, as a staff
// record counted by staff.attempt is: an edited one would otherwise be given a
// proof. A journal without the bucket (a file of schema 5 replayed by
// VerifyFile as it was written) keeps none.
func deriveIMEIs(tx *bolt.Tx, ev *pos.Event, pv prover) error {
	sold, freed := pos.IMEIEffect(*ev)
	if len(sold) == 0 && len(freed) == 0 {
		return nil
	}
	b := tx.Bucket(bucketIMEIs)
	if b == nil {
		return nil
	}
	apply := func(imei string, isSold, isFreed bool) error {
		if !imeiKey(imei) {
			return nil
		}
		key := []byte(imei)
		var r pos.IMEIRecord
		if raw := b.Get(key); raw != nil {
			if reason := pv.check(tx, bucketIMEIs, key, raw); reason != "" {
				return &proofError{bucket: string(bucketIMEIs), key: imei, reason: reason}
			}
			if err := json.Unmarshal(raw, &r); err != nil {
				return fmt.Errorf("IMEI %s: stored record: %w", imei, err)
			}
		}
		r.Apply(*ev, isSold, isFreed)
		data, err := json.Marshal(&r)
		if err != nil {
			return err
		}
		return pv.put(tx, bucketIMEIs, key, data)
	}
	for _, imei := range sold {
		if err := apply(imei, true, false); err != nil {
			return err
		}
	}
	for _, imei := range freed {
		if err := apply(imei, false, true); err != nil {
			return err
		}
	}
	return nil
}
