package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// operatorTokenName is the file in serve's data dir that holds the local
// operator's token: whoever can read it (its user, 0600) decides holds,
// flow versions, patches and gates, as Jupyter's token does for its pages.
const operatorTokenName = "operator-token"

// operatorTokenBytes is the token's entropy (hex-encoded on disk and in
// URLs, which need no escaping).
const operatorTokenBytes = 32

func operatorTokenPath(dataDir string) string { return filepath.Join(dataDir, operatorTokenName) }

// writeOperatorToken makes a new token for this start and writes it where
// only this user can read it. A new one each start bounds a token that
// leaked (a banner in a screen share, a shell's scrollback) to one
// server's life; the CLI reads the file each time, so it never notices.
// The file is written aside and renamed into place, so a reader never sees
// half a token and a symlink planted at the path is replaced, not followed.
func writeOperatorToken(dataDir string) (token, path string, err error) {
	path = operatorTokenPath(dataDir)
	fail := func(err error) (string, string, error) {
		return "", "", fmt.Errorf("cannot write the operator token to %s: %w; metaforge serve needs it to let the local operator decide (choose a --data-dir this user can write)", path, err)
	}
	raw := make([]byte, operatorTokenBytes)
	if _, err := rand.Read(raw); err != nil {
		return fail(err)
	}
	token = hex.EncodeToString(raw)
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return fail(err)
	}
	f, err := os.CreateTemp(dataDir, operatorTokenName+".*")
	if err != nil {
		return fail(err)
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fail(err)
	}
	if _, err := f.WriteString(token + "\n"); err != nil {
		f.Close()
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fail(err)
	}
	return token, path, nil
}

// removeOperatorToken deletes the token when serve stops, unless another
// serve has written its own since: a token nobody accepts is only a
// misleading file.
func removeOperatorToken(path, token string) {
	if got, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(got)) == token {
		_ = os.Remove(path)
	}
}

// readOperatorToken is the token for the CLI, refused when the file could
// have been read by someone else: a token others can read identifies
// nobody.
func readOperatorToken(dataDir string) (string, error) {
	path := operatorTokenPath(dataDir)
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("no operator token at %s: start metaforge serve (it writes one there), pass the --data-dir serve uses, or decide with a bearer token (--token or METAFORGE_TOKEN)", path)
	}
	if err != nil {
		return "", fmt.Errorf("the operator token %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("the operator token %s is not a regular file (%s); stop here: metaforge serve writes a plain file", path, info.Mode().Type())
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return "", fmt.Errorf("the operator token %s is readable by others (mode %04o): restart metaforge serve to write a new one (0600)", path, perm)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("the operator token %s: %w (it is readable only by the user running metaforge serve)", path, err)
	}
	token := strings.TrimSpace(string(raw))
	if token == "" {
		return "", fmt.Errorf("the operator token %s is empty: restart metaforge serve", path)
	}
	return token, nil
}
