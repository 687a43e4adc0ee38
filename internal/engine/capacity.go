package engine

import (
	"math"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/cond"
)

// Capacity: the units a read or write consumes, for the table and for
// each index a write changes, as ReturnConsumedCapacity reports them.

// capacityUnits computes a ConsumedCapacity by DynamoDB's rules: writes in
// 1 KB units, reads in 4 KB units (half for eventually consistent reads),
// each at least one unit.
func writeUnits(size int) float64 { return math.Max(1, math.Ceil(float64(size)/1024)) }

func readUnits(size int, consistent bool) float64 {
	u := math.Max(1, math.Ceil(float64(size)/4096))
	if !consistent {
		u /= 2
	}
	return u
}

// wantsCapacity reports whether a ReturnConsumedCapacity asks for the
// capacity consumed, which consumed renders: a request that does not
// needs no sizes of items counted.
func wantsCapacity(mode string) bool { return mode == "TOTAL" || mode == "INDEXES" }

// consumed renders a ConsumedCapacity for mode (TOTAL or INDEXES; nil for
// NONE). indexes lists the capacity each index consumed, for INDEXES.
func consumed(mode, tableName string, units float64, indexes map[*index]float64) map[string]any {
	switch mode {
	case "TOTAL":
		total := units
		for _, u := range indexes {
			total += u
		}
		return map[string]any{"TableName": tableName, "CapacityUnits": total}
	case "INDEXES":
		total := units
		out := map[string]any{"TableName": tableName, "Table": map[string]any{"CapacityUnits": units}}
		gsi, lsi := map[string]any{}, map[string]any{}
		for ix, u := range indexes {
			total += u
			if ix.global {
				gsi[ix.name] = map[string]any{"CapacityUnits": u}
			} else {
				lsi[ix.name] = map[string]any{"CapacityUnits": u}
			}
		}
		if len(gsi) > 0 {
			out["GlobalSecondaryIndexes"] = gsi
		}
		if len(lsi) > 0 {
			out["LocalSecondaryIndexes"] = lsi
		}
		out["CapacityUnits"] = total
		return out
	}
	return nil
}

// indexWrites is the capacity a write consumes in each index: a unit per
// index whose projection of the old or the new item is not empty and
// changes, two when
// an item moves within an index (it is deleted and written there).
func (t *table) indexWrites(old, new map[string]types.AttributeValue) map[*index]float64 {
	var out map[*index]float64
	for _, ix := range append(append([]*index(nil), t.lsis...), t.gsis...) {
		var po, pn map[string]types.AttributeValue
		if old != nil {
			po = t.project(ix, old)
		}
		if new != nil {
			pn = t.project(ix, new)
		}
		var u float64
		switch {
		case po == nil && pn == nil, sameProjection(po, pn):
			// An index whose projection the write leaves as it was is not
			// written (DynamoDB Local charges it nothing).
			continue
		case po == nil:
			u = writeUnits(attrs.ItemSize(pn))
		case pn == nil:
			u = writeUnits(attrs.ItemSize(po))
		case sameIndexKey(ix, po, pn):
			u = writeUnits(max(attrs.ItemSize(po), attrs.ItemSize(pn)))
		default:
			u = writeUnits(attrs.ItemSize(po)) + writeUnits(attrs.ItemSize(pn))
		}
		if out == nil {
			out = map[*index]float64{}
		}
		out[ix] = u
	}
	return out
}

// sameProjection reports whether two projections of an item hold the same
// attributes with equal values.
func sameProjection(a, b map[string]types.AttributeValue) bool {
	if a == nil || b == nil || len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || typeName(v) != typeName(w) || !cond.Equal(v, w) {
			return false
		}
	}
	return true
}

func sameIndexKey(ix *index, a, b map[string]types.AttributeValue) bool {
	for _, k := range []keyDef{ix.hash, ix.rng} {
		if k.name != "" && encodeKey(a[k.name]) != encodeKey(b[k.name]) {
			return false
		}
	}
	return true
}

// capacities sums consumed capacity per table, in the order the tables
// first appear in a request.
type capacities struct {
	order []*table
	units map[*table]float64
	ix    map[*table]map[*index]float64
}

// add counts units on t and, scaled by factor, the units ix of its indexes.
func (c *capacities) add(t *table, units float64, ix map[*index]float64, factor float64) {
	if c.units == nil {
		c.units, c.ix = map[*table]float64{}, map[*table]map[*index]float64{}
	}
	if _, ok := c.units[t]; !ok {
		c.order = append(c.order, t)
	}
	c.units[t] += units
	for x, u := range ix {
		if c.ix[t] == nil {
			c.ix[t] = map[*index]float64{}
		}
		c.ix[t][x] += u * factor
	}
}

// render is the ConsumedCapacity list for mode (nil for NONE). member
// ("ReadCapacityUnits", "WriteCapacityUnits" or "") repeats the units
// under its name at the top of each entry, and, when deep, in its Table and
// index entries too, as DynamoDB Local answers transactions.
func (c *capacities) render(mode, member string, deep bool) []map[string]any {
	var out []map[string]any
	for _, t := range c.order {
		m := consumed(mode, t.name, c.units[t], c.ix[t])
		if m == nil {
			return nil
		}
		if member != "" {
			m[member] = m["CapacityUnits"]
			if deep {
				for _, k := range []string{"Table", "GlobalSecondaryIndexes", "LocalSecondaryIndexes"} {
					switch sub := m[k].(type) {
					case map[string]any:
						if k == "Table" {
							sub[member] = sub["CapacityUnits"]
							continue
						}
						for _, x := range sub {
							xm := x.(map[string]any)
							xm[member] = xm["CapacityUnits"]
						}
					}
				}
			}
		}
		out = append(out, m)
	}
	return out
}
