package cond

import (
	"bytes"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DynamoDB's messages for an update that the item, not the expression,
// makes impossible.
const (
	msgNoAttribute = "The provided expression refers to an attribute that does not exist in the item"
	msgBadPath     = "The document path provided in the update expression is invalid for update"
	msgBadOperand  = "An operand in the update expression has an incorrect data type"
)

// Apply returns the item after the update: a new map, sharing nothing with
// item, which is never modified. A nil item is no item; the result then
// holds only what the update writes (the caller adds the key). names and
// values are the request's ExpressionAttributeNames and
// ExpressionAttributeValues; keyNames the table's key attribute names,
// which no action may write.
//
// As DynamoDB does, every operand of SET reads the item as it was before
// the update, and list indexes of all actions refer to the list as it was:
// REMOVE l[0], l[1] removes the first two elements, and SET or ADD of an
// index past the end appends, in the order of the indexes. DELETE of the
// last elements of a set removes the attribute.
//
// Errors are [*Error]s with DynamoDB's message: first those DynamoDB finds
// in the request (undefined placeholders, bad values, operand types,
// overlapping paths, key attributes), then those the item causes.
func (u *Update) Apply(item map[string]types.AttributeValue, names map[string]string, values map[string]types.AttributeValue, keyNames []string) (map[string]types.AttributeValue, error) {
	out, err := u.apply(item, names, values, keyNames)
	if err != nil && u.legacy {
		return nil, legacyError(err)
	}
	return out, err
}

func (u *Update) apply(item map[string]types.AttributeValue, names map[string]string, values map[string]types.AttributeValue, keyNames []string) (map[string]types.AttributeValue, error) {
	paths, err := u.check(names, values)
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		for _, k := range keyNames {
			if p[0].Name == k {
				return nil, refused(msgCannotUpdateAttributeThisAttribute, k)
			}
		}
	}
	out := make(map[string]types.AttributeValue, len(item)+len(u.actions))
	for k, v := range item {
		out[k] = Copy(v)
	}
	w := writer{lists: map[*types.AttributeValueMemberL]*listEdit{}}
	// Actions are applied in order, each checking its path, then reading
	// its operands (on the item before the update), then writing. Paths
	// never overlap, so the order of the writes does not matter; it only
	// decides which error is reported when several actions fail.
	for i, a := range u.actions {
		loc, err := w.locate(out, paths[i])
		if err != nil {
			return nil, err
		}
		var v types.AttributeValue
		if a.kind == actSet {
			if v, err = evalSet(a.set, item, names, values); err != nil {
				return nil, err
			}
		}
		switch a.kind {
		case actSet:
			loc.set(Copy(v))
		case actRemove:
			loc.remove()
		case actAdd:
			if err := loc.add(asStored(values[a.value])); err != nil {
				return nil, err
			}
		case actDelete:
			if err := loc.delete(values[a.value]); err != nil {
				return nil, err
			}
		}
	}
	w.finish()
	return out, nil
}

// Check does the checks DynamoDB does on the update expression when it
// parses it, before it parses or evaluates the ConditionExpression:
// undefined placeholders, invalid values, paths that conflict or overlap,
// operands of the wrong type. Apply does them too; the updates of key
// attributes it refuses only after the condition, as DynamoDB does.
func (u *Update) Check(names map[string]string, values map[string]types.AttributeValue) error {
	_, err := u.check(names, values)
	return err
}

// check does DynamoDB's checks of the update against the request, before
// it reads the item, and returns the resolved paths of the actions.
func (u *Update) check(names map[string]string, values map[string]types.AttributeValue) ([]Path, error) {
	fail := func(err error) ([]Path, error) { return nil, prefixed(err, "UpdateExpression") }
	paths := make([]Path, len(u.actions))
	for _, n := range u.ph.names {
		if _, ok := names[n]; !ok {
			return fail(invalid(msgNameNotDefined, n))
		}
	}
	// DynamoDB checks the values before the expression.
	for _, v := range u.ph.values {
		if val, ok := values[v]; ok {
			if err := validateExpressionValue(v, val); err != nil {
				return nil, err
			}
		}
	}
	for i, a := range u.actions {
		p, err := resolvePath(a.path, names)
		if err != nil {
			return fail(err)
		}
		paths[i] = p
	}
	// Conflicts (a name and an index at one level) are reported before
	// overlaps (a path that is a prefix of another, or equal).
	if err := checkOverlaps(paths); err != nil {
		return fail(err)
	}
	// DynamoDB Local checks the actions from the last written to the
	// first, each operand tree in post-order: an undefined :value, then
	// the operand types of the function or operator above it.
	for i := len(u.written) - 1; i >= 0; i-- {
		a := u.written[i]
		switch a.kind {
		case actSet:
			if err := checkSetTypes(a.set, values); err != nil {
				return fail(err)
			}
		case actAdd:
			if err := defined(a.value, values); err != nil {
				return fail(err)
			}
			switch t := typeOf(values[a.value]); t {
			case typeN, typeSS, typeNS, typeBS:
			default:
				return fail(invalid(msgIncorrectOperandTypeADD, longType(t)))
			}
		case actDelete:
			if err := defined(a.value, values); err != nil {
				return fail(err)
			}
			switch t := typeOf(values[a.value]); t {
			case typeSS, typeNS, typeBS:
			default:
				return fail(invalid(msgIncorrectOperandTypeDELETE, longType(t)))
			}
		}
	}
	return paths, nil
}

// longType is the name DynamoDB's messages give a type code.
func longType(t string) string {
	switch t {
	case typeS:
		return "STRING"
	case typeN:
		return "NUMBER"
	case typeB:
		return "BINARY"
	case typeSS:
		return "STRING_SET"
	case typeNS:
		return "NUMBER_SET"
	case typeBS:
		return "BINARY_SET"
	case typeBOOL:
		return "BOOLEAN"
	case typeNULL:
		return "NULL"
	case typeL:
		return "LIST"
	case typeM:
		return "MAP"
	}
	return t
}

// defined refuses a :value missing from ExpressionAttributeValues.
func defined(v string, values map[string]types.AttributeValue) error {
	if _, ok := values[v]; !ok {
		return invalid(msgValueNotDefined, v)
	}
	return nil
}

// checkSetTypes checks the right side of SET in post-order: each operand
// (undefined :value, the checks of a function), then the types of the
// operands of + or - (which take N).
func checkSetTypes(s *setValue, values map[string]types.AttributeValue) error {
	for _, o := range []*operand{s.left, s.right} {
		if err := checkOperand(o, values); err != nil {
			return err
		}
	}
	if s.op != 0 {
		for _, o := range []*operand{s.left, s.right} {
			if err := checkOperandType(o, opText2(s.op), typeN, values); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkOperand checks an operand of SET in post-order: its arguments,
// then the function itself (if_not_exists takes a path first,
// list_append takes L).
func checkOperand(o *operand, values map[string]types.AttributeValue) error {
	if o == nil {
		return nil
	}
	if o.kind == oValue {
		if o.value == "" { // a refused function, reported while parsing
			return nil
		}
		return defined(o.value, values)
	}
	for _, a := range o.args {
		if err := checkOperand(a, values); err != nil {
			return err
		}
	}
	switch o.kind {
	case oIfNotExists:
		if o.args[0].kind != oPath {
			return invalid(msgIfNotExistsRequiresPath)
		}
	case oListAppend:
		for _, a := range o.args {
			if err := checkOperandType(a, "list_append", typeL, values); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkOperandType(o *operand, op, want string, values map[string]types.AttributeValue) error {
	if o.kind != oValue {
		return nil
	}
	if t := typeOf(values[o.value]); t != want && t != "" {
		return invalid(msgIncorrectOperandType, op, t)
	}
	return nil
}

func opText2(op tokKind) string {
	if op == tokPlus {
		return "+"
	}
	return "-"
}

// pathsConflict reports whether two paths agree up to a level where one
// has a name and the other an index.
func pathsConflict(a, b Path) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		switch {
		case a[i].IsIndex != b[i].IsIndex:
			return true
		case a[i] != b[i]:
			return false
		}
	}
	return false
}

// pathsOverlap reports whether one path is a prefix of the other.
func pathsOverlap(a, b Path) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// evalSet evaluates the right side of SET on the item before the update.
func evalSet(s *setValue, item map[string]types.AttributeValue, names map[string]string, values map[string]types.AttributeValue) (types.AttributeValue, error) {
	if s.op == 0 {
		return evalOperand(s.left, item, names, values)
	}
	ln, rn, err := evalBoth[*types.AttributeValueMemberN](s.left, s.right, item, names, values)
	if err != nil {
		return nil, err
	}
	sum, err := addNumbers(ln.Value, rn.Value, s.op == tokMinus)
	if err != nil {
		return nil, err
	}
	return &types.AttributeValueMemberN{Value: sum}, nil
}

// evalBoth evaluates the operands a and b of + or - (numbers, V is
// *types.AttributeValueMemberN) or list_append (lists): an operand of
// another type is refused.
func evalBoth[V types.AttributeValue](a, b *operand, item map[string]types.AttributeValue, names map[string]string, values map[string]types.AttributeValue) (V, V, error) {
	var zero V
	x, err := evalOperand(a, item, names, values)
	if err != nil {
		return zero, zero, err
	}
	y, err := evalOperand(b, item, names, values)
	if err != nil {
		return zero, zero, err
	}
	xv, ok1 := x.(V)
	yv, ok2 := y.(V)
	if !ok1 || !ok2 {
		return zero, zero, refused(msgBadOperand)
	}
	return xv, yv, nil
}

func evalOperand(o *operand, item map[string]types.AttributeValue, names map[string]string, values map[string]types.AttributeValue) (types.AttributeValue, error) {
	switch o.kind {
	case oValue:
		return asStored(values[o.value]), nil
	case oPath:
		v := (&evaluator{item: item, names: names}).resolve(o.path)
		if v == nil {
			return nil, refused(msgNoAttribute)
		}
		return v, nil
	case oIfNotExists:
		if v := (&evaluator{item: item, names: names}).resolve(o.args[0].path); v != nil {
			return v, nil
		}
		return evalOperand(o.args[1], item, names, values)
	}
	al, bl, err := evalBoth[*types.AttributeValueMemberL](o.args[0], o.args[1], item, names, values)
	if err != nil {
		return nil, err
	}
	l := make([]types.AttributeValue, 0, len(al.Value)+len(bl.Value))
	l = append(append(l, al.Value...), bl.Value...)
	return &types.AttributeValueMemberL{Value: l}, nil
}

// Copy returns a deep copy of v, sharing no slice or map with it.
func Copy(v types.AttributeValue) types.AttributeValue {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return &types.AttributeValueMemberS{Value: v.Value}
	case *types.AttributeValueMemberN:
		return &types.AttributeValueMemberN{Value: v.Value}
	case *types.AttributeValueMemberB:
		return &types.AttributeValueMemberB{Value: bytes.Clone(v.Value)}
	case *types.AttributeValueMemberBOOL:
		return &types.AttributeValueMemberBOOL{Value: v.Value}
	case *types.AttributeValueMemberNULL:
		return &types.AttributeValueMemberNULL{Value: v.Value}
	case *types.AttributeValueMemberSS:
		return &types.AttributeValueMemberSS{Value: append([]string{}, v.Value...)}
	case *types.AttributeValueMemberNS:
		return &types.AttributeValueMemberNS{Value: append([]string{}, v.Value...)}
	case *types.AttributeValueMemberBS:
		out := make([][]byte, len(v.Value))
		for i, b := range v.Value {
			out[i] = bytes.Clone(b)
		}
		return &types.AttributeValueMemberBS{Value: out}
	}
	return mapElements(v, Copy)
}

// asStored returns v as DynamoDB Local stores a value of
// ExpressionAttributeValues: as given, except that the elements of number
// sets, at any depth, are rewritten as Java's BigDecimal.toString does
// ("010" is "10", "1E+100" stays, "-42.0" stays).
func asStored(v types.AttributeValue) types.AttributeValue {
	switch v := v.(type) {
	case *types.AttributeValueMemberNS:
		out := make([]string, len(v.Value))
		for i, n := range v.Value {
			out[i] = javaString(n)
		}
		return &types.AttributeValueMemberNS{Value: out}
	}
	return mapElements(v, asStored)
}

// mapElements returns a new list or map of f of each element of v, a list
// or a map; any other v as it is.
func mapElements(v types.AttributeValue, f func(types.AttributeValue) types.AttributeValue) types.AttributeValue {
	switch v := v.(type) {
	case *types.AttributeValueMemberL:
		out := make([]types.AttributeValue, len(v.Value))
		for i, e := range v.Value {
			out[i] = f(e)
		}
		return &types.AttributeValueMemberL{Value: out}
	case *types.AttributeValueMemberM:
		out := make(map[string]types.AttributeValue, len(v.Value))
		for k, e := range v.Value {
			out[k] = f(e)
		}
		return &types.AttributeValueMemberM{Value: out}
	}
	return v
}
