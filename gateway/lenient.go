package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
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
	return lenientValue(bytes.TrimSpace(data), rv.Elem(), "", 0)
}

func lenientValue(raw []byte, v reflect.Value, path string, depth int) error {
	if depth > maxLenientDepth {
		return fmt.Errorf("decode %s: nested too deeply", pathName(path))
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
			return fmt.Errorf("decode %s: %w", pathName(path), err)
		}
		v.SetString(s)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := flexInt(raw)
		if err != nil {
			return fmt.Errorf("decode %s: %w", pathName(path), err)
		}
		if v.OverflowInt(n) {
			return fmt.Errorf("decode %s: number out of range", pathName(path))
		}
		v.SetInt(n)
		return nil
	case reflect.Bool:
		b, err := flexBool(raw)
		if err != nil {
			return fmt.Errorf("decode %s: %w", pathName(path), err)
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
			return fmt.Errorf("decode %s: want a list", pathName(path))
		}
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return fmt.Errorf("decode %s: %w", pathName(path), err)
		}
		s := reflect.MakeSlice(v.Type(), len(items), len(items))
		for i, it := range items {
			if err := lenientValue(bytes.TrimSpace(it), s.Index(i), path+"["+strconv.Itoa(i)+"]", depth+1); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	}
	return fmt.Errorf("decode %s: unsupported type %s", pathName(path), v.Type())
}

func lenientStruct(raw []byte, v reflect.Value, path string, depth int) error {
	if len(raw) == 0 || raw[0] != '{' {
		if s, err := flexString(raw); err == nil && s == "" {
			return nil // "NA" for an absent object
		}
		return fmt.Errorf("decode %s: want an object", pathName(path))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return fmt.Errorf("decode %s: %w", pathName(path), err)
	}
	t := v.Type()
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
		fr, ok := fields[name]
		if !ok {
			for k, val := range fields { // encoding/json's case-insensitive fallback
				if strings.EqualFold(k, name) {
					fr, ok = val, true
					break
				}
			}
		}
		if !ok {
			continue
		}
		if err := lenientValue(bytes.TrimSpace(fr), v.Field(i), joinPath(path, name), depth+1); err != nil {
			return err
		}
	}
	return nil
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func pathName(path string) string {
	if path == "" {
		return "answer"
	}
	return path
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
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
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
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
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
		if err := json.Unmarshal(raw, &s); err != nil {
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
