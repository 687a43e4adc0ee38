package mapper_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
)

// FuzzDecode requires Table.Decode to decode as attributevalue's Decoder
// (with the table's settings: the dynamo tag, UseEncodingUnmarshalers)
// does: the same value, or the same error. The item is what the mapper
// writes for a fuzzItem built from the first inputs (see FuzzRoundTrip),
// with one attribute, or one attribute of a nested struct, replaced by a
// value made from the others: any type, any text as S or N.
func FuzzDecode(f *testing.F) {
	f.Add("a", int64(1), uint64(2), 1.5, []byte{1, 2, 3, 4}, true, uint8(0), uint8(1), uint8(1), "300")
	f.Add("b", int64(-3), uint64(1<<63), -2.25e-7, []byte("0123456789abcdef"), true, uint8(0), uint8(5), uint8(0), "10.0.0.1")
	f.Add("c", int64(7), uint64(9), 3.0, []byte{1, 2, 3}, false, uint8(1), uint8(200), uint8(9), "1e400")
	f.Add("d", int64(1e12), uint64(5), 1e125, []byte{9, 9, 9, 9}, true, uint8(2), uint8(7), uint8(2), "")
	f.Add("e", int64(0), uint64(0), 0.0, []byte(nil), false, uint8(3), uint8(130), uint8(10), "x")
	f.Add("f", int64(5), uint64(6), -1e-129, []byte{}, true, uint8(4), uint8(12), uint8(6), "-1")
	f.Add("g", int64(5), uint64(6), 2.0, []byte{1}, true, uint8(0), uint8(140), uint8(1), "NaN")
	f.Add("h", int64(5), uint64(6), 2.0, []byte{1}, true, uint8(0), uint8(3), uint8(0), "2006-01-02T15:04:05Z")
	table, err := mapper.NewTable[fuzzItem](&ddbtest.CountingClient{}, "fuzz")
	require.NoError(f, err)
	ref := attributevalue.NewDecoder(func(o *attributevalue.DecoderOptions) {
		o.TagKey, o.UseEncodingUnmarshalers = mapper.TagKey, true
	})
	f.Fuzz(func(t *testing.T, s string, i int64, u uint64, fl float64, b []byte, flag bool, sel uint8, attr, kind uint8, text string) {
		in := build(s, i, u, fl, b, flag, sel)
		action, err := table.PutOp(&in).Action()
		if err != nil {
			return // FuzzRoundTrip checks the refusals
		}
		item := action.Put.Item
		names := slices.Sorted(func(yield func(string) bool) {
			for k := range item {
				if !yield(k) {
					return
				}
			}
		})
		names = append(names, "optimist_token", "ID", "Str", "INNER")
		name := names[int(attr&0x7f)%len(names)]
		av := fuzzAV(kind, text, b, flag, 0)
		target := item
		if nested, ok := item["inner"].(*types.AttributeValueMemberM); ok && attr&0x80 != 0 {
			target = nested.Value
			name = []string{"s", "n", "p", "S", "x"}[int(attr&0x7f)%5]
		}
		// Two names equal under case folding would leave attributevalue's
		// choice of field to map order.
		for k := range target {
			if strings.EqualFold(k, name) {
				delete(target, k)
			}
		}
		target[name] = av

		var want fuzzItem
		wantErr := ref.Decode(&types.AttributeValueMemberM{Value: item}, &want)
		got, gotErr := table.Decode(item)
		if wantErr != nil {
			require.Error(t, gotErr, "attributevalue: %v", wantErr)
			require.True(t, strings.HasPrefix(gotErr.Error(), "mapper: decoding mapper_test.fuzzItem"), gotErr.Error())
			require.Equal(t, wantErr.Error(), errors.Unwrap(gotErr).Error(), "attributevalue's own error, wrapped")
			return
		}
		require.NoError(t, gotErr)
		if !mapper.EqualDecoded(want, *got) {
			t.Fatalf("decoded differently:\nattributevalue %+v\ntable          %+v", want, *got)
		}
	})
}

// fuzzAV makes an attribute value of the type kind selects, from text, b
// and flag. Maps hold one entry at most, so that an item fails in one
// place only and the error does not depend on map order.
func fuzzAV(kind uint8, text string, b []byte, flag bool, depth int) types.AttributeValue {
	switch kind % 13 {
	case 0:
		return &types.AttributeValueMemberS{Value: text}
	case 1:
		return &types.AttributeValueMemberN{Value: text}
	case 2:
		return &types.AttributeValueMemberBOOL{Value: flag}
	case 3:
		return &types.AttributeValueMemberNULL{Value: true}
	case 4:
		return nil
	case 5:
		return &types.AttributeValueMemberB{Value: b}
	case 6:
		if flag {
			return &types.AttributeValueMemberSS{Value: []string{text, text + "1"}}
		}
		return &types.AttributeValueMemberSS{Value: []string{text}}
	case 7:
		return &types.AttributeValueMemberNS{Value: []string{text}}
	case 8:
		return &types.AttributeValueMemberBS{Value: [][]byte{b}}
	case 9, 10:
		if depth > 2 {
			return &types.AttributeValueMemberL{}
		}
		return &types.AttributeValueMemberL{Value: []types.AttributeValue{fuzzAV(kind/13, text, b, flag, depth+1)}}
	case 11:
		return &types.AttributeValueMemberM{}
	default:
		if depth > 2 {
			return &types.AttributeValueMemberM{}
		}
		k := "k"
		if flag {
			k = text
		}
		return &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{k: fuzzAV(kind/13, text, b, flag, depth+1)}}
	}
}
