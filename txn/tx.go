package txn

import (
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/rnd"
)

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
		rnd.Read(b[:])
		tx.cfg.Token = hex.EncodeToString(b[:]) // 32 characters
	}
	if tx.err == nil && ddbapi.IsNil(c) {
		tx.err = fmt.Errorf("%w: New was given a nil client", ErrInvalidOption)
	}
	return tx
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
