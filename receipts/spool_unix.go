//go:build !windows

package receipts

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// spool runs "lp -d NAME -o raw" with the job on its standard input.
func (s *Spooler) spool(ctx context.Context, job []byte) error {
	name := s.Command
	if name == "" {
		name = "lp"
	}
	cmd := exec.CommandContext(ctx, name, "-d", s.Name, "-o", "raw")
	cmd.Stdin = bytes.NewReader(job)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 500 * time.Millisecond // a child that keeps stderr open cannot hold us
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", name, ctx.Err())
		}
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return fmt.Errorf("%s: %w: %s", name, err, msg)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
