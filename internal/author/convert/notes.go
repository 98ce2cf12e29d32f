package convert

import "fmt"

// notes collects the settings a target cannot express.
type notes []string

// add records that the field at path cannot be expressed, and why.
func (n *notes) add(path, format string, args ...any) {
	*n = append(*n, path+": "+fmt.Sprintf(format, args...))
}
