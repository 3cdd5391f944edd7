package worker

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"sync"

	sdkworker "go.temporal.io/sdk/worker"
)

var binaryChecksumOnce sync.Once

// nameBinaryByBuildID gives the Temporal SDK this executable's Go build ID as
// its binary checksum. Otherwise the first worker made in the process (at
// start-up, the embedded server's own scanner worker) reads the whole
// executable for an MD5: 0.2 s of CPU for MetaForge's 170 MB, on every
// start. The toolchain derives the build ID from the binary's content, so
// it names the binary as the checksum did. Where it cannot be read (not an
// ELF file), the SDK computes its checksum as before.
func nameBinaryByBuildID() {
	binaryChecksumOnce.Do(func() {
		if id := goBuildID(); id != "" {
			sdkworker.SetBinaryChecksum(id)
		}
	})
}

// goBuildID reads the Go build ID note (.note.go.buildid) of the running
// executable, or "" when it has none.
func goBuildID() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := elf.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := f.Section(".note.go.buildid")
	if s == nil {
		return ""
	}
	note, err := s.Data()
	if err != nil {
		return ""
	}
	return buildIDFromNote(note, f.ByteOrder)
}

// buildIDFromNote parses an ELF note whose name is "Go" and type 4, the
// layout cmd/internal/buildid writes: name size, description size, type,
// the name padded to 4 bytes, then the build ID.
func buildIDFromNote(note []byte, order binary.ByteOrder) string {
	const goBuildIDType = 4
	if len(note) < 16 {
		return ""
	}
	nameSize, descSize, typ := order.Uint32(note[0:]), order.Uint32(note[4:]), order.Uint32(note[8:])
	nameEnd := 12 + (uint64(nameSize)+3)&^3
	if typ != goBuildIDType || nameSize != 4 || !bytes.Equal(note[12:15], []byte("Go\x00")) ||
		uint64(len(note)) < nameEnd+uint64(descSize) {
		return ""
	}
	return string(note[nameEnd : nameEnd+uint64(descSize)])
}
