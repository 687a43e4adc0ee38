package engine

import (
	"sort"
	"time"
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
	tags        map[string]string // see tags.go
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
		Tags                      []tagInput
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
		ExclusiveStartTableName *string
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

// checkName refuses a table or index name that is not 3 to 255 of the
// characters a-z, A-Z, 0-9, '_', '-' and '.'. Every allowed character is
// one byte, so the length in bytes is the length in characters of any
// name that passes.
func checkName(name string) error {
	if len(name) < 3 || len(name) > 255 {
		return validation(msgInvalidTableOrIndexName)
	}
	for i := 0; i < len(name); i++ {
		if !nameByte[name[i]] {
			return validation(msgInvalidTableOrIndexName)
		}
	}
	return nil
}

// nameByte holds the bytes a table or index name may contain.
var nameByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-'
	}
	return t
}()

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
	if len(in.AttributeDefinitions) == 0 {
		return nil, validation(msgNoAttributeSchemaDefined)
	}
	defs := map[string]string{}
	for _, d := range in.AttributeDefinitions {
		if err := checkAttrName(d.AttributeName); err != nil {
			return nil, err
		}
		switch d.AttributeType {
		case "S", "N", "B":
		default:
			return nil, validation(msgEnumAttributeType)
		}
		if _, dup := defs[d.AttributeName]; dup {
			return nil, validation(msgTwoAttributesSameName)
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
	if err := t.createIndexes(in, defs, used); err != nil {
		return nil, err
	}
	delete(used, "")
	if len(used) != len(defs) {
		return nil, validation(msgNumberAttributesKeySchemaMatch)
	}
	if err := t.createBilling(in); err != nil {
		return nil, err
	}
	if err := checkStream(in.StreamSpecification); err != nil {
		return nil, err
	}
	if t.tags, err = createTags(in.Tags); err != nil {
		return nil, err
	}
	if s.tables[in.TableName] != nil {
		return nil, inUse(msgCannotCreatePreexistingTable)
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

// createIndexes reads the indexes of a CreateTable into t, in DynamoDB
// Local's order (local ones first), marking their key attributes in used.
func (t *table) createIndexes(in *createTableInput, defs map[string]string, used map[string]bool) error {
	if len(in.LocalSecondaryIndexes) > 0 {
		if t.rng.name == "" {
			return validation(msgLocalSecondaryIndicesNotAllowed)
		}
		if len(in.LocalSecondaryIndexes) > 5 {
			return validation(msgTooManyLSIs)
		}
	}
	names := map[string]bool{}
	lim := &indexLimits{provisioned: in.BillingMode == "" || in.BillingMode == "PROVISIONED"}
	for _, li := range in.LocalSecondaryIndexes {
		if names[li.IndexName] {
			return validation(msgDuplicateLSIName)
		}
		ix, err := t.newIndex(li, false, defs, names, lim)
		if err != nil {
			return err
		}
		t.lsis = append(t.lsis, ix)
		used[ix.hash.name], used[ix.rng.name] = true, true
	}
	if len(in.GlobalSecondaryIndexes) > maxGSIs {
		return validation(msgTooManyGSIs)
	}
	gnames := map[string]bool{}
	for _, gi := range in.GlobalSecondaryIndexes {
		if gnames[gi.IndexName] {
			return validation(msgDuplicateGSIName)
		}
		if names[gi.IndexName] {
			return validation(msgLocalSecondaryIndicesGlobalSecondary)
		}
		gnames[gi.IndexName] = true
	}
	for _, gi := range in.GlobalSecondaryIndexes {
		ix, err := t.newIndex(gi, true, defs, names, lim)
		if err != nil {
			return err
		}
		t.gsis = append(t.gsis, ix)
		used[ix.hash.name], used[ix.rng.name] = true, true
	}
	return nil
}

// createBilling reads a CreateTable's billing mode and throughput into t.
func (t *table) createBilling(in *createTableInput) error {
	switch in.BillingMode {
	case "PAY_PER_REQUEST":
		// DynamoDB refuses throughput on an on-demand table (DynamoDB Local
		// ignores it; see known.go).
		if in.ProvisionedThroughput != nil {
			return validation(msgNeitherReadCapacityUnitsNorWriteCapacityUnitsCan)
		}
		t.billing = "PAY_PER_REQUEST"
	case "", "PROVISIONED":
		t.billing = "PROVISIONED"
		if in.ProvisionedThroughput == nil {
			return validation(msgNoProvisionedThroughputSpecifiedTable)
		}
		if err := checkUnits(in.ProvisionedThroughput, "Table", "table"); err != nil {
			return err
		}
		t.rcu, t.wcu = capacity(in.ProvisionedThroughput)
		for i, gi := range in.GlobalSecondaryIndexes {
			if gi.ProvisionedThroughput == nil {
				return validation(msgNoProvisionedThroughputSpecifiedGlobal)
			}
			if !positive(gi.ProvisionedThroughput) {
				return validation(msgGlobalSecondaryIndexSRead)
			}
			t.gsis[i].rcu, t.gsis[i].wcu = capacity(gi.ProvisionedThroughput)
		}
	default:
		return validation(msgConstraintBillingModeSatisfyEnumSet, in.BillingMode)
	}
	return nil
}

// checkStream refuses a stream enabled without a view type, as DynamoDB
// Local does: the view type says what the stream's records hold.
func checkStream(s *streamSpecification) error {
	if s != nil && s.StreamEnabled && s.StreamViewType == "" {
		return validation(msgStreamViewTypeStreamViewTypeNotNull)
	}
	return nil
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
		return validation(msgKeySchemaTooBigKey)
	}
	hashes := 0
	for _, k := range ks {
		switch k.KeyType {
		case "HASH":
			hashes++
		case "RANGE":
		default:
			return validation(msgEnumKeyType)
		}
	}
	switch {
	case hashes > 1:
		return validation(msgTooManyHashKeysSpecified)
	case hashes == 0:
		return validation(msgNoHashKeySpecifiedSchema)
	case ks[0].KeyType != "HASH":
		return validation(msgKeyOrderHashKeySpecified)
	case len(ks) == 2 && ks[0].AttributeName == ks[1].AttributeName:
		return validation(msgTwoKeysCanNotHave)
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
			return hash, rng, validation(msgIndexHashKeyUndefined, kind)
		}
		return hash, rng, validation(msgHashKeyUndefined)
	}
	if rng.name != "" {
		if rng.typ, ok = defs[rng.name]; !ok {
			if kind != "" {
				return hash, rng, validation(msgIndexRangeKeyUndefined, kind)
			}
			return hash, rng, validation(msgRangeKeyUndefined)
		}
	}
	return hash, rng, nil
}

// newIndex reads an index definition of t; names holds the names of the
// indexes read so far, lim what they add up to. DynamoDB Local checks an
// index's name, its throughput, its projection and the table's projection
// limit before its keys.
func (t *table) newIndex(in indexInput, global bool, defs map[string]string, names map[string]bool, lim *indexLimits) (*index, error) {
	if err := checkName(in.IndexName); err != nil {
		return nil, err
	}
	names[in.IndexName] = true
	ix := &index{name: in.IndexName, global: global}
	if global {
		if err := lim.gsiThroughput(in.ProvisionedThroughput); err != nil {
			return nil, err
		}
	}
	if err := ix.readProjection(in.Projection); err != nil {
		return nil, err
	}
	if err := lim.project(ix.nonKey); err != nil {
		return nil, err
	}
	kind := "Global Secondary Index "
	if !global {
		kind = "Local Secondary Index "
		if len(in.KeySchema) == 1 && in.KeySchema[0].KeyType == "HASH" {
			return nil, validation(msgLocalSecondaryIndicesHaveRange)
		}
		if len(in.KeySchema) > 0 && in.KeySchema[0].KeyType == "HASH" && in.KeySchema[0].AttributeName != t.hash.name {
			return nil, validation(msgLocalSecondaryIndicesHaveSame)
		}
	}
	var err error
	if ix.hash, ix.rng, err = keySchema(in.KeySchema, defs, kind); err != nil {
		return nil, err
	}
	if global && in.ProvisionedThroughput != nil {
		ix.rcu, ix.wcu = capacity(in.ProvisionedThroughput)
	}
	return ix, nil
}

// readProjection reads an index's projection.
func (ix *index) readProjection(p projection) error {
	switch p.ProjectionType {
	case "ALL", "KEYS_ONLY":
		if p.NonKeyAttributes != nil {
			return validation(msgNoAttributesShouldSpecifiedProjected)
		}
	case "INCLUDE":
		if len(p.NonKeyAttributes) == 0 {
			return validation(msgIfProjectionTypeINCLUDESpecified)
		}
		seen := map[string]bool{}
		for _, a := range p.NonKeyAttributes {
			if err := checkAttrName(a); err != nil {
				return err
			}
			if seen[a] {
				return validation(msgTwoAttributesSameName)
			}
			seen[a] = true
		}
	case "":
		return validation(msgIndexesHaveProjectionSpecified)
	default:
		return validation(msgEnumProjectionType)
	}
	ix.projType = p.ProjectionType
	ix.nonKey = p.NonKeyAttributes
	return nil
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
		return nil, validation(msgResourceCannotDeletedAsIt)
	}
	delete(s.tables, t.name)
	return map[string]any{"TableDescription": t.describe(e)}, nil
}

func (e *Engine) listTables(s *scope, in *listTablesInput) (any, error) {
	limit := 100
	if in.Limit != nil {
		if *in.Limit < 1 {
			return nil, validation(msgLimitGreaterThanEqual1)
		}
		if *in.Limit > 100 {
			return nil, validation(msgLimitListTables100)
		}
		limit = *in.Limit
	}
	start := ""
	if in.ExclusiveStartTableName != nil {
		// DynamoDB Local holds it to the rules of a table name.
		if err := checkName(*in.ExclusiveStartTableName); err != nil {
			return nil, err
		}
		start = *in.ExclusiveStartTableName
	}
	names := make([]string, 0, len(s.tables))
	for n := range s.tables {
		if n > start {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	out := map[string]any{}
	if len(names) > limit {
		names = names[:limit]
		out["LastEvaluatedTableName"] = names[limit-1]
	}
	out["TableNames"] = names
	return out, nil
}
