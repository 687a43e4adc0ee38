package plan

// Hooks by which sibling packages reach what they share without a public
// API for it. Each is set once, in the init function of the package named,
// which every user of the hook imports (so it runs first).
var (
	// BuilderActions returns the actions of an *update.Builder (b may be
	// a nil *update.Builder) and its first error. Set by package update.
	BuilderActions func(b any) ([]Action, error)

	// NewOp returns a txn.Op (as any) for the write w, or for the error
	// err found while building it. Set by package txn.
	NewOp func(w *Write, err error) any

	// OpWrite returns the write and the error of a txn.Op (as any). Set by
	// package txn.
	OpWrite func(op any) (*Write, error)
)
