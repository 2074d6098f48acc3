package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"galla/pos"
)

// Staff is the store's staff (ADR 0007): the members added, disabled or given
// a new PIN here, who sign in at every counter, and the pepper their PINs are
// hashed with.
type Staff struct{ *dbCore }

// The store's staff (ADR 0007): members added at the store sign in at every
// counter. Their PINs are hashed by the counters' own rules (pos.Staff.SetPIN,
// argon2id) with the store's pepper, kept in the store key outside the
// database (key.go); every change is published as master data of kind
// MasterStaff keyed by the member's id.

// MasterStaff is the master kind of one member of the store's staff.
const MasterStaff = "staff"

// StaffMember is a member of the store's staff as the store lists them.
type StaffMember struct {
	ID        string
	Name      string
	Role      pos.Role
	Disabled  bool
	Limits    *pos.StaffLimits
	Version   uint64 // the master-data version of the last change
	UpdatedBy string
	UpdatedAt time.Time
}

// StaffPepper returns the store's staff pepper (32 bytes), kept in the store
// key outside the database (key.go). It is handed to a terminal at enrolment
// and on its signed request, and never published with the master data.
func (sf *Staff) StaffPepper(ctx context.Context) ([]byte, error) {
	pep, err := sf.staffPepper()
	return pep, sf.wrap("staff pepper", err)
}

// staffPepper is the store key's staff pepper.
func (c *dbCore) staffPepper() ([]byte, error) {
	sec := c.secret()
	if sec == nil {
		return nil, errNoKey
	}
	return bytes.Clone(sec.StaffPepper), nil
}

// AddStaff adds a member of the store's staff by who: name (pos's rules, unique
// in the store without regard to case: pos.ErrStaffExists), role, PIN (pos's
// rules: 4 to 8 digits, a manager's 6 to 8) and a cashier's own limits (nil:
// the shop's). Every counter receives the member at its next sync.
func (sf *Staff) AddStaff(ctx context.Context, name string, role pos.Role, pin string, limits *pos.StaffLimits, who string) (StaffMember, error) {
	name, err := pos.CheckStaffName(name)
	if err != nil {
		return StaffMember{}, err
	}
	if role != pos.RoleCashier && role != pos.RoleManager {
		return StaffMember{}, pos.ErrBadRole
	}
	if err := pos.CheckRolePIN(role, pin); err != nil {
		return StaffMember{}, err
	}
	if role == pos.RoleManager && limits != nil {
		return StaffMember{}, errors.New("a manager's discounts and refunds have no limit to set")
	}
	if err := checkWho(who); err != nil {
		return StaffMember{}, err
	}
	var out StaffMember
	err = pgx.BeginFunc(ctx, sf.pool, func(tx pgx.Tx) error {
		// The name first, so that a name taken uses up no version or id.
		var taken bool
		if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM store_staff WHERE lower(name) = lower($1))", name).Scan(&taken); err != nil {
			return err
		}
		if taken {
			return pos.ErrStaffExists
		}
		pep, err := sf.staffPepper()
		if err != nil {
			return err
		}
		var n int64
		if err := tx.QueryRow(ctx, "SELECT nextval('store_staff_no')").Scan(&n); err != nil {
			return err
		}
		s := pos.Staff{ID: fmt.Sprintf("%s%03d", pos.StoreStaffPrefix, n), Name: name, Role: role, Limits: limits, Store: true}
		if err := s.SetPIN(pin, pos.DefaultPINCost, pep, nil); err != nil {
			return err
		}
		out, err = sf.saveStaff(ctx, tx, s, who, true)
		return err
	})
	return out, sf.staffErr("add staff", name, err)
}

// SetStaffDisabled disables the store's member named name (they cannot sign in
// at any counter once it has synced) or enables them again, by who.
func (sf *Staff) SetStaffDisabled(ctx context.Context, name string, disabled bool, who string) (StaffMember, error) {
	return sf.changeStaff(ctx, name, who, func(s *pos.Staff, _ []byte) error {
		s.Disabled = disabled
		return nil
	})
}

// ResetStaffPIN sets a new PIN (pos's rules) for the store's member named name,
// by who.
func (sf *Staff) ResetStaffPIN(ctx context.Context, name, pin, who string) (StaffMember, error) {
	return sf.changeStaff(ctx, name, who, func(s *pos.Staff, pep []byte) error {
		if err := pos.CheckRolePIN(s.Role, pin); err != nil {
			return err
		}
		return s.SetPIN(pin, pos.DefaultPINCost, pep, nil)
	})
}

// ListStaff lists the store's staff by name, disabled members too.
func (sf *Staff) ListStaff(ctx context.Context) ([]StaffMember, error) {
	rs, err := sf.pool.Query(ctx, "SELECT record::text, version, updated_by, updated_at FROM store_staff ORDER BY lower(name)")
	if err != nil {
		return nil, sf.wrap("list staff", err)
	}
	out, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (StaffMember, error) {
		var rec string
		var v int64
		var m StaffMember
		if err := r.Scan(&rec, &v, &m.UpdatedBy, &m.UpdatedAt); err != nil {
			return m, err
		}
		var s pos.Staff
		if err := json.Unmarshal([]byte(rec), &s); err != nil {
			return m, err
		}
		m.ID, m.Name, m.Role, m.Disabled, m.Limits, m.Version = s.ID, s.Name, s.Role, s.Disabled, s.Limits, uint64(v)
		return m, nil
	})
	return out, sf.wrap("list staff", err)
}

// changeStaff changes the member named name with f (given the store's pepper)
// and publishes the record, in one transaction that locks the member's row.
func (sf *Staff) changeStaff(ctx context.Context, name, who string, f func(*pos.Staff, []byte) error) (StaffMember, error) {
	if err := checkWho(who); err != nil {
		return StaffMember{}, err
	}
	var out StaffMember
	err := pgx.BeginFunc(ctx, sf.pool, func(tx pgx.Tx) error {
		var rec string
		err := tx.QueryRow(ctx, "SELECT record::text FROM store_staff WHERE lower(name) = lower($1) FOR UPDATE", strings.TrimSpace(name)).Scan(&rec)
		if errors.Is(err, pgx.ErrNoRows) {
			return pos.ErrUnknownStaff
		}
		if err != nil {
			return err
		}
		var s pos.Staff
		if err := json.Unmarshal([]byte(rec), &s); err != nil {
			return err
		}
		pep, err := sf.staffPepper()
		if err != nil {
			return err
		}
		if err := f(&s, pep); err != nil {
			return err
		}
		out, err = sf.saveStaff(ctx, tx, s, who, false)
		return err
	})
	return out, sf.staffErr("change staff", name, err)
}

// saveStaff publishes s as master data and keeps it as the store's record.
func (sf *Staff) saveStaff(ctx context.Context, tx pgx.Tx, s pos.Staff, who string, insert bool) (StaffMember, error) {
	if err := pos.CheckStoreMember(s); err != nil {
		return StaffMember{}, err
	}
	body, err := json.Marshal(s)
	if err != nil {
		return StaffMember{}, err
	}
	now := sf.now()
	var v int64
	if err := tx.QueryRow(ctx, "INSERT INTO master_data (kind, key, body, published_by, published_at) VALUES ($1, $2, $3, $4, $5) RETURNING version",
		MasterStaff, s.ID, body, who, now).Scan(&v); err != nil {
		return StaffMember{}, err
	}
	q := `UPDATE store_staff SET name = $2, role = $3, disabled = $4, record = $5, version = $6, updated_by = $7, updated_at = $8 WHERE id = $1`
	if insert {
		q = `INSERT INTO store_staff (id, name, role, disabled, record, version, updated_by, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`
	}
	if _, err := tx.Exec(ctx, q, s.ID, s.Name, string(s.Role), s.Disabled, body, v, who, now); err != nil {
		return StaffMember{}, err
	}
	return StaffMember{ID: s.ID, Name: s.Name, Role: s.Role, Disabled: s.Disabled, Limits: s.Limits, Version: uint64(v), UpdatedBy: who, UpdatedAt: now}, nil
}

// staffErr keeps pos's errors (they carry the rule broken) and names a name
// taken as pos.ErrStaffExists.
func (sf *Staff) staffErr(op, name string, err error) error {
	var pe *pgconn.PgError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe) && pe.Code == "23505":
		return fmt.Errorf("store: %s %q: %w", op, name, pos.ErrStaffExists)
	case errors.Is(err, pos.ErrUnknownStaff), errors.Is(err, pos.ErrStaffExists), errors.Is(err, pos.ErrBadPIN), errors.Is(err, pos.ErrShortManagerPIN):
		return fmt.Errorf("store: %s %q: %w", op, name, err)
	}
	return sf.wrap(op, err)
}

func checkWho(who string) error {
	if strings.TrimSpace(who) == "" {
		return errors.New("name who makes the change")
	}
	return nil
}
