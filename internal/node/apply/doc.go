// Package apply writes rendered files under a root directory as one
// all-or-nothing step: every file is first staged next to its target and
// synced, and only when all of them are staged are they renamed into place.
// A failure while staging removes what was staged and leaves the node as it
// was; a crash during the renames leaves each file either old or new, never
// torn, because rename(2) within a directory is atomic. Files whose content
// and mode are already right are not touched, so re-running is idempotent.
package apply
