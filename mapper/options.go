package mapper

import (
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

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
	// its jittered exponential backoff between them (defaults 5ms and
	// 500ms). Per call, [MaxAttempts] and [Backoff] override them. The
	// batch calls (GetAll, PutAll, DeleteAll) use the same settings for
	// retrying what DynamoDB left unprocessed.
	MaxAttempts int
	BackoffBase time.Duration
	BackoffMax  time.Duration
}

// Default retry settings of Modify. Under contention the waits grow with
// full jitter, which keeps colliding writers apart and the number of writes
// per change low (about 2.5 calls per increment with 16 writers on one item,
// against 7 with no backoff). Backoff is not fair: a writer that lost many
// times waits longest, and in our 16-writer runs the unluckiest change
// needed 17 to 24 attempts with these settings (up to 37 with a 250ms cap),
// hence a cap of 50. Items that hot are better changed with Table.Update.
const (
	defaultMaxAttempts = 50
	defaultBackoffBase = 5 * time.Millisecond
	defaultBackoffMax  = 500 * time.Millisecond
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
	// inTxn: the write is a transaction op, made idempotent by the
	// transaction's client request token, so it needs no write token.
	inTxn bool
	also  *update.Builder
}

// writeOptions applies opts, reporting the first invalid one.
// writeOptions applies opts. Also is refused (errAlso) unless allowAlso:
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
	write       writeConfig
	maxAttempts int
	base, max   time.Duration
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

// MaxAttempts sets how many writes Modify tries in all (at least 1).
func MaxAttempts(n int) RetryOption {
	return retryOpt(func(c *retryConfig) { c.maxAttempts = n })
}

// Backoff sets the bounds of Modify's jittered exponential backoff: before
// attempt k+1 it sleeps a random duration in [0, min(max, base<<(k-1))).
func Backoff(base, max time.Duration) RetryOption {
	return retryOpt(func(c *retryConfig) { c.base, c.max = base, max })
}

func (c *retryConfig) validate() error {
	switch {
	case c.write.err != nil:
		return c.write.err
	case c.write.also != nil:
		return errAlso
	case c.maxAttempts < 1:
		return fmt.Errorf("%w: MaxAttempts(%d): need at least 1", ErrInvalidOption, c.maxAttempts)
	case c.base < 0 || c.max < c.base:
		return fmt.Errorf("%w: Backoff(%v, %v): need 0 <= base <= max", ErrInvalidOption, c.base, c.max)
	}
	return nil
}
