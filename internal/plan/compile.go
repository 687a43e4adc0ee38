package plan

import (
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Compiled is an update expression ready for UpdateItem: the expression and
// its placeholders. Names use #u0, #u1, ... and values :u0, :u1, ..., so
// that they never collide with those of the expression package (#0, :0) or
// of the fixed version conditions (#k, #v, :v, #lk) in a condition built
// beside it.
type Compiled struct {
	Expression string
	Names      map[string]string
	Values     map[string]types.AttributeValue
}

// Compile renders actions as one update expression, encoding values given
// as Go values with enc (nil: as they were encoded when the action was
// made). It is the one renderer of update actions: an Update, a Save, a
// unit's own writes. No action at all is [ErrNoActions].
func Compile(actions []Action, enc *Encoder) (Compiled, error) {
	if len(actions) == 0 {
		return Compiled{}, ErrNoActions
	}
	c := compiler{out: Compiled{
		Names:  make(map[string]string, len(actions)),
		Values: make(map[string]types.AttributeValue, len(actions)),
	}}
	var set, add, remove, del []string
	for i := range actions {
		a := &actions[i]
		v, err := a.Encoded(enc)
		if err != nil {
			return Compiled{}, err
		}
		p := c.path(a.Path)
		switch a.Kind {
		case Set:
			set = append(set, p+" = "+c.value(v))
		case SetIfNotExists:
			set = append(set, p+" = if_not_exists("+p+", "+c.value(v)+")")
		case Add:
			add = append(add, p+" "+c.value(v))
		case Delete:
			del = append(del, p+" "+c.value(v))
		case Remove:
			remove = append(remove, p)
		case Append:
			set = append(set, p+" = list_append(if_not_exists("+p+", "+c.value(EmptyList())+"), "+c.value(v)+")")
		case Prepend:
			set = append(set, p+" = list_append("+c.value(v)+", if_not_exists("+p+", "+c.value(EmptyList())+"))")
		}
	}
	var sb strings.Builder
	for _, clause := range []struct {
		kw    string
		parts []string
	}{{"ADD", add}, {"DELETE", del}, {"REMOVE", remove}, {"SET", set}} {
		if len(clause.parts) == 0 {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(clause.kw)
		sb.WriteByte(' ')
		sb.WriteString(strings.Join(clause.parts, ", "))
	}
	c.out.Expression = sb.String()
	return c.out, nil
}

type compiler struct {
	out   Compiled
	names map[string]string // attribute name → placeholder
}

func (c *compiler) name(n string) string {
	if ph, ok := c.names[n]; ok {
		return ph
	}
	if c.names == nil {
		c.names = map[string]string{}
	}
	ph := "#u" + strconv.Itoa(len(c.names))
	c.names[n] = ph
	c.out.Names[ph] = n
	return ph
}

func (c *compiler) value(v types.AttributeValue) string {
	ph := ":u" + strconv.Itoa(len(c.out.Values))
	c.out.Values[ph] = v
	return ph
}

func (c *compiler) path(p Path) string { return p.render(c.name) }
