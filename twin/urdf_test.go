package twin_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/twin"
)

// armURDF is a two-link arm with what an import keeps (inertials, a
// revolute joint with limits, a fixed joint, primitive shapes) and what it
// does not (a mesh by package:// URI, a joint type URDF does not define, a
// joint to a missing link, joint dynamics, a transmission, a Gazebo
// extension, a top-level material).
const armURDF = `<?xml version="1.0"?>
<robot name="two_link_arm">
  <material name="grey"><color rgba="0.5 0.5 0.5 1"/></material>
  <link name="base_link">
    <visual><geometry><mesh filename="package://arm/meshes/base.stl"/></geometry></visual>
    <inertial><origin xyz="0 0 0.05" rpy="0 0 0"/><mass value="2.5"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.03"/></inertial>
  </link>
  <link name="upper_arm">
    <visual><geometry><box size="0.2 0.04 0.02"/></geometry></visual>
    <collision><geometry><cylinder radius="0.02" length="0.2"/></geometry></collision>
  </link>
  <link name="tool"/>
  <joint name="shoulder" type="revolute">
    <parent link="base_link"/><child link="upper_arm"/>
    <origin xyz="0 0 0.1" rpy="0 0 1.5707963"/><axis xyz="0 0 1"/>
    <limit lower="-1.57" upper="1.57" effort="12" velocity="2"/>
    <dynamics damping="0.1"/>
  </joint>
  <joint name="tool_mount" type="fixed">
    <parent link="upper_arm"/><child link="tool"/><origin xyz="0.2 0 0"/>
  </joint>
  <joint name="wrist" type="ball"><parent link="upper_arm"/><child link="tool"/></joint>
  <joint name="gripper" type="prismatic"><parent link="tool"/><child link="finger"/></joint>
  <transmission name="shoulder_trans"><type>SimpleTransmission</type></transmission>
  <gazebo reference="upper_arm"><material>Gazebo/Grey</material></gazebo>
</robot>`

func testImportURDF(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Reference Arm")
	a, it, err := twin.ImportURDF(bg, s, twin.URDFImport{ProjectID: g.p.ID, Data: []byte(armURDF), File: "/refs/arm.urdf",
		WriteInfo: twin.WriteInfo{Author: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	if it.ItemType != twin.SystemArchitectureItemType || a.Node.Name != "two_link_arm" || len(a.Subsystems) != 3 || len(a.Interfaces) != 2 {
		t.Fatalf("import = %+v, %d subsystems, %d interfaces; want the architecture of two_link_arm with 3 and 2", a.Node, len(a.Subsystems), len(a.Interfaces))
	}
	base := a.Subsystems[0]
	if base.Name != "base_link" || base.Inertial == nil || *base.Inertial.MassKg != 2.5 || base.Inertial.OriginXYZM[2] != 0.05 ||
		*base.Inertial.InertiaKgM2 != [6]float64{0.01, 0, 0, 0.02, 0, 0.03} {
		t.Errorf("base_link = %+v, want its inertial kept", base)
	}
	if d := a.Subsystems[1].Description; !strings.Contains(d, "visual box 0.2 x 0.04 x 0.02 m") || !strings.Contains(d, "collision cylinder r 0.02 m, length 0.2 m") {
		t.Errorf("upper_arm's description %q does not describe its shapes", d)
	}
	sh := a.Interfaces[0]
	if sh.Name != "shoulder" || sh.From != "base_link" || sh.To != "upper_arm" || sh.Kind != "mechanical" || sh.Joint == nil ||
		sh.Joint.Type != "revolute" || *sh.Joint.Axis != [3]float64{0, 0, 1} || *sh.Joint.Lower != -1.57 || *sh.Joint.Effort != 12 ||
		math.Abs(sh.Joint.OriginRPY[2]-1.5707963) > 1e-12 {
		t.Errorf("shoulder = %+v %+v", sh, sh.Joint)
	}
	if j := a.Interfaces[1].Joint; a.Interfaces[1].Name != "tool_mount" || j.Type != "fixed" || j.Axis != nil || j.Lower != nil {
		t.Errorf("tool_mount = %+v %+v", a.Interfaces[1], j)
	}
	skipped := map[string]string{}
	for _, n := range a.NotImported {
		skipped[n.Kind+":"+n.Name] = n.Detail
	}
	for key, detail := range map[string]string{
		"mesh:base_link/visual":       "package://arm/meshes/base.stl -- geometry is referenced by path and was not resolved",
		"joint:wrist":                 `type "ball" is not a URDF joint type`,
		"joint:gripper":               `its child link "finger" is not a link of this URDF`,
		"joint_dynamics:shoulder":     "<dynamics>",
		"transmission:shoulder_trans": "<transmission>",
		"gazebo:":                     "<gazebo>",
		"material:grey":               "<material>",
	} {
		if !strings.Contains(skipped[key], detail) {
			t.Errorf("not_imported[%s] = %q, want it to say %q", key, skipped[key], detail)
		}
	}
	if len(a.NotImported) != 7 {
		t.Errorf("not_imported = %+v, want 7 entries", a.NotImported)
	}
	// The revision reads back as imported, with its provenance.
	stored, err := s.GetNode(bg, a.Node.ID)
	if err != nil {
		t.Fatal(err)
	}
	back, err := twin.ReadArchitecture(stored)
	if err != nil || !reflect.DeepEqual(back.Subsystems, a.Subsystems) || !reflect.DeepEqual(back.Interfaces, a.Interfaces) ||
		!reflect.DeepEqual(back.NotImported, a.NotImported) || back.ImportedFrom == nil || back.ImportedFrom.Format != "urdf" ||
		back.ImportedFrom.File != "/refs/arm.urdf" || len(back.ImportedFrom.SHA256) != 64 {
		t.Fatalf("read back = %+v %v\nwant %+v", back, err, a)
	}
	// Importing again revises the imported architecture.
	again, _, err := twin.ImportURDF(bg, s, twin.URDFImport{ProjectID: g.p.ID, Data: []byte(armURDF), WriteInfo: twin.WriteInfo{Author: "test"}})
	if err != nil || again.Node.Revision != 2 || again.Node.ItemKey != a.Node.ItemKey {
		t.Fatalf("second import = %+v, %v; want revision 2 of %s", again.Node, err, a.Node.ItemKey)
	}

	// What is not a URDF is refused and nothing is written.
	for name, doc := range map[string]string{
		"malformed XML":   `<robot name="x"><link name="a">`,
		"an SDF":          `<sdf version="1.9"><model name="m"><link name="a"/></model></sdf>`,
		"no links":        `<robot name="empty"></robot>`,
		"a bad number":    `<robot name="x"><link name="a"><inertial><mass value="heavy"/></inertial></link></robot>`,
		"two links a":     `<robot name="x"><link name="a"/><link name="a"/></robot>`,
		"a nameless link": `<robot name="x"><link/></robot>`,
	} {
		other := newGraph(t, s, "Not A Robot "+name)
		if _, _, err := twin.ImportURDF(bg, s, twin.URDFImport{ProjectID: other.p.ID, Data: []byte(doc)}); !refusal(err, "") {
			t.Errorf("%s: err = %v, want a refusal", name, err)
		}
		if heads, _ := twin.HeadRevisions(bg, s, other.p.ID, twin.SystemArchitectureItemType); len(heads) != 0 {
			t.Errorf("%s: an architecture was written: %+v", name, heads)
		}
	}

	// An architecture an engineer recorded is replaced only when asked.
	own := newGraph(t, s, "Own Arm")
	if _, _, err := twin.CommitSystemArchitecture(bg, s, twin.ArchitectureWrite{ProjectID: own.p.ID,
		Subsystems: []twin.ArchitectureSubsystem{{Name: "arm"}}}); err != nil {
		t.Fatal(err)
	}
	_, _, err = twin.ImportURDF(bg, s, twin.URDFImport{ProjectID: own.p.ID, Data: []byte(armURDF)})
	if !refusal(err, "replace_existing") {
		t.Fatalf("import over an engineer's architecture: err = %v, want a refusal naming replace_existing", err)
	}
	replaced, _, err := twin.ImportURDF(bg, s, twin.URDFImport{ProjectID: own.p.ID, Data: []byte(armURDF), ReplaceExisting: true})
	if err != nil || replaced.Node.Revision != 2 || len(replaced.Subsystems) != 3 {
		t.Fatalf("replace_existing: %+v, %v", replaced.Node, err)
	}
}
