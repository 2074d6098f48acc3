package pos

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStateSets(t *testing.T) {
	assert.Equal(t, []OrderState{StatePaid, StatePartlyRefunded, StateRefunded}, PaidStates())
	assert.Equal(t, []OrderState{StateIntent, StateCreated, StatePaying, StateAuthenticating, StateUnknown}, OpenStates())
	p := PaidStates()
	p[0] = StateFailed
	assert.Equal(t, StatePaid, PaidStates()[0], "each call returns a list of its own")
}
