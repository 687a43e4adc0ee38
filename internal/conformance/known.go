package conformance

// KnownDivergence is a difference between the engine and DynamoDB Local that
// is accepted, with the reason.
type KnownDivergence struct {
	// Case is a pattern (path.Match syntax) of the names of the steps it
	// covers: "<case>/<step>" for catalogue cases, "gen/<op>/<n>" for
	// generated requests.
	Case string
	// Reason says why the engine answers differently, and which answer
	// DynamoDB itself (as documented) gives.
	Reason string
}

// Known lists the accepted divergences. An entry that matched nothing in a
// run is listed as unused in the summary, so stale entries show.
var Known = []KnownDivergence{}
