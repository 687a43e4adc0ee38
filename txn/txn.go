package txn

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attempt"
	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/errs"
	"github.com/optimist-dynamo/optimist/internal/lease"
	"github.com/optimist-dynamo/optimist/internal/obs"
	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/internal/retry"
	"github.com/optimist-dynamo/optimist/internal/unitlock"
	"github.com/optimist-dynamo/optimist/observe"
	"github.com/optimist-dynamo/optimist/version"
)

// Client is the part of the DynamoDB API transactions call, with the SDK's
// exact signatures: TransactGetItems and TransactWriteItems; *dynamodb.Client and mapper.Client satisfy it.
type Client interface {
	ddbapi.Transactions // TransactGetItems, TransactWriteItems
}

// Limits of DynamoDB's TransactWriteItems.
const (
	// DefaultMaxItems is DynamoDB's limit of actions per transaction since
	// 2022 (it was 25 before; some compatible services are lower still).
	DefaultMaxItems = 100
	// MaxBytes is DynamoDB's limit on the aggregate size of the items in
	// one transaction.
	MaxBytes = 4 << 20
)

// Op is one action of a transaction: a Put, Update, Delete or
// ConditionCheck of one item, with what is needed to check it before
// sending and to explain its failure. Make ops with [Put], [Update],
// [Delete] and [Check] for attribute maps, or with mapper.Table's PutOp,
// UpdateOp, DeleteOp and CheckOp for structs, which carry version checks.
// An Op is a value: it may be added to several transactions (or units of
// work), and is never changed by them. The zero Op is invalid (its Err
// says so).
type Op struct {
	w      *plan.Write
	action *types.TransactWriteItem // w rendered, once
	err    error
}

func init() {
	plan.NewOp = func(w *plan.Write, err error) any { return newOp(w, err) }
	plan.OpWrite = func(op any) (*plan.Write, error) {
		o := op.(Op)
		return o.w, o.Err()
	}
}

// newOp renders w into an op, or keeps err.
func newOp(w *plan.Write, err error) Op {
	if err != nil || w == nil {
		return Op{err: err}
	}
	ti, err := w.TransactItem()
	if err != nil {
		class := ErrInvalidOption // a condition the expression package refuses
		if ce := (*plan.ConditionError)(nil); errors.As(err, &ce) && ce.Value {
			class = ErrInvalidItem // a value DynamoDB would refuse
		}
		return Op{err: fmt.Errorf("%w: %v on %s %s: %w", class, w.Kind, w.T.Name, attrs.FormatKey(w.Key), err)}
	}
	return Op{w: w, action: &ti}
}

var errZeroOp = errors.New("txn: an empty Op; make ops with Put, Update, Delete, Check or a mapper.Table")

// Err returns the error found while building the op, if any; Tx.Add and
// Tx.Commit report it, and nothing is sent.
func (op Op) Err() error {
	if op.err == nil && op.w == nil {
		return errZeroOp
	}
	return op.err
}

// Table returns the table the op writes to ("" for an invalid op).
func (op Op) Table() string {
	if op.w == nil {
		return ""
	}
	return op.w.T.Name
}

// Key returns the primary key of the item the op touches (nil for an
// invalid op). The map is the op's own: do not change it.
func (op Op) Key() map[string]types.AttributeValue {
	if op.w == nil {
		return nil
	}
	return op.w.Key
}

// Action returns the op as the TransactWriteItems action Commit sends (a
// conditional one asks for ALL_OLD when its condition fails), or the op's
// error. The action is a copy: changing it does not change the op.
func (op Op) Action() (types.TransactWriteItem, error) {
	if err := op.Err(); err != nil {
		return types.TransactWriteItem{}, err
	}
	return op.w.TransactItem()
}

// kind names the action, for messages.
func (op Op) kind() string {
	if op.w == nil {
		return "no action"
	}
	return strings.TrimSuffix(strings.TrimPrefix(op.w.Kind.String(), "Condition"), "Item")
}

// Options configure a [Tx]; pass functions that change them to [New]
// (such as [MaxItems] or [Token]). The defaults are set before the
// functions run; a value that cannot work is an error matching
// [ErrInvalidOption], which Add and Commit return before anything is sent.
type Options struct {
	// MaxItems is the most ops the transaction may hold (default 100,
	// DynamoDB's limit; some compatible services allow fewer).
	MaxItems int
	// Token is the client request token, 1 to 36 characters (default: a
	// random one per Tx). See [Token].
	Token string
	// MaxAttempts is how many times Commit sends the transaction when it
	// is canceled by a TransactionConflict or finds an earlier attempt
	// still in progress (default 5). Condition failures are never retried.
	MaxAttempts int
	// BackoffBase and BackoffMax bound the jittered exponential backoff
	// between attempts (defaults 25ms and 1s).
	BackoffBase, BackoffMax time.Duration

	// Observer, if set, receives Commit's events (package observe). See
	// [Observer].
	Observer observe.Observer

	// Clock times the backoff between attempts (default: the system
	// clock). See [Clock].
	Clock TimeSource

	err error
}

// TimeSource is a source of time, with two methods:
//
//	Now() time.Time
//	Sleep(ctx context.Context, d time.Duration) error // d on this clock, or until ctx ends (its error)
//
// It is the same type as mapper.TimeSource, pessimistic.TimeSource and
// unit.TimeSource.
type TimeSource = lease.Clock

// Clock sets the clock Commit sleeps its backoff on between attempts, so
// a test can run retries in virtual time. A nil clock is refused with
// [ErrInvalidOption].
func Clock(c TimeSource) Option {
	return func(o *Options) {
		if c == nil {
			o.fail("Clock(nil)")
		}
		o.Clock = c
	}
}

// An Option changes the [Options] of one [Tx].
type Option = func(*Options)

func (o *Options) fail(format string, args ...any) {
	if o.err == nil {
		o.err = fmt.Errorf("%w: "+format, append([]any{ErrInvalidOption}, args...)...)
	}
}

// MaxItems sets the most ops a transaction may hold (default 100).
func MaxItems(n int) Option {
	return func(o *Options) {
		if n < 1 {
			o.fail("MaxItems(%d): need at least 1", n)
		}
		o.MaxItems = n
	}
}

// Token sets the transaction's client request token (1 to 36 characters).
// By default each Tx gets a random one. DynamoDB applies a token's
// transaction at most once within 10 minutes, so a caller that does not
// know whether a commit landed (its ctx ended, say) can commit the same ops
// again in a new Tx with the same token: it is applied once.
func Token(s string) Option {
	return func(o *Options) {
		if len(s) < 1 || len(s) > 36 {
			o.fail("Token(%q): need 1 to 36 characters", s)
		}
		o.Token = s
	}
}

// Observer makes Commit report to o (package observe; nil: nothing, at no
// cost): a Write span around the sending (Op "TransactWriteItems", Token
// the client request token, Table the tables written joined by commas,
// Key for a transaction of one op; on its End, Attempt the attempts made
// and Err), a Retry before each attempt after a TransactionConflict or a
// transaction in progress (Wait its backoff), a Conflict when an op failed
// its version check, an UnknownOutcome when the outcome cannot be known.
// If o asks for the capacity consumed (observe.WantsCapacity), Commit asks
// DynamoDB for it (ReturnConsumedCapacity=TOTAL, at no cost) and reports
// it on the End.
func Observer(o observe.Observer) Option {
	return func(opts *Options) { opts.Observer = o }
}

// defaultPolicy is how Commit retries by default, and how Get always
// does (it has no options).
var defaultPolicy = retry.Policy{MaxAttempts: 5, Base: 25 * time.Millisecond, Max: time.Second}

// MaxAttempts sets how many times Commit sends the transaction when it is
// canceled by a TransactionConflict (another transaction was writing one of
// its items) or finds a previous attempt still in progress (default 5).
// Condition failures are never retried.
func MaxAttempts(n int) Option {
	return func(o *Options) {
		if n < 1 {
			o.fail("MaxAttempts(%d): need at least 1", n)
		}
		o.MaxAttempts = n
	}
}

// Backoff bounds the jittered exponential backoff between attempts
// (defaults 25ms and 1s): before attempt k+1 Commit sleeps a random
// duration below min(max, base<<(k-1)).
func Backoff(base, max time.Duration) Option {
	return func(o *Options) {
		if base < 0 || max < base {
			o.fail("Backoff(%v, %v): need 0 <= base <= max", base, max)
		}
		o.BackoffBase, o.BackoffMax = base, max
	}
}

// resolve applies opts over the defaults and checks the result.
func resolve(opts []Option) (Options, error) {
	o := Options{MaxItems: DefaultMaxItems, MaxAttempts: defaultPolicy.MaxAttempts,
		BackoffBase: defaultPolicy.Base, BackoffMax: defaultPolicy.Max}
	for _, fn := range opts {
		if fn == nil {
			o.fail("a nil Option")
			continue
		}
		fn(&o)
	}
	switch {
	case o.err != nil:
	case o.MaxItems < 1:
		o.fail("MaxItems %d: need at least 1", o.MaxItems)
	case len(o.Token) > 36:
		o.fail("Token %q: need 1 to 36 characters", o.Token)
	default:
		if err := o.policy().Check(); err != nil {
			o.fail("%v", err)
		}
	}
	return o, o.err
}

func (o *Options) policy() retry.Policy {
	return retry.Policy{MaxAttempts: o.MaxAttempts, Base: o.BackoffBase, Max: o.BackoffMax}
}

// Tx is a write transaction being assembled: ops are added with [Tx.Add]
// and sent, all or nothing, with one TransactWriteItems by [Tx.Commit]. A Tx
// is for one goroutine and one Commit.
type Tx struct {
	client Client
	cfg    Options
	ops    []Op
	ids    map[string]int // itemID of each op → its index
	err    error          // the first error of Add
	done   bool
}

// New returns an empty transaction that will commit through c.
func New(c Client, opts ...Option) *Tx {
	tx := &Tx{client: c}
	tx.cfg, tx.err = resolve(opts)
	if tx.cfg.Token == "" {
		var b [16]byte
		_, _ = rand.Read(b[:])
		tx.cfg.Token = hex.EncodeToString(b[:]) // 32 characters
	}
	if tx.err == nil && isNil(c) {
		tx.err = fmt.Errorf("%w: New was given a nil client", ErrInvalidOption)
	}
	return tx
}

// isNil reports whether c is nil, or an interface holding a nil pointer
// (a nil *dynamodb.Client would panic inside the SDK).
func isNil(c any) bool {
	if c == nil {
		return true
	}
	v := reflect.ValueOf(c)
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Func, reflect.Slice, reflect.Chan:
		return v.IsNil()
	}
	return false
}

var errNilTx = fmt.Errorf("%w: nil *Tx; make one with New", ErrInvalidOption)

// Token returns the transaction's client request token.
func (tx *Tx) Token() string {
	if tx == nil {
		return ""
	}
	return tx.cfg.Token
}

// Len returns the number of ops added.
func (tx *Tx) Len() int {
	if tx == nil {
		return 0
	}
	return len(tx.ops)
}

// Add adds ops to the transaction. It returns an error for an op that was
// built with one (op.Err) or an op on an item already in the transaction
// ([ErrDuplicateItem]), and [ErrDone] after Commit; the first such error is
// also returned by Commit, so checking Add's result is optional. The limit
// of items is checked by Commit.
func (tx *Tx) Add(ops ...Op) error {
	if tx == nil {
		return errNilTx
	}
	if tx.done {
		return ErrDone
	}
	for _, op := range ops {
		id, err := tx.check(op)
		if err != nil {
			if tx.err == nil {
				tx.err = err
			}
			return err
		}
		if tx.ids == nil {
			tx.ids = map[string]int{}
		}
		tx.ids[id] = len(tx.ops)
		tx.ops = append(tx.ops, op)
	}
	return nil
}

// check returns the op's itemID, or why it cannot be added.
func (tx *Tx) check(op Op) (string, error) {
	i := len(tx.ops)
	if err := op.Err(); err != nil {
		return "", fmt.Errorf("txn: op %d: %w", i, err)
	}
	if err := checkOp(op); err != nil {
		if !errors.Is(err, ErrInvalidItem) {
			err = fmt.Errorf("%w: %v", ErrInvalidItem, err)
		}
		return "", fmt.Errorf("txn: op %d (%s on %s %s): %w", i, op.kind(), op.Table(), attrs.FormatKey(op.Key()), err)
	}
	id := attrs.ItemID(op.Table(), op.Key())
	if j, dup := tx.ids[id]; dup {
		return "", fmt.Errorf("%w: op %d (%s) and op %d (%s) both touch %s %s", ErrDuplicateItem,
			j, tx.ops[j].kind(), i, op.kind(), op.Table(), attrs.FormatKey(op.Key()))
	}
	return id, nil
}

// Commit sends the transaction with one TransactWriteItems: all its ops
// are applied, or none.
//
// Before sending, it refuses an empty transaction ([ErrEmpty]), more ops
// than the limit ([ErrTooManyItems]), two ops on one item
// ([ErrDuplicateItem]), and an estimated request over 4 MB
// ([ErrTooLarge]). Every op asks for the item as stored when its condition
// fails (ALL_OLD), and the client request token is the same on every
// retry, the SDK's and Commit's own, so the transaction is applied at most
// once.
//
// A cancellation is a [*CanceledError] with one [Reason] per op, in the
// order the ops were added. It matches [version.ErrConflict] when an op
// failed its version check. When an attempt went unanswered and Commit
// could not learn its outcome (the SDK's retries ran out, ctx ended), the
// error matches [version.ErrUnknownOutcome] and is a
// *version.UnknownOutcomeError that names the token: the transaction may
// have been applied. To settle it, commit the same ops again in a new Tx
// with Token(thatToken) within 10 minutes of the first attempt; DynamoDB
// applies them at most once (it answers success if they were applied). Cancellations caused only by other
// transactions (TransactionConflict) are retried with jittered backoff,
// up to [MaxAttempts]; condition failures are not. After success, the structs of
// the mapper's ops get their new versions; after a failure, nothing
// changes. Either way the Tx is done: a second
// Commit returns [ErrDone].
func (tx *Tx) Commit(ctx context.Context) error {
	if tx == nil {
		return errNilTx
	}
	if tx.done {
		return ErrDone
	}
	tx.done = true
	if err := tx.validate(); err != nil {
		return err
	}
	in := &dynamodb.TransactWriteItemsInput{
		TransactItems:      make([]types.TransactWriteItem, len(tx.ops)),
		ClientRequestToken: aws.String(tx.cfg.Token),
	}
	for i, op := range tx.ops {
		in.TransactItems[i] = *op.action
	}
	if tx.cfg.Observer == nil {
		_, _, err := tx.send(ctx, in, nil)
		return err
	}
	if observe.WantsCapacity(tx.cfg.Observer) {
		in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	}
	ctx, span := obs.Start(ctx, tx.cfg.Observer, tx.event())
	n, capacity, err := tx.send(ctx, in, &span)
	if err != nil {
		e := span.Event()
		e.Err = err
		switch {
		case errors.Is(err, version.ErrUnknownOutcome):
			e.Kind = observe.UnknownOutcome
			span.Point(e)
		case version.IsConflict(err):
			e.Kind = observe.Conflict
			span.Point(e)
		}
	}
	span.End(err, capacity, "", n)
	return err
}

// event is the Start event of the transaction's Write span.
func (tx *Tx) event() observe.Event {
	e := observe.Event{Kind: observe.Write, Op: "TransactWriteItems", Token: tx.cfg.Token, Attempt: 1}
	var tables []string
	for _, op := range tx.ops {
		if !slices.Contains(tables, op.w.T.Name) {
			tables = append(tables, op.w.T.Name)
		}
	}
	e.Table = strings.Join(tables, ",")
	if len(tx.ops) == 1 {
		e.Key = tx.ops[0].w.Key
	}
	return e
}

// send sends the transaction until it is applied, canceled for good, or
// fails, and returns the attempts made and the capacity consumed (when
// asked for).
func (tx *Tx) send(ctx context.Context, in *dynamodb.TransactWriteItemsInput, span *obs.Span) (int, float64, error) {
	var att attempt.Tracker // across Commit's attempts and the SDK's
	settled := false        // the locks of units met once were settled
	for n := 1; ; n++ {
		out, err := tx.client.TransactWriteItems(ctx, in, att.Option)
		if err == nil {
			for _, op := range tx.ops {
				if op.w.OnCommit != nil {
					op.w.OnCommit()
				}
			}
			capacity := 0.0
			for _, cc := range out.ConsumedCapacity {
				capacity += aws.ToFloat64(cc.CapacityUnits)
			}
			return n, capacity, nil
		}
		var tce *types.TransactionCanceledException
		var inProgress *types.TransactionInProgressException
		switch {
		case errors.As(err, &tce):
			// A cancellation is final even after an unanswered attempt: had
			// that attempt been applied, DynamoDB would have answered this
			// one, sent with the same token, with success.
			if !retryable(tce) || !tx.cfg.policy().More(n) {
				if !settled && tx.cfg.policy().More(n) && tx.settleUnits(ctx, tce) {
					// Items held by units that were over or dead: free
					// now, so the transaction may go through.
					settled = true
					continue
				}
				return n, 0, tx.canceled(tce, err, n)
			}
		case errors.As(err, &inProgress):
			if !tx.cfg.policy().More(n) {
				return n, 0, tx.failed(&att, fmt.Errorf("txn: commit %s: still in progress after %d attempts: %w", tx.cfg.Token, n, err))
			}
		default:
			return n, 0, tx.failed(&att, fmt.Errorf("txn: commit %s: %w", tx.cfg.Token, err))
		}
		wait := tx.cfg.policy().Backoff(n)
		if span.On() {
			e := span.Event()
			e.Kind, e.Attempt, e.Wait, e.Err = observe.Retry, n+1, wait, err
			span.Point(e)
		}
		if err := tx.sleep(ctx, wait); err != nil {
			return n, 0, tx.failed(&att, fmt.Errorf("txn: commit %s: %w after %d attempts (last: %v)", tx.cfg.Token, err, n, errFrom(tce, inProgress)))
		}
	}
}

// sleep waits for d on the transaction's clock, or until ctx ends.
func (tx *Tx) sleep(ctx context.Context, d time.Duration) error {
	if tx.cfg.Clock == nil {
		return retry.Sleep(ctx, d)
	}
	return tx.cfg.Clock.Sleep(ctx, d)
}

// settleUnits settles the items of a cancellation that are held by units
// of work (package unit) that are over or dead, as mapper writes do, and
// reports whether every held item it met is free now.
func (tx *Tx) settleUnits(ctx context.Context, tce *types.TransactionCanceledException) bool {
	held := false
	for i, cr := range tce.CancellationReasons {
		l, ok := unitlock.Parse(cr.Item)
		if !ok || i >= len(tx.ops) {
			continue
		}
		held = true
		op := tx.ops[i]
		ok, _, err := unitlock.Settle(ctx, unitlock.ViaTransactions(tx.client), op.Table(), op.Key(), l, lease.SystemClock{})
		if err != nil || !ok {
			return false
		}
	}
	return held
}

// failed is the error of a Commit that ended without an answer it can
// trust: err, or, when an attempt went unanswered (it may have been
// applied), an unknown outcome that names the token. The same ops
// committed again in a new Tx with [Token] of that token, within 10 minutes
// of the first attempt, are applied at most once.
func (tx *Tx) failed(att *attempt.Tracker, err error) error {
	if !att.Ambiguous {
		return err
	}
	return &version.UnknownOutcomeError{Op: "TransactWriteItems", Token: tx.cfg.Token, Err: err}
}

func errFrom(tce *types.TransactionCanceledException, ip *types.TransactionInProgressException) error {
	if tce != nil {
		return tce
	}
	return ip
}

func (tx *Tx) validate() error {
	switch {
	case tx.err != nil:
		return tx.err
	case len(tx.ops) == 0:
		return ErrEmpty
	case len(tx.ops) > tx.cfg.MaxItems:
		return fmt.Errorf("%w: %d ops, the limit is %d", ErrTooManyItems, len(tx.ops), tx.cfg.MaxItems)
	}
	total := 0
	for _, op := range tx.ops {
		total += opSize(op)
	}
	if total > MaxBytes {
		return fmt.Errorf("%w: about %d bytes, the limit is %d", ErrTooLarge, total, MaxBytes)
	}
	return nil
}

// opSize estimates an op's share of the request, by DynamoDB's rules for
// item sizes (names plus values), expressions included.
func opSize(op Op) int {
	w := *op.action
	n := attrs.ItemSize(op.Key())
	exprs := func(cond, update *string, values map[string]types.AttributeValue, names map[string]string) {
		n += len(aws.ToString(cond)) + len(aws.ToString(update)) + attrs.ItemSize(values)
		for k, v := range names {
			n += len(k) + len(v)
		}
	}
	switch {
	case w.Put != nil:
		n = attrs.ItemSize(w.Put.Item)
		exprs(w.Put.ConditionExpression, nil, w.Put.ExpressionAttributeValues, w.Put.ExpressionAttributeNames)
	case w.Update != nil:
		exprs(w.Update.ConditionExpression, w.Update.UpdateExpression, w.Update.ExpressionAttributeValues, w.Update.ExpressionAttributeNames)
	case w.Delete != nil:
		exprs(w.Delete.ConditionExpression, nil, w.Delete.ExpressionAttributeValues, w.Delete.ExpressionAttributeNames)
	case w.ConditionCheck != nil:
		exprs(w.ConditionCheck.ConditionExpression, nil, w.ConditionCheck.ExpressionAttributeValues, w.ConditionCheck.ExpressionAttributeNames)
	}
	return n
}

// checkOp finds what DynamoDB would refuse in an op's key, item and values.
func checkOp(op Op) error {
	if len(op.Key()) == 0 {
		return errors.New("no key")
	}
	for k, v := range op.Key() {
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			if n := len(v.Value); n == 0 || n > attrs.MaxHashKeySize {
				return fmt.Errorf("key attribute %q is %d bytes; a key is 1 to %d", k, n, attrs.MaxHashKeySize)
			}
		case *types.AttributeValueMemberB:
			if n := len(v.Value); n == 0 || n > attrs.MaxHashKeySize {
				return fmt.Errorf("key attribute %q is %d bytes; a key is 1 to %d", k, n, attrs.MaxHashKeySize)
			}
		case *types.AttributeValueMemberN:
			if err := attrs.CheckNumber(v.Value); err != nil {
				return fmt.Errorf("key attribute %q: %v", k, err)
			}
		default:
			return fmt.Errorf("key attribute %q is a %T; keys are S, N or B", k, v)
		}
	}
	w := *op.action
	var values map[string]types.AttributeValue
	switch {
	case w.Put != nil:
		if err := attrs.CheckItem(w.Put.Item); err != nil {
			return err
		}
		if n := attrs.ItemSize(w.Put.Item); n > attrs.MaxItemSize {
			name, size := attrs.Largest(w.Put.Item)
			return fmt.Errorf("%w: the item is %d bytes by DynamoDB's rules, over %d; its largest attribute is %q (%d bytes)", errs.ErrItemTooLarge, n, attrs.MaxItemSize, name, size)
		}
		values = w.Put.ExpressionAttributeValues
	case w.Update != nil:
		values = w.Update.ExpressionAttributeValues
	case w.Delete != nil:
		values = w.Delete.ExpressionAttributeValues
	case w.ConditionCheck != nil:
		values = w.ConditionCheck.ExpressionAttributeValues
	}
	if err := attrs.CheckItem(values); err != nil {
		return fmt.Errorf("value %v", err)
	}
	return nil
}
