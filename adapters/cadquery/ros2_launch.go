package cadquery

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// ToolGenerateROS2Launch writes a ROS 2 launch file that shows an
// exported URDF. It is text: no geometry, and ROS 2 is never run.
const ToolGenerateROS2Launch = "cadquery.generate_ros2_launch"

// rosPackageName is a ROS package name (REP 144): lower case letters,
// digits and underscores, starting with a letter.
var rosPackageName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,99}$`)

// maxURDFBytes bounds the URDF read to find its robot's name.
const maxURDFBytes = 64 << 20

var ros2LaunchTool = tool{
	manifest: adapters.Manifest{
		ToolID:    ToolGenerateROS2Launch,
		AdapterID: AdapterID,
		Name:      "Generate ROS 2 launch file",
		Description: "Write a ROS 2 Python launch file that displays a URDF (e.g. the output_file of cadquery.export_urdf_assembly), " +
			"laid out as ros/urdf_launch's display launch: robot_state_publisher with robot_description read from the URDF when the " +
			"launch runs (a .xacro file is expanded with the xacro command), joint_state_publisher (gui=true: joint_state_publisher_gui, " +
			"sliders per joint) and, with rviz=true, rviz2. Without package_name the launch file reads the URDF at its absolute path in " +
			"the workspace; with package_name it reads share/<package_name>/urdf/<the URDF's file name> of that installed package. " +
			"Pure text: the launch file is written and never run, since ROS 2 is not part of MetaForge; the result says so (ran: false, " +
			"not_run_reason). A file whose root element is not <robot> is refused as not a URDF. Returns output_file (absolute path), " +
			"urdf_file, robot_name, package_name, nodes ({package, executable} each), ran and not_run_reason.",
		Capability:     "robot_launch",
		InputSchema:    ros2LaunchInputSchema,
		OutputSchema:   json.RawMessage(ros2LaunchOutputSchema),
		Idempotent:     true,
		TimeoutSeconds: 30,
	},
	call: (*Adapter).generateROS2Launch,
}

type ros2LaunchArgs struct {
	URDFFile    string `json:"urdf_file"`
	PackageName string `json:"package_name,omitempty" jsonschema:"ROS 2 package whose share/<package>/urdf folder holds the URDF; default: read the URDF where it is now."`
	GUI         bool   `json:"gui,omitempty" jsonschema:"Run joint_state_publisher_gui (a slider per joint) instead of joint_state_publisher."`
	RViz        bool   `json:"rviz,omitempty" jsonschema:"Also start rviz2."`
	OutputPath  string `json:"output_path,omitempty"`
}

type rosNode struct {
	Package    string `json:"package"`
	Executable string `json:"executable"`
}

type ros2LaunchResult struct {
	OutputFile   string    `json:"output_file"`
	URDFFile     string    `json:"urdf_file"`
	RobotName    string    `json:"robot_name"`
	PackageName  string    `json:"package_name,omitempty"`
	Nodes        []rosNode `json:"nodes"`
	Ran          bool      `json:"ran"`
	NotRunReason string    `json:"not_run_reason"`
}

func (a *Adapter) generateROS2Launch(ctx context.Context, raw json.RawMessage) (*adapters.Result, error) {
	var in ros2LaunchArgs
	if err := adapters.DecodeArguments(raw, &in); err != nil {
		return nil, err
	}
	urdf, err := a.resolveInput("urdf_file", in.URDFFile)
	if err != nil {
		return nil, err
	}
	robot, err := urdfRobotName(urdf, in.URDFFile)
	if err != nil {
		return nil, err
	}
	if in.PackageName != "" && !rosPackageName.MatchString(in.PackageName) {
		return nil, protocol.Invalid("package_name %q is not a ROS package name: lower-case letters, digits and underscores, starting with a letter", in.PackageName)
	}
	name, err := outputName("output_path", in.OutputPath, "display.launch.py", ".py")
	if err != nil {
		return nil, err
	}

	nodes := []rosNode{{"robot_state_publisher", "robot_state_publisher"}, {"joint_state_publisher", "joint_state_publisher"}}
	if in.GUI {
		nodes[1] = rosNode{"joint_state_publisher_gui", "joint_state_publisher_gui"}
	}
	if in.RViz {
		nodes = append(nodes, rosNode{"rviz2", "rviz2"})
	}
	text := launchFile(robot, urdf, in.PackageName, nodes)

	file, err := a.writeCallFile(ctx, name, text)
	if err != nil {
		return nil, err
	}
	out := ros2LaunchResult{OutputFile: file, URDFFile: urdf, RobotName: robot, PackageName: in.PackageName, Nodes: nodes,
		NotRunReason: notRunReason(file)}
	return result(out, []string{file})
}

// writeCallFile writes body as name (a plain file name) in the call's own
// folder and returns its absolute path. A failure leaves no folder.
func (a *Adapter) writeCallFile(ctx context.Context, name string, body []byte) (string, error) {
	dir, err := a.ws.ForCall(ctx)
	if err != nil {
		return "", err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return "", protocol.Transient("the call's folder has no absolute path: %v", err)
	}
	file, err := a.ws.ResolveWrite(dir, "output_path", name)
	if err != nil {
		_ = os.Remove(dir) // only if nothing is in it
		return "", err
	}
	if err := os.WriteFile(file, body, 0o644); err != nil {
		_ = os.Remove(file)
		_ = os.Remove(dir)
		return "", protocol.Transient("%s cannot be written: %v", file, err)
	}
	return file, nil
}

// urdfRobotName reads a URDF's robot name, refusing a file whose root
// element is not <robot> (given is the path as the call gave it).
func urdfRobotName(path, given string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", protocol.Invalid("urdf_file %q cannot be read: %v", given, err)
	}
	defer f.Close()
	dec := xml.NewDecoder(io.LimitReader(f, maxURDFBytes))
	for {
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("it has no root element")
			}
			return "", protocol.Invalid("urdf_file %q is not a URDF: it does not parse as XML (%v); give a file from cadquery.export_urdf or export_urdf_assembly", given, err)
		}
		start, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if start.Name.Local != "robot" {
			return "", protocol.Invalid("urdf_file %q is not a URDF: its root element is <%s>, not <robot>; give a file from cadquery.export_urdf "+
				"or export_urdf_assembly", given, start.Name.Local)
		}
		for _, attr := range start.Attr {
			if attr.Name.Local == "name" && attr.Name.Space == "" && attr.Value != "" {
				return attr.Value, nil
			}
		}
		return "", protocol.Invalid("urdf_file %q is not a valid URDF: its <robot> has no name attribute", given)
	}
}

// launchFile is the launch file's Python. Strings are written as JSON
// string literals, which Python reads as the same strings.
func launchFile(robot, urdf, pkg string, nodes []rosNode) []byte {
	q := func(s string) string {
		b, _ := json.Marshal(s) // a string always encodes
		return string(b)
	}
	xacro := strings.EqualFold(filepath.Ext(urdf), ".xacro")
	var b bytes.Buffer
	fmt.Fprintf(&b, "# ROS 2 launch file for the robot %s, written by MetaForge (cadquery.generate_ros2_launch).\n", q(robot))
	b.WriteString("# It was generated, not run. Launch it with: ros2 launch <this file>\n")
	if pkg != "" {
		b.WriteString("import os\n\nfrom ament_index_python.packages import get_package_share_directory\n")
	}
	b.WriteString("from launch import LaunchDescription\n")
	if xacro {
		b.WriteString("from launch.substitutions import Command\n")
	}
	b.WriteString("from launch_ros.actions import Node\n")
	if xacro {
		b.WriteString("from launch_ros.parameter_descriptions import ParameterValue\n")
	}
	b.WriteString("\n")
	if pkg != "" {
		fmt.Fprintf(&b, "URDF_FILE = os.path.join(get_package_share_directory(%s), \"urdf\", %s)\n", q(pkg), q(filepath.Base(urdf)))
	} else {
		fmt.Fprintf(&b, "URDF_FILE = %s\n", q(urdf))
	}
	b.WriteString("\n\ndef generate_launch_description():\n")
	if xacro {
		b.WriteString("    robot_description = ParameterValue(Command([\"xacro \", URDF_FILE]), value_type=str)\n")
	} else {
		b.WriteString("    with open(URDF_FILE, encoding=\"utf-8\") as f:\n        robot_description = f.read()\n")
	}
	b.WriteString("    return LaunchDescription([\n")
	for _, n := range nodes {
		fmt.Fprintf(&b, "        Node(\n            package=%s,\n            executable=%s,\n            name=%s,\n", q(n.Package), q(n.Executable), q(n.Executable))
		switch n.Package {
		case "robot_state_publisher":
			b.WriteString("            output=\"screen\",\n            parameters=[{\"robot_description\": robot_description}],\n")
		case "rviz2":
			b.WriteString("            output=\"screen\",\n")
		}
		b.WriteString("        ),\n")
	}
	b.WriteString("    ])\n")
	return b.Bytes()
}

// notRunReason says why the launch file was not run, and whether this
// machine could run it (measured: is ros2 on PATH).
func notRunReason(file string) string {
	where := "ROS 2 is not installed here (no ros2 command on PATH)"
	if path, err := exec.LookPath("ros2"); err == nil {
		where = "a ros2 command is on PATH here (" + path + "), but this tool only writes the file"
	}
	return "cadquery.generate_ros2_launch writes the launch file and never launches it: " + where +
		". Run it with `ros2 launch " + file + "` where ROS 2 is installed."
}

var ros2LaunchInputSchema = adapters.SchemaFor[ros2LaunchArgs](
	adapters.At("urdf_file", adapters.MinLength(1), adapters.Describe("Path of a URDF (or .urdf.xacro) file inside the workspace, "+
		"e.g. the output_file of cadquery.export_urdf; a relative path is taken from the workspace root.")),
	adapters.At("package_name", adapters.Pattern(rosPackageName.String())),
	adapters.At("gui", adapters.Default(false)),
	adapters.At("rviz", adapters.Default(false)),
	outputPath("display.launch.py", ".py"),
)

const ros2LaunchOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["output_file", "urdf_file", "robot_name", "nodes", "ran", "not_run_reason"],
  "properties": {
    "output_file": {"type": "string", "description": "Absolute path of the launch file written."},
    "urdf_file": {"type": "string", "description": "Absolute path of the URDF the launch file was made for."},
    "robot_name": {"type": "string", "description": "The name on the URDF's <robot>."},
    "package_name": {"type": "string", "description": "The ROS package the launch file finds the URDF in; present only when given."},
    "nodes": {"type": "array", "items": {"type": "object", "additionalProperties": false, "required": ["package", "executable"],
      "properties": {"package": {"type": "string"}, "executable": {"type": "string"}}}},
    "ran": {"type": "boolean", "const": false, "description": "Always false: the launch file is written, not run."},
    "not_run_reason": {"type": "string"}
  }
}`
