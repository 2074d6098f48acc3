package pos

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestStoreStatusText(t *testing.T) {
	now := time.Date(2026, 11, 24, 15, 30, 0, 0, time.Local)
	for _, tc := range []struct {
		name string
		s    StoreStatus
		want string
	}{
		{"not enrolled", StoreStatus{Waiting: 9}, ""},
		{"never synced", StoreStatus{Enrolled: true, Waiting: 12}, "store: 12 events waiting, never synced"},
		{"one waiting", StoreStatus{Enrolled: true, Waiting: 1, LastSync: now.Add(-3 * time.Minute)}, "store: 1 event waiting, last sync 15:27"},
		{"up to date", StoreStatus{Enrolled: true, LastSync: now.Add(-10 * time.Second)}, "store: up to date, last sync 15:29"},
		{"yesterday", StoreStatus{Enrolled: true, Waiting: 40, LastSync: time.Date(2026, 11, 23, 18, 5, 0, 0, time.Local), Problem: "store server unreachable"},
			"store: 40 events waiting, last sync 23 Nov 18:05 (store server unreachable)"},
		{"blocked", StoreStatus{Enrolled: true, Waiting: 3, Blocked: "its journal forked at event 17"},
			"store: events refused until a manager looks (its journal forked at event 17)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.s.Text(now))
		})
	}
}

type fakeStoreLink StoreStatus

func (f fakeStoreLink) Status() StoreStatus { return StoreStatus(f) }

func TestTillStoreStatus(t *testing.T) {
	assert.Equal(t, StoreStatus{}, (&Till{c: &core{}}).StoreStatus(), "no link: not enrolled")
	want := StoreStatus{Enrolled: true, Waiting: 5}
	assert.Equal(t, want, (&Till{c: &core{cfg: TillConfig{Store: fakeStoreLink(want)}}}).StoreStatus())
}
