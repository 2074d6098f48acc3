package journal

import (
	"context"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// IMEIs reads the record of each IMEI (schema 6): the orders that carried it,
// the order whose return freed it last and (schema 7) the stock events that
// named it (pos.IMEIRecord), one record in the imeis bucket under the IMEI,
// derived in the transaction of every event that sells, frees, receives,
// adjusts or sends the unit (deriveIMEIs) and proved as staff and settings
// are (proof.go). A check of one IMEI reads that record and the orders it
// names, whatever the number of phones sold before; a unit sold is read back
// from the receipt its record names.
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

// UnitStock returns the stock events that named imei, oldest first, from its
// record (pos.StockIndex). A record whose proof fails is a *MismatchError; a
// journal of schema 6 or older opened read-only, whose records do not name
// them, gives pos.ErrNoStockIndex.
func (im *IMEIs) UnitStock(ctx context.Context, imei string) ([]uint64, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("journal: stock of IMEI: %w", err)
	}
	var r pos.IMEIRecord
	err := im.view(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketIMEIs) == nil || !stockRecords(tx) {
			return pos.ErrNoStockIndex
		}
		if !imeiKey(imei) {
			return nil
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
		return nil, fmt.Errorf("journal: stock of IMEI %s: %w", imei, err)
	}
	return r.Stock, nil
}

// stockRecords reports whether the records of IMEIs in tx name their stock
// events (schema 7): the stock_invoices bucket, made with them, is there. A
// file of schema 6 replayed by VerifyFile as it was written has neither.
func stockRecords(tx *bolt.Tx) bool { return tx.Bucket(bucketStockInvoices) != nil }

// imeiKey reports whether imei can be a key of the imeis bucket: not empty,
// at most 200 bytes, no NUL byte (checkID). An IMEI the counter accepts (15
// digits) always can; a string that cannot is left out of the records, and
// the till never looks one up (pos.CheckIMEI refuses it first).
func imeiKey(imei string) bool { return checkID(imei) == nil }

// deriveIMEIs updates, inside tx, the record of every IMEI ev sells or frees
// (pos.IMEIEffect) or, as a stock event, names (pos.StockIMEIs): the same
// code for Append and for Rebuild's replay. Each record is checked against
// its proof before it is built on, as a staff record counted by staff.attempt
// is: an edited one would otherwise be given a proof. A journal without the
// bucket (a file of schema 5 replayed by VerifyFile as it was written) keeps
// none; one without stock records (schema 6, stockRecords) keeps the orders
// only.
func deriveIMEIs(tx *bolt.Tx, ev *pos.Event, pv prover) error {
	sold, freed := pos.IMEIEffect(*ev)
	var stock []string
	if ev.Kind.MovesStock() && stockRecords(tx) {
		stock = pos.StockIMEIs(*ev)
	}
	if len(sold) == 0 && len(freed) == 0 && len(stock) == 0 {
		return nil
	}
	b := tx.Bucket(bucketIMEIs)
	if b == nil {
		return nil
	}
	apply := func(imei string, isSold, isFreed, isStock bool) error {
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
		r.Apply(*ev, isSold, isFreed, isStock)
		data, err := json.Marshal(&r)
		if err != nil {
			return err
		}
		return pv.put(tx, bucketIMEIs, key, data)
	}
	for _, imei := range sold {
		if err := apply(imei, true, false, false); err != nil {
			return err
		}
	}
	for _, imei := range freed {
		if err := apply(imei, false, true, false); err != nil {
			return err
		}
	}
	for _, imei := range stock {
		if err := apply(imei, false, false, true); err != nil {
			return err
		}
	}
	return nil
}
