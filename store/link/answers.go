package link

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"galla/pos"
)

// The store's answers on the returns of this counter's invoices at other
// counters are kept in the state file, with a keyed proof; the file alone
// cannot say whether it is the newest the counter wrote. An older genuine
// copy put back (from before the store said invoice X was returned at another
// counter) would make the counter refund X again offline. So each answer that
// changes what the counter knows is numbered and journaled (SettingAnswer)
// before the file naming it is written: the keyed journal, which cannot be
// put back with the file alone, says which answer is the newest, and a file
// naming an older one is not believed (docs/security.md "Offline returns").

// SettingAnswer is the settings.changed key under which the counter's journal
// records the store's last answer on its invoices returned at other counters
// (Answer).
const SettingAnswer = "store.answer"

// Answer is the journal's record of the newest answer of the store on this
// counter's invoices returned at other counters, as the state file kept it.
type Answer struct {
	// N numbers the answers that changed what the counter knows, from 1 on
	// this counter; the state file names the one it holds.
	N uint64 `json:"n"`
	// Digest is the SHA-256 of the list the answer left (answerDigest), hex.
	Digest string `json:"digest"`
}

// Journal is where the link records each answer that changed what it knows
// and reads the newest record back: the counter's keyed journal
// (Journaled(j.Shop, j.Log)).
type Journal interface {
	Settings
	Appender
}

// Appender journals an event (journal.Log has it).
type Appender interface {
	Append(ctx context.Context, ev pos.Event) (pos.Event, error)
}

// Journaled is the Journal of a journal's settings s and log a.
func Journaled(s Settings, a Appender) Journal {
	return journaled{s, a}
}

type journaled struct {
	Settings
	Appender
}

// ReadAnswer returns the journal's record of the store's newest answer, the
// zero Answer when it holds none (a counter that never synced with a build
// that records them).
func ReadAnswer(ctx context.Context, s Settings) (Answer, error) {
	raw, err := s.Setting(ctx, SettingAnswer)
	if err != nil {
		return Answer{}, fmt.Errorf("link: the journaled store answer: %w", err)
	}
	if raw == nil {
		return Answer{}, nil
	}
	var a Answer
	if err := json.Unmarshal(raw, &a); err != nil || a.N == 0 {
		return Answer{}, errors.New("link: the journaled store answer cannot be read")
	}
	return a, nil
}

// answerDigest is the digest of the list of invoices returned elsewhere, hex:
// the SHA-256 of its JSON (a map's keys sorted, so the same list gives the
// same digest).
func answerDigest(elsewhere map[string]pos.ElsewhereReturn) string {
	type entry struct {
		ID string
		R  pos.ElsewhereReturn
	}
	list := make([]entry, 0, len(elsewhere))
	for _, id := range slices.Sorted(maps.Keys(elsewhere)) {
		list = append(list, entry{id, elsewhere[id]})
	}
	b, _ := json.Marshal(list)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// staleWhy says why a state file naming answer st.Answer is not believed
// against the journal's record rec, "" when it is: it must name the record's
// answer with the same list, or a newer one (a journal restored from a
// backup, which a manager put in place, is older than the file).
func staleWhy(st state, rec Answer) string {
	switch {
	case st.Answer < rec.N:
		return fmt.Sprintf("%s is older than the store's last answer this counter's journal records (answer %d; the file holds answer %d): a copy put back is not believed", StateFile, rec.N, st.Answer)
	case st.Answer == rec.N && rec.N > 0 && answerDigest(st.Elsewhere) != rec.Digest:
		return fmt.Sprintf("%s does not hold the store's answer this counter's journal records (answer %d), so what it says is not believed", StateFile, rec.N)
	}
	return ""
}

// recordAnswer numbers st's list as the newest answer, past both the file's
// and the journal's, and journals it (SettingAnswer) before the file names
// it. It returns st with the answer's number.
func (l *Link) recordAnswer(ctx context.Context, st state) (state, error) {
	rec, err := ReadAnswer(ctx, l.cfg.Journal)
	if err != nil {
		return st, err
	}
	st.Answer = max(st.Answer, rec.N) + 1
	raw, err := json.Marshal(Answer{N: st.Answer, Digest: answerDigest(st.Elsewhere)})
	if err != nil {
		return st, err
	}
	_, err = l.cfg.Journal.Append(ctx, pos.Event{V: pos.EventVersion, Time: l.cfg.Now(), Kind: pos.EvSettingsChanged,
		Setting: &pos.Setting{Key: SettingAnswer, Value: raw}, Extra: map[string]string{"what": "store answer on returns elsewhere"}})
	if err != nil {
		return st, fmt.Errorf("link: journal the store's answer: %w", err)
	}
	return st, nil
}
