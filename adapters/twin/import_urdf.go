package twin

import (
	"context"
	"os"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// maxURDFBytes bounds a URDF read whole into memory: real ones are tens
// of kilobytes, meshes being referenced, not inlined.
const maxURDFBytes = 8 << 20

func importURDFTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.import_urdf", Name: "Import a robot from a URDF", Capability: "twin_write",
		Description: "Record somebody else's robot (a URDF under the server's read roots, file_path) as the project's system architecture, " +
			"a reference design to work against: each <link> becomes a subsystem (its inertial kept: mass, centre of mass, inertia tensor), " +
			"each <joint> a mechanical interface from its parent link to its child (type, origin, axis and limits kept), through the same " +
			"recorder as twin.commit_system_architecture. Geometry does not come in: meshes are referenced by path (usually package:// URIs " +
			"that resolve only in a ROS workspace) and each is listed in not_imported, as is a joint whose type URDF does not define or that " +
			"names a link the file lacks, and any element the architecture has no place for (transmissions, simulator extensions, joint " +
			"dynamics). A file that is not a URDF (XML that does not parse, a root other than <robot>, no links) is refused and nothing is " +
			"written. A project has one architecture: importing again revises it, and one recorded by hand is replaced only with " +
			"replace_existing true (its revisions are kept). Returns robot_name, component_count, interface_count, not_imported and the " +
			"architecture's item_ref.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, importURDF, withItemRules(
		adapters.At("file_path", adapters.MinLength(1), adapters.MaxLength(4096)))...)
}

type importURDFArgs struct {
	project.Scope
	FilePath        string `json:"file_path" jsonschema:"a URDF file (.urdf) under the server's read roots, or a path a tool returned"`
	ReplaceExisting bool   `json:"replace_existing,omitempty" jsonschema:"replace a system architecture that was not imported from a URDF (its revisions are kept); false by default"`
	itemArgs
}

func importURDF(ctx context.Context, b *Backend, a importURDFArgs) (any, error) {
	if b.Files == nil {
		return nil, protocol.Refusal("file_path: this server reads no files for the twin, so a URDF cannot be imported here")
	}
	src, err := b.Files.ResolveRead("file_path", a.FilePath)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(src)
	switch {
	case err != nil:
		return nil, protocol.Refusal("file_path %s cannot be read: %v", a.FilePath, err)
	case !info.Mode().IsRegular():
		return nil, protocol.Refusal("file_path %s is not a file; pass the path of a .urdf file", a.FilePath)
	case info.Size() > maxURDFBytes:
		return nil, protocol.Refusal("file_path %s is %d bytes, over the %d a URDF may be; a URDF references its meshes rather than holding them", a.FilePath, info.Size(), maxURDFBytes)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return nil, protocol.Refusal("file_path %s cannot be read: %v", a.FilePath, err)
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	arch, it, err := twin.ImportURDF(ctx, b.Store, twin.URDFImport{ProjectID: p.ID, Data: data, File: src, ReplaceExisting: a.ReplaceExisting,
		WriteInfo: writeInfo(ctx, a.itemArgs)})
	if err != nil {
		return nil, err
	}
	out := written(arch.Node, it)
	out["project_id"] = p.ID
	out["robot_name"] = arch.ImportedFrom.RobotName
	out["sha256"] = arch.ImportedFrom.SHA256
	out["component_count"], out["interface_count"] = len(arch.Subsystems), len(arch.Interfaces)
	out["components"], out["interfaces"] = arch.Subsystems, arch.Interfaces
	out["not_imported"] = arch.NotImported
	return out, nil
}
