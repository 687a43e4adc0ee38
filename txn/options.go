package txn

import (
	"time"

	"github.com/optimist-dynamo/optimist/internal/errs"
	"github.com/optimist-dynamo/optimist/internal/retry"
	"github.com/optimist-dynamo/optimist/observe"
)

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

	// WriteRegion is the one Region every write to the tables of the raw
	// ops goes to, "" if none was named. See [WriteRegion].
	WriteRegion string

	err error
}

// An Option changes the [Options] of one [Tx].
type Option = func(*Options)

func (o *Options) fail(format string, args ...any) { errs.Invalid(&o.err, format, args...) }

// MaxItems sets the most ops a transaction may hold (default 100).
func MaxItems(n int) Option {
	return func(o *Options) { errs.SetCount(&o.err, &o.MaxItems, "MaxItems", n) }
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
	return func(o *Options) { errs.SetCount(&o.err, &o.MaxAttempts, "MaxAttempts", n) }
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
