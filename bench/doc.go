// Package bench compares optimist with the code it replaces and with a
// peer library, side by side in one binary. It is its own module so that
// optimist itself does not depend on the peers.
//
// Run it from the repository root with `make bench`, which runs every
// benchmark ten times and summarises them with benchstat.
package bench
