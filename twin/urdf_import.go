package twin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// URDFImport is a URDF to record as the project's system architecture: a
// reference design to work against.
type URDFImport struct {
	ProjectID string
	// Data is the file's bytes; File is where it was read from (kept as
	// provenance only).
	Data []byte
	File string
	// ReplaceExisting allows the import to revise an architecture that was
	// not itself imported from a URDF. Its earlier revisions are kept.
	ReplaceExisting bool
	WriteInfo
}

// ImportURDF reads a URDF and commits it through CommitSystemArchitecture:
// links become subsystems (their inertials kept), joints become mechanical
// interfaces (their type, origin, axis and limits kept), and what the
// architecture has no place for is listed in NotImported on the revision.
// A project's architecture is one item, so an import revises it; one an
// engineer recorded is replaced only when ReplaceExisting says so.
func ImportURDF(ctx context.Context, s Store, in URDFImport) (Architecture, Item, error) {
	robot, err := ParseURDF(in.Data)
	if err != nil {
		return Architecture{}, Item{}, err
	}
	sum := sha256.Sum256(in.Data)
	w := ArchitectureWrite{
		ProjectID:    in.ProjectID,
		Name:         robot.Name,
		Description:  fmt.Sprintf("Imported from the URDF of robot %q as a reference design: %d links, %d joints", robot.Name, len(robot.Links), len(robot.Joints)),
		Subsystems:   robot.Links,
		Interfaces:   robot.Joints,
		ImportedFrom: &ArchitectureSource{Format: "urdf", File: in.File, SHA256: hex.EncodeToString(sum[:]), RobotName: robot.Name},
		NotImported:  robot.NotImported,
		WriteInfo:    in.WriteInfo,
	}
	if err := w.Check(); err != nil {
		return Architecture{}, Item{}, refusalAbout("the URDF cannot be recorded as an architecture", err)
	}
	if !in.ReplaceExisting {
		heads, err := HeadRevisions(ctx, s, in.ProjectID, SystemArchitectureItemType)
		if err != nil {
			return Architecture{}, Item{}, err
		}
		if len(heads) > 0 {
			head, err := ReadArchitecture(heads[0])
			if err != nil {
				return Architecture{}, Item{}, err
			}
			if head.ImportedFrom == nil {
				return Architecture{}, Item{}, Refusef("this project already has a system architecture, %s, with %d subsystems that were not imported from a URDF; "+
					"the import would replace them as its next revision (the earlier revisions are kept): pass replace_existing true to do that, "+
					"or import the robot into a project of its own", head.Node.Ref(), len(head.Subsystems))
			}
		}
	}
	return CommitSystemArchitecture(ctx, s, w)
}
