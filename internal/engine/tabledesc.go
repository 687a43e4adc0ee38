package engine

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A table's description (DescribeTable and the answers that carry one),
// its TTL settings, and what its indexes hold of an item.

func (e *Engine) updateTTL(s *scope, in *updateTTLInput) (any, error) {
	t, err := s.lookup(in.TableName)
	if err != nil {
		return nil, err
	}
	spec := in.TimeToLiveSpecification
	if err := checkAttrName(spec.AttributeName); err != nil {
		return nil, err
	}
	switch {
	case spec.Enabled && t.ttlAttr != "" && t.ttlAttr != spec.AttributeName:
		return nil, validation(msgTimeToLiveActiveOnDifferentAttributeName)
	case spec.Enabled && t.ttlAttr != "":
		return nil, validation(msgTimeToLiveAlreadyEnabled)
	case !spec.Enabled && t.ttlAttr == "":
		return nil, validation(msgTimeToLiveAlreadyDisabled)
	case !spec.Enabled && t.ttlAttr != spec.AttributeName:
		return nil, validation(msgTimeToLiveActiveOnDifferentAttributeName)
	}
	if spec.Enabled {
		t.ttlAttr = spec.AttributeName
	} else {
		t.ttlAttr = ""
	}
	t.items.setTTL(t.ttlAttr)
	return map[string]any{"TimeToLiveSpecification": spec}, nil
}

func (e *Engine) describeTTL(s *scope, in *tableNameInput) (any, error) {
	t, err := s.lookup(in.TableName)
	if err != nil {
		return nil, err
	}
	d := map[string]any{"TimeToLiveStatus": "DISABLED"}
	if t.ttlAttr != "" {
		d = map[string]any{"TimeToLiveStatus": "ENABLED", "AttributeName": t.ttlAttr}
	}
	return map[string]any{"TimeToLiveDescription": d}, nil
}

// epoch renders a time as DynamoDB's JSON timestamps: seconds with
// milliseconds.
type epoch time.Time

func (t epoch) MarshalJSON() ([]byte, error) {
	ms := time.Time(t).UnixMilli()
	return []byte(strconv.FormatFloat(float64(ms)/1000, 'f', 3, 64)), nil
}

// arn is the table's ARN as DynamoDB Local writes it.
func (t *table) arn() string {
	return "arn:aws:dynamodb:ddblocal:000000000000:table/" + t.name
}

// indexDesc is an index as a TableDescription shows it.
type indexDesc struct {
	IndexName             string
	KeySchema             []keySchemaElement
	Projection            projection
	IndexStatus           string         `json:",omitempty"`
	Backfilling           *bool          `json:",omitempty"`
	ProvisionedThroughput map[string]any `json:",omitempty"`
	IndexSizeBytes        *int64         `json:",omitempty"`
	ItemCount             *int64         `json:",omitempty"`
	IndexArn              string
}

// describeIndex renders ix, an index of t.
func (t *table) describeIndex(ix *index) indexDesc {
	d := indexDesc{
		IndexName:  ix.name,
		KeySchema:  schemaOf(ix.hash, ix.rng),
		Projection: projection{ProjectionType: ix.projType, NonKeyAttributes: ix.nonKey},
		IndexArn:   t.arn() + "/index/" + ix.name,
	}
	if ix.global {
		d.IndexStatus = "ACTIVE"
		d.ProvisionedThroughput = map[string]any{"ReadCapacityUnits": ix.rcu, "WriteCapacityUnits": ix.wcu}
	}
	switch {
	case ix.creating:
		f := false
		d.IndexStatus, d.Backfilling = "CREATING", &f
	case ix.deleting:
		var zero int64
		d.IndexStatus, d.ItemCount, d.IndexSizeBytes = "DELETING", &zero, &zero
	default:
		n, size := t.indexStats(ix)
		d.ItemCount, d.IndexSizeBytes = &n, &size
	}
	return d
}

// describe renders t as a TableDescription, in DynamoDB Local's shape.
func (t *table) describe(e *Engine) json.RawMessage {
	d := struct {
		AttributeDefinitions      []attributeDefinition
		TableName                 string
		KeySchema                 []keySchemaElement
		TableStatus               string
		CreationDateTime          epoch
		ProvisionedThroughput     map[string]any
		TableSizeBytes            int64
		ItemCount                 int
		TableArn                  string
		BillingModeSummary        map[string]any       `json:",omitempty"`
		LocalSecondaryIndexes     []indexDesc          `json:",omitempty"`
		GlobalSecondaryIndexes    []indexDesc          `json:",omitempty"`
		StreamSpecification       *streamSpecification `json:",omitempty"`
		LatestStreamLabel         string               `json:",omitempty"`
		LatestStreamArn           string               `json:",omitempty"`
		DeletionProtectionEnabled bool
		GlobalTableVersion        string           `json:",omitempty"`
		Replicas                  []map[string]any `json:",omitempty"`
		MultiRegionConsistency    string           `json:",omitempty"`
	}{
		AttributeDefinitions: t.attrDefs,
		TableName:            t.name,
		KeySchema:            schemaOf(t.hash, t.rng),
		TableStatus:          "ACTIVE",
		CreationDateTime:     epoch(t.created),
		ProvisionedThroughput: map[string]any{
			"LastIncreaseDateTime": json.RawMessage("0.000"), "LastDecreaseDateTime": json.RawMessage("0.000"),
			"NumberOfDecreasesToday": 0, "ReadCapacityUnits": t.rcu, "WriteCapacityUnits": t.wcu,
		},
		TableSizeBytes:            t.items.bytes,
		ItemCount:                 t.items.count,
		TableArn:                  t.arn(),
		StreamSpecification:       t.stream,
		DeletionProtectionEnabled: t.protected,
	}
	if t.billing == "PAY_PER_REQUEST" {
		d.BillingModeSummary = map[string]any{"BillingMode": "PAY_PER_REQUEST", "LastUpdateToPayPerRequestDateTime": epoch(t.created)}
	} else if t.switched {
		d.BillingModeSummary = map[string]any{"BillingMode": "PROVISIONED"}
	}
	for _, ix := range t.lsis {
		d.LocalSecondaryIndexes = append(d.LocalSecondaryIndexes, t.describeIndex(ix))
	}
	for _, ix := range t.gsis {
		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, t.describeIndex(ix))
	}
	if len(t.replicas) > 0 {
		d.GlobalTableVersion, d.MultiRegionConsistency = "2019.11.21", t.consistency
		for _, r := range t.replicas {
			d.Replicas = append(d.Replicas, map[string]any{"RegionName": r, "ReplicaStatus": "ACTIVE"})
		}
	}
	if t.stream != nil {
		label := t.created.UTC().Format("2006-01-02T15:04:05.000")
		d.LatestStreamLabel = label
		d.LatestStreamArn = t.arn() + "/stream/" + label
	}
	b, _ := json.Marshal(d)
	return b
}

func schemaOf(hash, rng keyDef) []keySchemaElement {
	ks := []keySchemaElement{{AttributeName: hash.name, KeyType: "HASH"}}
	if rng.name != "" {
		ks = append(ks, keySchemaElement{AttributeName: rng.name, KeyType: "RANGE"})
	}
	return ks
}

// project returns the item as index ix holds it: nil when the item lacks
// one of the index's key attributes or has one of another type (a sparse
// index), else the key attributes of the table and the index and the
// attributes the projection names.
func (t *table) project(ix *index, item map[string]types.AttributeValue) map[string]types.AttributeValue {
	for _, k := range []keyDef{ix.hash, ix.rng} {
		if k.name == "" {
			continue
		}
		v, ok := item[k.name]
		if !ok || typeName(v) != k.typ {
			return nil
		}
	}
	if ix.projType == "ALL" {
		return item
	}
	out := map[string]types.AttributeValue{}
	for _, k := range []keyDef{t.hash, t.rng, ix.hash, ix.rng} {
		if k.name != "" {
			out[k.name] = item[k.name]
		}
	}
	for _, n := range ix.nonKey {
		if v, ok := item[n]; ok {
			out[n] = v
		}
	}
	return out
}
