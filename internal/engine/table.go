package engine

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Table operations: CreateTable, DescribeTable, UpdateTable, DeleteTable,
// ListTables, UpdateTimeToLive, DescribeTimeToLive. Tables are ACTIVE as
// soon as they are created (DynamoDB Local's behaviour too); an index added
// by UpdateTable is CREATING in that call's answer and ACTIVE afterwards.

type keyDef struct {
	name string
	typ  string // S, N or B
}

// index is a global or local secondary index.
type index struct {
	name     string
	global   bool
	hash     keyDef
	rng      keyDef // name "" when the index has no range key
	projType string // ALL, KEYS_ONLY, INCLUDE
	nonKey   []string
	rcu, wcu int64
	creating bool     // created by UpdateTable, reported CREATING once
	deleting bool     // deleted by UpdateTable, in that call's answer only
	st       *ixState // its items, shared by the copies UpdateTable makes
}

// table is one table of a scope.
type table struct {
	name      string
	created   time.Time
	hash, rng keyDef
	attrDefs  []attributeDefinition
	gsis      []*index
	lsis      []*index
	billing   string // PROVISIONED or PAY_PER_REQUEST
	switched  bool   // billing mode set by UpdateTable: summarised even when PROVISIONED
	rcu, wcu  int64
	stream    *streamSpecification
	ttlAttr   string
	protected bool
	items     *store
	// replicas are the other Regions of a global table (version
	// 2019.11.21), in the order added; consistency is its
	// MultiRegionConsistency (EVENTUAL or STRONG) once it has replicas.
	replicas    []string
	consistency string
}

// Wire shapes of the table operations.
type (
	keySchemaElement struct {
		AttributeName string
		KeyType       string
	}
	attributeDefinition struct {
		AttributeName string
		AttributeType string
	}
	projection struct {
		ProjectionType   string   `json:",omitempty"`
		NonKeyAttributes []string `json:",omitempty"`
	}
	throughput struct {
		ReadCapacityUnits  *int64 `json:",omitempty"`
		WriteCapacityUnits *int64 `json:",omitempty"`
	}
	indexInput struct {
		IndexName             string
		KeySchema             []keySchemaElement
		Projection            projection
		ProvisionedThroughput *throughput
	}
	streamSpecification struct {
		StreamEnabled  bool
		StreamViewType string `json:",omitempty"`
	}
	createTableInput struct {
		TableName                 string
		KeySchema                 []keySchemaElement
		AttributeDefinitions      []attributeDefinition
		GlobalSecondaryIndexes    []indexInput
		LocalSecondaryIndexes     []indexInput
		BillingMode               string
		ProvisionedThroughput     *throughput
		StreamSpecification       *streamSpecification
		DeletionProtectionEnabled *bool
	}
	tableNameInput struct {
		TableName string
	}
	gsiUpdate struct {
		Create *indexInput
		Delete *struct{ IndexName string }
		Update *struct {
			IndexName             string
			ProvisionedThroughput *throughput
		}
	}
	updateTableInput struct {
		TableName                   string
		AttributeDefinitions        []attributeDefinition
		GlobalSecondaryIndexUpdates []gsiUpdate
		BillingMode                 string
		ProvisionedThroughput       *throughput
		StreamSpecification         *streamSpecification
		DeletionProtectionEnabled   *bool
		ReplicaUpdates              []replicaUpdate
		MultiRegionConsistency      string
	}
	replicaUpdate struct {
		Create *struct{ RegionName string }
		Delete *struct{ RegionName string }
	}
	listTablesInput struct {
		ExclusiveStartTableName string
		Limit                   *int
	}
	ttlSpecification struct {
		Enabled       bool
		AttributeName string
	}
	updateTTLInput struct {
		TableName               string
		TimeToLiveSpecification ttlSpecification
	}
)

func init() {
	op("CreateTable", (*Engine).createTable)
	op("DescribeTable", (*Engine).describeTable)
	op("UpdateTable", (*Engine).updateTable)
	op("DeleteTable", (*Engine).deleteTable)
	op("ListTables", (*Engine).listTables)
	op("UpdateTimeToLive", (*Engine).updateTTL)
	op("DescribeTimeToLive", (*Engine).describeTTL)
}

var nameRE = regexp.MustCompile(`^[a-zA-Z0-9_.-]{3,255}$`)

func checkName(name string) error {
	if !nameRE.MatchString(name) {
		return validation("Invalid table/index name.  Table/index names must be between 3 and 255 characters long, and may contain only the characters a-z, A-Z, 0-9, '_', '-', and '.'")
	}
	return nil
}

// lookup returns the table name of the scope, or ResourceNotFoundException.
func (s *scope) lookup(name string) (*table, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	t := s.tables[name]
	if t == nil {
		return nil, tableNotFound()
	}
	return t, nil
}

func (e *Engine) createTable(s *scope, in *createTableInput) (any, error) {
	if err := checkName(in.TableName); err != nil {
		return nil, err
	}
	// The checks run in DynamoDB Local's order, so that a request with
	// several faults gets its message: the key schema's shape, the attribute
	// definitions, the table's keys, the indexes, the definitions' count,
	// then the throughput.
	if err := schemaShape(in.KeySchema); err != nil {
		return nil, err
	}
	defs := map[string]string{}
	for _, d := range in.AttributeDefinitions {
		switch d.AttributeType {
		case "S", "N", "B":
		default:
			return nil, validation("Member must satisfy enum value set: [B, N, S]")
		}
		if _, dup := defs[d.AttributeName]; dup {
			return nil, validation("Cannot have two attributes with the same name")
		}
		defs[d.AttributeName] = d.AttributeType
	}
	t := &table{name: in.TableName, created: e.now(), attrDefs: in.AttributeDefinitions, items: newStore()}
	var err error
	if t.hash, t.rng, err = keySchema(in.KeySchema, defs, ""); err != nil {
		return nil, err
	}
	used := map[string]bool{t.hash.name: true}
	if t.rng.name != "" {
		used[t.rng.name] = true
	}
	if len(in.LocalSecondaryIndexes) > 0 {
		if t.rng.name == "" {
			return nil, validation("Local Secondary indices are not allowed on hash tables, only hash and range tables")
		}
		if len(in.LocalSecondaryIndexes) > 5 {
			return nil, validation("Cannot have more than 5 local secondary indexes per table")
		}
	}
	names := map[string]bool{}
	for _, li := range in.LocalSecondaryIndexes {
		if names[li.IndexName] {
			return nil, validation("Two local secondary indices have the same name")
		}
		ix, err := t.newIndex(li, false, defs, names)
		if err != nil {
			return nil, err
		}
		t.lsis = append(t.lsis, ix)
		used[ix.hash.name], used[ix.rng.name] = true, true
	}
	gnames := map[string]bool{}
	for _, gi := range in.GlobalSecondaryIndexes {
		if gnames[gi.IndexName] {
			return nil, validation("Two global secondary indices have the same name")
		}
		if names[gi.IndexName] {
			return nil, validation("Local Secondary Indices AND Global Secondary Indices must have different names")
		}
		gnames[gi.IndexName] = true
	}
	for _, gi := range in.GlobalSecondaryIndexes {
		ix, err := t.newIndex(gi, true, defs, names)
		if err != nil {
			return nil, err
		}
		t.gsis = append(t.gsis, ix)
		used[ix.hash.name], used[ix.rng.name] = true, true
	}
	delete(used, "")
	if len(used) != len(defs) {
		return nil, validation("The number of attributes in key schema must match the number of attributes defined in attribute definitions.")
	}
	switch in.BillingMode {
	case "PAY_PER_REQUEST":
		t.billing = "PAY_PER_REQUEST"
	case "", "PROVISIONED":
		t.billing = "PROVISIONED"
		if in.ProvisionedThroughput == nil {
			return nil, validation("No provisioned throughput specified for the table")
		}
		if !positive(in.ProvisionedThroughput) {
			return nil, validation("Table read and write throughput must be at least 1, and cannot be null")
		}
		t.rcu, t.wcu = capacity(in.ProvisionedThroughput)
		for i, gi := range in.GlobalSecondaryIndexes {
			if gi.ProvisionedThroughput == nil {
				return nil, validation("No provisioned throughput specified for the global secondary index")
			}
			if !positive(gi.ProvisionedThroughput) {
				return nil, validation("Global Secondary Index's read and write throughput must be at least 1, and cannot be null")
			}
			t.gsis[i].rcu, t.gsis[i].wcu = capacity(gi.ProvisionedThroughput)
		}
	default:
		return nil, validation("1 validation error detected: Value '%s' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]", in.BillingMode)
	}
	if s.tables[in.TableName] != nil {
		return nil, inUse("Cannot create preexisting table")
	}
	if in.StreamSpecification != nil && in.StreamSpecification.StreamEnabled {
		t.stream = in.StreamSpecification
	}
	if in.DeletionProtectionEnabled != nil {
		t.protected = *in.DeletionProtectionEnabled
	}
	t.items.syncIndexes(t)
	s.tables[t.name] = t
	return map[string]any{"TableDescription": t.describe(e)}, nil
}

// positive reports whether both units of p are given and at least 1.
func positive(p *throughput) bool {
	return p.ReadCapacityUnits != nil && *p.ReadCapacityUnits >= 1 && p.WriteCapacityUnits != nil && *p.WriteCapacityUnits >= 1
}

func capacity(p *throughput) (int64, int64) {
	var r, w int64
	if p.ReadCapacityUnits != nil {
		r = *p.ReadCapacityUnits
	}
	if p.WriteCapacityUnits != nil {
		w = *p.WriteCapacityUnits
	}
	return r, w
}

// schemaShape checks a key schema's shape as DynamoDB Local does, before
// it looks at the attribute definitions: at most two elements, exactly one
// HASH, first, and two distinct names.
func schemaShape(ks []keySchemaElement) error {
	if len(ks) > 2 {
		return validation("Key Schema too big.  Key Schema must at most consist of the hash and range key of a table")
	}
	hashes := 0
	for _, k := range ks {
		switch k.KeyType {
		case "HASH":
			hashes++
		case "RANGE":
		default:
			return validation("Member must satisfy enum value set: [HASH, RANGE]")
		}
	}
	switch {
	case hashes > 1:
		return validation("Too many hash keys specified.  All Dynamo DB tables must have exactly one hash key")
	case hashes == 0:
		return validation("No Hash Key specified in schema.  All Dynamo DB tables must have exactly one hash key")
	case ks[0].KeyType != "HASH":
		return validation("Invalid key order. Hash Key must be specified first in key schema, Range Key must be specifed second")
	case len(ks) == 2 && ks[0].AttributeName == ks[1].AttributeName:
		return validation("Two keys can not have the same name")
	}
	return nil
}

// keySchema reads a key schema of the right shape (schemaShape): its keys
// and their types from defs. kind is "" for the table, "Global Secondary
// Index " or "Local Secondary Index " for an index, as the messages say.
func keySchema(ks []keySchemaElement, defs map[string]string, kind string) (hash, rng keyDef, err error) {
	if err := schemaShape(ks); err != nil {
		return hash, rng, err
	}
	hash.name = ks[0].AttributeName
	if len(ks) == 2 {
		rng.name = ks[1].AttributeName
	}
	var ok bool
	if hash.typ, ok = defs[hash.name]; !ok {
		if kind != "" {
			return hash, rng, validation("%shash key not specified in Attribute Definitions.Type unknown.", kind)
		}
		return hash, rng, validation("Hash Key not specified in Attribute Definitions.  Type unknown.")
	}
	if rng.name != "" {
		if rng.typ, ok = defs[rng.name]; !ok {
			if kind != "" {
				return hash, rng, validation("%srange key not specified in Attribute Definitions.Type unknown.", kind)
			}
			return hash, rng, validation("Range Key not specified in Attribute Definitions.  Type unknown.")
		}
	}
	return hash, rng, nil
}

// newIndex reads an index definition of t; names holds the names of the
// indexes read so far.
func (t *table) newIndex(in indexInput, global bool, defs map[string]string, names map[string]bool) (*index, error) {
	if err := checkName(in.IndexName); err != nil {
		return nil, err
	}
	names[in.IndexName] = true
	ix := &index{name: in.IndexName, global: global}
	kind := "Global Secondary Index "
	if !global {
		kind = "Local Secondary Index "
		if len(in.KeySchema) == 1 && in.KeySchema[0].KeyType == "HASH" {
			return nil, validation("Local secondary indices must have a range key")
		}
		if len(in.KeySchema) > 0 && in.KeySchema[0].KeyType == "HASH" && in.KeySchema[0].AttributeName != t.hash.name {
			return nil, validation("Local Secondary indices must have the same hash key as the main table")
		}
	}
	var err error
	if ix.hash, ix.rng, err = keySchema(in.KeySchema, defs, kind); err != nil {
		return nil, err
	}
	p := in.Projection
	switch p.ProjectionType {
	case "ALL", "KEYS_ONLY":
		if p.NonKeyAttributes != nil {
			return nil, validation("No attributes should be specified to be projected unless projection type is INCLUDE")
		}
	case "INCLUDE":
		if len(p.NonKeyAttributes) == 0 {
			return nil, validation("If Projection type INCLUDE is specified, some non-key attributes to include in the projection must be specified as well")
		}
		seen := map[string]bool{}
		for _, a := range p.NonKeyAttributes {
			if seen[a] {
				return nil, validation("Cannot have two attributes with the same name")
			}
			seen[a] = true
		}
	case "":
		return nil, validation("Indexes must have a projection specified")
	default:
		return nil, validation("Member must satisfy enum value set: [ALL, INCLUDE, KEYS_ONLY]")
	}
	ix.projType = p.ProjectionType
	ix.nonKey = p.NonKeyAttributes
	if global && in.ProvisionedThroughput != nil {
		ix.rcu, ix.wcu = capacity(in.ProvisionedThroughput)
	}
	return ix, nil
}

func (e *Engine) describeTable(s *scope, in *tableNameInput) (any, error) {
	t, err := s.lookup(in.TableName)
	if err != nil {
		return nil, err
	}
	d := t.describe(e)
	for _, ix := range t.gsis {
		ix.creating = false
	}
	return map[string]any{"Table": d}, nil
}

func (e *Engine) deleteTable(s *scope, in *tableNameInput) (any, error) {
	t, err := s.lookup(in.TableName)
	if err != nil {
		return nil, err
	}
	if t.protected {
		return nil, validation("Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
	}
	delete(s.tables, t.name)
	return map[string]any{"TableDescription": t.describe(e)}, nil
}

func (e *Engine) listTables(s *scope, in *listTablesInput) (any, error) {
	names := make([]string, 0, len(s.tables))
	for n := range s.tables {
		if n > in.ExclusiveStartTableName {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	limit := 100
	if in.Limit != nil {
		if *in.Limit < 1 {
			return nil, validation("Limit must be greater than or equal to 1")
		}
		if *in.Limit > 100 {
			return nil, validation("Limit in ListTables must be <= 100")
		}
		limit = *in.Limit
	}
	out := map[string]any{}
	if len(names) > limit {
		names = names[:limit]
		out["LastEvaluatedTableName"] = names[limit-1]
	}
	out["TableNames"] = names
	return out, nil
}

func (e *Engine) updateTable(s *scope, in *updateTableInput) (any, error) {
	t, err := s.lookup(in.TableName)
	if err != nil {
		return nil, err
	}
	defs := map[string]string{}
	for _, d := range t.attrDefs {
		defs[d.AttributeName] = d.AttributeType
	}
	for _, d := range in.AttributeDefinitions {
		defs[d.AttributeName] = d.AttributeType
	}
	// Work on a copy, so that a refused update changes nothing.
	nt := *t
	nt.gsis = append([]*index(nil), t.gsis...)
	names := map[string]bool{}
	for _, ix := range t.gsis {
		names[ix.name] = true
	}
	for _, ix := range t.lsis {
		names[ix.name] = true
	}
	if len(in.GlobalSecondaryIndexUpdates) == 0 && in.BillingMode == "" && in.ProvisionedThroughput == nil &&
		in.StreamSpecification == nil && in.DeletionProtectionEnabled == nil &&
		len(in.ReplicaUpdates) == 0 && in.MultiRegionConsistency == "" {
		return nil, validation("Nothing to update")
	}
	if err := nt.updateReplicas(s.region, in.ReplicaUpdates, in.MultiRegionConsistency); err != nil {
		return nil, err
	}
	var deleted []*index
	for _, u := range in.GlobalSecondaryIndexUpdates {
		switch {
		case u.Create != nil:
			if names[u.Create.IndexName] {
				return nil, validation("Attempting to create an index which already exists")
			}
			if len(in.AttributeDefinitions) == 0 {
				return nil, validation("No Attribute Schema Defined")
			}
			ix, err := nt.newIndex(*u.Create, true, defs, names)
			if err != nil {
				return nil, err
			}
			ix.creating = true
			nt.gsis = append([]*index{ix}, nt.gsis...)
		case u.Delete != nil:
			i := nt.gsiIndex(u.Delete.IndexName)
			if i < 0 {
				return nil, notFound("Requested resource not found")
			}
			gone := *nt.gsis[i]
			gone.deleting = true
			deleted = append(deleted, &gone)
			nt.gsis = append(nt.gsis[:i:i], nt.gsis[i+1:]...)
		case u.Update != nil:
			i := nt.gsiIndex(u.Update.IndexName)
			if i < 0 {
				return nil, notFound("Requested resource not found")
			}
			if u.Update.ProvisionedThroughput != nil {
				c := *nt.gsis[i]
				c.rcu, c.wcu = capacity(u.Update.ProvisionedThroughput)
				nt.gsis[i] = &c
			}
		}
	}
	// The attribute definitions are those the keys use.
	used := map[string]bool{nt.hash.name: true, nt.rng.name: true}
	for _, ix := range append(append([]*index(nil), nt.gsis...), nt.lsis...) {
		used[ix.hash.name], used[ix.rng.name] = true, true
	}
	nt.attrDefs = nil
	for _, n := range sortedKeys(defs) {
		if used[n] {
			nt.attrDefs = append(nt.attrDefs, attributeDefinition{AttributeName: n, AttributeType: defs[n]})
		}
	}
	switch in.BillingMode {
	case "":
	case "PAY_PER_REQUEST", "PROVISIONED":
		nt.billing, nt.switched = in.BillingMode, true
	default:
		return nil, validation("1 validation error detected: Value '%s' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]", in.BillingMode)
	}
	if in.ProvisionedThroughput != nil {
		nt.rcu, nt.wcu = capacity(in.ProvisionedThroughput)
	}
	if in.StreamSpecification != nil {
		if in.StreamSpecification.StreamEnabled {
			nt.stream = in.StreamSpecification
		} else {
			nt.stream = nil
		}
	}
	if in.DeletionProtectionEnabled != nil {
		nt.protected = *in.DeletionProtectionEnabled
	}
	*t = nt
	t.items.syncIndexes(t)
	// A deleted index shows in this answer as DELETING, empty, as
	// DynamoDB Local shows it.
	shown := *t
	shown.gsis = append(append([]*index(nil), t.gsis...), deleted...)
	return map[string]any{"TableDescription": shown.describe(e)}, nil
}

func (t *table) gsiIndex(name string) int {
	for i, ix := range t.gsis {
		if ix.name == name {
			return i
		}
	}
	return -1
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (e *Engine) updateTTL(s *scope, in *updateTTLInput) (any, error) {
	t, err := s.lookup(in.TableName)
	if err != nil {
		return nil, err
	}
	spec := in.TimeToLiveSpecification
	if spec.AttributeName == "" {
		return nil, validation("Names of key attributes and attributes projected into an index must be between 1 and 255 characters, inclusive")
	}
	switch {
	case spec.Enabled && t.ttlAttr != "":
		return nil, validation("TimeToLive is already enabled")
	case !spec.Enabled && t.ttlAttr == "":
		return nil, validation("TimeToLive is already disabled")
	case !spec.Enabled && t.ttlAttr != spec.AttributeName:
		return nil, validation("TimeToLive is active on a different AttributeName")
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

// updateReplicas adds and removes the Regions of a global table, as
// UpdateTable's ReplicaUpdates do on DynamoDB (version 2019.11.21), and
// sets its MultiRegionConsistency, which DynamoDB accepts only with the
// update that creates the first replicas. DynamoDB Local has no replicas
// (it answers "Nothing to update"): the engine keeps them so that tests can
// see a global table's description. A replica is ACTIVE at once, and no
// item is replicated anywhere.
func (t *table) updateReplicas(region string, ups []replicaUpdate, consistency string) error {
	first := len(t.replicas) == 0
	regions := append([]string(nil), t.replicas...)
	has := func(r string) int {
		for i, x := range regions {
			if x == r {
				return i
			}
		}
		return -1
	}
	for _, u := range ups {
		switch {
		case u.Create != nil && u.Delete != nil, u.Create == nil && u.Delete == nil:
			return validation("One and only one of Create, Update or Delete must be specified in a ReplicationGroupUpdate")
		case u.Create != nil:
			r := u.Create.RegionName
			if r == "" {
				return validation("1 validation error detected: Value null at 'replicaUpdates.member.create.regionName' failed to satisfy constraint: Member must not be null")
			}
			if r == region || has(r) >= 0 {
				return validation("Failed to create a the new replica of table with name: '%s' because one or more replicas already existed as tables.", t.name)
			}
			regions = append(regions, r)
		default:
			i := has(u.Delete.RegionName)
			if i < 0 {
				return validation("Cannot delete replica in Region %s: it is not a replica of table %s", u.Delete.RegionName, t.name)
			}
			regions = append(regions[:i:i], regions[i+1:]...)
		}
	}
	switch consistency {
	case "":
		if first && len(regions) > 0 {
			consistency = "EVENTUAL"
		}
	case "EVENTUAL", "STRONG":
		if !first || len(regions) == 0 {
			return validation("MultiRegionConsistency can only be specified when creating the first replicas of a table")
		}
	default:
		return validation("1 validation error detected: Value '%s' at 'multiRegionConsistency' failed to satisfy constraint: Member must satisfy enum value set: [EVENTUAL, STRONG]", consistency)
	}
	t.replicas = regions
	switch {
	case len(regions) == 0:
		t.consistency = ""
	case consistency != "":
		t.consistency = consistency
	}
	return nil
}

// arn is the table's ARN as DynamoDB Local writes it.
func (t *table) arn() string {
	return "arn:aws:dynamodb:ddblocal:000000000000:table/" + t.name
}

// describe renders t as a TableDescription, in DynamoDB Local's shape.
func (t *table) describe(e *Engine) json.RawMessage {
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
	idx := func(ix *index) indexDesc {
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
		d.LocalSecondaryIndexes = append(d.LocalSecondaryIndexes, idx(ix))
	}
	for _, ix := range t.gsis {
		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, idx(ix))
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
