package pos

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAllOrderStatesListsEveryState reads pos's source for every constant of
// type OrderState: a state declared but not listed fails here.
func TestAllOrderStatesListsEveryState(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var declared []OrderState
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
				if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "OrderState" {
					continue
				}
				for _, x := range v.Values {
					lit, ok := x.(*ast.BasicLit)
					require.True(t, ok, "an OrderState constant is a string literal")
					s, err := strconv.Unquote(lit.Value)
					require.NoError(t, err)
					declared = append(declared, OrderState(s))
				}
			}
		}
	}
	require.Contains(t, declared, StatePaid, "the parse found the states")
	require.Contains(t, declared, StatusCancelled)
	all := AllOrderStates()
	for _, s := range declared {
		if s == StatusCancelled {
			assert.NotContains(t, all, s, "a report's status, never an order's state")
			continue
		}
		assert.Contains(t, all, s, "%s is declared but not in AllOrderStates", s)
	}
	assert.Len(t, all, len(declared)-1, "every state once")
}
