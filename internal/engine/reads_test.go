package engine_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/engine"
)

// mustCall is call for a request that must succeed.
func mustCall(t testing.TB, e *engine.Engine, op, body string) string {
	t.Helper()
	status, out := call(t, e, op, body)
	require.Equal(t, http.StatusOK, status, out)
	return out
}

// rawCase is a request and DynamoDB Local's answer to it, as measured.
type rawCase struct {
	name      string
	op        string // Query when empty
	body      string // members after TableName
	want      string
	unordered bool // the order of Items is unspecified
}

// run checks each case against the engine: the same JSON as DynamoDB
// Local's answer (numbers by value, so 2.0 is 2).
func runRaw(t *testing.T, e *engine.Engine, table string, cases []rawCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			op := c.op
			if op == "" {
				op = "Query"
			}
			body := `{"TableName":"` + table + `"`
			if c.body != "" {
				body += "," + c.body
			}
			body += "}"
			if op == "BatchGetItem" {
				body = strings.ReplaceAll(c.body, "$T", table)
			}
			_, got := call(t, e, op, body)
			want := strings.ReplaceAll(c.want, "$T", table)
			assert.Equal(t, normal(t, want, c.unordered), normal(t, got, c.unordered), "request %s", body)
		})
	}
}

// normal decodes a JSON answer for comparison; with unordered, Items (and
// BatchGetItem's Responses) are sorted by their encoding.
func normal(t testing.TB, s string, unordered bool) any {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(s), &v), s)
	if !unordered {
		return v
	}
	lists := []any{v["Items"]}
	if r, ok := v["Responses"].(map[string]any); ok {
		for _, l := range r {
			lists = append(lists, l)
		}
	}
	for _, l := range lists {
		if items, ok := l.([]any); ok {
			sort.Slice(items, func(i, j int) bool {
				a, _ := json.Marshal(items[i])
				b, _ := json.Marshal(items[j])
				return bytes.Compare(a, b) < 0
			})
		}
	}
	return v
}

// readsFixture creates the table the read cases run on, as it was created
// on DynamoDB Local to measure them: pk S, sk N, GSIs gkeys (g,
// KEYS_ONLY), gall (g, l, ALL), ginc (g, INCLUDE x), LSI lkeys (l,
// KEYS_ONLY); items a/b × 1..3 with l = L(4-sk).
func readsFixture(t testing.TB, e *engine.Engine, table string) {
	t.Helper()
	mustCall(t, e, "CreateTable", `{"TableName":"`+table+`","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"},{"AttributeName":"g","AttributeType":"S"},{"AttributeName":"l","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","GlobalSecondaryIndexes":[{"IndexName":"gkeys","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"}},{"IndexName":"gall","KeySchema":[{"AttributeName":"g","KeyType":"HASH"},{"AttributeName":"l","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}},{"IndexName":"ginc","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["x"]}}],"LocalSecondaryIndexes":[{"IndexName":"lkeys","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"l","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}]}`)
	for i := 1; i <= 3; i++ {
		for _, p := range []string{"a", "b"} {
			n := string(rune('0' + i))
			mustCall(t, e, "PutItem", `{"TableName":"`+table+`","Item":{"pk":{"S":"`+p+`"},"sk":{"N":"`+n+`"},"g":{"S":"G"},"l":{"S":"L`+string(rune('0'+4-i))+`"},"x":{"S":"x`+n+`"},"y":{"N":"`+n+`"}}}`)
		}
	}
}
