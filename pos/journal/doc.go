// Package journal is Galla's bbolt journal, the only package that imports bbolt. It
// owns the journal file, the head record and the number high-water file beside
// it, and its backups, and implements the journal interfaces package pos
// declares.
//
// # Its parts
//
// Open returns a *Journal: a facade (journal.go) whose own methods open and close
// the file and tell its path, commits, version and numbers, over parts that share
// one core (journal_core.go: the bbolt handle, the head record, the high-water
// file, the verification and their locks). Each part is a named field, in a file
// named after it:
//
//	Log      log.go       the chain of events: Append, Event, EventsFrom, LastSeq,
//	                      Rebuild, Verify, VerifyAll, Verified
//	Orders   orders.go    the orders derived from it and their documents' numbers:
//	                      Order, OrdersByDay, Unresolved, Events, LastReceiptNo,
//	                      LastDocNo, FindDocument
//	Days     days.go      the closed days: DayClose, LastZ, LastCheckpoint,
//	                      ZDigest, CheckDay
//	Staff    staff.go     the staff records: List, Get, Put, RecordAttempt
//	Shop     shop.go      the settings and the catalog: Setting, Catalog, PutCatalog
//	IMEIs    imeis.go     the record of every IMEI sold, freed or stocked: IMEI, UnitStock
//	Stock    stock.go     the stock events by business day and the deliveries by
//	                      invoice: StockEvents, StockBegan, InvoiceReceived
//	Archive  archive.go   the copies of the file: Backup, BackupTo, BackupDay,
//	                      LatestBackup, VerifyBackup (increment.go: the
//	                      day's increments of a base)
//
// Journal.Port (port.go) is the value pos is given as its pos.Journal: it embeds
// the parts pos reads, so that their methods (and the optional interfaces pos
// looks for: pos.EventLog, pos.ZDigester, pos.DayChecker, pos.AttemptRecorder,
// pos.IMEIIndex, pos.StockDayIndex) are one value's. The window is given the parts it needs by name: the Log as
// pos.JournalHealth, the Shop as pos.CatalogStore, the Archive as pos.Backuper.
//
// # The file
//
// One bbolt file in the terminal's data directory (mode 0600, directory 0700),
// opened once with a lock timeout: a second copy of the terminal gets an error
// matching ErrAlreadyRunning. bbolt's default sync settings stay on (never
// NoSync): every commit is fsync'd. Every state change is one short read-write
// transaction, and nothing but bbolt happens inside it (no network, no printer).
//
// The log of events is the source of truth; every other bucket is derived from it
// in the same transaction as the event, and Log.Rebuild recreates them by replay.
//
// # Bucket tree (schema version 8)
//
//	journal.db
//	├── meta                      not derived except the two counters
//	│   ├── "schema"      → u64   schema version (migrations run at Open)
//	│   ├── ("head"       → u64 seq ‖ [32]byte hash of event seq: schema 7 and before)
//	│   ├── "chain_key"   → [32]byte HMAC of a fixed label under the chain key (when keyed)
//	│   ├── "personal_sealed" → u64 the customers' details of older schemas sealed (1), the file copied (2)
//	│   ├── "receipt_no"  → u64   last receipt number handed out         (derived)
//	│   └── "z_no"        → u64   number of the last Z report            (derived)
//	├── events                    the log: append only, never rewritten; the last event is the head
//	│   ├── (sequence)    → bbolt's Bucket.Sequence: the mark of the head (headMark, schema 8)
//	│   └── u64 seq       → a record of format 2 (record.go; its body sealed when it names a
//	│                        person, seal.go), or of format 1 written before schema 3
//	├── orders                    derived: the state of every order and its events
//	│   ├── orderID       → pos.Order JSON (Order.Apply folded over its events), sealed when it names a buyer
//	│   └── orderID ‖ 0x00 ‖ u64 seq → the index of the order's events; the newest
//	│                                  entry holds the proof of the order's record (proof.go)
//	├── days                      derived: the orders with an event on a day
//	│   └── day ‖ 0x00 ‖ u64 first seq of the order → orderID
//	├── unresolved                derived: orders for the reconciler
//	│   └── u64 first seq of the order → orderID   (while Order.Unresolved)
//	├── z_reports                 derived: sealed Z reports
//	│   └── u64 Z number  → pos.DayClose JSON
//	├── closed_days               derived: dates with a Z report
//	│   └── day           → u64 Z number of the date's last Z (a date may have more than one)
//	├── staff                     derived: staff records (PIN as salted PBKDF2 hash)
//	│   └── staff ID      → pos.Staff JSON
//	├── settings                  derived: the last value of each setting
//	│   └── key           → JSON value (a remembered customer sealed, under "buyer/#" and a digest)
//	├── catalog                   derived: the catalog last imported
//	│   └── "products"    → JSON array of pos.Product
//	├── checkpoints               derived: the seal of every Z report (checkpoint.go)
//	│   └── u64 Z number  → u64 seq ‖ [32]byte hash ‖ u64 events ‖ [32]byte digest
//	├── documents                 derived: the document series (numbers.go), made when first needed
//	│   ├── "last" ‖ 0x00 ‖ series → u64   last number of the series ("2627", "B2627", "C2627")
//	│   └── "doc" ‖ 0x00 ‖ series ‖ 0x00 ‖ u64 number → order id [‖ 0x00 ‖ refund unique_txn_id]
//	├── imeis                     derived: the record of every IMEI sold, freed or stocked (imeis.go, schema 6)
//	│   └── IMEI          → pos.IMEIRecord JSON: the orders that carried it, the order whose return freed it,
//	│                        the stock events that named it (schema 7)
//	├── stock_days                derived: the stock events by business day (stock.go, schema 6)
//	│   └── day ‖ 0x00 ‖ u64 seq → empty
//	├── stock_invoices            derived: the delivery of each supplier's invoice (stock.go, schema 7)
//	│   └── supplier ‖ 0x00 ‖ invoice, each its letters and digits case-folded (pos.InvoiceKey, schema 9;
//	│                        indexKey before) → u64 seq of its first stock.received
//	├── proofs                    derived: the proofs of the records pos decides by (proof.go)
//	│   └── bucket ‖ 0x00 ‖ key → [32]byte HMAC of staff, settings, catalog, z_reports and imeis records
//	└── snapshots                 pos's state sealed at an event (snapshot.go), made when first needed
//	    └── name          → [32]byte proof ‖ u64 seq ‖ [32]byte hash of event seq ‖ state JSON
//
// u64 is 8 bytes big-endian, so numeric keys sort as numbers; day is YYYY-MM-DD.
// Order ids, staff ids and days never hold a NUL byte (Append refuses them), so
// the composite keys cannot collide and every prefix (a day's orders, an order's
// events) is one contiguous range that a cursor reads with one Seek: OrdersByDay
// costs the same with ten thousand or a million orders in the file.
//
// An order's event index lives in the orders bucket, right after the order's own
// key, rather than in a bucket of its own: an Append then rewrites one page path
// for the order instead of two, which keeps it close to a bare bbolt commit. A
// day lists an order under the sequence of its first event (its order.intent),
// so OrdersByDay and Unresolved return orders oldest first; an order is listed
// under every day on which one of its events was recorded.
//
// Puts that would change nothing (an order already listed under the day, already
// unresolved) are skipped, for the same reason.
//
// # The hash chain
//
// An event is stored as a record of format 2: a binary header (magic "GJ\x02",
// flags, seq, the hash of the event before, its own hash), the kind in clear,
// and the compact JSON of the pos.Event without its chain, compressed with
// DEFLATE and a frozen preset dictionary (dict.go):
//
//	hash(seq) = HMAC-SHA256(chain key, hash(seq-1) ‖ header ‖ kind and body as stored)
//
// with Options.ChainKey, a per-terminal key kept outside the file; SHA-256 of the
// same without one (the chain then shows damage, not an edit). Events written
// before schema 3 stay byte for byte in format 1 ({"v":1,"hash":HEX,"event":{...}},
// SHA-256 of the previous hash and the event's JSON) and verify as such; once an
// event is keyed every later one must be. meta keeps a check value of the key
// (a wrong key is ErrKey), the events bucket's header a mark of the head
// (the last event; headMark), and the head record beside the file (HeadPath)
// its sequence and hash sealed with the key, so that
// a tail cut off or a chain made anew is found at Open. Open runs bbolt's consistency check (Tx.Check) and walks the whole
// chain; any break is an error matching ErrCorrupt (a *CorruptError) that names
// the first bad sequence and the newest backup. With Options.DeferVerify (the
// window, whose cold start must not grow with the journal) Open leaves both to
// Log.Verify, run in the background, and Log.Verified reports its result; pos's payments
// wait for it (pos.Config.Health). Card numbers and CVVs are never in an event:
// pos records brand and last four digits only.
//
// # Proofs of the derived records
//
// Every derived record pos reads to decide (staff, settings, the catalog, Z
// reports, orders) carries a keyed proof (proof.go) that the parts' reads, and
// derive before it builds on a record, check: an edit of any age is a
// *MismatchError naming the record, never believed. A journal without a key
// check is given the key only when it cannot have had one, and a keyed
// journal's head record missing is refused. Restore and Salvage, a manager's,
// append journal.recovered (recovery.go).
//
// # Customers' details
//
// What names a person (a buyer on an invoice, a customer remembered by phone) is
// stored sealed with AES-256-GCM under a data key derived from the chain key
// (seal.go): the hashes and proofs are of the plaintext, so sealing changes no
// chain, digest or proof; a journal of an older schema is sealed once at Open
// and copied without its free pages (reseal.go).
//
// # Missing, damaged and old journals
//
// Open makes a new file only as Options.Create allows (DirUsed is the rule of a
// never-used data directory), checks the file's meta pages and size before bbolt
// maps it, walks the page tree from the file before bbolt's check follows it, and
// runs every bbolt call under a recover with debug.SetPanicOnFault: a missing
// journal is ErrMissing, any damage ErrDamaged, never a crash. The last number of
// every series is also kept in journal.db.numbers (NumbersPath); a journal behind
// it is ErrBehind. Days.CheckDay, VerifyFile, Salvage and Restore check and recover a
// journal; docs/journal-schema.md says how.
//
// # Schema changes
//
// The schema version lives in meta. A change appends a migration to the
// migrations list in schema.go (each runs once, in its own transaction, at Open),
// bumps the version, and redraws the tree above and in docs/journal-schema.md.
// A file written by a newer build is refused with ErrNewerSchema (a
// *NewerSchemaError naming both Galla versions); a file of an older schema is
// copied to the backups and the copy checked before it is migrated, and the
// migration is journaled (journal.opened_by, version.go).
//
// # Backups
//
// The Archive's Backup and BackupTo copy the live file through one read
// transaction (Tx.WriteTo) while the terminal keeps working. Its BackupDay, at
// day close, writes backups/journal-DAY.inc, the pages that changed since the
// newest base, or, when a quarter of the file changed, a new base,
// backups/journal-DAY.db with the digests of its pages (increment.go);
// LatestBackup finds the newest, and Restore and Salvage take either.
package journal
