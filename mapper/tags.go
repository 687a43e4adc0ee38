package mapper

import (
	"errors"
	"fmt"
	"strings"
)

// TagKey is the struct tag the mapper reads: `dynamo:"name,opt,opt"`.
const TagKey = "dynamo"

// tag is a parsed struct tag: the attribute name, our own options (hash,
// range, version) and the attributevalue options passed through.
type tag struct {
	name string
	skip bool // "-"

	hash, rng, version, ttl bool

	omitEmpty, omitEmptyElem, nullEmpty, nullEmptyElem  bool
	asString, binarySet, numberSet, stringSet, unixTime bool
}

// avFlags are the attributevalue options a tag passes through, in the
// canonical order avOptions writes them, each with the field it sets: the
// one list that parsing, merging and listing the options read.
var avFlags = []struct {
	name string
	flag func(*tag) *bool
}{
	{"omitempty", func(t *tag) *bool { return &t.omitEmpty }},
	{"omitemptyelem", func(t *tag) *bool { return &t.omitEmptyElem }},
	{"nullempty", func(t *tag) *bool { return &t.nullEmpty }},
	{"nullemptyelem", func(t *tag) *bool { return &t.nullEmptyElem }},
	{"string", func(t *tag) *bool { return &t.asString }},
	{"binaryset", func(t *tag) *bool { return &t.binarySet }},
	{"numberset", func(t *tag) *bool { return &t.numberSet }},
	{"stringset", func(t *tag) *bool { return &t.stringSet }},
	{"unixtime", func(t *tag) *bool { return &t.unixTime }},
}

// avOptions lists the attributevalue options set, in a canonical order, as
// they would be written in a tag.
func (t tag) avOptions() []string {
	var opts []string
	for _, o := range avFlags {
		if *o.flag(&t) {
			opts = append(opts, o.name)
		}
	}
	return opts
}

func (t tag) isSet() bool { return t.binarySet || t.numberSet || t.stringSet }

// parseTag parses a `dynamo` tag strictly: an unknown, empty or repeated
// option, or options that contradict each other, are errors (attributevalue
// ignores unknown options silently; a typo such as "hsh" would then drop the
// key without a word).
func parseTag(s string) (tag, error) {
	var t tag
	parts := strings.Split(s, ",")
	t.name = parts[0]
	if t.name == "-" {
		if len(parts) > 1 {
			return t, fmt.Errorf("options %q on a field skipped with \"-\"", strings.Join(parts[1:], ","))
		}
		t.skip = true
		return t, nil
	}
	seen := make(map[string]bool, len(parts))
	for _, opt := range parts[1:] {
		if seen[opt] {
			return t, fmt.Errorf("option %q given twice", opt)
		}
		seen[opt] = true
		switch {
		case opt == "hash":
			t.hash = true
		case opt == "range":
			t.rng = true
		case opt == "version":
			t.version = true
		case opt == "ttl":
			t.ttl = true
		case t.setAVOption(opt):
		case opt == "":
			return t, errors.New("empty option (stray comma)")
		default:
			return t, fmt.Errorf("unknown option %q (known: hash, range, version, ttl, omitempty, omitemptyelem, nullempty, nullemptyelem, string, stringset, numberset, binaryset, unixtime)", opt)
		}
	}
	switch {
	case t.hash && t.rng:
		return t, errors.New("a field cannot be both hash and range key")
	case t.version && (t.hash || t.rng):
		return t, errors.New("the version field cannot be a key")
	case t.ttl && (t.hash || t.rng || t.version):
		return t, errors.New("the ttl field cannot be a key or the version")
	case t.omitEmpty && t.nullEmpty:
		return t, errors.New("omitempty and nullempty contradict each other")
	case t.omitEmptyElem && t.nullEmptyElem:
		return t, errors.New("omitemptyelem and nullemptyelem contradict each other")
	case btoi(t.binarySet)+btoi(t.numberSet)+btoi(t.stringSet) > 1:
		return t, errors.New("at most one of stringset, numberset, binaryset")
	}
	return t, nil
}

// setAVOption sets the attributevalue option opt, and reports whether opt
// is one.
func (t *tag) setAVOption(opt string) bool {
	for _, o := range avFlags {
		if o.name == opt {
			*o.flag(t) = true
			return true
		}
	}
	return false
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// parseAVTag reads a `dynamodbav` tag the way attributevalue does: it is
// honoured for fields without a `dynamo` tag, unknown options are ignored.
func parseAVTag(s string) tag {
	var t tag
	parts := strings.Split(s, ",")
	t.name = parts[0]
	if t.name == "-" {
		t.skip = true
		return t
	}
	for _, opt := range parts[1:] {
		t.setAVOption(opt)
	}
	return t
}

// mergeTags applies a `dynamo` tag over a `dynamodbav` one as attributevalue
// does: the name (and "-") come from the later tag, options accumulate.
func mergeTags(av, dyn tag) tag {
	for _, o := range avFlags {
		*o.flag(&dyn) = *o.flag(&dyn) || *o.flag(&av)
	}
	return dyn
}
