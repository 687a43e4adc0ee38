package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/optimist-dynamo/optimist/unit"
)

type unitJSON struct {
	ID       string    `json:"id"`
	Owner    string    `json:"owner"`
	State    string    `json:"state"`
	Finished bool      `json:"finished"`
	Started  time.Time `json:"started"`
	LeaseMs  int64     `json:"leaseMs"`
	Beat     int64     `json:"beat"`
}

func (c *cli) unitsList(ctx context.Context, args []string) error {
	client, err := c.client(ctx)
	if err != nil {
		return err
	}
	var infos []*unit.Info
	for info, err := range unit.List(ctx, client, args[0]) {
		if err != nil {
			return fmt.Errorf("units ls %s: %w", args[0], err)
		}
		infos = append(infos, info)
	}
	slices.SortFunc(infos, func(a, b *unit.Info) int {
		if c := a.Started.Compare(b.Started); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if c.json {
		out := make([]unitJSON, 0, len(infos))
		for _, u := range infos {
			out = append(out, unitJSON{ID: u.ID, Owner: u.Owner, State: u.State, Finished: u.Finished,
				Started: u.Started.UTC(), LeaseMs: u.Lease.Milliseconds(), Beat: u.Beat})
		}
		return c.printJSON(out)
	}
	w := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tSTATE\tFINISHED\tOWNER\tSTARTED\tLEASE\tBEAT")
	for _, u := range infos {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%v\t%d\n", u.ID, dash(u.State), yesNo(u.Finished), dash(u.Owner),
			u.Started.UTC().Format(time.RFC3339), u.Lease, u.Beat)
	}
	return w.Flush()
}

func (c *cli) unitsRecover(ctx context.Context, args []string) error {
	client, err := c.client(ctx)
	if err != nil {
		return err
	}
	n, err := unit.Recover(ctx, client, args[0])
	switch {
	case err != nil && n == 0:
		return fmt.Errorf("units recover %s: %w", args[0], err)
	case err != nil:
		return fmt.Errorf("units recover %s: recovered %d unit(s), then: %w", args[0], n, err)
	}
	if c.json {
		return c.printJSON(struct {
			Recovered int `json:"recovered"`
		}{n})
	}
	fmt.Fprintf(c.stdout, "recovered %d unit(s) in %s\n", n, args[0])
	return nil
}
