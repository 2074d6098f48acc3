package pos

import (
	"errors"
	"fmt"
	"strings"
)

// GST registration: the GSTIN and the state codes of the GST portal (DESIGN.md
// section 9).

// The GSTIN errors, matched with errors.Is; each *GSTINError carries a sentence.
var (
	ErrGSTINFormat = errors.New("a GSTIN is 15 characters: state code, PAN, entity, Z, check")
	ErrGSTINState  = errors.New("the GSTIN's state code is not a state of India")
	ErrGSTINCheck  = errors.New("the GSTIN's check character is wrong")
	ErrStateCode   = errors.New("not a GST state code")
)

// gstinChars are the characters of a GSTIN in the order of their values (0–35).
const gstinChars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

// States names the GST state and union territory codes (the portal's list; 97 is
// "Other Territory", 99 "Centre Jurisdiction"). 25 (Daman and Diu) merged into 26
// in 2020 and 28 is Andhra Pradesh before 2014: GSTINs issued with them stand.
var States = map[string]string{
	"01": "Jammu and Kashmir", "02": "Himachal Pradesh", "03": "Punjab", "04": "Chandigarh",
	"05": "Uttarakhand", "06": "Haryana", "07": "Delhi", "08": "Rajasthan", "09": "Uttar Pradesh",
	"10": "Bihar", "11": "Sikkim", "12": "Arunachal Pradesh", "13": "Nagaland", "14": "Manipur",
	"15": "Mizoram", "16": "Tripura", "17": "Meghalaya", "18": "Assam", "19": "West Bengal",
	"20": "Jharkhand", "21": "Odisha", "22": "Chhattisgarh", "23": "Madhya Pradesh", "24": "Gujarat",
	"25": "Daman and Diu", "26": "Dadra and Nagar Haveli and Daman and Diu", "27": "Maharashtra",
	"28": "Andhra Pradesh (before 2014)", "29": "Karnataka", "30": "Goa", "31": "Lakshadweep",
	"32": "Kerala", "33": "Tamil Nadu", "34": "Puducherry", "35": "Andaman and Nicobar Islands",
	"36": "Telangana", "37": "Andhra Pradesh", "38": "Ladakh", "97": "Other Territory", "99": "Centre Jurisdiction",
}

// GSTINError is a GSTIN that does not validate; its sentence says why.
type GSTINError struct {
	GSTIN string
	Err   error
}

func (e *GSTINError) Error() string {
	return fmt.Sprintf("pos: GSTIN %q: %v", printable(e.GSTIN), e.Err)
}

// Unwrap makes a *GSTINError match its kind.
func (e *GSTINError) Unwrap() error { return e.Err }

// Sentence says what is wrong and what to do.
func (e *GSTINError) Sentence() string {
	switch {
	case errors.Is(e.Err, ErrGSTINState):
		return fmt.Sprintf("The GSTIN %s starts with %s, which is not a GST state code; check the first two digits against the registration certificate.", printable(e.GSTIN), printable(e.GSTIN[:2]))
	case errors.Is(e.Err, ErrGSTINCheck):
		return fmt.Sprintf("The GSTIN %s has a wrong last character (a typing mistake somewhere); copy it again from the registration certificate.", printable(e.GSTIN))
	}
	return fmt.Sprintf("%q is not a GSTIN: a GSTIN is 15 characters, two digits of the state, the ten of the PAN, the entity number, Z and a check character (like 27AAPFU0939F1ZV).", printable(e.GSTIN))
}

// NormalGSTIN is s without spaces, in capitals.
func NormalGSTIN(s string) string { return strings.ToUpper(strings.Join(strings.Fields(s), "")) }

// CheckGSTIN validates a GSTIN (already NormalGSTIN): its format (state code, PAN,
// entity number, Z), its state code and its check character (the portal's mod-36
// sum).
func CheckGSTIN(g string) error {
	bad := func(err error) error { return &GSTINError{GSTIN: g, Err: err} }
	if len(g) != 15 {
		return bad(ErrGSTINFormat)
	}
	for i := 0; i < 15; i++ {
		c := g[i]
		digit, letter := c >= '0' && c <= '9', c >= 'A' && c <= 'Z'
		ok := true
		switch {
		case i < 2, i >= 7 && i < 11: // state code; the PAN's four digits
			ok = digit
		case i >= 2 && i < 7, i == 11: // the PAN's letters
			ok = letter
		case i == 12: // entity number: 1–9, then A–Z
			ok = (digit && c != '0') || letter
		case i == 13:
			ok = c == 'Z'
		default:
			ok = digit || letter
		}
		if !ok {
			return bad(ErrGSTINFormat)
		}
	}
	if _, ok := States[g[:2]]; !ok {
		return bad(ErrGSTINState)
	}
	if gstinCheckChar(g[:14]) != g[14] {
		return bad(ErrGSTINCheck)
	}
	return nil
}

// gstinCheckChar is the check character of the first 14 characters of a GSTIN:
// from the right, values multiplied by 2, 1, 2, …, each product's quotient and
// remainder by 36 added up, and the check is what brings the sum to a multiple of
// 36.
func gstinCheckChar(head string) byte {
	sum := 0
	for i := 0; i < len(head); i++ {
		v := strings.IndexByte(gstinChars, head[i])
		factor := 1
		if (len(head)-1-i)%2 == 0 {
			factor = 2
		}
		p := v * factor
		sum += p/36 + p%36
	}
	return gstinChars[(36-sum%36)%36]
}

// CheckStateCode checks a GST state code ("27").
func CheckStateCode(code string) error {
	if _, ok := States[code]; !ok {
		return sentenceWrap{sentence: fmt.Sprintf("%q is not a GST state code; give the two digits of the state, like 27 for Maharashtra or 29 for Karnataka.", printable(code)), err: ErrStateCode}
	}
	return nil
}
