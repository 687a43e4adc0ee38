package mapper

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"

	"github.com/optimist-dynamo/optimist/internal/retry"
	"github.com/optimist-dynamo/optimist/observe"
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
	// tables written by code that starts counting at 0 (such as AWS's Java
	// DynamoDBMapper v1). With
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

	// Observer, if set, receives the table's events (package observe): a
	// Write span around each write Put, Save, Update, Delete and Modify
	// send (with ExactlyOnce, txn.Commit's span), Conflict, Retry (Modify's
	// retries, the batch calls' resends), Settled, UnknownOutcome and
	// UnitSettled. nil (the default) costs nothing. If it asks for the
	// capacity consumed (observe.WantsCapacity), every write asks DynamoDB
	// for it (ReturnConsumedCapacity=TOTAL, at no cost).
	Observer observe.Observer

	// WriteRegion names the one AWS Region every write to the table goes
	// to, for a global table (one with replicas) whose other Regions only
	// read. Without it the table's first write of a versioned type, or
	// first conditional write (a fence, an [If]), calls DescribeTable once,
	// with that call's context, and refuses to write to a global table in
	// multi-Region eventual consistency: there a condition is checked
	// against the item in the writer's Region only, and concurrent writes
	// in two Regions are settled by last writer wins, so no version check
	// can protect it (see [ErrGlobalTable]). A table in multi-Region strong
	// consistency passes, and DynamoDB's ReplicatedWriteConflictException
	// is then a conflict that Modify retries. With WriteRegion set no
	// DescribeTable is made, and a client configured for another Region is
	// refused before it sends anything. A client without DescribeTable
	// (a wrapper of yours) is not checked.
	WriteRegion string
}

// policy is the retry policy of Modify and the batch calls.
func (o TableOptions) policy() retry.Policy {
	return retry.Policy{MaxAttempts: o.MaxAttempts, Base: o.BackoffBase, Max: o.BackoffMax}
}

// Default retry settings of Modify (and of the batch calls' retries of
// unprocessed items). Modify sleeps its backoff from its third conflict
// on, until it takes the item's turn (see the package doc), and after that
// where it cannot take it (the item missing, or held by a unit of work).
// The waits grow with full jitter from 20ms to a cap of 200ms, and a
// waiter reads again after each sleep. MaxAttempts is a backstop: with
// turns, a change made by Modify alone does not come near it. Items that
// hot are better changed with Table.Update.
const (
	defaultMaxAttempts = 50
	defaultBackoffBase = 20 * time.Millisecond
	defaultBackoffMax  = 200 * time.Millisecond
	defaultToken       = "optimist_token"
)

// policy returns the retry policy of a Modify: the table's, with o's
// overrides.
func (t *Table[T]) policy(o *WriteOptions) retry.Policy {
	p := t.opts.policy()
	if o != nil {
		if o.MaxAttempts != 0 {
			p.MaxAttempts = o.MaxAttempts
		}
		if o.backoff || o.BackoffMax != 0 {
			p.Base, p.Max = o.BackoffBase, o.BackoffMax
		}
	}
	return p
}
