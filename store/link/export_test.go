package link

import (
	"encoding/hex"
	"encoding/json"
)

// StateProof is the proof the link would write for the state file b, made
// with key: a test forges a proof exactly as the link makes one, with
// another key.
func StateProof(b, key []byte) (string, error) {
	var st state
	if err := json.Unmarshal(b, &st); err != nil {
		return "", err
	}
	return hex.EncodeToString(proofOf(st, key)), nil
}
