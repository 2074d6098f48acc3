package pos

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDiscountPolicyCheck(t *testing.T) {
	line := Line{SKU: "PH-1", Name: "Samsung Galaxy S24", Qty: 1, UnitPrice: Rupees(74999), GSTRate: Percent(18)}
	manager := &Staff{ID: "001", Name: "Asha", Role: RoleManager}
	cashier := &Staff{ID: "002", Name: "Ravi", Role: RoleCashier}
	tests := []struct {
		name     string
		limit    Paise
		discount Paise
		by       *Staff
		wantErr  bool
		sentence string
	}{
		{name: "no discount", limit: Rupees(500), discount: 0},
		{name: "below the limit", limit: Rupees(500), discount: Rupees(500) - 1},
		{name: "at the limit", limit: Rupees(500), discount: Rupees(500)},
		{name: "above the limit alone", limit: Rupees(500), discount: Rupees(500) + 1, wantErr: true,
			sentence: "A discount above ₹500.00 needs a manager's PIN."},
		{name: "above the limit approved by a manager", limit: Rupees(500), discount: Rupees(5000), by: manager},
		{name: "above the limit approved by a cashier", limit: Rupees(500), discount: Rupees(5000), by: cashier, wantErr: true,
			sentence: "A discount above ₹500.00 needs a manager's PIN."},
		{name: "a configured limit", limit: Rupees(1200), discount: Rupees(1200)},
		{name: "above a configured limit", limit: Rupees(1200), discount: Rupees(1200) + 50, wantErr: true,
			sentence: "A discount above ₹1,200.00 needs a manager's PIN."},
		{name: "limit 0, no discount", limit: 0, discount: 0},
		{name: "limit 0, one paisa", limit: 0, discount: 1, wantErr: true, sentence: "Every discount needs a manager's PIN."},
		{name: "limit 0, approved by a manager", limit: 0, discount: Rupees(10), by: manager},
		{name: "limit 0, approved by a cashier", limit: 0, discount: Rupees(10), by: cashier, wantErr: true,
			sentence: "Every discount needs a manager's PIN."},
		{name: "a negative limit reads as 0", limit: -Rupees(5), discount: 1, wantErr: true, sentence: "Every discount needs a manager's PIN."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := DiscountPolicy{Limit: tt.limit}.Check(line, tt.discount, tt.by)
			if !tt.wantErr {
				assert.NoError(t, err, "Check(%s, %v) with limit %s", tt.discount, tt.by, tt.limit)
				return
			}
			require.Error(t, err, "Check(%s, %v) with limit %s", tt.discount, tt.by, tt.limit)
			assert.ErrorIs(t, err, ErrDiscountNeedsManager)
			assert.NotErrorIs(t, err, ErrDiscountTooLarge)
			assert.Equal(t, tt.sentence, Sentence(err))
			assert.Equal(t, tt.sentence, Sentence(fmtWrap(err)), "the sentence survives wrapping")
			assert.Contains(t, err.Error(), "PH-1")
		})
	}
}

// fmtWrap wraps err the way a caller up the stack would.
func fmtWrap(err error) error { return errors.Join(errors.New("till: price"), err) }

func TestDiscountPolicyValidate(t *testing.T) {
	assert.NoError(t, DefaultDiscountPolicy().Validate())
	assert.NoError(t, DiscountPolicy{}.Validate(), "0: every discount needs a manager")
	assert.ErrorIs(t, DiscountPolicy{Limit: -1}.Validate(), ErrBadDiscount)
	assert.Equal(t, Rupees(500), DefaultDiscountPolicy().Limit)
}

// settingEvent is the settings.changed event that stores raw under key.
func settingEvent(key string, raw string) Event {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	return Event{V: EventVersion, Time: now, Day: ToDay(now), Kind: EvSettingsChanged,
		Setting: &Setting{Key: key, Value: json.RawMessage(raw)}}
}

// failingSettings is a journal whose settings cannot be read.
type failingSettings struct{ *memJournal }

var errDiskGone = errors.New("disk gone")

func (failingSettings) Setting(context.Context, string) (json.RawMessage, error) {
	return nil, errDiskGone
}

func TestLoadDiscountPolicy(t *testing.T) {
	tests := []struct {
		name   string
		stored string // "" stores nothing
		want   DiscountPolicy
		fails  bool
		is     error // what the error matches, when it has a sentinel
	}{
		{name: "never set", want: DefaultDiscountPolicy()},
		{name: "set by a manager", stored: `{"limit":120000}`, want: DiscountPolicy{Limit: Rupees(1200)}},
		{name: "set to 0", stored: `{"limit":0}`, want: DiscountPolicy{Limit: 0}},
		{name: "negative", stored: `{"limit":-100}`, fails: true, is: ErrBadDiscount},
		{name: "not JSON of a policy", stored: `{"limit":"lots"}`, fails: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			j := newMemJournal()
			if tt.stored != "" {
				_, err := j.Append(ctx, settingEvent(SettingDiscount, tt.stored))
				require.NoError(t, err)
			}
			got, err := LoadDiscountPolicy(ctx, j)
			if tt.fails {
				require.Error(t, err, "LoadDiscountPolicy after %s", tt.stored)
				assert.Contains(t, err.Error(), `setting "discount"`)
				if tt.is != nil {
					assert.ErrorIs(t, err, tt.is)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got, "LoadDiscountPolicy after %s", tt.stored)
		})
	}

	t.Run("the last setting wins", func(t *testing.T) {
		ctx := t.Context()
		j := newMemJournal()
		for _, raw := range []string{`{"limit":20000}`, `{"limit":75000}`} {
			_, err := j.Append(ctx, settingEvent(SettingDiscount, raw))
			require.NoError(t, err)
		}
		got, err := LoadDiscountPolicy(ctx, j)
		require.NoError(t, err)
		assert.Equal(t, Rupees(750), got.Limit)
	})

	t.Run("a journal that cannot be read", func(t *testing.T) {
		_, err := LoadDiscountPolicy(t.Context(), failingSettings{newMemJournal()})
		assert.ErrorIs(t, err, errDiskGone)
	})
}

// TestLineApprovedByJSON checks that the approving manager is journaled with the
// line, and that lines journaled before the field existed still read.
func TestLineApprovedByJSON(t *testing.T) {
	plain := Line{SKU: "CBL-1", Name: "USB-C Cable", HSN: "8544", Qty: 1, UnitPrice: Rupees(499), GSTRate: Percent(18)}
	raw, err := json.Marshal(plain)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "approved_by", "no approval, no field")

	approved := plain
	approved.Discount, approved.ApprovedBy = Rupees(450), "Asha"
	raw, err = json.Marshal(approved)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"approved_by":"Asha"`)
	var back Line
	require.NoError(t, json.Unmarshal(raw, &back))
	assert.Equal(t, approved, back)

	var old Line
	require.NoError(t, json.Unmarshal([]byte(`{"sku":"CBL-1","name":"USB-C Cable","hsn":"8544","qty":1,"unit_price":49900,"discount":100,"gst_rate":18}`), &old))
	assert.Equal(t, Rupees(1), old.Discount)
	assert.Empty(t, old.ApprovedBy)
}
