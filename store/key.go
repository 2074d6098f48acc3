package store

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/jackc/pgx/v5"

	"galla/pos"
)

// The store key (issue 22, docs/security.md): a secret of the store kept
// outside PostgreSQL, so that a copy of the database alone yields no buyer
// and tests no PIN. It holds
//
//   - the data key, which seals the buyers' details wherever the store writes
//     them (vault.go);
//   - the store's staff pepper, mixed into the PIN hashes of the store's staff
//     (ADR 0007) and handed to the counters;
//   - the managers' pepper, mixed into the PIN hashes of the manager's pages.
//
// The database holds only store_key's check (an HMAC of a label under the
// data key), which tells the key of the database from another one. The key is
// kept by a Keeper: the store server's keyring, where there is one, else a
// file of mode 0600 (KeyFile); it must be backed up with the database, and
// every copy of the server that serves one database is given the same key.

// Keeper keeps the store key outside the database.
type Keeper interface {
	// Load returns the key as Save kept it; nil and no error when none is kept.
	Load() ([]byte, error)
	// Save keeps the key.
	Save(key []byte) error
	// Where says where the key is kept, for the sentences that name it.
	Where() string
}

// ErrKeyMissing is the refusal to start on a database sealed with a store key
// that the Keeper does not hold: the key is never made anew for such a
// database.
var ErrKeyMissing = errors.New("store: the store key of this database is missing")

// ErrKeyWrong is the refusal to start on a database sealed with another store
// key than the Keeper's.
var ErrKeyWrong = errors.New("store: the store key given is not this database's")

// errNoKey is a use of the vault before the key was opened (Migrate or
// CheckSchema open it): a mistake of the program.
var errNoKey = errors.New("store: the store key is not open (Migrate or CheckSchema opens it)")

// storeSecret is the store key as a Keeper keeps it (JSON, hex values).
type storeSecret struct {
	DataKey       hexKey `json:"data_key"`
	StaffPepper   hexKey `json:"staff_pepper"`
	ManagerPepper hexKey `json:"manager_pepper"`
}

// hexKey is 32 bytes written in hex.
type hexKey []byte

func (k hexKey) MarshalText() ([]byte, error) { return []byte(hex.EncodeToString(k)), nil }

func (k *hexKey) UnmarshalText(b []byte) error {
	v, err := hex.DecodeString(string(b))
	if err != nil || len(v) != 32 {
		return errors.New("not 32 bytes in hex")
	}
	*k = v
	return nil
}

// check is what store_key holds of the key: it tells this data key from
// another, and yields nothing of it.
func (s *storeSecret) check() []byte {
	m := hmac.New(sha256.New, s.DataKey)
	m.Write([]byte("galla store key check 1"))
	return m.Sum(nil)
}

// random32 is 32 random bytes.
func random32() ([]byte, error) {
	b := make([]byte, 32)
	_, err := rand.Read(b)
	return b, err
}

// The rows of server_keys that held the peppers before the store key: moved
// into it and deleted at the first start with the key.
const (
	staffPepperRow   = "staff-pepper"
	managerPepperRow = "manager-pepper"
)

// KeyFile is a Keeper of the store key in the file path, of mode 0600, for a
// store server without a keyring. The file's directory is made (0700) when
// missing.
func KeyFile(path string) Keeper { return keyFile(path) }

type keyFile string

func (f keyFile) Load() ([]byte, error) {
	b, err := os.ReadFile(string(f))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return bytes.TrimSpace(b), err
}

func (f keyFile) Save(key []byte) error {
	if err := os.MkdirAll(filepath.Dir(string(f)), 0o700); err != nil {
		return err
	}
	tmp := string(f) + ".new"
	if err := os.WriteFile(tmp, append(bytes.Clone(key), '\n'), 0o600); err != nil {
		return err
	}
	t, err := os.Open(tmp)
	if err == nil {
		err = t.Sync()
		t.Close()
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp, string(f))
}

func (f keyFile) Where() string { return "the file " + string(f) }

// KeyWhere says where the store key of db is kept (the Keeper's Where), for
// the line the server says at start and the manager's pages show.
func (db *DB) KeyWhere() string { return db.core.keeper.Where() }

// BuyerPhoneKey is what orders.buyer_phone holds of a buyer's phone number
// (its ten digits): a keyed digest, for the pages' search by phone.
func (db *DB) BuyerPhoneKey(phone string) string { return db.core.vault().phoneKey(phone) }

// Unmarshal decodes a JSON value the store keeps (an event's body, an order's
// snapshot) into out, its buyer's details opened with the store key.
func (db *DB) Unmarshal(js []byte, out any) error { return db.core.vault().unmarshal(js, out) }

// ManagerPepper is the pepper of the manager's pages' PINs, from the store key
// (nil before Migrate or CheckSchema opened it).
func (db *DB) ManagerPepper() []byte {
	sec := db.core.secret()
	if sec == nil {
		return nil
	}
	return bytes.Clone(sec.ManagerPepper)
}

// openKey opens the store key of the database for db's parts: it loads the
// Keeper's key and checks it against store_key's check, or, for a database
// that has none, makes the key (taking over the peppers the database held)
// and keeps it before the check is written. The peppers' rows are then
// deleted, and the buyers' details written in clear before the key are
// sealed in place (sealInPlace). A database with a check and no key, or
// another key, is refused with a sentence naming where the key is expected
// (ErrKeyMissing, ErrKeyWrong).
func (c *dbCore) openKey(ctx context.Context) error {
	if c.keeper == nil {
		return fmt.Errorf("%w: no place to keep it was given", ErrKeyMissing)
	}
	var sec *storeSecret
	var sealed bool
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(lockMigrate)); err != nil {
			return err
		}
		var check []byte
		err := tx.QueryRow(ctx, "SELECT check_mac, sealed_at IS NOT NULL FROM store_key").Scan(&check, &sealed)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		raw, err := c.keeper.Load()
		if err != nil {
			return fmt.Errorf("the store key cannot be read from %s: %w", c.keeper.Where(), err)
		}
		if raw != nil {
			sec = &storeSecret{}
			if err := json.Unmarshal(raw, sec); err != nil || sec.DataKey == nil || sec.StaffPepper == nil || sec.ManagerPepper == nil {
				return fmt.Errorf("%w: %s holds something that is not a store key; restore the key kept with the database's backup there", ErrKeyWrong, c.keeper.Where())
			}
		}
		rows, err := oldPeppers(ctx, tx)
		if err != nil {
			return err
		}
		switch {
		case check != nil && sec == nil:
			return fmt.Errorf("%w: the buyers' details and the staff's PIN pepper of this database are sealed with the store key, expected in %s, which is not there; restore it there from the backup kept with the database's (a new key is never made for a database that has one)", ErrKeyMissing, c.keeper.Where())
		case check != nil && !hmac.Equal(check, sec.check()):
			return fmt.Errorf("%w: the store key in %s is another database's, not the one this database was sealed with; restore this database's key there from the backup kept with the database's", ErrKeyWrong, c.keeper.Where())
		case check == nil && sec == nil:
			if sec, err = newSecret(rows); err != nil {
				return err
			}
			b, err := json.Marshal(sec)
			if err != nil {
				return err
			}
			if err := c.keeper.Save(b); err != nil {
				return fmt.Errorf("the store key cannot be kept in %s: %w", c.keeper.Where(), err)
			}
		case check == nil:
			// A key kept before (a second copy of the server, a database made
			// again): the peppers the database's PINs were hashed with win over
			// nothing, and must be the key's.
			for name, pep := range rows {
				if (name == staffPepperRow && !bytes.Equal(pep, sec.StaffPepper)) || (name == managerPepperRow && !bytes.Equal(pep, sec.ManagerPepper)) {
					return fmt.Errorf("%w: the store key in %s holds another %s than this database's; move that key away and start again to make this database's", ErrKeyWrong, c.keeper.Where(), name)
				}
			}
		}
		if check == nil {
			if _, err := tx.Exec(ctx, "INSERT INTO store_key (check_mac) VALUES ($1)", sec.check()); err != nil {
				return err
			}
		}
		// The peppers are the key's now: their rows go.
		_, err = tx.Exec(ctx, "DELETE FROM server_keys WHERE name = ANY($1)", []string{staffPepperRow, managerPepperRow})
		return err
	})
	if err != nil {
		if errors.Is(err, ErrKeyMissing) || errors.Is(err, ErrKeyWrong) {
			return err
		}
		return c.wrap("open the store key", err)
	}
	c.opened.Store(&openedKey{secret: sec, vault: newVault(sec.DataKey)})
	if !sealed {
		return c.sealInPlace(ctx)
	}
	return nil
}

// oldPeppers reads the peppers still held in server_keys (a database from
// before the store key).
func oldPeppers(ctx context.Context, tx pgx.Tx) (map[string][]byte, error) {
	rs, err := tx.Query(ctx, "SELECT name, key_pem FROM server_keys WHERE name = ANY($1)", []string{staffPepperRow, managerPepperRow})
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for rs.Next() {
		var name, h string
		if err := rs.Scan(&name, &h); err != nil {
			return nil, err
		}
		b, err := hex.DecodeString(h)
		if err != nil || len(b) != 32 {
			return nil, fmt.Errorf("server_keys' %s is not 32 bytes in hex", name)
		}
		out[name] = b
	}
	return out, rs.Err()
}

// newSecret makes a store key: a new data key, and the peppers the database
// held (the PINs hashed with them stay good) or new ones.
func newSecret(rows map[string][]byte) (*storeSecret, error) {
	sec := &storeSecret{StaffPepper: rows[staffPepperRow], ManagerPepper: rows[managerPepperRow]}
	var err error
	if sec.DataKey, err = random32(); err != nil {
		return nil, err
	}
	if sec.StaffPepper == nil {
		if sec.StaffPepper, err = random32(); err != nil {
			return nil, err
		}
	}
	if sec.ManagerPepper == nil {
		if sec.ManagerPepper, err = random32(); err != nil {
			return nil, err
		}
	}
	return sec, nil
}

// SealBatch is how many rows sealInPlace reads in one transaction.
const SealBatch = 2000

// sealInPlace seals the buyers' details written in clear before the store key
// (a database of schema 15 or older, migrated): the events' bodies and the
// orders' snapshots that name a buyer, in batches of SealBatch rows in order
// of their keys, each batch a transaction of its own, so that a large
// database is not held in one. It is safe to stop and start again (a sealed
// value is left as it is) and to run in two copies at once. Once every row is
// read, store_key records it, and later starts skip it.
func (c *dbCore) sealInPlace(ctx context.Context) error {
	tables := []struct{ table, col, key string }{
		{"events", "body", "seq::text"},
		{"orders", "snapshot", "order_id"},
	}
	for _, t := range tables {
		term, key := "", ""
		for {
			n, lastTerm, lastKey, err := c.sealBatch(ctx, t.table, t.col, t.key, term, key)
			if err != nil {
				return c.wrap("seal the buyers' details of "+t.table, err)
			}
			if n < c.batchRows() {
				break
			}
			term, key = lastTerm, lastKey
		}
	}
	_, err := c.pool.Exec(ctx, "UPDATE store_key SET sealed_at = now() WHERE sealed_at IS NULL")
	return c.wrap("seal the buyers' details", err)
}

// batchRows is how many rows sealInPlace reads in one transaction.
func (c *dbCore) batchRows() int {
	if c.sealRows > 0 {
		return c.sealRows
	}
	return SealBatch
}

// sealBatch seals the rows of one batch of table after (term, key) in key
// order. It returns how many rows it read and the key of the last one.
func (c *dbCore) sealBatch(ctx context.Context, table, col, key, term, after string) (int, string, string, error) {
	var n int
	var lastTerm, lastKey string
	match := "order_id = $2"
	order := "terminal_id, order_id"
	cmp := "(terminal_id, order_id) > ($1, $2)"
	if table == "events" {
		match, order = "seq = $2::bigint", "terminal_id, seq"
		cmp = "(terminal_id, seq) > ($1, coalesce(nullif($2, '')::bigint, 0))"
	}
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		rs, err := tx.Query(ctx, `SELECT terminal_id, `+key+`, CASE WHEN (`+col+`::text LIKE '%"buyer"%' OR `+col+`::text LIKE '%"buyer/%')
				AND NOT `+col+`::jsonb ? '`+sealedMember+`' THEN `+col+`::text END
			FROM `+table+` WHERE `+cmp+` ORDER BY `+order+` LIMIT $3`, term, after, c.batchRows())
		if err != nil {
			return err
		}
		type todo struct{ term, key, js string }
		var work []todo
		for rs.Next() {
			var js *string
			if err := rs.Scan(&lastTerm, &lastKey, &js); err != nil {
				rs.Close()
				return err
			}
			n++
			if js != nil {
				work = append(work, todo{lastTerm, lastKey, *js})
			}
		}
		if err := rs.Err(); err != nil {
			return err
		}
		for _, w := range work {
			sealed, err := c.vault().seal([]byte(w.js))
			if err != nil {
				return err
			}
			if string(sealed) == w.js {
				continue
			}
			set := col + " = $3"
			args := []any{w.term, w.key, string(sealed)}
			if table == "orders" {
				// The buyer's phone, searched by its keyed digest.
				var o struct {
					Buyer *pos.Buyer `json:"buyer"`
				}
				if json.Unmarshal([]byte(w.js), &o) == nil && o.Buyer != nil {
					set += ", buyer_phone = $4"
					args = append(args, c.vault().phoneKey(o.Buyer.Phone))
				}
			}
			if _, err := tx.Exec(ctx, `UPDATE `+table+` SET `+set+` WHERE terminal_id = $1 AND `+match+` AND NOT `+col+`::jsonb ? '`+sealedMember+`'`, args...); err != nil {
				return err
			}
		}
		return nil
	})
	return n, lastTerm, lastKey, err
}
