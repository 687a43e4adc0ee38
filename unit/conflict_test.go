package unit_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/unit"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

// A version conflict inside a unit reports the versions it met, as the same
// write outside a unit does: the op's expected version and the stored one,
// for an item the unit read and for one it only writes.
func TestConflictInAUnitCarriesTheVersions(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, time.Minute)
	e.seed(t, 2, 100) // version 1
	for _, id := range []string{accountID(0), accountID(1)} {
		_, err := e.accounts.Update(ctx, Account{ID: id}, update.Add("balance", 1)) // now version 2
		require.NoError(t, err)
	}
	stale := &Account{ID: accountID(0), Balance: 50, Version: 1}
	outside := e.accounts.Put(ctx, &Account{ID: accountID(0), Balance: 50, Version: 1})

	for name, read := range map[string]bool{"written only": false, "read, then written": true} {
		t.Run(name, func(t *testing.T) {
			id := accountID(0)
			if read {
				id = accountID(1)
			}
			u := begin(t, e, e.c)
			if read {
				_, err := unit.Get(ctx, u, e.accounts, Account{ID: id})
				require.NoError(t, err)
			}
			s := *stale
			s.ID = id
			require.NoError(t, u.Add(e.accounts.PutOp(&s)))
			err := u.Commit(ctx)
			var ce *version.ConflictError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, int64(1), ce.Expected)
			assert.Equal(t, int64(2), ce.Actual)
			assert.Equal(t, e.accounts.Name(), ce.Table)
			assert.Contains(t, err.Error(), "expected version 1, found 2")
			assert.Equal(t, int64(1), s.Version, "the struct keeps its version")
			if !read {
				var out *version.ConflictError
				require.ErrorAs(t, outside, &out)
				assert.Equal(t, out.Error(), ce.Error(), "the same write outside a unit says the same")
			}
		})
	}
}
