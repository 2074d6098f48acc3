package pos

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckGSTIN(t *testing.T) {
	tests := []struct {
		gstin string
		want  error
	}{
		// Published GSTINs whose check characters are known.
		{"27AAPFU0939F1ZV", nil},
		{"29AAGCB7383J1Z4", nil},
		{"27AAPFU0939F1ZW", ErrGSTINCheck}, // one character off at the end
		{"27AAPFU0939F1ZX", ErrGSTINCheck},
		{"27AAPFU0839F1ZV", ErrGSTINCheck}, // a digit of the PAN mistyped
		{"40AAPFU0939F1ZV", ErrGSTINState},
		{"27AAPFU0939F0ZV", ErrGSTINFormat}, // entity 0
		{"27AAPFU0939F1YV", ErrGSTINFormat}, // not Z
		{"27AAPF10939F1ZV", ErrGSTINFormat}, // a digit among the PAN's letters
		{"27AAPFU0939F1Z", ErrGSTINFormat},
		{"", ErrGSTINFormat},
	}
	for _, tt := range tests {
		err := CheckGSTIN(tt.gstin)
		if tt.want == nil {
			assert.NoError(t, err, tt.gstin)
			continue
		}
		assert.ErrorIs(t, err, tt.want, tt.gstin)
		assert.NotEqual(t, GenericSentence, Sentence(err), "a sentence that says why: %s", tt.gstin)
	}
	assert.Equal(t, "27AAPFU0939F1ZV", NormalGSTIN(" 27aapfu 0939f1zv "))
	assert.NoError(t, CheckStateCode("27"))
	assert.ErrorIs(t, CheckStateCode("40"), ErrStateCode)
}
