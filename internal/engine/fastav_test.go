package engine

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

var fastValueSeeds = []string{
	`{"S":"x"}`, `{"N":"-1.5e3"}`, `{"S":""}`, `{"S":"\u00e9t\u00e9"}`, `{"S":"été"}`, `{"S":"a\"b"}`,
	`{"SS":["a","b"]}`, `{"NS":[]}`, `{"BOOL":true}`, `{"BOOL":false}`, `{"NULL":true}`, `{"NULL":false}`,
	`{"L":[{"S":"a"},{"N":"1"},{"L":[]}]}`, `{"M":{"a":{"S":"1"},"b":{"M":{}}}}`, `{"M":{"a":{"S":"1"},"a":{"N":"2"}}}`,
	`{"S":"x","N":"1"}`, `{"S":null}`, `{}`, `null`, `{"X":"1"}`, `{ "S":"x"}`, `{"B":"AAE="}`, `{"S":"\xff"}`,
	`{"L":[null]}`, `{"M":{"a":{}}}`, `{"SS":["a",]}`, `{"BOOL":"true"}`, `{"S":1}`,
}

// FuzzFastValue holds fastValue to the general reading: whatever it
// accepts decodes to the same value, and is well-formed.
func FuzzFastValue(f *testing.F) {
	for _, s := range fastValueSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := fastValue([]byte(s))
		if !ok {
			return
		}
		require.True(t, json.Valid([]byte(s)), "accepted %q, not JSON", s)
		var general av
		require.NoError(t, general.decodeGeneral([]byte(s)), "%q", s)
		require.Empty(t, general.err, "%q", s)
		require.Equal(t, general.v, v, "%q", s)
	})
}

// TestFastValueAccepts checks that the SDK's own forms take the fast path
// and the others do not.
func TestFastValueAccepts(t *testing.T) {
	for _, s := range []string{`{"S":"x"}`, `{"SS":["a","b"]}`, `{"M":{"a":{"L":[{"BOOL":true}]}}}`, `{"S":"été"}`} {
		_, ok := fastValue([]byte(s))
		require.True(t, ok, s)
	}
	for _, s := range []string{`{"S":"a\"b"}`, `{"M":{"a":{"S":"1"},"a":{"N":"2"}}}`, `{"S":"x","N":"1"}`, `{}`, `null`, `{ "S":"x"}`, `{"B":"AAE="}`, "{\"S\":\"\xff\"}"} {
		_, ok := fastValue([]byte(s))
		require.False(t, ok, s)
	}
}

// TestPlainInteger holds number's shortcut to its general path.
func TestPlainInteger(t *testing.T) {
	for _, s := range []string{"0", "-0", "1", "-1", "10", "00", "01", "-01", "1.0", "1e2", "+1", "-", "",
		"12345678901234567890123456789012345678", "123456789012345678901234567890123456789", "-99999999999999999999999999999999999999",
		"100000000000000000000000000000000000000000"} {
		want, wantErr := "", error(nil)
		if err := attrs.CheckNumber(s); err == nil {
			want = plainNumber(attrs.CanonicalNumber(s))
		} else {
			wantErr = err
		}
		got, err := number(s)
		if wantErr != nil {
			require.Error(t, err, "%q", s)
			continue
		}
		require.NoError(t, err, "%q", s)
		require.Equal(t, want, got, "%q", s)
	}
}

// FuzzFastItem holds item.UnmarshalJSON to encoding/json's reading of a
// map of values, the reading it replaced.
func FuzzFastItem(f *testing.F) {
	for _, s := range fastValueSeeds {
		f.Add(`{"a":` + s + `}`)
		f.Add(`{"a":{"S":"x"},"b":` + s + `}`)
	}
	for _, s := range []string{`{}`, `null`, `[]`, `"x"`, `1`, `{"a":{"S":"1"},"a":{"N":"2"}}`, `{"a":null}`, `{ "a":{"S":"x"}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) {
			return // encoding/json refuses the whole body before any value
		}
		var general map[string]av
		wantErr := json.Unmarshal([]byte(s), &general)
		var got item
		err := got.UnmarshalJSON([]byte(s))
		if wantErr != nil {
			require.Error(t, err, "%q", s)
			require.Equal(t, decodeError(wantErr), decodeError(err), "%q", s)
			return
		}
		require.NoError(t, err, "%q", s)
		require.Equal(t, item(general), got, "%q", s)
	})
}

// FuzzFastBatchTables holds fastBatchTables to the general reading of
// BatchWriteItem's RequestItems.
func FuzzFastBatchTables(f *testing.F) {
	for _, s := range []string{
		`{"t":[{"PutRequest":{"Item":{"pk":{"S":"a"},"n":{"N":"1"}}}},{"DeleteRequest":{"Key":{"pk":{"S":"b"}}}}],"u":[]}`,
		`{"t":[{"putrequest":{"Item":{"pk":{"S":"a"}}}}]}`, `{"t":[{"PutRequest":{"Item":{}}}]}`, `{"t":[{}]}`, `{}`,
		`{"t":[{"PutRequest":{"Item":{"pk":{"S":"a"}}},"DeleteRequest":{"Key":{"pk":{"S":"a"}}}}]}`, `{"t":[],"t":[]}`,
		`{"t":[{"PutRequest":null}]}`, `{"t":[{"PutRequest":{"Item":{"a":{"S":"1"},"a":{"S":"2"}}}}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := fastBatchTables([]byte(s))
		if !ok {
			return
		}
		require.True(t, json.Valid([]byte(s)), "accepted %q, not JSON", s)
		want, err := decodeBatchTables([]byte(s))
		require.NoError(t, err, "%q", s)
		require.Equal(t, want, generalTables(got), "%q", s)
	})
}

// generalTables is tables as the general reading holds them: a
// PutRequest's Item of wire values.
func generalTables(tables batchWriteTables) batchWriteTables {
	for _, bt := range tables {
		for i, r := range bt.requests {
			if r.putItem != nil {
				m := item{}
				for k, v := range r.putItem {
					m[k] = av{v: v}
				}
				bt.requests[i] = batchWriteRequest{PutRequest: &struct{ Item item }{Item: m}}
			}
		}
	}
	return tables
}

// FuzzBatchWriteDecodeFast holds batchWriteInput.decodeFast to
// encoding/json's reading of a BatchWriteItem request.
func FuzzBatchWriteDecodeFast(f *testing.F) {
	for _, s := range []string{
		`{"RequestItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"a"},"n":{"N":"1"}}}},{"DeleteRequest":{"Key":{"pk":{"S":"b"}}}}]}}`,
		`{"ReturnConsumedCapacity":"TOTAL","RequestItems":{"t":[{"PutRequest":{"Item":{}}}]},"ReturnItemCollectionMetrics":"SIZE"}`,
		`{"RequestItems":{},"RequestItems":{"t":[]}}`, `{"RequestItems":null}`, `{}`, `{"ReturnConsumedCapacity":"A","ReturnConsumedCapacity":"B"}`,
		`{"RequestItems":{"t":[{"PutRequest":{"Item":{"a":{"S":"1"}}}}]},"Other":1}`, `{"RequestItems":{"t":[]}} `,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var got batchWriteInput
		if !got.decodeFast([]byte(s)) {
			return
		}
		require.True(t, json.Valid([]byte(s)), "accepted %q, not JSON", s)
		var want batchWriteInput
		require.NoError(t, json.Unmarshal([]byte(s), &want), "%q", s)
		want.RequestItems, got.RequestItems = generalTables(want.RequestItems), generalTables(got.RequestItems)
		require.Equal(t, want, got, "%q", s)
	})
}
