// Package hub holds the internal configuration every decoder converts into and
// every renderer reads: Spec is what the user asked for (merged from all
// sources), Status is what the agent discovered about the machine. Users can
// never set Status; it is filled by enrichment and persisted in the config
// cache so that a second run on the same boot skips discovery.
package hub
