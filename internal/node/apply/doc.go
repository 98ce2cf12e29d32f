// Package apply installs rendered files under a root directory as one
// all-or-nothing step (see Writer.Apply): every target is checked and every
// file staged and synced next to its target before anything visible
// changes; the previous files are kept as hard links until the new set is
// complete, so a failure in any rename or removal puts them back; a journal
// of the steps lets the next run do the same after a crash; files whose
// content and mode are already right are not touched, so re-running is
// idempotent. Every path is resolved inside the root (internal/inroot),
// symbolic links included.
package apply
