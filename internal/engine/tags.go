package engine

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tagging: TagResource, UntagResource, ListTagsOfResource, and the Tags of
// CreateTable. DynamoDB Local answers all three with
// UnknownOperationException, so their checks and wording are DynamoDB's,
// as measured on DynamoDB itself: every check runs before anything
// changes, so a request with one bad tag applies none.

type (
	tagInput struct {
		Key   *string
		Value *string
	}
	tagResourceInput struct {
		ResourceArn string
		Tags        []tagInput
	}
	untagResourceInput struct {
		ResourceArn string
		TagKeys     []*string
	}
	listTagsInput struct {
		ResourceArn string
		NextToken   *string
	}
)

const (
	// maxTags is how many tags a table may have.
	maxTags = 50
	// maxTagKey and maxTagValue bound a tag's key and value, in characters.
	maxTagKey, maxTagValue = 128, 256
)

// tableARN is the shape of a table's ARN; the name is checked apart.
var tableARN = regexp.MustCompile(`^arn:aws:dynamodb:[^:]+:[^:]+:table/([^/]+)$`)

// tagged resolves a ResourceArn to a table of s. missing is the message of
// ResourceNotFoundException, which DynamoDB words per operation.
func (s *scope) tagged(arn, missing string) (*table, error) {
	t, err := s.taggedARN(arn)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, notFound("%s", missing)
	}
	return t, nil
}

// taggedARN checks a ResourceArn's shape and returns its table, nil when
// the scope has no table of that ARN (the engine's tables have the ARN
// DescribeTable gives).
func (s *scope) taggedARN(arn string) (*table, error) {
	m := tableARN.FindStringSubmatch(arn)
	if m == nil || checkName(m[1]) != nil {
		return nil, validation(msgInvalidTableArnResource, arn)
	}
	t := s.tables[m[1]]
	if t == nil || t.arn() != arn {
		return nil, nil
	}
	return t, nil
}

// tagChars reports whether s holds only what DynamoDB allows in a tag:
// letters and digits of any script, white space, and + - = . _ : / @.
func tagChars(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsSpace(r) || strings.ContainsRune("+-=._:/@", r) {
			continue
		}
		return false
	}
	return true
}

// checkTagKey checks a tag key as TagResource and UntagResource do.
func checkTagKey(k *string) error {
	if k == nil {
		return validation(msgInvalidTagKeyNull)
	}
	if n := utf8.RuneCountInString(*k); n < 1 || n > maxTagKey || !tagChars(*k) {
		return validation(msgInvalidTagKey, *k)
	}
	return nil
}

// checkTags checks the tags of a TagResource or a CreateTable and returns
// them as a map.
func checkTags(tags []tagInput) (map[string]string, error) {
	out := make(map[string]string, len(tags))
	for _, tg := range tags {
		if err := checkTagKey(tg.Key); err != nil {
			return nil, err
		}
		if strings.HasPrefix(*tg.Key, "aws:") {
			return nil, validation(msgTagKeyCannotPrefixedAws, *tg.Key)
		}
		if tg.Value == nil {
			return nil, validation(msgTagNull)
		}
		if utf8.RuneCountInString(*tg.Value) > maxTagValue || !tagChars(*tg.Value) {
			return nil, validation(msgInvalidTagValue, *tg.Value)
		}
		if _, dup := out[*tg.Key]; dup {
			return nil, validation(msgDuplicateTagKeysAsInput, *tg.Key)
		}
		out[*tg.Key] = *tg.Value
	}
	return out, nil
}

// tooManyTags is DynamoDB's refusal of more than 50 tags on a table (a
// ValidationException, not a LimitExceededException).
func tooManyTags() error {
	return validation(msgNumberTagsExceedCurrentLimit)
}

// mergeTags returns t's tags with add applied, or the refusal of a result
// of more than 50 tags.
func (t *table) mergeTags(add map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(t.tags)+len(add))
	for k, v := range t.tags {
		out[k] = v
	}
	for k, v := range add {
		out[k] = v
	}
	if len(out) > maxTags {
		return nil, tooManyTags()
	}
	return out, nil
}

func (e *Engine) tagResource(s *scope, in *tagResourceInput) (any, error) {
	if in.ResourceArn == "" {
		return nil, validation(msgInvalidTableArn)
	}
	if in.Tags == nil {
		return nil, validation(msgConstraintTagsNotNull)
	}
	t, err := s.taggedARN(in.ResourceArn)
	if err != nil {
		return nil, err
	}
	if len(in.Tags) == 0 {
		return nil, validation(msgNoTags)
	}
	add, err := checkTags(in.Tags)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, notFound(msgRequestedResourceNotFoundResourcArn, in.ResourceArn)
	}
	merged, err := t.mergeTags(add)
	if err != nil {
		return nil, err
	}
	t.tags = merged
	return struct{}{}, nil
}

func (e *Engine) untagResource(s *scope, in *untagResourceInput) (any, error) {
	if in.ResourceArn == "" {
		return nil, validation(msgInvalidTableArn)
	}
	if in.TagKeys == nil {
		return nil, validation(msgConstraintTagKeysNotNull)
	}
	t, err := s.taggedARN(in.ResourceArn)
	if err != nil {
		return nil, err
	}
	if len(in.TagKeys) == 0 {
		return nil, validation(msgNoTagKeys)
	}
	for _, k := range in.TagKeys {
		if err := checkTagKey(k); err != nil {
			return nil, err
		}
	}
	if len(in.TagKeys) > maxTags {
		return nil, tooManyTags()
	}
	if t == nil {
		// DynamoDB names no ARN here, unlike TagResource.
		return nil, notFound(msgRequestedResourceNotFound)
	}
	if len(t.tags) > 0 {
		left := make(map[string]string, len(t.tags))
		for k, v := range t.tags {
			left[k] = v
		}
		for _, k := range in.TagKeys {
			delete(left, *k)
		}
		t.tags = left
	}
	return struct{}{}, nil
}

// listTagsOfResource returns a table's tags ordered by key. DynamoDB
// answers up to 50 tags (all a table may have) in one page, without
// NextToken; a NextToken resumes after the tag key it holds.
func (e *Engine) listTagsOfResource(s *scope, in *listTagsInput) (any, error) {
	if in.ResourceArn == "" {
		return nil, validation(msgInvalidTableArn)
	}
	t, err := s.tagged(in.ResourceArn, "Requested resource not found: ResourcArn: "+in.ResourceArn+" not found")
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(t.tags))
	for k := range t.tags {
		if in.NextToken == nil || k > *in.NextToken {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	tags := make([]map[string]string, 0, len(keys))
	for _, k := range keys {
		tags = append(tags, map[string]string{"Key": k, "Value": t.tags[k]})
	}
	return map[string]any{"Tags": tags}, nil
}

// createTags checks the Tags of a CreateTable: as TagResource's, at most
// 50; none is fine.
func createTags(tags []tagInput) (map[string]string, error) {
	m, err := checkTags(tags)
	if err != nil {
		return nil, err
	}
	if len(m) > maxTags {
		return nil, tooManyTags()
	}
	return m, nil
}
