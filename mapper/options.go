package mapper

import (
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/optimist-dynamo/optimist/internal/retry"
	"github.com/optimist-dynamo/optimist/update"
)

// TableOptions configure a [Table]; pass functions that change them to
// [NewTable]. The defaults are set before the functions run.
type TableOptions struct {
	// TokenAttribute names the attribute in which every conditional write
	// stores a token unique to that write (default "optimist_token"). It is
	// how a write whose response was lost is recognised as ours when the
	// SDK's retry then fails its condition (see [ErrUnknownOutcome]): by the
	// token, never by comparing content, because two concurrent increments
	// often compute identical items. It costs about 35 bytes per item. Set it
	// to "" to turn the check off; lost responses then surface as
	// ErrUnknownOutcome.
	TokenAttribute string

	// VersionZeroExists makes a stored version 0 an existing version, for
	// tables written by code that starts counting at 0 (issue 12 met such
	// items in a table written through AWS's Java DynamoDBMapper v1). With
	// it, a write of a struct whose version is 0 (Put,
	// Save, PutOp, Modify; CheckOp checks the same) is conditional on
	// "no item, or an item with version 0" (attribute_not_exists(hash) OR
	// v = 0) instead of "no item", and stores version 1. An item without a
	// version attribute still conflicts. The price: a create can no longer
	// tell a new key from a stored version 0, so it overwrites an item
	// stored with version 0. Off by default: then a struct's version 0
	// means create, and a stored version 0 is a conflict that
	// [Table.Modify] reports without retrying.
	VersionZeroExists bool

	// EncoderOptions and DecoderOptions are applied, after TagKey is set to
	// "dynamo", to the attributevalue encoder and decoder the table uses.
	// With encoder options set, every field is encoded by attributevalue
	// (the table's fast path for plain fields is turned off).
	EncoderOptions []func(*attributevalue.EncoderOptions)
	DecoderOptions []func(*attributevalue.DecoderOptions)

	// MaxAttempts is how many writes [Table.Modify] tries before it returns
	// the last conflict (default 50), and BackoffBase and BackoffMax bound
	// its jittered exponential backoff between them (defaults 20ms and
	// 200ms). Per call, [MaxAttempts] and [Backoff] override them. The
	// batch calls (GetAll, PutAll, DeleteAll) use the same settings for
	// retrying what DynamoDB left unprocessed.
	MaxAttempts int
	BackoffBase time.Duration
	BackoffMax  time.Duration

	// ExactlyOnce makes [ExactlyOnce] the default of every Put, Update,
	// Delete, Save and Modify of the table.
	ExactlyOnce bool
}

// policy is the retry policy of Modify and the batch calls.
func (o TableOptions) policy() retry.Policy {
	return retry.Policy{MaxAttempts: o.MaxAttempts, Base: o.BackoffBase, Max: o.BackoffMax}
}

// Default retry settings of Modify (and of the batch calls' retries of
// unprocessed items). Goroutines of one process take turns per key (see
// Table.Modify), so the backoff only spreads writers of different
// processes. After the first conflict's immediate retry, the waits grow
// with full jitter from 20ms to a cap of 200ms. Under contention most
// changes land in runs, each call starting from the item its Table last
// wrote, and a waiter's write can only land between runs: a waiter that
// wakes during a run reads, writes and is refused, an attempt for nothing.
// A base of 20ms (it was 10ms) makes fewer of those early in a wait; the
// cap stays at 200ms, because a longer one leaves the item idle when a run
// ends while its waiters still sleep (bench/, BenchmarkContention, keeps
// the 10ms base in the comparison). A waiter reads again after each
// sleep. Items that hot are better changed with Table.Update.
const (
	defaultMaxAttempts = 50
	defaultBackoffBase = 20 * time.Millisecond
	defaultBackoffMax  = 200 * time.Millisecond
	defaultToken       = "optimist_token"
)

// A WriteOption changes a single write (Put, Update, Delete, or a
// transaction op). Every WriteOption is also a [RetryOption], so it can be
// given to [Table.Modify] for the writes it makes.
type WriteOption interface {
	RetryOption
	applyWrite(*writeConfig)
}

// A RetryOption changes how [Table.Modify] retries.
type RetryOption interface {
	applyRetry(*retryConfig)
}

type writeConfig struct {
	conds       []expression.ConditionBuilder
	unversioned bool
	fence       *fence
	err         error
	// noToken: the write stores no write token: a transaction op (the
	// transaction's client request token makes its resends safe) or a
	// batch write (which nothing could settle).
	noToken bool
	also    *update.Builder
	// exactlyOnce: send the write as a one-action transaction with a client
	// request token (token, or a fresh one).
	exactlyOnce bool
	token       string
	// ret: what the write asks back, Old and WriteCapacity (returns.go).
	ret *returns
}

// forTxn returns a copy of w for building the write as a transaction op.
func (w *writeConfig) forTxn() *writeConfig {
	c := *w
	c.noToken = true
	return &c
}

// writeOptions applies opts over the table's defaults.
func (t *Table[T]) writeOptions(opts []WriteOption, allowAlso bool) (writeConfig, error) {
	w, err := writeOptions(opts, allowAlso)
	w.exactlyOnce = w.exactlyOnce || t.opts.ExactlyOnce
	if err == nil && w.exactlyOnce {
		// A transaction returns neither the old item nor capacity per item.
		err = w.errReturns("an ExactlyOnce write")
	}
	return w, err
}

// writeOptions applies opts, reporting the first invalid one. Also is refused (errAlso) unless allowAlso:
// only Save takes it.
func writeOptions(opts []WriteOption, allowAlso bool) (writeConfig, error) {
	var w writeConfig
	for _, o := range opts {
		o.applyWrite(&w)
	}
	if w.err == nil && w.also != nil && !allowAlso {
		w.err = errAlso
	}
	return w, w.err
}

type fence struct {
	attr  string
	token int64
}

type retryConfig struct {
	write  writeConfig
	policy retry.Policy
}

type writeOpt func(*writeConfig)

func (o writeOpt) applyWrite(c *writeConfig) { o(c) }
func (o writeOpt) applyRetry(c *retryConfig) { o(&c.write) }

type retryOpt func(*retryConfig)

func (o retryOpt) applyRetry(c *retryConfig) { o(c) }

// If adds a condition of the caller's own to the write. It is ANDed with the
// version check (and with other If conditions), never replaces it: the write
// happens only when every condition holds. When only the caller's condition
// fails, the error is a [*ConditionError].
func If(cond expression.ConditionBuilder) WriteOption {
	return writeOpt(func(c *writeConfig) { c.conds = append(c.conds, cond) })
}

// Unversioned turns the version check off for one write: the item is written
// whatever version is stored (a forced write). A Put still writes the
// struct's version plus one, which may set the stored version back; use it
// for migrations and repairs, not in ordinary code. It is also how types
// with a version field are written in batches.
func Unversioned() WriteOption {
	return writeOpt(func(c *writeConfig) { c.unversioned = true })
}

// Fence makes the write conditional on a fencing token from a lock: it is
// refused when attribute attr holds a higher token than token
// (attribute_not_exists(attr) OR attr <= token), and it stores token in
// attr. A lock holder that paused past its lease, while another took the lock
// with a higher token, can then no longer write. The condition is ANDed with
// the others; a refusal is a [*ConditionError].
func Fence(attr string, token int64) WriteOption {
	return writeOpt(func(c *writeConfig) {
		if attr == "" {
			c.err = fmt.Errorf("%w: Fence needs an attribute name", ErrInvalidOption)
			return
		}
		c.fence = &fence{attr: attr, token: token}
	})
}

// Also adds the actions of u to a [Table.Save], in the same UpdateItem: for
// attributes outside the struct, such as a counter kept beside it or the
// attributes of a lock held in the item. They may not touch the struct's
// attributes. The other writes refuse it ([ErrInvalidOption]): put the
// actions in their own update instead.
func Also(u *update.Builder) WriteOption {
	return writeOpt(func(c *writeConfig) { c.also = u })
}

// ExactlyOnce sends a Put, Update, Delete, Save or Modify write as a
// TransactWriteItems of one action whose ClientRequestToken is fixed for the
// write, instead of PutItem, UpdateItem or DeleteItem. DynamoDB applies a
// token's transaction at most once within 10 minutes, so the SDK can resend
// it after a lost answer even when other writers changed the item in
// between: a lost answer costs a resend, not an unknown outcome. The
// conditions, errors and version semantics are those of the plain write
// (a refused write is a [*version.ConflictError] or a [*ConditionError]).
//
// Only when every attempt the SDK makes goes unanswered is the outcome
// unknown: the error matches [ErrUnknownOutcome], and its Token
// ([UnknownOutcomeError].Token) resends the same write safely within 10
// minutes of the first attempt: make the same call, with the same item or
// key and update, with [ExactlyOnceToken](token) in place of ExactlyOnce.
//
// Cost: a transactional write uses twice the write capacity of a plain one;
// an Update also reads the item after writing it, with one consistent
// GetItem, because TransactWriteItems returns no item. Items written this way
// carry no write token (the request token does its work). In a
// transaction's own ops (PutOp and the others) it changes nothing: the
// transaction's token already makes its resends safe. Set
// [TableOptions].ExactlyOnce to make it the table's default.
func ExactlyOnce() WriteOption {
	return writeOpt(func(c *writeConfig) { c.exactlyOnce = true })
}

// ExactlyOnceToken is [ExactlyOnce] with a ClientRequestToken of the
// caller's (1 to 36 characters): to resend a write whose outcome was unknown
// with the token of its error, or to make a write idempotent across
// processes. The same token with a different request within 10 minutes is
// refused by DynamoDB (IdempotentParameterMismatchException). Modify, which
// may write several times, refuses it.
func ExactlyOnceToken(token string) WriteOption {
	return writeOpt(func(c *writeConfig) {
		if len(token) < 1 || len(token) > 36 {
			c.err = fmt.Errorf("%w: ExactlyOnceToken(%q): need 1 to 36 characters", ErrInvalidOption, token)
			return
		}
		c.exactlyOnce, c.token = true, token
	})
}

// MaxAttempts sets how many writes Modify tries in all (at least 1).
func MaxAttempts(n int) RetryOption {
	return retryOpt(func(c *retryConfig) { c.policy.MaxAttempts = n })
}

// Backoff sets the bounds of Modify's jittered exponential backoff. The
// first conflict is retried at once; after the k-th (k >= 2) Modify sleeps
// a random duration in [0, min(max, base<<(k-2))), then reads again.
func Backoff(base, max time.Duration) RetryOption {
	return retryOpt(func(c *retryConfig) { c.policy.Base, c.policy.Max = base, max })
}

func (c *retryConfig) validate() error {
	switch {
	case c.write.err != nil:
		return c.write.err
	case c.write.also != nil:
		return errAlso
	case c.write.token != "":
		return fmt.Errorf("%w: ExactlyOnceToken with Modify, which may write several times; use ExactlyOnce", ErrInvalidOption)
	case c.write.ret != nil:
		return c.write.errReturns("Modify")
	}
	if err := c.policy.Check(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidOption, err)
	}
	return nil
}
