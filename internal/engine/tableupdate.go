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
		return nil, validation(msgConstraintBillingModeSatisfyEnumSet, in.BillingMode)
	}
	if in.ProvisionedThroughput != nil {
		if err := checkUnits(in.ProvisionedThroughput, "Table", "table"); err != nil {
			return nil, err
		}
		if err := unchangedUnits(t.billing, in.ProvisionedThroughput, t.rcu, t.wcu); err != nil {
			return nil, err
		}
		nt.rcu, nt.wcu = capacity(in.ProvisionedThroughput)
	}
	if in.StreamSpecification != nil {
		if err := checkStream(in.StreamSpecification); err != nil {
			return nil, err
		}
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
