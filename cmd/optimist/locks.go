package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/optimist-dynamo/optimist/observe"
	"github.com/optimist-dynamo/optimist/pessimistic"
)

// lockJSON is a lock as -json prints it. Data is base64, as encoding/json
// writes bytes.
type lockJSON struct {
	Name    string      `json:"name"`
	Held    bool        `json:"held"`
	Owner   string      `json:"owner,omitempty"`
	Token   int64       `json:"token,omitempty"`
	LeaseMs int64       `json:"leaseMs,omitempty"`
	Version string      `json:"version,omitempty"`
	Data    []byte      `json:"data,omitempty"`
	Fence   int64       `json:"fence"`
	FIFO    bool        `json:"fifo"`
	Queue   []entryJSON `json:"queue,omitempty"`
}

type entryJSON struct {
	Owner   string `json:"owner"`
	Ticket  int64  `json:"ticket"`
	LeaseMs int64  `json:"leaseMs"`
	Version string `json:"version"`
	Data    []byte `json:"data,omitempty"`
}

func toLockJSON(info *pessimistic.Info) lockJSON {
	j := lockJSON{
		Name: info.Name, Held: info.Held, Owner: info.Owner, Token: info.Token, LeaseMs: info.Lease.Milliseconds(),
		Version: info.Version, Data: info.Data, Fence: info.Fence, FIFO: info.FIFO,
	}
	for _, e := range info.Queue {
		j.Queue = append(j.Queue, entryJSON{Owner: e.Owner, Ticket: e.Ticket, LeaseMs: e.Lease.Milliseconds(), Version: e.Version, Data: e.Data})
	}
	return j
}

// locker returns a Locker for the lock table. New makes no call: the
// table's schema is checked by the Locker's first call.
func (c *cli) locker(ctx context.Context, table string) (*pessimistic.Locker, error) {
	client, err := c.client(ctx)
	if err != nil {
		return nil, err
	}
	return pessimistic.New(client, table, pessimistic.Owner("optimist-cli"))
}

func (c *cli) locksList(ctx context.Context, args []string) error {
	l, err := c.locker(ctx, args[0])
	if err != nil {
		return err
	}
	defer l.Close()
	var infos []*pessimistic.Info
	for info, err := range l.List(ctx) {
		if err != nil {
			return err
		}
		infos = append(infos, info)
	}
	slices.SortFunc(infos, func(a, b *pessimistic.Info) int { return strings.Compare(a.Name, b.Name) })
	if c.json {
		out := make([]lockJSON, 0, len(infos))
		for _, info := range infos {
			out = append(out, toLockJSON(info))
		}
		return c.printJSON(out)
	}
	w := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tHELD\tOWNER\tTOKEN\tLEASE\tWAITING\tDATA")
	for _, info := range infos {
		waiting := "-"
		if info.FIFO {
			waiting = fmt.Sprint(max(len(info.Queue)-1, 0))
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", info.Name, yesNo(info.Held), dash(info.Owner),
			dashInt(info.Token), dashDuration(info.Lease), waiting, dash(printable(info.Data)))
	}
	return w.Flush()
}

func (c *cli) locksShow(ctx context.Context, args []string) error {
	l, err := c.locker(ctx, args[0])
	if err != nil {
		return err
	}
	defer l.Close()
	info, err := l.Inspect(ctx, args[1])
	if err != nil {
		return err
	}
	if c.json {
		return c.printJSON(toLockJSON(info))
	}
	return showLock(c.stdout, info)
}

func showLock(out io.Writer, info *pessimistic.Info) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	kind := "lease lock"
	if info.FIFO {
		kind = "FIFO lock"
	}
	fmt.Fprintf(w, "name:\t%s\n", info.Name)
	fmt.Fprintf(w, "kind:\t%s\n", kind)
	fmt.Fprintf(w, "held:\t%s\n", yesNo(info.Held))
	if info.Held {
		fmt.Fprintf(w, "owner:\t%s\n", info.Owner)
		fmt.Fprintf(w, "token:\t%d\n", info.Token)
		fmt.Fprintf(w, "lease:\t%v\n", info.Lease)
		fmt.Fprintf(w, "version:\t%s\n", info.Version)
		fmt.Fprintf(w, "data:\t%s\n", dash(printable(info.Data)))
	}
	fmt.Fprintf(w, "fence:\t%d\n", info.Fence)
	if err := w.Flush(); err != nil {
		return err
	}
	if len(info.Queue) == 0 {
		return nil
	}
	fmt.Fprintln(out, "\nqueue:")
	w = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "  TICKET\tOWNER\tLEASE\tVERSION\tDATA")
	for _, e := range info.Queue {
		fmt.Fprintf(w, "  %d\t%s\t%v\t%s\t%s\n", e.Ticket, e.Owner, e.Lease, e.Version, dash(printable(e.Data)))
	}
	return w.Flush()
}

// afterShow runs between the read and the release of locks release: tests
// change the lock's holder there.
var afterShow = func() {}

// locksRelease removes the holder of a lock: by default only the holder
// it has just read (ForceReleaseIf), so that a holder that took over in
// between is never removed in the dead one's place; with -force whoever
// holds it at the write (ForceRelease), as the LockForced event reports.
// It prints the holder it really removed.
func (c *cli) locksRelease(ctx context.Context, args []string) error {
	table, name := args[0], args[1]
	var removed *observe.Event
	var mu sync.Mutex
	seen := observe.Func(func(_ context.Context, e observe.Event) {
		if e.Kind == observe.LockForced {
			mu.Lock()
			removed = &e
			mu.Unlock()
		}
	})
	client, err := c.client(ctx)
	if err != nil {
		return err
	}
	l, err := pessimistic.New(client, table, pessimistic.Owner("optimist-cli"), pessimistic.Observer(seen))
	if err != nil {
		return err
	}
	defer l.Close()
	before, err := l.Inspect(ctx, name)
	if err != nil {
		return err
	}
	afterShow()
	if !before.Held && !c.force {
		return fmt.Errorf("lock %q in %s is not held by anyone: nothing released", name, table)
	}
	if c.force {
		err = l.ForceRelease(ctx, name)
	} else {
		err = l.ForceReleaseIf(ctx, name, before.Owner, before.Token)
	}
	if err != nil {
		return releaseError(table, name, err)
	}
	// What was removed: the holder the fenced release was told, or what
	// the forced one's event reports.
	gone := lockJSON{Name: name, Held: true, Owner: before.Owner, Token: before.Token}
	if c.force {
		mu.Lock()
		if removed != nil && removed.Owner != "" {
			gone.Owner = removed.Owner
			gone.Token, _ = strconv.ParseInt(removed.Token, 10, 64)
		}
		mu.Unlock()
	}
	if gone.Owner == before.Owner && gone.Token == before.Token {
		gone = toLockJSON(before)
	}
	after, err := l.Inspect(ctx, name)
	if err != nil {
		return fmt.Errorf("released %q (removed %s, token %d), but reading it back failed: %w", name, gone.Owner, gone.Token, err)
	}
	return c.printReleased(name, before, gone, after)
}

// releaseError says why a release of the lock name removed no holder.
func releaseError(table, name string, err error) error {
	var changed *pessimistic.HolderChangedError
	switch {
	case errors.As(err, &changed):
		return fmt.Errorf("lock %q in %s: %s (token %d), shown just before, does not hold it any more; it is held by %s (token %d) now. "+
			"Nothing released. Run locks show again, and release it only if that holder is dead too (-force removes whoever holds it)",
			name, table, changed.Owner, changed.Token, changed.NowOwner, changed.NowToken)
	case errors.Is(err, pessimistic.ErrNotHeld):
		return fmt.Errorf("lock %q in %s is not held by anyone (its holder released it or was removed meanwhile): nothing released", name, table)
	}
	return err
}

// printReleased reports a release: the holder shown before, the one
// removed (gone) and the lock as read after.
func (c *cli) printReleased(name string, before *pessimistic.Info, gone lockJSON, after *pessimistic.Info) error {
	if c.json {
		return c.printJSON(struct {
			Name    string   `json:"name"`
			Removed lockJSON `json:"removed"`
			Now     lockJSON `json:"now"`
		}{name, gone, toLockJSON(after)})
	}
	fmt.Fprintf(c.stdout, "released %s: removed %s (token %d); fence counter now %d\n", name, gone.Owner, gone.Token, after.Fence)
	if gone.Owner != before.Owner || gone.Token != before.Token {
		fmt.Fprintf(c.stdout, "(-force: %s (token %d) held it when it was shown, %s (token %d) when it was removed)\n",
			before.Owner, before.Token, gone.Owner, gone.Token)
	}
	if after.Held {
		fmt.Fprintf(c.stdout, "now held by %s (token %d), the next in the queue\n", after.Owner, after.Token)
	} else {
		fmt.Fprintf(c.stdout, "to refuse the old holder's fenced writes before anyone acquires %s, write the resource's fence attribute with %d\n", name, after.Fence)
	}
	return nil
}

func (c *cli) printJSON(v any) error {
	enc := json.NewEncoder(c.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func dashInt(n int64) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

func dashDuration(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return d.String()
}

// maxShown bounds the data shown in a table's cell.
const maxShown = 40

// printable returns data as text if it is printable UTF-8 (cut to
// maxShown runes), or its size.
func printable(data []byte) string {
	if len(data) == 0 {
		return ""
	}
	s := string(data)
	if !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return fmt.Sprintf("(%d bytes)", len(data))
	}
	if utf8.RuneCountInString(s) > maxShown {
		s = string([]rune(s)[:maxShown-1]) + "…"
	}
	return s
}
