package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"time"
)

// transport is the RoundTripper of Sandbox.Transport: the sandbox served in
// process, without a socket.
type transport struct{ s *Sandbox }

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("sandbox: transport: read body: %w", err)
		}
		body = b
	}
	in := req.Clone(ctx)
	in.Body = io.NopCloser(bytes.NewReader(body))
	in.ContentLength = int64(len(body))
	in.RequestURI = req.URL.RequestURI()
	in.RemoteAddr = "127.0.0.1:0"
	if in.Host == "" {
		in.Host = req.URL.Host
	}
	start := time.Now()
	rep, act := t.s.process(in)
	switch act {
	case actHang:
		<-ctx.Done()
		return nil, ctx.Err()
	case actReset:
		return nil, ErrConnectionReset
	case actDrop:
		return nil, ErrConnectionDropped
	}
	t.s.core.logger.Info("request", "method", req.Method, "path", req.URL.Path, "status", rep.status,
		"duration", time.Since(start).Round(time.Microsecond).String())
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", rep.status, http.StatusText(rep.status)),
		StatusCode:    rep.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        rep.header.Clone(),
		Body:          io.NopCloser(bytes.NewReader(rep.body)),
		ContentLength: int64(len(rep.body)),
		Request:       req,
	}, nil
}
