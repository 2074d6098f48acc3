package web

import (
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/store"
)

func TestThePagesListTheStoresStaff(t *testing.T) {
	db, err := store.Open(t.Context(), cluster.Database(t), storeKey(t))
	require.NoError(t, err)
	t.Cleanup(db.Close)
	_, err = db.Migrate(t.Context())
	require.NoError(t, err)
	_, err = AddManager(t.Context(), db, "Meera", "246810")
	require.NoError(t, err)
	srv := httptest.NewTLSServer(New(db, nil))
	defer srv.Close()
	c := client(t)
	body(t, signin(t, c, srv.URL, "Meera", "246810"))

	r, err := c.Get(srv.URL + "/manager/staff")
	require.NoError(t, err)
	assert.Contains(t, body(t, r), "The store has no staff of its own yet.")

	_, err = db.Staff.AddStaff(t.Context(), "Asha", pos.RoleCashier, "73914562", &pos.StaffLimits{Discount: pos.Rupees(50), Refund: pos.Rupees(500)}, "Meera")
	require.NoError(t, err)
	_, err = db.Staff.AddStaff(t.Context(), "Ravin", pos.RoleManager, "582039", nil, "Meera")
	require.NoError(t, err)
	_, err = db.Staff.SetStaffDisabled(t.Context(), "Ravin", true, "Meera")
	require.NoError(t, err)
	r, err = c.Get(srv.URL + "/manager/staff")
	require.NoError(t, err)
	page := body(t, r)
	assert.Contains(t, between(page, `<tr id="staff-S001">`, `</tr>`), `<th>S001</th><td>Asha</td><td>cashier</td><td>active</td><td class="num">₹50.00</td><td class="num">₹500.00</td><td>by Meera, `)
	assert.Contains(t, between(page, `<tr id="staff-S002">`, `</tr>`), `<th>S002</th><td>Ravin</td><td>manager</td><td>disabled</td><td>the shop's</td><td>none</td>`)
	assert.NotContains(t, page, "73914562")
}
