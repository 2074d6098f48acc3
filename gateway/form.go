package gateway

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
)

// authForm is the auto-submitting form found in a payment's content.
type authForm struct {
	Action string
	Method string // GET or POST
	Fields url.Values
}

// SubmitAuthentication completes the card authentication step without a browser:
// it finds the auto-submitting <form> in content (the Content of a PaymentResponse),
// resolves its action against the base URL, and sends its inputs merged with fields
// (fields replace inputs of the same name), e.g. otp=123456 or action=cancel for the
// sandbox's step. The final redirect to merchant_return_url is not followed: a 3xx
// answer, like a 2xx, is success. The step is never re-sent; a lost answer gives an
// error matching ErrOutcomeUnknown, and the outcome comes from the status inquiry
// either way.
func (c *Client) SubmitAuthentication(ctx context.Context, content string, fields url.Values) error {
	const op = "authentication"
	f, err := parseAuthForm(content)
	if err != nil {
		return fmt.Errorf("gateway: %s: %w: %w", op, ErrInvalidInput, err)
	}
	action, err := url.Parse(f.Action)
	if err != nil {
		return fmt.Errorf("gateway: %s: %w: the form's action is not an address", op, ErrInvalidInput)
	}
	target := c.baseURL.ResolveReference(action)
	if target.Scheme != "http" && target.Scheme != "https" {
		return fmt.Errorf("gateway: %s: %w: the form's action is not an http address", op, ErrInvalidInput)
	}
	target.Fragment = ""
	values := url.Values{}
	for k, v := range f.Fields {
		values[k] = append([]string(nil), v...)
	}
	for k, v := range fields {
		values[k] = append([]string(nil), v...)
	}
	r := &request{op: op, class: retryNever, moneyMoving: true, redirectOK: true,
		header: http.Header{"Accept": {"text/html,application/json"}}}
	if f.Method == http.MethodGet {
		target.RawQuery = values.Encode()
		r.method = http.MethodGet
	} else {
		r.method = http.MethodPost
		r.body = newBody([]byte(values.Encode()))
		r.contentType = "application/x-www-form-urlencoded"
	}
	r.url = target.String()
	return c.send(ctx, r, func(*answer) error { return nil })
}

// parseAuthForm finds the first <form> in an HTML document and its inputs: hidden
// and text inputs with a name (checkboxes and radios only when checked; buttons,
// files and images never). It is a small tolerant scanner, enough for the
// machine-made pages of payment services: comments and the content of script,
// style and textarea elements are skipped, attribute values may be quoted either
// way or unquoted, and character references are decoded.
func parseAuthForm(doc string) (*authForm, error) {
	var f *authForm
	s := doc
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			break
		}
		s = s[i+1:]
		if strings.HasPrefix(s, "!--") {
			end := strings.Index(s[3:], "-->")
			if end < 0 {
				break
			}
			s = s[3+end+3:]
			continue
		}
		if strings.HasPrefix(s, "!") || strings.HasPrefix(s, "?") {
			end := strings.IndexByte(s, '>')
			if end < 0 {
				break
			}
			s = s[end+1:]
			continue
		}
		closing := strings.HasPrefix(s, "/")
		if closing {
			s = s[1:]
		}
		n := 0
		if len(s) == 0 || !isLetter(s[0]) {
			continue // a lone '<' in text
		}
		for n < len(s) && isNameByte(s[n]) {
			n++
		}
		name := strings.ToLower(s[:n])
		attrs, rest, ok := parseAttrs(s[n:])
		if !ok {
			break
		}
		s = rest
		if closing {
			if name == "form" && f != nil {
				return f, nil
			}
			continue
		}
		switch name {
		case "script", "style", "textarea", "title":
			end := strings.Index(strings.ToLower(s), "</"+name)
			if end < 0 {
				s = ""
				continue
			}
			s = s[end:]
		case "form":
			if f != nil {
				return f, nil // a second form starts: the first one ended
			}
			method := strings.ToUpper(strings.TrimSpace(attrs.get("method")))
			if method != http.MethodPost {
				method = http.MethodGet
			}
			f = &authForm{Action: strings.TrimSpace(attrs.get("action")), Method: method, Fields: url.Values{}}
		case "input":
			if f == nil {
				continue
			}
			fname, ok := attrs["name"]
			if !ok || fname == "" {
				continue
			}
			switch strings.ToLower(attrs.get("type")) {
			case "submit", "button", "image", "reset", "file":
				continue
			case "checkbox", "radio":
				if _, checked := attrs["checked"]; !checked {
					continue
				}
				if _, has := attrs["value"]; !has {
					f.Fields.Add(fname, "on")
					continue
				}
			}
			f.Fields.Add(fname, attrs.get("value"))
		}
	}
	if f == nil {
		return nil, errors.New("the content holds no form")
	}
	return f, nil
}

type attrMap map[string]string

func (a attrMap) get(k string) string { return a[k] }

// parseAttrs reads the attributes of a tag up to its '>' and returns them and the
// text after the tag. ok is false when the tag never closes.
func parseAttrs(s string) (attrMap, string, bool) {
	attrs := attrMap{}
	i := 0
	for {
		for i < len(s) && (isSpace(s[i]) || s[i] == '/') {
			i++
		}
		if i >= len(s) {
			return attrs, "", false
		}
		if s[i] == '>' {
			return attrs, s[i+1:], true
		}
		start := i
		for i < len(s) && !isSpace(s[i]) && s[i] != '=' && s[i] != '>' && s[i] != '/' {
			i++
		}
		name := strings.ToLower(s[start:i])
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		value := ""
		if i < len(s) && s[i] == '=' {
			i++
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			if i >= len(s) {
				return attrs, "", false
			}
			if q := s[i]; q == '"' || q == '\'' {
				end := strings.IndexByte(s[i+1:], q)
				if end < 0 {
					return attrs, "", false
				}
				value = s[i+1 : i+1+end]
				i += end + 2
			} else {
				vs := i
				for i < len(s) && !isSpace(s[i]) && s[i] != '>' {
					i++
				}
				value = s[vs:i]
			}
		}
		if name == "" {
			if i < len(s) && s[i] != '>' {
				i++ // a stray byte; step over it
			}
			continue
		}
		if _, seen := attrs[name]; !seen { // the first of duplicate attributes counts
			attrs[name] = html.UnescapeString(value)
		}
	}
}

func isNameByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '-'
}

func isLetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f'
}
