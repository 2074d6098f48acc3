package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// The service is loose about JSON types (contract section 6): a number field may
// arrive as a JSON string and a string field as a number, and a value that does
// not exist yet is the text NA. decodeLenient reads a service answer into a struct
// of this package following its json tags, with these rules per field:
//
//   - string: a JSON string (NA becomes ""), a number (its literal text), a boolean
//     ("true"/"false"), null ("");
//   - integers: a number with no fraction, or a string holding one ("" and NA give 0);
//   - bool: true/false, "true"/"false", 1/0, "1"/"0", NA (false);
//   - structs, pointers and slices recursively; json.RawMessage as received.
//
// Unknown fields are ignored. Anything else (an object where text is expected, a
// fraction where an integer is expected, a number out of range) is an error, so a
// garbled answer is never read as a plausible one.

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// maxLenientDepth bounds the nesting decodeLenient follows.
const maxLenientDepth = 32

func decodeLenient(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return errors.New("decode: not a pointer")
	}
	if !json.Valid(data) {
		return errors.New("decode: not valid JSON")
	}
	return lenientValue(bytes.TrimSpace(data), rv.Elem(), nil, 0)
}

func lenientValue(raw []byte, v reflect.Value, path *fieldPath, depth int) error {
	if depth > maxLenientDepth {
		return fmt.Errorf("decode %s: nested too deeply", path.String())
	}
	if v.Type() == rawMessageType {
		v.SetBytes(append([]byte(nil), raw...))
		return nil
	}
	if string(raw) == "null" {
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return lenientValue(raw, v.Elem(), path, depth+1)
	case reflect.String:
		s, err := flexString(raw)
		if err != nil {
			return fmt.Errorf("decode %s: %w", path.String(), err)
		}
		v.SetString(s)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := flexInt(raw)
		if err != nil {
			return fmt.Errorf("decode %s: %w", path.String(), err)
		}
		if v.OverflowInt(n) {
			return fmt.Errorf("decode %s: number out of range", path.String())
		}
		v.SetInt(n)
		return nil
	case reflect.Bool:
		b, err := flexBool(raw)
		if err != nil {
			return fmt.Errorf("decode %s: %w", path.String(), err)
		}
		v.SetBool(b)
		return nil
	case reflect.Struct:
		return lenientStruct(raw, v, path, depth)
	case reflect.Slice:
		if len(raw) == 0 || raw[0] != '[' {
			if s, err := flexString(raw); err == nil && s == "" {
				return nil // "NA" or "" for an absent list
			}
			return fmt.Errorf("decode %s: want a list", path.String())
		}
		items := arrayItems(raw)
		s := reflect.MakeSlice(v.Type(), len(items), len(items))
		for i, it := range items {
			if err := lenientValue(it, s.Index(i), &fieldPath{parent: path, index: i, item: true}, depth+1); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	}
	return fmt.Errorf("decode %s: unsupported type %s", path.String(), v.Type())
}

func lenientStruct(raw []byte, v reflect.Value, path *fieldPath, depth int) error {
	if len(raw) == 0 || raw[0] != '{' {
		if s, err := flexString(raw); err == nil && s == "" {
			return nil // "NA" for an absent object
		}
		return fmt.Errorf("decode %s: want an object", path.String())
	}
	fields := objectMembers(raw)
	for _, f := range fieldsOf(v.Type()) {
		fr, ok := fields.get(f.name)
		if !ok {
			continue
		}
		if err := lenientValue(fr, v.Field(f.index), &fieldPath{parent: path, name: f.name}, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// lenientField is a field of a struct decodeLenient fills: its index and the
// name of its member (its json tag's, else its own).
type lenientField struct {
	index int
	name  string
}

// lenientFields holds the fields of each struct type decoded (reflect.Type to
// []lenientField): read from the type once, not at every answer.
var lenientFields sync.Map

// fieldsOf returns the exported fields of the struct type t that a member
// fills, in order.
func fieldsOf(t reflect.Type) []lenientField {
	if fs, ok := lenientFields.Load(t); ok {
		return fs.([]lenientField)
	}
	var fs []lenientField
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fs = append(fs, lenientField{index: i, name: name})
	}
	lenientFields.Store(t, fs)
	return fs
}

// fieldPath names the value being decoded, for an error: "answer",
// "order_data.amount", "payment_info_data[2].rrn". It is built only when an
// error names it.
type fieldPath struct {
	parent *fieldPath
	name   string
	index  int
	item   bool // an item of a list: parent[index]
}

// String writes the path; the whole answer is "answer".
func (p *fieldPath) String() string {
	if p == nil {
		return "answer"
	}
	var b strings.Builder
	p.write(&b)
	return b.String()
}

func (p *fieldPath) write(b *strings.Builder) {
	if p.parent != nil {
		p.parent.write(b)
	}
	switch {
	case p.item:
		fmt.Fprintf(b, "[%d]", p.index)
	case b.Len() > 0:
		b.WriteString("." + p.name)
	default:
		b.WriteString(p.name)
	}
}

// isNA reports whether s is the service's text for "not available".
func isNA(s string) bool {
	return strings.EqualFold(strings.TrimSpace(s), "NA")
}

// flexString reads a JSON value meant as text.
func flexString(raw []byte) (string, error) {
	if len(raw) == 0 {
		return "", errors.New("empty value")
	}
	switch c := raw[0]; {
	case c == '"':
		s, err := unquote(raw)
		if err != nil {
			return "", err
		}
		if isNA(s) {
			return "", nil
		}
		return s, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return string(raw), nil
	case string(raw) == "true" || string(raw) == "false":
		return string(raw), nil
	case string(raw) == "null":
		return "", nil
	}
	return "", errors.New("want text")
}

// flexInt reads a JSON value meant as an integer.
func flexInt(raw []byte) (int64, error) {
	if len(raw) == 0 {
		return 0, errors.New("empty value")
	}
	text := string(raw)
	if raw[0] == '"' {
		s, err := unquote(raw)
		if err != nil {
			return 0, err
		}
		s = strings.TrimSpace(s)
		if s == "" || isNA(s) {
			return 0, nil
		}
		text = s
	} else if text == "null" {
		return 0, nil
	}
	return parseInteger(text)
}

// parseInteger parses a decimal integer, also written with a zero fraction
// ("100", "-5", "100.00"), into an int64.
func parseInteger(text string) (int64, error) {
	if whole, frac, ok := strings.Cut(text, "."); ok {
		if whole == "" || frac == "" || strings.Trim(frac, "0") != "" {
			return 0, errors.New("want an integer")
		}
		text = whole
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, errors.New("number out of range")
		}
		return 0, errors.New("want an integer")
	}
	return n, nil
}

// flexBool reads a JSON value meant as a boolean.
func flexBool(raw []byte) (bool, error) {
	s := string(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var err error
		if s, err = unquote(raw); err != nil {
			return false, err
		}
		s = strings.ToLower(strings.TrimSpace(s))
	}
	switch s {
	case "true", "1", "y", "yes":
		return true, nil
	case "false", "0", "", "na", "null", "n", "no":
		return false, nil
	}
	return false, errors.New("want true or false")
}

// The answer is checked as valid JSON once, in decodeLenient; the functions
// below split the objects and lists inside it without a second parse or a map
// (the inquiry answer, read at every checkout, cost about 0.1 ms through
// encoding/json's maps). On valid JSON they give what encoding/json gives; on
// anything else they stay inside raw and never panic.

// member is one name and value of an object, the value's bytes as in the
// answer; the name's too when it holds no escape, else the text it stands for.
type member struct {
	name  []byte
	value []byte
}

// members are the members of one object, in the answer's order.
type members []member

// get returns the value of the member name: the last one whose name is name
// or matches it without regard to case, as encoding/json fills a field from
// each such member in turn (FuzzLenientMatchesJSON).
func (ms members) get(name string) ([]byte, bool) {
	for i := len(ms) - 1; i >= 0; i-- {
		if strings.EqualFold(string(ms[i].name), name) {
			return ms[i].value, true
		}
	}
	return nil, false
}

// objectMembers splits the valid JSON object raw into its members.
func objectMembers(raw []byte) members {
	var out members
	i := skipSpace(raw, 1)
	for i < len(raw) && raw[i] == '"' {
		end := skipString(raw, i)
		name := raw[i+1 : max(i+1, end-1)]
		if end-i < 2 || raw[end-1] != '"' || bytes.IndexByte(name, '\\') >= 0 || !utf8.Valid(name) {
			s, err := unquote(raw[i:end])
			if err != nil {
				return out
			}
			name = []byte(s)
		}
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return out
		}
		i = skipSpace(raw, i+1)
		vend := skipValue(raw, i)
		out = append(out, member{name: name, value: raw[i:vend]})
		i = skipSpace(raw, vend)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return out
}

// arrayItems splits the valid JSON list raw into its items.
func arrayItems(raw []byte) [][]byte {
	var out [][]byte
	i := skipSpace(raw, 1)
	for i < len(raw) && raw[i] != ']' {
		end := skipValue(raw, i)
		if end == i {
			return out
		}
		out = append(out, raw[i:end])
		i = skipSpace(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return out
}

// skipSpace returns the index of the first byte at or after i that is not JSON
// white space.
func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just after the string that opens at raw[i].
func skipString(raw []byte, i int) int {
	for i++; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(raw)
}

// skipValue returns the index just after the value that starts at raw[i].
func skipValue(raw []byte, i int) int {
	if i >= len(raw) {
		return i
	}
	switch raw[i] {
	case '"':
		return skipString(raw, i)
	case '{', '[':
		depth := 0
		for ; i < len(raw); i++ {
			switch raw[i] {
			case '"':
				i = skipString(raw, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(raw)
	}
	for ; i < len(raw); i++ {
		switch raw[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
	}
	return i
}

// unquote decodes the JSON string raw: directly when it holds no escape and
// is valid UTF-8, else through encoding/json (which also replaces invalid
// UTF-8), so that both give the same text.
func unquote(raw []byte) (string, error) {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		in := raw[1 : len(raw)-1]
		if bytes.IndexByte(in, '\\') < 0 && bytes.IndexByte(in, '"') < 0 && utf8.Valid(in) {
			return string(in), nil
		}
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// topMembers is the members of the valid JSON data when it is an object, else
// none.
func topMembers(data []byte) members {
	raw := bytes.TrimSpace(data)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	return objectMembers(raw)
}

// hasMember reports whether the valid JSON data is an object with a member
// named exactly name (as a map decoded by encoding/json has the key).
func hasMember(data []byte, name string) bool {
	for _, m := range topMembers(data) {
		if string(m.name) == name {
			return true
		}
	}
	return false
}

// memberText is the text decodeLenient reads from the member name of the
// valid JSON object data into a *string field: false when the member is
// missing, null or not text (or data is not an object).
func memberText(data []byte, name string) (string, bool) {
	v, ok := topMembers(data).get(name)
	if !ok || string(v) == "null" {
		return "", false
	}
	s, err := flexString(v)
	return s, err == nil
}
