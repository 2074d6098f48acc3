package store

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/pos/gstr"
)

// The buyers of the tests: a registered buyer of another state (a B2B sale),
// a named buyer without a GSTIN (B2C), and a customer a counter remembers.
var (
	b2bBuyer = pos.Buyer{Name: "Kaveri Traders", Phone: "9845012345", Address: "14 Residency Road, Bengaluru", State: "29", GSTIN: "29AAGCB7383J1Z4"}
	b2cBuyer = pos.Buyer{Name: "Anjali Deshpande", Phone: "9822098765", Address: "7 Prabhat Road, Pune", State: "27"}
	remember = pos.Buyer{Name: "Rohit Kulkarni", Phone: "9767054321", Address: "3 Law College Road, Pune", State: "27"}
)

// personalWords are what a reader of the database must not find.
func personalWords() []string {
	var out []string
	for _, b := range []pos.Buyer{b2bBuyer, b2cBuyer, remember} {
		out = append(out, b.Name, b.Phone, b.Address)
		if b.GSTIN != "" {
			out = append(out, b.GSTIN)
		}
	}
	return out
}

// buyersSales journals on T1 a B2B sale (T1/2627/000001), a B2C sale to a
// named buyer (T1/2627/000002) and a customer remembered, and ingests them.
func buyersSales(t *testing.T, db *DB) {
	t.Helper()
	enrolled(t, db, "T1")
	c := newCounter(t, "T1")
	sale := func(id string, no uint64, b pos.Buyer, l pos.Line) {
		totals := pos.ComputeTotals([]pos.Line{l})
		c.add(pos.Event{Kind: pos.EvOrderIntent, OrderID: id, Day: day1, Staff: "asha",
			Intent: &pos.Intent{Tender: pos.TenderCash, Lines: []pos.Line{l}, Totals: totals, Amount: totals.Total, Buyer: &b}})
		c.add(pos.Event{Kind: pos.EvCashReceived, OrderID: id, Day: day1, Series: "2627", DocNo: no, Cash: &pos.CashEvent{Tendered: totals.Total}})
	}
	sale("T1-B2B", 1, b2bBuyer, line("LAP", 1, 59000, 18))
	sale("T1-B2C", 2, b2cBuyer, line("PHN", 1, 29500, 18))
	c.cashSale("T1-WALKIN", day1, line("CHG", 1, 1180, 18))
	v, err := json.Marshal(remember)
	require.NoError(t, err)
	c.add(pos.Event{Kind: pos.EvSettingsChanged, Day: day1, Staff: "asha", Setting: &pos.Setting{Key: "buyer/" + remember.Phone, Value: v}})
	_, err = db.Events.Ingest(t.Context(), "T1", c.sent())
	require.NoError(t, err)
	require.NoError(t, db.Projections.Project(t.Context()))
	_, err = db.Master.PublishShop(t.Context(), pos.Shop{Name: "Galla Mobiles", Address: []string{"FC Road, Pune"}, GSTIN: storeGSTIN, State: "27"}, "meera")
	require.NoError(t, err)
}

// dumpTables is the text of every table of the database, as COPY writes it: what a
// backup or a read-only login yields.
func dumpTables(t *testing.T, db *DB) string {
	t.Helper()
	ctx := t.Context()
	rs, err := db.Pool().Query(ctx, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
	require.NoError(t, err)
	tables, err := pgx.CollectRows(rs, pgx.RowTo[string])
	require.NoError(t, err)
	require.Contains(t, tables, "events")
	conn, err := db.Pool().Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	var buf bytes.Buffer
	for _, tb := range tables {
		_, err := conn.Conn().PgConn().CopyTo(ctx, &buf, "COPY "+pgx.Identifier{tb}.Sanitize()+" TO STDOUT")
		require.NoError(t, err, tb)
	}
	return buf.String()
}

// readsNoBuyer asserts that text holds no buyer's details, and no pepper.
func readsNoBuyer(t *testing.T, db *DB, text string) {
	t.Helper()
	for _, w := range personalWords() {
		assert.NotContains(t, text, w, "a reader of the database learns no buyer")
	}
	sec := db.core.secret()
	require.NotNil(t, sec)
	for _, pep := range [][]byte{sec.StaffPepper, sec.ManagerPepper, sec.DataKey} {
		assert.NotContains(t, text, hex.EncodeToString(pep), "no pepper or key is in the database")
	}
}

// readsTheBuyers asserts that the store, with its key, still reads the
// buyers: GSTR-1's b2b names the registered buyer, the invoices found by
// number carry their buyers.
func readsTheBuyers(t *testing.T, db *DB) {
	t.Helper()
	ctx := t.Context()
	r, err := db.Reports.GSTR1(ctx, gstr.Month{Year: 2026, Month: time.November}, time.UTC)
	require.NoError(t, err)
	require.Len(t, r.B2B, 1, "the B2B sale is in b2b")
	assert.Equal(t, b2bBuyer.GSTIN, r.B2B[0].CTIN)
	for number, b := range map[string]pos.Buyer{"T1/2627/000001": b2bBuyer, "T1/2627/000002": b2cBuyer} {
		inv, err := db.Decisions.Invoice(ctx, number)
		require.NoError(t, err, number)
		var o pos.Order
		require.NoError(t, json.Unmarshal(inv.Order, &o))
		require.NotNil(t, o.Buyer, number)
		assert.Equal(t, b, *o.Buyer, number)
	}
}

// TestADumpOfTheDatabaseNamesNoBuyer: after B2B and B2C sales with buyers and
// a customer remembered, every table's text holds none of their names,
// phones, addresses or GSTINs, nor a pepper; the store, with its key, still
// files the buyer's GSTIN in GSTR-1's b2b and gives the invoices with their
// buyers, and so it does after a rebuild of the projections from the events.
func TestADumpOfTheDatabaseNamesNoBuyer(t *testing.T) {
	db := newDB(t)
	buyersSales(t, db)
	_, err := db.Staff.AddStaff(t.Context(), "Ravi", pos.RoleCashier, "2468", nil, "meera")
	require.NoError(t, err)
	text := dumpTables(t, db)
	assert.Contains(t, text, "T1-B2B", "the dump holds the sales")
	assert.Contains(t, text, "T1/2627/000002", "the dump holds the sales")
	readsNoBuyer(t, db, text)
	readsTheBuyers(t, db)
	var n int
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT count(*) FROM orders WHERE buyer_phone = $1", db.BuyerPhoneKey("+91 "+b2cBuyer.Phone)).Scan(&n))
	assert.Equal(t, 1, n, "the buyer's phone is kept as a keyed digest")

	_, err = db.Projections.Rebuild(t.Context())
	require.NoError(t, err)
	readsNoBuyer(t, db, dumpTables(t, db))
	readsTheBuyers(t, db)

	// An event sent again is the one held (its sealed copy opened), not a fork.
	var body string
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT body::text FROM events WHERE terminal_id = 'T1' AND seq = 1").Scan(&body))
	assert.Contains(t, body, sealedMember, "the intent naming a buyer is stored sealed")
	assert.Contains(t, body, `"order_id": "T1-B2B"`, "what names nobody stays in clear")
}

// TestAPINCannotBeTestedWithTheDatabaseAlone: a store member's PIN hash is in
// the database, but the pepper it is made with is not: no value the database
// holds makes the PIN match, and the store key's pepper does.
func TestAPINCannotBeTestedWithTheDatabaseAlone(t *testing.T) {
	db := newDB(t)
	_, err := db.Staff.AddStaff(t.Context(), "Ravi", pos.RoleCashier, "2468", nil, "meera")
	require.NoError(t, err)
	var rec string
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT record::text FROM store_staff WHERE name = 'Ravi'").Scan(&rec))
	var s pos.Staff
	require.NoError(t, json.Unmarshal([]byte(rec), &s))
	pep, err := db.Staff.StaffPepper(t.Context())
	require.NoError(t, err)
	assert.True(t, s.PINMatches("2468", pep), "the store key's pepper makes the PIN")

	var n int
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT count(*) FROM server_keys WHERE name IN ('staff-pepper', 'manager-pepper')").Scan(&n))
	assert.Zero(t, n, "no pepper row")
	rs, err := db.Pool().Query(t.Context(), "SELECT key_pem FROM server_keys")
	require.NoError(t, err)
	keys, err := pgx.CollectRows(rs, pgx.RowTo[string])
	require.NoError(t, err)
	for _, k := range keys {
		if b, err := hex.DecodeString(strings.TrimSpace(k)); err == nil {
			assert.False(t, s.PINMatches("2468", b), "a value of server_keys is no pepper")
		}
	}
	assert.False(t, s.PINMatches("2468", nil))
	assert.NotContains(t, dumpTables(t, db), hex.EncodeToString(pep))
}

// TestAStoreWithoutItsKeyRefusesToStart: a database sealed with its key is
// refused, with a sentence naming the key and where it is expected, when the
// key is not there (and no key is made for it), or is another database's.
func TestAStoreWithoutItsKeyRefusesToStart(t *testing.T) {
	url := cluster.Database(t)
	path := filepath.Join(t.TempDir(), "store.key")
	db, err := Open(t.Context(), url, KeyFile(path))
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Migrate(t.Context())
	require.NoError(t, err)
	buyersSales(t, db)

	missing := filepath.Join(t.TempDir(), "store.key")
	other, err := Open(t.Context(), url, KeyFile(missing))
	require.NoError(t, err)
	defer other.Close()
	for name, start := range map[string]func(context.Context) error{
		"serve":   other.CheckSchema,
		"migrate": func(ctx context.Context) error { _, err := other.Migrate(ctx); return err },
	} {
		err := start(t.Context())
		require.ErrorIs(t, err, ErrKeyMissing, name)
		assert.Contains(t, err.Error(), "sealed with the store key, expected in the file "+missing+", which is not there", name)
		assert.NoFileExists(t, missing, "%s: no key is made for a database that has one", name)
	}
	_, err = other.Staff.StaffPepper(t.Context())
	assert.Error(t, err, "nothing is read without the key")

	// Another database's key.
	elsewhere := newDB(t)
	require.NotNil(t, elsewhere.core.secret())
	b, err := json.Marshal(elsewhere.core.secret())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(missing, b, 0o600))
	err = other.CheckSchema(t.Context())
	require.ErrorIs(t, err, ErrKeyWrong)
	assert.Contains(t, err.Error(), "the store key in the file "+missing+" is another database's")

	// The key itself is kept readable by its user only.
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
}

// TestAClearDatabaseIsSealedAtStart: a database of schema 15 (the buyers'
// details in clear, the peppers in server_keys) is sealed in place at its
// first start with the key, in batches: no buyer is left in its tables, the
// peppers move into the key (the PINs hashed with them still match) and
// their rows go, and the store reads every buyer as before.
func TestAClearDatabaseIsSealedAtStart(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	buyersSales(t, db)
	_, err := db.Staff.AddStaff(ctx, "Ravi", pos.RoleCashier, "2468", nil, "meera")
	require.NoError(t, err)
	old := db.core.secret()

	// What schema 15 held: every value in clear, the peppers as rows, no
	// store_key.
	v := db.core.vault()
	for _, t2 := range []struct{ table, col, key string }{{"events", "body", "seq"}, {"orders", "snapshot", "order_id"}} {
		rs, err := db.Pool().Query(ctx, "SELECT terminal_id, "+t2.key+"::text, "+t2.col+"::text FROM "+t2.table+" WHERE "+t2.col+"::jsonb ? '"+sealedMember+"'")
		require.NoError(t, err)
		type r struct{ term, key, js string }
		rows, err := pgx.CollectRows(rs, func(x pgx.CollectableRow) (r, error) {
			var y r
			return y, x.Scan(&y.term, &y.key, &y.js)
		})
		require.NoError(t, err)
		require.NotEmpty(t, rows, t2.table)
		for _, x := range rows {
			plain, err := v.open([]byte(x.js))
			require.NoError(t, err)
			_, err = db.Pool().Exec(ctx, "UPDATE "+t2.table+" SET "+t2.col+" = $3 WHERE terminal_id = $1 AND "+t2.key+"::text = $2", x.term, x.key, string(plain))
			require.NoError(t, err)
		}
	}
	_, err = db.Pool().Exec(ctx, `DROP TABLE store_key;
		ALTER TABLE orders DROP COLUMN buyer_phone;
		DELETE FROM schema_version WHERE version >= 16;
		INSERT INTO server_keys (name, cert_pem, key_pem) VALUES ('staff-pepper', '', '`+hex.EncodeToString(old.StaffPepper)+`'),
			('manager-pepper', '', '`+hex.EncodeToString(old.ManagerPepper)+`')`)
	require.NoError(t, err)
	text := dumpTables(t, db)
	for _, w := range personalWords() {
		require.Contains(t, text, w, "the buyers are in clear before")
	}

	// The first start with a key: a new one, kept outside.
	path := filepath.Join(t.TempDir(), "store.key")
	again, err := Open(ctx, db.core.pool.Config().ConnString(), KeyFile(path))
	require.NoError(t, err)
	defer again.Close()
	again.core.sealRows = 2 // several batches of the few rows
	applied, err := again.Migrate(ctx)
	require.NoError(t, err)
	var want []int // 0016 and every migration after it
	for v := 16; v <= SchemaVersion(); v++ {
		want = append(want, v)
	}
	assert.Equal(t, want, applied)
	require.FileExists(t, path)
	sec := again.core.secret()
	assert.Equal(t, []byte(old.StaffPepper), []byte(sec.StaffPepper), "the staff pepper moved into the key")
	assert.Equal(t, []byte(old.ManagerPepper), []byte(sec.ManagerPepper), "the managers' pepper moved into the key")
	assert.NotEqual(t, []byte(old.DataKey), []byte(sec.DataKey), "a new data key")
	readsNoBuyer(t, again, dumpTables(t, again))
	readsTheBuyers(t, again)
	var n int
	require.NoError(t, again.Pool().QueryRow(ctx, "SELECT count(*) FROM store_key WHERE sealed_at IS NOT NULL").Scan(&n))
	assert.Equal(t, 1, n, "the sealing in place is recorded as done")
	for _, b := range []pos.Buyer{b2bBuyer, b2cBuyer} {
		require.NoError(t, again.Pool().QueryRow(ctx, "SELECT count(*) FROM orders WHERE buyer_phone = $1", again.BuyerPhoneKey(b.Phone)).Scan(&n))
		assert.Equal(t, 1, n, "the buyer's phone is searched by its digest: %s", b.Name)
	}

	members, err := again.Staff.ListStaff(ctx)
	require.NoError(t, err)
	require.Len(t, members, 1)
	var rec string
	require.NoError(t, again.Pool().QueryRow(ctx, "SELECT record::text FROM store_staff").Scan(&rec))
	var s pos.Staff
	require.NoError(t, json.Unmarshal([]byte(rec), &s))
	pep, err := again.Staff.StaffPepper(ctx)
	require.NoError(t, err)
	assert.True(t, s.PINMatches("2468", pep), "the PINs hashed before still match")
}
