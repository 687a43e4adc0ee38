package cond

// Operands returns the document paths the update's SET actions read (the
// operands on their right side, inside if_not_exists and list_append
// too), resolved with names, in the order written. DynamoDB refuses a
// nested path into a key attribute among them, as in a condition.
func (u *Update) Operands(names map[string]string) ([]Path, error) {
	var out []Path
	var walk func(o *operand) error
	walk = func(o *operand) error {
		if o == nil {
			return nil
		}
		if o.kind == oPath {
			p, err := resolvePath(o.path, names)
			if err != nil {
				return prefixed(err, "UpdateExpression")
			}
			out = append(out, p)
		}
		for _, a := range o.args {
			if err := walk(a); err != nil {
				return err
			}
		}
		return nil
	}
	for _, a := range u.written {
		if a.set == nil {
			continue
		}
		if err := walk(a.set.left); err != nil {
			return nil, err
		}
		if err := walk(a.set.right); err != nil {
			return nil, err
		}
	}
	return out, nil
}
