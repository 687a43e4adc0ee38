package txn

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

// fake answers TransactWriteItems with the errors queued, then success, and
// records the inputs. It stands in for faults, not for DynamoDB's behaviour.
type fake struct {
	errs []error
	ins  []*dynamodb.TransactWriteItemsInput
}

func (f *fake) TransactWriteItems(_ context.Context, in *dynamodb.TransactWriteItemsInput, _ ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	f.ins = append(f.ins, in)
	if len(f.errs) > 0 {
		err := f.errs[0]
		f.errs = f.errs[1:]
		return nil, err
	}
	return &dynamodb.TransactWriteItemsOutput{}, nil
}

func (f *fake) TransactGetItems(context.Context, *dynamodb.TransactGetItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	return nil, errors.New("not used")
}

func key(v types.AttributeValue) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": v}
}

func TestDuplicateDetectionIsTyped(t *testing.T) {
	f := &fake{}
	tx := New(f)
	require.NoError(t, tx.Add(
		Delete("t", key(&types.AttributeValueMemberS{Value: "1"})),
		Delete("t", key(&types.AttributeValueMemberN{Value: "1"})),
		Delete("u", key(&types.AttributeValueMemberS{Value: "1"})),
		Delete("t", key(&types.AttributeValueMemberB{Value: []byte("1")})),
	), "same text, different types or tables: different items")
	err := tx.Add(Delete("t", key(&types.AttributeValueMemberN{Value: "1"})))
	require.ErrorIs(t, err, ErrDuplicateItem)
	assert.Contains(t, err.Error(), "op 1 (Delete) and op 4 (Delete) both touch t {pk=1}")
	assert.Equal(t, 4, tx.Len(), "the refused op was not added")
	require.ErrorIs(t, tx.Add(Delete("t", key(&types.AttributeValueMemberN{Value: "1.0"}))), ErrDuplicateItem, "numbers are keys by value")
	assert.ErrorIs(t, tx.Commit(context.Background()), ErrDuplicateItem, "Commit reports Add's first error")
	assert.Empty(t, f.ins)
}

func TestOptionsAreChecked(t *testing.T) {
	for _, opt := range []Option{MaxItems(0), Token(strings.Repeat("x", 37)), MaxAttempts(0), Backoff(2, 1)} {
		f := &fake{}
		tx := New(f, opt)
		tx.Add(Delete("t", key(&types.AttributeValueMemberS{Value: "a"})))
		assert.ErrorIs(t, tx.Commit(context.Background()), ErrInvalidOption)
		assert.Empty(t, f.ins)
	}
}

func TestOpsAreSentWithAllOldAndToken(t *testing.T) {
	f := &fake{}
	put := Put("t", key(&types.AttributeValueMemberS{Value: "a"}),
		map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}},
		If(expression.AttributeNotExists(expression.Name("pk"))))
	tx := New(f, Token("tok"))
	require.NoError(t, tx.Add(put, Update("t", key(&types.AttributeValueMemberS{Value: "b"}), update.Add("n", 1))))
	require.NoError(t, tx.Commit(context.Background()))
	require.Len(t, f.ins, 1)
	in := f.ins[0]
	assert.Equal(t, "tok", aws.ToString(in.ClientRequestToken))
	assert.Equal(t, types.ReturnValuesOnConditionCheckFailureAllOld, in.TransactItems[0].Put.ReturnValuesOnConditionCheckFailure)
	action, err := put.Action()
	require.NoError(t, err)
	assert.Equal(t, types.ReturnValuesOnConditionCheckFailureAllOld, action.Put.ReturnValuesOnConditionCheckFailure)
	in.TransactItems[0].Put.ConditionExpression = nil
	again, err := put.Action()
	require.NoError(t, err)
	assert.Equal(t, action.Put.ConditionExpression, again.Put.ConditionExpression, "the caller's op is not modified by what was sent")
	assert.Equal(t, "attribute_not_exists(#lk)", aws.ToString(in.TransactItems[1].Update.ConditionExpression),
		"a raw op without a condition is still refused on an item a unit of work holds")
}

func TestCanceledErrorMatching(t *testing.T) {
	conflicting := newOp(&plan.Write{Kind: plan.WriteDelete, T: plan.NewTable("t", "pk", "v"),
		Key: key(&types.AttributeValueMemberS{Value: "a"}), Check: plan.MustBeVersion, Expected: 1}, nil)
	plain := Delete("t", key(&types.AttributeValueMemberS{Value: "b"}))
	cancel := func(codes ...string) error {
		tce := &types.TransactionCanceledException{}
		for _, c := range codes {
			tce.CancellationReasons = append(tce.CancellationReasons, types.CancellationReason{Code: aws.String(c)})
		}
		return tce
	}
	cases := []struct {
		codes    []string
		conflict bool
		attempts int
	}{
		{[]string{CodeConditionalCheckFailed, CodeNone}, true, 1},
		{[]string{CodeNone, CodeConditionalCheckFailed}, false, 1},
		{[]string{CodeTransactionConflict, CodeNone}, false, 3},
		{[]string{CodeTransactionConflict, CodeValidation}, false, 1},
	}
	for _, tc := range cases {
		f := &fake{errs: []error{cancel(tc.codes...), cancel(tc.codes...), cancel(tc.codes...)}}
		tx := New(f, MaxAttempts(3), Backoff(0, 0))
		require.NoError(t, tx.Add(conflicting, plain))
		err := tx.Commit(context.Background())
		var ce *CanceledError
		require.ErrorAs(t, err, &ce, "%v", tc.codes)
		assert.Equal(t, tc.conflict, version.IsConflict(err), "%v", tc.codes)
		assert.Len(t, f.ins, tc.attempts, "%v", tc.codes)
		assert.Len(t, ce.Reasons, 2)
	}
}

func TestSizeEstimate(t *testing.T) {
	item := map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "abc"},
		"l":  &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberN{Value: "12"}}},
	}
	op := Put("t", map[string]types.AttributeValue{"pk": item["pk"]}, item)
	// Names and values count 1 byte a character (the number "12" 2 bytes), and
	// every raw op carries the unit-lock guard: its condition and its name.
	guard := len("attribute_not_exists(#lk)") + len("#lk") + len("optimist_unit")
	assert.Equal(t, 2+3+1+(3+1+2)+guard, opSize(op))
}
