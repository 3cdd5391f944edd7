package omniverseusd_test

import (
	"testing"

	"github.com/metaforge/metaforge/adapters/omniverseusd"
	"github.com/metaforge/metaforge/protocol"
)

// checksOf is a validate_usd_minimum answer's checks by name.
func checksOf(t *testing.T, out obj) map[string]obj {
	t.Helper()
	byName := map[string]obj{}
	for _, c := range out["checks"].([]any) {
		byName[c.(obj)["name"].(string)] = c.(obj)
	}
	return byName
}

// A stage written by hand with one triangle, no default prim, no units:
// the gate says which checks fail and why, and passes it once they are
// not required and the default prim is set.
func TestValidateSaysWhatIsMissing(t *testing.T) {
	const mesh = `def Mesh "tri"
{
    int[] faceVertexCounts = [3]
    int[] faceVertexIndices = [0, 1, 2]
    point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
}
`
	bare := writeFile(t, "bare.usda", "#usda 1.0\n\n"+mesh)
	out, _ := call(t, omniverseusd.ToolValidateUSDMinimum, obj{"file": bare, "min_meshes": 2})
	checks := checksOf(t, out)
	if out["passed"] != false {
		t.Errorf("passed %v for a stage without default prim or units", out["passed"])
	}
	for name, says := range map[string]string{
		"default_prim":    "sets no defaultPrim",
		"mesh_count":      "1 UsdGeom.Mesh prims, at least 2 needed",
		"meters_per_unit": "metersPerUnit is not authored: USD would assume 0.01",
		"up_axis":         "upAxis is not authored: USD would assume Y",
	} {
		if c := checks[name]; c == nil || c["passed"] != false {
			t.Errorf("check %s: %v, want failed", name, c)
		} else {
			mustContain(t, name, c["detail"].(string), says)
		}
	}
	if checks["opens"]["passed"] != true || checks["composition"]["passed"] != true {
		t.Errorf("opens %v, composition %v", checks["opens"], checks["composition"])
	}
	summary := out["summary"].(obj)
	if summary["mesh_count"] != 1.0 || summary["meters_per_unit_authored"] != false || summary["default_prim"] != nil {
		t.Errorf("summary %v", summary)
	}

	lenient, _ := call(t, omniverseusd.ToolValidateUSDMinimum, obj{"file": bare, "require_meters": false, "require_up_axis": false})
	checks = checksOf(t, lenient)
	if _, ok := checks["meters_per_unit"]; ok || checks["up_axis"] != nil || checks["mesh_count"]["passed"] != true || lenient["passed"] != false {
		t.Errorf("require_meters/up_axis false: %v", lenient["checks"])
	}

	named := writeFile(t, "named.usda", "#usda 1.0\n(\n    defaultPrim = \"tri\"\n    metersPerUnit = 1\n    upAxis = \"Z\"\n)\n\n"+mesh)
	good, _ := call(t, omniverseusd.ToolValidateUSDMinimum, obj{"file": named})
	if good["passed"] != true {
		t.Errorf("a stage with a default prim, units and a mesh: %v", good["checks"])
	}

	dangling := writeFile(t, "dangling.usda", "#usda 1.0\n(\n    defaultPrim = \"nowhere\"\n)\n\n"+mesh)
	checks = checksOf(t, call1(t, dangling))
	mustContain(t, "default_prim", checks["default_prim"]["detail"].(string), `defaultPrim names 'nowhere', which is not a prim on the stage`)
}

func call1(t *testing.T, file string) obj {
	t.Helper()
	out, _ := call(t, omniverseusd.ToolValidateUSDMinimum, obj{"file": file})
	return out
}

// A joint whose body is not on the stage fails joint_bodies.
func TestValidateJointBodies(t *testing.T) {
	stage := writeFile(t, "joint.usda", `#usda 1.0
(
    defaultPrim = "robot"
    metersPerUnit = 1
    upAxis = "Z"
)

def Xform "robot"
{
    def Cube "base" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"]
    )
    {
    }

    def Mesh "arm" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI"]
    )
    {
        int[] faceVertexCounts = [3]
        int[] faceVertexIndices = [0, 1, 2]
        point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
    }

    def PhysicsRevoluteJoint "elbow"
    {
        rel physics:body0 = </robot/base>
        rel physics:body1 = </robot/forearm>
    }
}
`)
	out := call1(t, stage)
	c := checksOf(t, out)["joint_bodies"]
	if out["passed"] != false || c == nil || c["passed"] != false {
		t.Fatalf("a joint to a missing body: %v", out["checks"])
	}
	mustContain(t, "joint_bodies", c["detail"].(string), "/robot/elbow.body1 names /robot/forearm, which does not exist")
	// usd-core's own joint checker says so too.
	v := checksOf(t, out)["usd_validation"]
	if v == nil || v["passed"] != false {
		t.Fatalf("usd_validation %v, want failed", v)
	}
	mustContain(t, "usd_validation", v["detail"].(string), "usdPhysicsValidators:PhysicsJointChecker JointInvalidPrimRel")
}

// A UsdPhysics attribute of the wrong type (physics:mass is a float) is
// caught by usd-core's validators, though the stage opens and has every
// piece the other checks look for.
func TestValidateRunsUSDValidators(t *testing.T) {
	stage := writeFile(t, "typed.usda", `#usda 1.0
(
    defaultPrim = "body"
    metersPerUnit = 1
    upAxis = "Z"
)

def Mesh "body" (
    prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI"]
)
{
    double physics:mass = 2
    int[] faceVertexCounts = [3]
    int[] faceVertexIndices = [0, 1, 2]
    point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
}
`)
	out := call1(t, stage)
	checks := checksOf(t, out)
	if out["passed"] != false || checks["usd_validation"]["passed"] != false {
		t.Fatalf("a double physics:mass passed: %v", out["checks"])
	}
	mustContain(t, "usd_validation", checks["usd_validation"]["detail"].(string),
		"usdValidation:AttributeTypeMismatch", "physics:mass", "Expected attribute type is 'float'")
	for _, name := range []string{"opens", "composition", "default_prim", "mesh_count", "meters_per_unit", "up_axis"} {
		if checks[name]["passed"] != true {
			t.Errorf("check %s: %v", name, checks[name])
		}
	}
}

// A file usd-core cannot parse fails the gate at "opens"; a file that is
// not USD by name, or not there, is refused before anything runs.
func TestValidateUnreadable(t *testing.T) {
	broken := writeFile(t, "broken.usda", "#usda 1.0\ndef Xform \"x\" {\n")
	out := call1(t, broken)
	checks := out["checks"].([]any)
	if out["passed"] != false || len(checks) != 1 || checks[0].(obj)["name"] != "opens" || out["summary"] != nil {
		t.Fatalf("an unparsable stage: %v", out)
	}
	mustContain(t, "opens", checks[0].(obj)["detail"].(string), "usd-core cannot open")

	glb := writeFile(t, "scene.glb", "glTF")
	mustContain(t, "the error", callErr(t, omniverseusd.ToolValidateUSDMinimum, obj{"file": glb}, protocol.InvalidParams),
		"is not a USD file (.usd, .usda, .usdc, .usdz)")
	callErr(t, omniverseusd.ToolDescribeStage, obj{"file": "no/such/stage.usda"}, protocol.InvalidParams)
	callErr(t, omniverseusd.ToolValidateUSDMinimum, obj{"file": broken, "min_meshes": -1}, protocol.InvalidParams)
	mustContain(t, "the error", callErr(t, omniverseusd.ToolDescribeStage, obj{"file": broken}, protocol.ToolExecutionError),
		"usd-core cannot open")
}
