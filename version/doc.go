// Package version holds the primitives of optimistic concurrency control that
// the rest of optimist is built on: the conflict error every conditional write
// reports, and the condition that checks an item's version.
//
// A versioned item carries an integer version attribute. A new item is written
// with version 1; every later write names the version it replaces and writes
// that version plus one, on the condition that the stored version is still the
// one named. When the condition fails, the writer's copy was stale: the write
// is refused (nothing is lost) and the caller receives a [*ConflictError] that
// describes the item as it is now, so it can retry without reading it again.
//
// Match the class of failure with [errors.Is] and [ErrConflict], or with
// [IsConflict]; get the details with [errors.As] and [*ConflictError]:
//
//	var ce *version.ConflictError
//	if errors.As(err, &ce) {
//		log.Printf("stale copy: expected v%d, table has v%d", ce.Expected, ce.Actual)
//	}
//
// Transaction cancellations (package txn) match [ErrConflict] too when any of
// their operations failed a version check, so one predicate covers both.
package version
