package engine

import (
	"sort"
)

// UpdateTable and the Regions of a global table.

func (e *Engine) updateTable(s *scope, in *updateTableInput) (any, error) {
	t, err := s.lookup(in.TableName)
	if err != nil {
		return nil, err
	}
	defs := mergedAttrDefs(t, in.AttributeDefinitions)
	// Work on a copy, so that a refused update changes nothing.
	nt := *t
	nt.gsis = append([]*index(nil), t.gsis...)
	names := t.indexNames()
	if nothingToUpdate(in) {
		return nil, validation(msgNothingUpdate)
	}
	if err := checkGSIUpdates(in.GlobalSecondaryIndexUpdates); err != nil {
		return nil, err
	}
	if err := nt.updateReplicas(s.region, in.ReplicaUpdates, in.MultiRegionConsistency); err != nil {
		return nil, err
	}
	deleted, err := nt.updateGSIs(in, defs, names)
	if err != nil {
		return nil, err
	}
	nt.keepUsedAttrDefs(defs)
	if err := nt.updateSettings(t, in); err != nil {
		return nil, err
	}
	*t = nt
	t.items.syncIndexes(t)
	// A deleted index shows in this answer as DELETING, empty, as
	// DynamoDB Local shows it.
	shown := *t
	shown.gsis = append(append([]*index(nil), t.gsis...), deleted...)
	return map[string]any{"TableDescription": shown.describe(e)}, nil
}

// mergedAttrDefs maps each attribute name to its type: the table's
// definitions, overridden by the request's.
func mergedAttrDefs(t *table, in []attributeDefinition) map[string]string {
	defs := map[string]string{}
	for _, d := range t.attrDefs {
		defs[d.AttributeName] = d.AttributeType
	}
	for _, d := range in {
		defs[d.AttributeName] = d.AttributeType
	}
	return defs
}

// indexNames is the set of the table's index names, global and local.
func (t *table) indexNames() map[string]bool {
	names := map[string]bool{}
	for _, ix := range t.gsis {
		names[ix.name] = true
	}
	for _, ix := range t.lsis {
		names[ix.name] = true
	}
	return names
}

// nothingToUpdate reports a request that asks for no change DynamoDB
// takes as one (attribute definitions alone are none).
func nothingToUpdate(in *updateTableInput) bool {
	return len(in.GlobalSecondaryIndexUpdates) == 0 && in.BillingMode == "" && in.ProvisionedThroughput == nil &&
		in.StreamSpecification == nil && in.DeletionProtectionEnabled == nil &&
		len(in.ReplicaUpdates) == 0 && in.MultiRegionConsistency == ""
}

// keepUsedAttrDefs sets the table's attribute definitions to those of defs
// its keys and its indexes' keys use, sorted by name.
func (t *table) keepUsedAttrDefs(defs map[string]string) {
	used := map[string]bool{t.hash.name: true, t.rng.name: true}
	for _, ix := range append(append([]*index(nil), t.gsis...), t.lsis...) {
		used[ix.hash.name], used[ix.rng.name] = true, true
	}
	t.attrDefs = nil
	for _, n := range sortedKeys(defs) {
		if used[n] {
			t.attrDefs = append(t.attrDefs, attributeDefinition{AttributeName: n, AttributeType: defs[n]})
		}
	}
}

// updateSettings applies the request's billing mode, throughput, stream
// and deletion protection to the copy t; old is the table as it was, which
// a throughput change is checked against.
func (t *table) updateSettings(old *table, in *updateTableInput) error {
	switch in.BillingMode {
	case "":
	case "PAY_PER_REQUEST", "PROVISIONED":
		t.billing, t.switched = in.BillingMode, true
	default:
		return validation(msgConstraintBillingModeSatisfyEnumSet, in.BillingMode)
	}
	if in.ProvisionedThroughput != nil {
		if err := checkUnits(in.ProvisionedThroughput, "Table", "table"); err != nil {
			return err
		}
		if err := unchangedUnits(old.billing, in.ProvisionedThroughput, old.rcu, old.wcu); err != nil {
			return err
		}
		t.rcu, t.wcu = capacity(in.ProvisionedThroughput)
	}
	if in.StreamSpecification != nil {
		if err := checkStream(in.StreamSpecification); err != nil {
			return err
		}
		if in.StreamSpecification.StreamEnabled {
			t.stream = in.StreamSpecification
		} else {
			t.stream = nil
		}
	}
	if in.DeletionProtectionEnabled != nil {
		t.protected = *in.DeletionProtectionEnabled
	}
	return nil
}

// updateGSIs applies UpdateTable's GlobalSecondaryIndexUpdates to t (a
// copy of the table), returning the indexes deleted, for the answer.
func (t *table) updateGSIs(in *updateTableInput, defs map[string]string, names map[string]bool) (deleted []*index, err error) {
	for _, u := range in.GlobalSecondaryIndexUpdates {
		switch {
		case u.Create != nil:
			if names[u.Create.IndexName] {
				return nil, validation(msgAttemptingCreateIndexWhichAlready)
			}
			if len(in.AttributeDefinitions) == 0 {
				return nil, validation(msgNoAttributeSchemaDefined)
			}
			if len(t.gsis) >= maxGSIs {
				return nil, limitExceeded(msgTooManyGSIsUpdate)
			}
			if err := keyNames(u.Create.KeySchema); err != nil {
				return nil, err
			}
			ix, err := t.newIndex(*u.Create, true, defs, names, t.indexLimits())
			if err != nil {
				return nil, err
			}
			ix.creating = true
			t.gsis = append([]*index{ix}, t.gsis...)
		case u.Delete != nil:
			i := t.gsiIndex(u.Delete.IndexName)
			if i < 0 {
				return nil, notFound(msgRequestedResourceNotFound)
			}
			gone := *t.gsis[i]
			gone.deleting = true
			deleted = append(deleted, &gone)
			t.gsis = append(t.gsis[:i:i], t.gsis[i+1:]...)
		case u.Update != nil:
			i := t.gsiIndex(u.Update.IndexName)
			if i < 0 {
				// Unlike a Delete's, which is ResourceNotFoundException.
				return nil, validation(msgInvalidGSIName)
			}
			if u.Update.ProvisionedThroughput == nil && t.billing == "PROVISIONED" {
				return nil, validation(msgNoProvisionedThroughputSpecifiedGlobal)
			}
			if u.Update.ProvisionedThroughput != nil {
				if err := checkUnits(u.Update.ProvisionedThroughput, "Global Secondary Index's", "global secondary index"); err != nil {
					return nil, err
				}
				if err := unchangedUnits(t.billing, u.Update.ProvisionedThroughput, t.gsis[i].rcu, t.gsis[i].wcu); err != nil {
					return nil, err
				}
				c := *t.gsis[i]
				c.rcu, c.wcu = capacity(u.Update.ProvisionedThroughput)
				t.gsis[i] = &c
			}
		default:
			return nil, validation(msgUpdateGlobalSecondaryIndexAction)
		}
	}
	return deleted, nil
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
			return validation(msgOnlyCreateUpdateDeleteSpecified)
		case u.Create != nil:
			r := u.Create.RegionName
			if r == "" {
				return validation(msgConstraintReplicaUpdatesCreateRegionNameNot)
			}
			if r == region || has(r) >= 0 {
				return validation(msgFailedCreateNewReplicaTable, t.name)
			}
			regions = append(regions, r)
		default:
			i := has(u.Delete.RegionName)
			if i < 0 {
				return validation(msgNotAReplica, u.Delete.RegionName, t.name)
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
			return validation(msgMultiRegionConsistencyCanOnlySpecifiedWhen)
		}
	default:
		return validation(msgConstraintMultiRegionConsistencySatisfyEnumSet, consistency)
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
