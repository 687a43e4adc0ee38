package engine

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The namespaces of DynamoDB's error types, as DynamoDB Local writes them
// in the __type member.
const (
	nsDynamo   = "com.amazonaws.dynamodb.v20120810#"
	nsValidate = "com.amazon.coral.validate#"
)

// apiError is an error answer: its __type, Message and the members some
// errors carry.
type apiError struct {
	status  int
	typ     string // the full __type
	msg     string
	item    map[string]types.AttributeValue // ConditionalCheckFailedException with ALL_OLD
	reasons []reason                        // TransactionCanceledException
}

// reason is one entry of CancellationReasons.
type reason struct {
	Code    string
	Message string
	Item    map[string]types.AttributeValue
}

func (e *apiError) Error() string {
	return e.code() + ": " + e.msg
}

// code is the short error code (the part of __type after '#').
func (e *apiError) code() string {
	return e.typ[strings.IndexByte(e.typ, '#')+1:]
}

// body renders the error as DynamoDB Local does.
func (e *apiError) body() []byte {
	var buf bytes.Buffer
	buf.WriteString(`{"__type":`)
	writeString(&buf, e.typ)
	if e.reasons != nil {
		buf.WriteString(`,"CancellationReasons":[`)
		for i, r := range e.reasons {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteByte('{')
			if r.Item != nil {
				buf.WriteString(`"Item":`)
				writeMap(&buf, r.Item)
				buf.WriteByte(',')
			}
			buf.WriteString(`"Code":`)
			writeString(&buf, r.Code)
			if r.Message != "" {
				buf.WriteString(`,"Message":`)
				writeString(&buf, r.Message)
			}
			buf.WriteByte('}')
		}
		buf.WriteByte(']')
	}
	buf.WriteString(`,"Message":`)
	writeString(&buf, e.msg)
	if e.item != nil {
		buf.WriteString(`,"Item":`)
		writeMap(&buf, e.item)
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

func newError(status int, typ, format string, args ...any) *apiError {
	return &apiError{status: status, typ: typ, msg: fmt.Sprintf(format, args...)}
}

// validation is a ValidationException with DynamoDB's message.
func validation(format string, args ...any) *apiError {
	return newError(http.StatusBadRequest, nsValidate+"ValidationException", format, args...)
}

// invalidParam is a ValidationException of the "One or more parameter values
// were invalid" family.
func invalidParam(format string, args ...any) *apiError {
	return validation("One or more parameter values were invalid: "+format, args...)
}

func notFound(format string, args ...any) *apiError {
	return newError(http.StatusBadRequest, nsDynamo+"ResourceNotFoundException", format, args...)
}

// tableNotFound is DynamoDB Local's answer for an operation on a missing
// table.
func tableNotFound() *apiError {
	return notFound(msgTableNotFound)
}

func inUse(format string, args ...any) *apiError {
	return newError(http.StatusBadRequest, nsDynamo+"ResourceInUseException", format, args...)
}

// conditionFailed is ConditionalCheckFailedException, with the current item
// when the request asked for it.
func conditionFailed(old map[string]types.AttributeValue) *apiError {
	e := newError(http.StatusBadRequest, nsDynamo+"ConditionalCheckFailedException", msgConditionalRequestFailed)
	e.item = old
	return e
}

func serverError(format string, args ...any) *apiError {
	return newError(http.StatusInternalServerError, nsDynamo+"InternalServerError", format, args...)
}

func unknownOperation() *apiError {
	return newError(http.StatusBadRequest, nsDynamo+"UnknownOperationException", msgUnknownOperationRequested)
}

// internalFailure is DynamoDB Local's answer to a body that is not JSON of
// the operation's shape.
func internalFailure() *apiError {
	return newError(http.StatusInternalServerError, nsDynamo+"InternalFailure", msgRequestProcessingHasFailedBecause)
}
