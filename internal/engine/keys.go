package engine

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// Keys: reading a request's key against the table's schema, and the
// checks of a new item's key and index key attributes.

// keyOf reads a primary key given as a Key parameter: exactly the table's
// key attributes, of their types. It returns the key in stored form.
func (t *table) keyOf(key item) (hash, rng types.AttributeValue, err error) {
	if key == nil {
		return nil, nil, validation(msgNullKey)
	}
	m, err := key.attrs()
	if err != nil {
		return nil, nil, err
	}
	want := 1
	if t.rng.name != "" {
		want = 2
	}
	if len(m) != want {
		return nil, nil, validation(msgNumberConditionsOnKeys)
	}
	if hash, err = t.keyValue(t.hash, m, true); err != nil {
		return nil, nil, err
	}
	if t.rng.name != "" {
		if rng, err = t.keyValue(t.rng, m, true); err != nil {
			return nil, nil, err
		}
	}
	return hash, rng, nil
}

// keyValue checks one key attribute of m. inKey is true for a Key
// parameter, false for an Item; DynamoDB Local words the errors of both
// alike.
func (t *table) keyValue(k keyDef, m map[string]types.AttributeValue, inKey bool) (types.AttributeValue, error) {
	v, ok := m[k.name]
	if !ok {
		// DynamoDB Local words it so for a Key and an Item alike.
		return nil, validation(msgRequiredKeysNotGiven)
	}
	switch typeName(v) {
	case k.typ:
	case "S", "N", "B":
		return nil, invalidParam(msgTypeMismatchKey)
	case "":
		return nil, validation(msgSuppliedAttributeValueEmptyContainExactly)
	default:
		return nil, validation(msgInvalidAttributeValueType)
	}
	v, err := checkValue(v)
	if err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		if v.Value == "" {
			return nil, validation(msgEmptyStringKey, k.name)
		}
	case *types.AttributeValueMemberB:
		if len(v.Value) == 0 {
			return nil, validation(msgEmptyBinaryKey, k.name)
		}
	}
	limit := 2048
	if k != t.hash {
		limit = 1024
	}
	if attrs.KeySize(v) > limit {
		return nil, validation(msgHashPrimaryKeyUnder2048)
	}
	return v, nil
}

// checkNewItem checks an item to be stored in t: its values, its key, the
// index keys it carries and its size. It returns the item in stored form
// and its key values.
func (t *table) checkNewItem(m map[string]types.AttributeValue) (map[string]types.AttributeValue, types.AttributeValue, types.AttributeValue, error) {
	m, err := checkItem(m)
	if err != nil {
		return nil, nil, nil, err
	}
	return t.checkNewKeys(m)
}

// checkNewKeys is checkNewItem of an item whose values checkItem checked.
func (t *table) checkNewKeys(m map[string]types.AttributeValue) (map[string]types.AttributeValue, types.AttributeValue, types.AttributeValue, error) {
	hash, err := t.keyValue(t.hash, m, false)
	if err != nil {
		return nil, nil, nil, err
	}
	var rng types.AttributeValue
	if t.rng.name != "" {
		if rng, err = t.keyValue(t.rng, m, false); err != nil {
			return nil, nil, nil, err
		}
	}
	if err := t.checkIndexKeys(m); err != nil {
		return nil, nil, nil, err
	}
	return m, hash, rng, nil
}

// checkIndexKeys refuses an item whose index key attribute has the wrong
// type or an empty value (an absent one makes the index sparse).
func (t *table) checkIndexKeys(m map[string]types.AttributeValue) error {
	for _, ixs := range [2][]*index{t.lsis, t.gsis} {
		if err := t.checkKeysOf(ixs, m); err != nil {
			return err
		}
	}
	return nil
}

// checkKeysOf is checkIndexKeys of the indexes ixs.
func (t *table) checkKeysOf(ixs []*index, m map[string]types.AttributeValue) error {
	for _, ix := range ixs {
		for _, k := range [2]keyDef{ix.hash, ix.rng} {
			if k.name == "" || k.name == t.hash.name || k.name == t.rng.name {
				continue
			}
			v, ok := m[k.name]
			if !ok {
				continue
			}
			switch typeName(v) {
			case k.typ:
			case "S", "N", "B":
				return invalidParam(msgTypeMismatchIndexKey)
			default:
				// A set, list, map, BOOL or NULL, as for a table's key.
				return validation(msgInvalidAttributeValueType)
			}
			limit := 1024
			if k == ix.hash {
				limit = 2048
			}
			if attrs.KeySize(v) > limit {
				return invalidParam(msgSizeLimitExceeded)
			}
			empty := false
			switch v := v.(type) {
			case *types.AttributeValueMemberS:
				empty = v.Value == ""
			case *types.AttributeValueMemberB:
				empty = len(v.Value) == 0
			}
			if empty {
				kind := "string"
				if k.typ == "B" {
					kind = "binary"
				}
				return validation(msgNotValidSpecifiedSecondaryIndex, kind, ix.name, k.name)
			}
		}
	}
	return nil
}

func (t *table) keyNames() []string {
	if t.rng.name == "" {
		return []string{t.hash.name}
	}
	return []string{t.hash.name, t.rng.name}
}
