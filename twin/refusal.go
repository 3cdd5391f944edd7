package twin

import (
	"errors"
	"fmt"
)

// RefusalError is a request the twin's rules turn down: the caller can fix
// it, and the message says how. The message is the whole text a caller
// sees; nothing is put before it, even when the error is wrapped.
type RefusalError struct{ Message string }

func (e *RefusalError) Error() string { return e.Message }

// Refusef is a RefusalError with a formatted message.
func Refusef(format string, args ...any) error {
	return &RefusalError{Message: fmt.Sprintf(format, args...)}
}

// refusalAbout puts what err is about before it: into a refusal's message
// (which is shown whole), or as a wrap of any other error.
func refusalAbout(subject string, err error) error {
	var r *RefusalError
	if errors.As(err, &r) {
		return &RefusalError{Message: subject + ": " + r.Message}
	}
	return fmt.Errorf("%s: %w", subject, err)
}
