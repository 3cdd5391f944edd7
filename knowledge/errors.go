package knowledge

import "errors"

// ErrNotFound is a source that is not in the store.
var ErrNotFound = errors.New("no such knowledge source")
