package cli

import (
	"context"
	"fmt"

	"galla/pos"
	"galla/store/link"
	"galla/ui"
)

// storeActs are a manager's acts on the window's link to its store: accepting
// a store config.json names that the journal has not accepted, and
// acknowledging the counter's enrolment. Each is the command line's act
// (acceptStore, acknowledgeEnrolment: the same checks, the same journal
// event), signed with a manager's PIN typed in Settings.
type storeActs struct {
	c *cli
	t *terminal
}

// windowStoreActs returns the window's store acts, nil when the counter is
// not enrolled at a store.
func windowStoreActs(c *cli, t *terminal) ui.StoreActs {
	if t.link == nil {
		return nil
	}
	return storeActs{c: c, t: t}
}

func (s storeActs) Waiting() (line, act string) {
	switch {
	case s.t.link.Hold() != "":
		return fmt.Sprintf("This counter has not accepted the store %s: nothing is sent to it and nothing of it is used until a manager accepts it here.", s.t.cfg.Config().Store.URL), "Accept store"
	case s.t.link.Notice() != "":
		return upperFirst(s.t.link.Notice()) + ".", "Acknowledge"
	}
	return "", ""
}

func (s storeActs) Act(ctx context.Context, managerPIN string) (string, error) {
	m, err := s.t.Crew.ManagerByPIN(ctx, managerPIN)
	if err != nil {
		return "", err
	}
	hold := s.t.link.Hold() != ""
	var code int
	var say string
	if hold {
		code, say = acceptStore(ctx, s.c, s.t, s.t.cfg.Config(), s.t.sec, m)
	} else {
		code, say = acknowledgeEnrolment(ctx, s.t, m)
	}
	if code != exitOK {
		return "", pos.Errorf("%s", say)
	}
	if hold {
		notice := "" // the acceptance's, shown until acknowledged
		if rec, err := link.ReadEnrolment(ctx, s.t.j.Shop); err == nil {
			notice = rec.Notice()
		}
		s.t.link.Accept(notice)
	} else {
		s.t.link.Acknowledged()
	}
	return upperFirst(say), nil
}
