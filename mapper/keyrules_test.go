package mapper_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
)

type kLine struct {
	Order string `dynamo:"order"`
	SKU   string `dynamo:"sku"`
	Qty   int    `dynamo:"qty"`
}

type kCustomer struct {
	ID    string  `dynamo:"id"`
	N     int     `dynamo:"n"`
	Price float64 `dynamo:"price"`
	OK    bool    `dynamo:"ok"`
}

// TestTemplateValuesNeverShareAKey: under ORDER#{Order}#ITEM#{SKU}, the
// value of Order may not hold '#' (the byte that ends it in the key): the
// item whose order is "o1#ITEM#x" is refused before sending, naming the
// field, so it cannot take the key of order "o1" with SKU "x#ITEM#y",
// which is written and read back as it was. No call is made for the
// refusals.
func TestTemplateValuesNeverShareAKey(t *testing.T) {
	ctx := context.Background()
	srv := dynamolocal.New(t)
	d := mapper.Design{Table: ddbtest.TableName(t), PK: "pk", SK: "sk"}
	require.NoError(t, d.CreateTable(ctx, srv.Client()))
	ddbtest.DeleteAtCleanup(t, srv.Client(), d.Table)
	counted := ddbtest.NewCounting(srv.Client())
	lines, err := mapper.NewEntity[kLine](counted, d, mapper.Entity{Type: "Line", Key: mapper.Keys{PK: "ORDER#{Order}#ITEM#{SKU}", SK: "LINE"}})
	require.NoError(t, err)

	second := kLine{Order: "o1", SKU: "x#ITEM#y", Qty: 2}
	require.NoError(t, lines.Put(ctx, &second))
	counted.Reset()
	first := kLine{Order: "o1#ITEM#x", SKU: "y", Qty: 1}
	err = lines.Put(ctx, &first)
	require.ErrorIs(t, err, mapper.ErrInvalidItem)
	assert.Contains(t, err.Error(), "field Order")
	_, err = lines.Get(ctx, first)
	require.ErrorIs(t, err, mapper.ErrInvalidItem)
	require.ErrorIs(t, lines.Delete(ctx, first), mapper.ErrInvalidItem)
	assert.Zero(t, counted.Total(), "nothing was sent")
	got, err := lines.Get(ctx, kLine{Order: "o1", SKU: "x#ITEM#y"})
	require.NoError(t, err)
	assert.Equal(t, second, *got)
}

// TestTemplateVerbMustFitField: a verb is checked against its field when
// the entity is made: one fmt cannot apply, or that would lose part of the
// value, is refused with ErrInvalidOption naming both.
func TestTemplateVerbMustFitField(t *testing.T) {
	for tmpl, ok := range map[string]bool{
		"CUSTOMER#{ID:%d}":     false,
		"CUSTOMER#{ID:%5s}":    false, // pads: " a" and "a" would share a key
		"CUSTOMER#{ID:%.2s}":   false, // cuts
		"CUSTOMER#{ID:%q}":     true,
		"CUSTOMER#{ID:%x}":     true,
		"N#{N:%010d}":          true,
		"N#{N:%s}":             false,
		"N#{N:%c}":             false,
		"P#{Price:%.2f}":       false,
		"P#{Price:%f}":         false,
		"P#{Price:%g}":         true,
		"B#{OK:%t}":            true,
		"B#{OK:%d}":            false,
		"CUSTOMER#{ID}#{N:%x}": true,
	} {
		_, err := mapper.NewEntity[kCustomer](&ddbtest.CountingClient{}, mapper.Design{Table: "t" + tmpl, PK: "pk", SK: "sk"}, mapper.Entity{Type: "C", Key: mapper.Keys{PK: tmpl, SK: "X#" + tmpl}})
		if ok {
			assert.NoError(t, err, tmpl)
			continue
		}
		require.ErrorIs(t, err, mapper.ErrInvalidOption, tmpl)
		assert.Contains(t, err.Error(), "verb", tmpl)
		assert.Regexp(t, `field (ID|N|Price|OK) \(`, err.Error(), tmpl)
	}
}

// TestEntitiesThatCanShareAKeyAreRefused: two entity types of one design
// whose key templates can render one table key are refused when the second
// is made (and by NewCollection); distinct prefixes, or sort keys that
// cannot meet, pass.
func TestEntitiesThatCanShareAKeyAreRefused(t *testing.T) {
	d := mapper.Design{Table: ddbtest.TableName(t), PK: "pk", SK: "sk"}
	_, err := mapper.NewEntity[kCustomer](&ddbtest.CountingClient{}, d, mapper.Entity{Type: "Customer", Key: mapper.Keys{PK: "C#{ID}", SK: "{ID}"}})
	require.NoError(t, err)
	_, err = mapper.NewEntity[kLine](&ddbtest.CountingClient{}, d, mapper.Entity{Type: "Line", Key: mapper.Keys{PK: "C#{Order}", SK: "LINE#{SKU}"}})
	require.ErrorIs(t, err, mapper.ErrInvalidOption)
	assert.Contains(t, err.Error(), "can render the same table key")
	assert.Contains(t, err.Error(), "Customer")
	_, err = mapper.NewEntity[kLine](&ddbtest.CountingClient{}, d, mapper.Entity{Type: "Line", Key: mapper.Keys{PK: "L#{Order}", SK: "LINE#{SKU}"}})
	require.NoError(t, err)
	_, err = mapper.NewEntity[kCustomer](&ddbtest.CountingClient{}, d, mapper.Entity{Type: "Customer", Key: mapper.Keys{PK: "C#{ID}", SK: "{ID}"}})
	require.NoError(t, err, "the same entity made again")

	d2 := mapper.Design{Table: ddbtest.TableName(t) + "2", PK: "pk", SK: "sk"}
	a, err := mapper.NewEntity[kCustomer](&ddbtest.CountingClient{}, d2, mapper.Entity{Type: "Customer", Key: mapper.Keys{PK: "C#{ID}", SK: "PROFILE"}})
	require.NoError(t, err)
	b, err := mapper.NewEntity[kLine](&ddbtest.CountingClient{}, d2, mapper.Entity{Type: "Line", Key: mapper.Keys{PK: "C#{Order}", SK: "LINE#{SKU}"}})
	require.NoError(t, err, "one partition, sort keys that cannot meet")
	_, err = mapper.NewCollection(a, b)
	require.NoError(t, err)
}
