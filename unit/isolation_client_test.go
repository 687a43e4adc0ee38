package unit_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// isoSeq orders the events of the isolation tests in real time: every
// read takes a number just before its call and another just after it
// returns, and so do units' commits. An event that ended with a smaller
// number than another's start happened before it.
var isoSeq atomic.Int64

func isoNow() int64 { return isoSeq.Add(1) }

// errIsoCrashed is what every call of a crashed isoClient returns.
var errIsoCrashed = errors.New("test: the unit's process crashed")

// isoClient is the client a unit of the isolation tests runs on. It
// forwards every call to c and watches the unit's protocol writes: it
// numbers them, recognises the commit point, and can crash the unit (fail
// every call from some write on, as if the process had died) or hold it
// just before its commit point.
//
// It relies on two hooks into the protocol, kept as loose as possible so
// that they survive changes to it (classPut, classUpdate, classTransact):
//
//   - a protocol write is any PutItem, UpdateItem, DeleteItem,
//     BatchWriteItem or TransactWriteItems, except a heartbeat: an
//     UpdateItem of the coordinator table whose update expression only
//     ADDs numbers (no SET, REMOVE or DELETE, no set value);
//   - the commit point is the write of the coordinator table that sets a
//     value "committed" (an S value that the update expression, or a
//     PutItem's item, uses; a value used only in a condition does not
//     count), alone or inside a TransactWriteItems.
//
// It implements every data call of mapper.Client, so that it satisfies
// unit.Client whatever calls the unit protocol makes.
type isoClient struct {
	c     *dynamodb.Client
	coord string

	// limit lets that many protocol writes through; the next one, and
	// every call after it, fails without being sent. < 0: never.
	limit int64
	// crashAfterCommit fails every call once the commit point returned.
	crashAfterCommit bool
	// hold, if set, makes the commit-point write wait until it is closed;
	// held is closed when it starts waiting.
	hold, held chan struct{}
	heldOnce   sync.Once

	dead   atomic.Bool
	writes atomic.Int64

	mu      sync.Mutex
	cpCount int   // commit-point writes seen
	cpIndex int64 // the number of the (last) commit-point write
	cpSent  int64 // isoSeq just before it was sent
	cpRet   int64 // isoSeq just after it returned
	cpErr   error // its error
}

func newIsoClient(c *dynamodb.Client, coord string) *isoClient {
	return &isoClient{c: c, coord: coord, limit: -1}
}

// commitPoint reports what happened at the commit point: whether its write
// was sent, whether it succeeded (acknowledged), and its isoSeq numbers.
func (cc *isoClient) commitPoint() (sent, acked bool, sentAt, retAt int64) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.cpSent != 0, cc.cpSent != 0 && cc.cpRet != 0 && cc.cpErr == nil, cc.cpSent, cc.cpRet
}

type isoWrite int

const (
	isoNotWrite isoWrite = iota
	isoHeartbeat
	isoProtocolWrite
	isoCommitPoint
)

// isoPlaceholder finds the value placeholders of an expression.
var isoPlaceholder = regexp.MustCompile(`:[A-Za-z0-9_]+`)

// isoCommitted reports whether expr uses a value that is the string
// "committed".
func isoCommitted(expr *string, values map[string]types.AttributeValue) bool {
	for _, p := range isoPlaceholder.FindAllString(aws.ToString(expr), -1) {
		if s, ok := values[p].(*types.AttributeValueMemberS); ok && s.Value == "committed" {
			return true
		}
	}
	return false
}

func isoItemCommitted(item map[string]types.AttributeValue) bool {
	for _, v := range item {
		if s, ok := v.(*types.AttributeValueMemberS); ok && s.Value == "committed" {
			return true
		}
	}
	return false
}

// isoIsHeartbeat: an UpdateItem of the coordinator table that only ADDs
// numbers.
func isoIsHeartbeat(expr string, values map[string]types.AttributeValue) bool {
	e := strings.ToUpper(strings.TrimSpace(expr))
	if !strings.HasPrefix(e, "ADD ") || strings.Contains(e, "SET ") || strings.Contains(e, "REMOVE ") || strings.Contains(e, "DELETE ") {
		return false
	}
	for _, v := range values {
		switch v.(type) {
		case *types.AttributeValueMemberSS, *types.AttributeValueMemberNS, *types.AttributeValueMemberBS:
			return false
		}
	}
	return true
}

// before is called before every call: it fails the call if the process is
// dead or dies now, and notes the commit point.
func (cc *isoClient) before(w isoWrite) error {
	if cc.dead.Load() {
		return errIsoCrashed
	}
	if w == isoNotWrite || w == isoHeartbeat {
		return nil
	}
	n := cc.writes.Add(1)
	if cc.limit >= 0 && n > cc.limit {
		cc.dead.Store(true)
		return errIsoCrashed
	}
	if w == isoCommitPoint {
		if cc.hold != nil {
			cc.heldOnce.Do(func() { close(cc.held) })
			<-cc.hold
		}
		cc.mu.Lock()
		cc.cpCount++
		cc.cpIndex = n
		cc.cpSent, cc.cpRet, cc.cpErr = isoNow(), 0, nil
		cc.mu.Unlock()
	}
	return nil
}

func (cc *isoClient) after(w isoWrite, err error) {
	if w != isoCommitPoint {
		return
	}
	cc.mu.Lock()
	cc.cpRet, cc.cpErr = isoNow(), err
	cc.mu.Unlock()
	if cc.crashAfterCommit {
		cc.dead.Store(true)
	}
}

func (cc *isoClient) classPut(in *dynamodb.PutItemInput) isoWrite {
	if aws.ToString(in.TableName) == cc.coord && isoItemCommitted(in.Item) {
		return isoCommitPoint
	}
	return isoProtocolWrite
}

func (cc *isoClient) classUpdate(in *dynamodb.UpdateItemInput) isoWrite {
	if aws.ToString(in.TableName) == cc.coord {
		if isoCommitted(in.UpdateExpression, in.ExpressionAttributeValues) {
			return isoCommitPoint
		}
		if isoIsHeartbeat(aws.ToString(in.UpdateExpression), in.ExpressionAttributeValues) {
			return isoHeartbeat
		}
	}
	return isoProtocolWrite
}

func (cc *isoClient) classTransact(in *dynamodb.TransactWriteItemsInput) isoWrite {
	for _, it := range in.TransactItems {
		switch {
		case it.Put != nil && aws.ToString(it.Put.TableName) == cc.coord && isoItemCommitted(it.Put.Item),
			it.Update != nil && aws.ToString(it.Update.TableName) == cc.coord && isoCommitted(it.Update.UpdateExpression, it.Update.ExpressionAttributeValues):
			return isoCommitPoint
		}
	}
	return isoProtocolWrite
}

func (cc *isoClient) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if err := cc.before(isoNotWrite); err != nil {
		return nil, err
	}
	return cc.c.GetItem(ctx, in, o...)
}

func (cc *isoClient) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	w := cc.classPut(in)
	if err := cc.before(w); err != nil {
		return nil, err
	}
	out, err := cc.c.PutItem(ctx, in, o...)
	cc.after(w, err)
	return out, err
}

func (cc *isoClient) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	w := cc.classUpdate(in)
	if err := cc.before(w); err != nil {
		return nil, err
	}
	out, err := cc.c.UpdateItem(ctx, in, o...)
	cc.after(w, err)
	return out, err
}

func (cc *isoClient) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	if err := cc.before(isoProtocolWrite); err != nil {
		return nil, err
	}
	return cc.c.DeleteItem(ctx, in, o...)
}

func (cc *isoClient) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	w := cc.classTransact(in)
	if err := cc.before(w); err != nil {
		return nil, err
	}
	out, err := cc.c.TransactWriteItems(ctx, in, o...)
	cc.after(w, err)
	return out, err
}

func (cc *isoClient) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	if err := cc.before(isoProtocolWrite); err != nil {
		return nil, err
	}
	return cc.c.BatchWriteItem(ctx, in, o...)
}

func (cc *isoClient) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if err := cc.before(isoNotWrite); err != nil {
		return nil, err
	}
	return cc.c.Query(ctx, in, o...)
}

func (cc *isoClient) Scan(ctx context.Context, in *dynamodb.ScanInput, o ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	if err := cc.before(isoNotWrite); err != nil {
		return nil, err
	}
	return cc.c.Scan(ctx, in, o...)
}

func (cc *isoClient) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	if err := cc.before(isoNotWrite); err != nil {
		return nil, err
	}
	return cc.c.BatchGetItem(ctx, in, o...)
}

func (cc *isoClient) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	if err := cc.before(isoNotWrite); err != nil {
		return nil, err
	}
	return cc.c.TransactGetItems(ctx, in, o...)
}
