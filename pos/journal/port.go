package journal

import "galla/pos"

// Port is the journal as package pos uses it: pos.Journal (the log's Append, the
// orders and their numbers, a day's Z report, the settings, the staff) and the
// interfaces pos looks for on the journal it is given (pos.EventLog,
// pos.EventRanger, pos.ZDigester, pos.DayChecker, pos.AttemptRecorder,
// pos.CatalogStore, pos.JournalHealth, pos.IMEIIndex, pos.StockDayIndex, pos.StockIndex). It declares no method of its own: each is
// a part's, promoted from the part it embeds. Journal.Port returns it.
type Port struct {
	*Log
	*Orders
	*Days
	*Staff
	*Shop
	*IMEIs
	*Stock
}

// The parts and the Port implement the interfaces pos declares.
var (
	_ pos.Journal         = (*Port)(nil)
	_ pos.StaffStore      = (*Port)(nil)
	_ pos.AttemptRecorder = (*Port)(nil)
	_ pos.EventLog        = (*Port)(nil)
	_ pos.EventRanger     = (*Port)(nil)
	_ pos.ZDigester       = (*Port)(nil)
	_ pos.DayChecker      = (*Port)(nil)
	_ pos.CatalogStore    = (*Port)(nil)
	_ pos.JournalHealth   = (*Port)(nil)
	_ pos.IMEIIndex       = (*Port)(nil)
	_ pos.StockDayIndex   = (*Port)(nil)
	_ pos.StockIndex      = (*Port)(nil)

	_ pos.EventLog        = (*Log)(nil)
	_ pos.EventRanger     = (*Log)(nil)
	_ pos.JournalHealth   = (*Log)(nil)
	_ pos.ZDigester       = (*Days)(nil)
	_ pos.DayChecker      = (*Days)(nil)
	_ pos.StaffStore      = (*Staff)(nil)
	_ pos.AttemptRecorder = (*Staff)(nil)
	_ pos.CatalogStore    = (*Shop)(nil)
	_ pos.IMEIIndex       = (*IMEIs)(nil)
	_ pos.StockDayIndex   = (*Stock)(nil)
	_ pos.Backuper        = (*Archive)(nil)
	_ pos.BackupVerifier  = (*Archive)(nil)
)
