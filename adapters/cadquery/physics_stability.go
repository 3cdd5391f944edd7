package cadquery

import (
	"context"
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/physics"
)

// ToolValidatePhysicsStability lets a URDF (one cadquery.export_urdf or
// export_urdf_assembly wrote) settle under gravity in PyBullet and says
// whether it comes to rest.
const ToolValidatePhysicsStability = "cadquery.validate_physics_stability"

// physicsStabilityTool is declared here, beside the exporters whose URDFs
// it checks, and simulated by the physics adapter, which owns PyBullet:
// the CadQuery kernel plays no part in it.
var physicsStabilityTool = tool{
	manifest: physics.StabilityManifest(ToolValidatePhysicsStability, AdapterID),
	call: func(a *Adapter, ctx context.Context, args json.RawMessage) (*adapters.Result, error) {
		return physics.New(a.ws, physics.Options{}).ValidateStability(ctx, args)
	},
}
