package store

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// posEventKinds reads pos's source for every constant of type EventKind.
func posEventKinds(t *testing.T) []pos.EventKind {
	t.Helper()
	names, err := filepath.Glob("../pos/*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	var kinds []pos.EventKind
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				v := s.(*ast.ValueSpec)
				if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "EventKind" {
					continue
				}
				for _, x := range v.Values {
					lit, ok := x.(*ast.BasicLit)
					require.True(t, ok, "an EventKind constant is a string literal")
					k, err := strconv.Unquote(lit.Value)
					require.NoError(t, err)
					kinds = append(kinds, pos.EventKind(k))
				}
			}
		}
	}
	require.Contains(t, kinds, pos.EvOrderIntent, "the parse found the kinds")
	return kinds
}

// TestEveryOrderEventIsProjected checks the projections' table against every
// event kind pos declares: each kind pos applies to an order goes through
// projectOrder, and besides them only the Z report, the overrides, the
// shifts, the stock and the shop's settings (registrations.go) are projected.
func TestEveryOrderEventIsProjected(t *testing.T) {
	table := projectionsTable()
	name := func(f projectFunc) uintptr { return reflect.ValueOf(f).Pointer() }
	others := map[pos.EventKind]projectFunc{pos.EvDayClosed: projectDayClosed, pos.EvOverride: projectOverride,
		pos.EvShiftOpened: projectShift, pos.EvShiftCash: projectShift, pos.EvShiftClosed: projectShift,
		pos.EvStockReceived: projectStock, pos.EvStockAdjusted: projectStock, pos.EvStockSent: projectStock,
		pos.EvSettingsChanged: projectSettings}
	for _, k := range posEventKinds(t) {
		f := table[k]
		switch want, ok := others[k]; {
		case k.IsOrderEvent():
			if assert.NotNil(t, f, "%s is an order's event and is not projected", k) {
				assert.Equal(t, name(projectOrder), name(f), "%s goes through projectOrder", k)
			}
		case ok:
			if assert.NotNil(t, f, "%s is not projected", k) {
				assert.Equal(t, name(want), name(f), k)
			}
		default:
			assert.Nil(t, f, "%s has a projection this test does not know", k)
		}
	}
}
