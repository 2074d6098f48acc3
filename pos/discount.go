package pos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// SettingDiscount holds the terminal's DiscountPolicy (JSON), set by a manager in
// the settings.
const SettingDiscount = "discount"

// DefaultDiscountLimit is the largest line discount a cashier gives without a
// manager on a terminal where no manager has set one: ₹500.
const DefaultDiscountLimit Paise = 500_00

// ErrDiscountNeedsManager is a line discount above the policy's limit that no
// manager approved. The error returned by DiscountPolicy.Check matches it and says
// the limit in its sentence.
var ErrDiscountNeedsManager = errors.New("a discount above the limit needs a manager")

// DiscountPolicy is the manager's rule for line discounts: a cashier may take up to
// Limit off a line alone; more needs a manager's approval. A Limit of 0 makes every
// discount need a manager. The cart's own bounds (no negative discount, none above
// the line's gross amount) are Cart.SetDiscount's and apply whatever the policy.
type DiscountPolicy struct {
	Limit Paise `json:"limit"` // in paise; never negative
}

// DefaultDiscountPolicy returns the policy of a terminal where no manager set one:
// DefaultDiscountLimit.
func DefaultDiscountPolicy() DiscountPolicy { return DiscountPolicy{Limit: DefaultDiscountLimit} }

// Validate returns an error matching ErrBadDiscount when the limit is negative.
func (p DiscountPolicy) Validate() error {
	if p.Limit < 0 {
		return fmt.Errorf("pos: discount limit %s: %w", p.Limit, ErrBadDiscount)
	}
	return nil
}

// Check applies the policy to a discount of line: nil when discount is within the
// limit, or when approvedBy is a manager (the one whose PIN was checked, as
// Roster.AuthoriseManager returns); otherwise a *DiscountLimitError matching
// ErrDiscountNeedsManager. An approval by a cashier counts for nothing. A negative
// limit is read as 0.
func (p DiscountPolicy) Check(line Line, discount Paise, approvedBy *Staff) error {
	limit := max(p.Limit, 0)
	if discount <= limit {
		return nil
	}
	if approvedBy != nil && approvedBy.Role == RoleManager {
		return nil
	}
	return &DiscountLimitError{SKU: line.SKU, Discount: discount, Limit: limit}
}

// DiscountLimitError is a discount above the policy's limit without a manager's
// approval; it matches ErrDiscountNeedsManager.
type DiscountLimitError struct {
	SKU      string
	Discount Paise
	Limit    Paise
}

// Error states the line, the discount and the limit.
func (e *DiscountLimitError) Error() string {
	return fmt.Sprintf("pos: discount of %s on %s: above %s: %v", e.Discount, printable(e.SKU), e.Limit, ErrDiscountNeedsManager)
}

// Is makes a *DiscountLimitError match ErrDiscountNeedsManager.
func (e *DiscountLimitError) Is(target error) bool { return target == ErrDiscountNeedsManager }

// Sentence says what the cashier must do: "A discount above ₹500.00 needs a
// manager's PIN.", or, with a limit of 0, that every discount does.
func (e *DiscountLimitError) Sentence() string {
	if e.Limit <= 0 {
		return "Every discount needs a manager's PIN."
	}
	return "A discount above " + e.Limit.String() + " needs a manager's PIN."
}

// LoadDiscountPolicy reads the discount policy from the journal's settings; a
// terminal where no manager set one gets DefaultDiscountPolicy. A stored value that
// cannot be read, or a negative limit, is an error.
func LoadDiscountPolicy(ctx context.Context, j Journal) (DiscountPolicy, error) {
	raw, err := j.Setting(ctx, SettingDiscount)
	if err != nil {
		return DiscountPolicy{}, fmt.Errorf("pos: setting %q: %w", SettingDiscount, err)
	}
	if raw == nil {
		return DefaultDiscountPolicy(), nil
	}
	var p DiscountPolicy
	if err := json.Unmarshal(raw, &p); err != nil {
		return DiscountPolicy{}, fmt.Errorf("pos: setting %q: %w", SettingDiscount, err)
	}
	if err := p.Validate(); err != nil {
		return DiscountPolicy{}, fmt.Errorf("pos: setting %q: %w", SettingDiscount, err)
	}
	return p, nil
}
