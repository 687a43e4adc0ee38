package engine

import (
	"bytes"
	"encoding/json"
	"slices"
)

// One-pass readers of the requests the library sends most (GetItem,
// PutItem, UpdateItem, DeleteItem, Query, Scan, TransactWriteItems) in the
// SDK's compact form: members named in their exact case, each once,
// strings without escapes, values as fastValue reads them. Anything else
// (another case, a duplicate, a null, a member the reader does not know,
// legacy parameters, a number that is not a plain integer, spaces) makes
// decodeFast report false, and decode reads the body with encoding/json,
// whose reading FuzzDecodeFast holds these to.

// members reads a JSON object of at most maxFastMembers members, each
// once: f reads the value of the member name and reports false for a
// member it does not take. The name is the body's bytes, compared
// (switch string(name)) without allocating.
func (s *scanner) members(f func(name []byte) bool) {
	s.byte('{')
	var seen [maxFastMembers][]byte
	for n := 0; s.ok && s.peek() != '}'; n++ {
		if n > 0 {
			s.byte(',')
		}
		name := s.raw()
		s.byte(':')
		if !s.ok || n == len(seen) || slices.ContainsFunc(seen[:n], func(b []byte) bool { return bytes.Equal(b, name) }) || !f(name) {
			s.ok = false
			return
		}
		seen[n] = name
	}
	s.byte('}')
}

// maxFastMembers is the most members a request's shape has.
const maxFastMembers = 16

// whole reports whether the scanner read all of its input.
func (s *scanner) whole() bool { return s.ok && s.i == len(s.b) }

func (s *scanner) textPtr() *string {
	t := s.text()
	return &t
}

func (s *scanner) boolPtr() *bool {
	b := s.literal()
	return &b
}

// textMap reads an object of strings.
func (s *scanner) textMap() map[string]string { return object(s, s.text) }

// maxFastDigits bounds the digits of an integer intPtr reads: any such
// integer fits an int. Longer ones take the general path, which refuses
// those that do not fit.
const maxFastDigits = 18

// intPtr reads a JSON integer without fraction or exponent.
func (s *scanner) intPtr() *int {
	neg := s.peek() == '-'
	if neg {
		s.i++
	}
	start, n := s.i, 0
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		n = n*10 + int(s.b[s.i]-'0')
		s.i++
	}
	digits := s.i - start
	switch c := s.peek(); {
	case digits == 0 || digits > maxFastDigits || c == '.' || c == 'e' || c == 'E':
		s.ok = false
	case digits > 1 && s.b[start] == '0': // not JSON
		s.ok = false
	}
	if neg {
		n = -n
	}
	return &n
}

func (in *getItemInput) decodeFast(body []byte) bool {
	s := scanner{b: body, ok: true}
	s.members(func(name []byte) bool {
		switch string(name) {
		case "TableName":
			in.TableName = s.text()
		case "Key":
			in.Key = s.item()
		case "ConsistentRead":
			in.ConsistentRead = s.literal()
		case "ProjectionExpression":
			in.ProjectionExpression = s.textPtr()
		case "ExpressionAttributeNames":
			in.ExpressionAttributeNames = s.textMap()
		case "ReturnConsumedCapacity":
			in.ReturnConsumedCapacity = s.text()
		case "AttributesToGet":
			in.AttributesToGet = s.texts()
		default:
			return false
		}
		return true
	})
	return s.whole()
}

// decodeFast reads PutItem, UpdateItem and DeleteItem; the legacy
// parameters are left to the general reading.
func (in *writeInput) decodeFast(body []byte) bool {
	s := scanner{b: body, ok: true}
	s.members(func(name []byte) bool {
		switch string(name) {
		case "TableName":
			in.TableName = s.text()
		case "Key":
			in.Key = s.item()
		case "Item":
			in.Item = s.item()
		case "ConditionExpression":
			in.ConditionExpression = s.textPtr()
		case "UpdateExpression":
			in.UpdateExpression = s.textPtr()
		case "ExpressionAttributeNames":
			in.ExpressionAttributeNames = s.textMap()
		case "ExpressionAttributeValues":
			in.ExpressionAttributeValues = s.item()
		case "ReturnValues":
			in.ReturnValues = s.text()
		case "ReturnValuesOnConditionCheckFailure":
			in.ReturnValuesOnConditionCheckFailure = s.text()
		case "ReturnConsumedCapacity":
			in.ReturnConsumedCapacity = s.text()
		case "ReturnItemCollectionMetrics":
			in.ReturnItemCollectionMetrics = s.text()
		default:
			return false
		}
		return true
	})
	return s.whole()
}

// decodeFast reads Query and Scan; the legacy parameters are left to the
// general reading.
func (in *readInput) decodeFast(body []byte) bool {
	s := scanner{b: body, ok: true}
	s.members(func(name []byte) bool {
		switch string(name) {
		case "TableName":
			in.TableName = s.text()
		case "IndexName":
			in.IndexName = s.textPtr()
		case "KeyConditionExpression":
			in.KeyConditionExpression = s.textPtr()
		case "FilterExpression":
			in.FilterExpression = s.textPtr()
		case "ProjectionExpression":
			in.ProjectionExpression = s.textPtr()
		case "ExpressionAttributeNames":
			in.ExpressionAttributeNames = s.textMap()
		case "ExpressionAttributeValues":
			in.ExpressionAttributeValues = s.item()
		case "Select":
			in.Select = s.text()
		case "Limit":
			in.Limit = s.intPtr()
		case "ExclusiveStartKey":
			in.ExclusiveStartKey = s.item()
		case "ScanIndexForward":
			in.ScanIndexForward = s.boolPtr()
		case "ConsistentRead":
			in.ConsistentRead = s.literal()
		case "ReturnConsumedCapacity":
			in.ReturnConsumedCapacity = s.text()
		case "Segment":
			in.Segment = s.intPtr()
		case "TotalSegments":
			in.TotalSegments = s.intPtr()
		default:
			return false
		}
		return true
	})
	return s.whole()
}

// decodeFast reads TransactWriteItems: each of TransactItems as
// transactWriteItem.decodeFast reads it, kept in actions, and its text in
// TransactItems (for the client request token's comparison).
func (in *transactWriteInput) decodeFast(body []byte) bool {
	s := scanner{b: body, ok: true}
	s.members(func(name []byte) bool {
		switch string(name) {
		case "TransactItems":
			in.TransactItems, in.actions = s.txnItems()
		case "ClientRequestToken":
			in.ClientRequestToken = s.textPtr()
		case "ReturnConsumedCapacity":
			in.ReturnConsumedCapacity = s.text()
		case "ReturnItemCollectionMetrics":
			in.ReturnItemCollectionMetrics = s.text()
		default:
			return false
		}
		return true
	})
	return s.whole()
}

// txnItems reads an array of transactWriteItems, and the text of each.
func (s *scanner) txnItems() ([]json.RawMessage, []transactWriteItem) {
	s.byte('[')
	raws, items := []json.RawMessage{}, []transactWriteItem{}
	for s.ok && s.peek() != ']' {
		if len(items) > 0 {
			s.byte(',')
		}
		start := s.i
		var ti transactWriteItem
		ti.read(s)
		raws = append(raws, append(json.RawMessage(nil), s.b[start:s.i]...))
		items = append(items, ti)
	}
	s.byte(']')
	return raws, items
}

func (ti *transactWriteItem) decodeFast(body []byte) bool {
	s := scanner{b: body, ok: true}
	ti.read(&s)
	return s.whole()
}

// read reads one of TransactItems.
func (ti *transactWriteItem) read(s *scanner) {
	s.members(func(name []byte) bool {
		switch string(name) {
		case "ConditionCheck":
			ti.ConditionCheck = s.txnAction()
		case "Put":
			ti.Put = s.txnAction()
		case "Delete":
			ti.Delete = s.txnAction()
		case "Update":
			ti.Update = s.txnAction()
		default:
			return false
		}
		return true
	})
}

// txnAction reads a Put, Update, Delete or ConditionCheck.
func (s *scanner) txnAction() *txnAction {
	a := &txnAction{}
	s.members(func(name []byte) bool {
		switch string(name) {
		case "TableName":
			a.TableName = s.textPtr()
		case "Key":
			a.Key = s.item()
		case "Item":
			a.Item = s.item()
		case "ConditionExpression":
			a.ConditionExpression = s.textPtr()
		case "UpdateExpression":
			a.UpdateExpression = s.textPtr()
		case "ExpressionAttributeNames":
			a.ExpressionAttributeNames = s.textMap()
		case "ExpressionAttributeValues":
			a.ExpressionAttributeValues = s.item()
		case "ReturnValuesOnConditionCheckFailure":
			a.ReturnValuesOnConditionCheckFailure = s.text()
		default:
			return false
		}
		return true
	})
	return a
}
