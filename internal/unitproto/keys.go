package unitproto

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/optimist-dynamo/optimist/internal/ddbapi"
)

// Limits of a page of a unit's item list (RecItems): a unit starts a new
// page when the next reference would take the page to PageItems references
// or to PageBytes bytes of references (the sum of their lengths). Well
// under DynamoDB's 400 KB item limit. Readers rely on them to tell a unit's
// last page (see keySet).
const (
	PageItems = 2000
	PageBytes = 300 << 10
)

// maxRefLen bounds the length of one EncodeKey reference: a table name
// (255 bytes), a key of at most two attributes (names of 255 bytes, a hash
// value of 2,048 and a range value of 1,024), every byte escaped by JSON
// at worst as six, plus the JSON around them.
const maxRefLen = 6*(255+2*255+2048+1024) + 256

// keySet is what a reader learnt, from a committed unit's log, of the
// items the unit may have locked: every item it locked was logged before
// it was locked, so once the unit is committed its pages list them all,
// until it finishes and deletes its pages, the last first.
type keySet struct {
	// all: the list could not be read whole (its pages were being deleted,
	// or were gone): any item may be one of the unit's.
	all bool
	ids map[string]bool // ItemID of each logged item
}

func (k *keySet) has(id string) bool { return k.all || k.ids[id] }

// readKeys reads the item list of unit id, whose record said committed,
// from its pages in the coordinator table coord: one consistent GetItem per
// page, projected to the list, and one more only when a page is full
// enough that the unit may have started another.
//
// A missing page 0 means the unit finished (or its pages expired), so
// every item it locked was applied before now: the set is "all". A page
// missing after one that may have had a successor cannot be told from a
// deleted one (pages are deleted the last first): "all" too.
func readKeys(ctx context.Context, c ddbapi.Getter, coord, id string) (*keySet, error) {
	ks := &keySet{ids: map[string]bool{}}
	for n := 0; ; n++ {
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{
			TableName: aws.String(coord), Key: PageKey(id, n), ConsistentRead: aws.Bool(true),
			ProjectionExpression: aws.String("#items"), ExpressionAttributeNames: map[string]string{"#items": RecItems},
		})
		if err != nil {
			return nil, fmt.Errorf("unit: reading page %d of unit %s: %w", n, id, err)
		}
		ss, ok := out.Item[RecItems].(*types.AttributeValueMemberSS)
		if !ok {
			// No page (a page always has an item list): see above.
			ks.all = true
			return ks, nil
		}
		size := 0
		for _, ref := range ss.Value {
			size += len(ref)
			table, key, err := DecodeKey(ref)
			if err != nil {
				return nil, err
			}
			ks.ids[ItemID(table, key)] = true
		}
		if len(ss.Value) < PageItems && size+maxRefLen < PageBytes {
			// The unit never needed another page: the next reference
			// would have fitted in this one.
			return ks, nil
		}
	}
}
