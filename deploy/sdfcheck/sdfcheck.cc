// metaforge-sdfcheck loads one SDFormat file with libsdformat (sdf::Root::Load,
// the parser Gazebo itself uses) and prints what the library made of it as one
// JSON object on stdout: whether it is valid, the SDF version, libsdformat's
// errors and warnings, and the structure it built (worlds, models, links with
// their inertials and poses, joints with their axes and limits).
//
// Debian has libsdformat12 but no `gz sdf` / `ign sdf` command, so MetaForge's
// gazebo.validate_world and its tests run this instead. Build it with
// deploy/sdfcheck/build.sh.
//
// Usage: metaforge-sdfcheck FILE, or metaforge-sdfcheck --version
// Exit status: 0 valid, 1 not valid (the report says why), 2 usage.

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <ignition/math/Inertial.hh>
#include <ignition/math/Pose3.hh>
#include <ignition/math/Vector3.hh>
#include <sdf/Console.hh>
#include <sdf/Error.hh>
#include <sdf/Joint.hh>
#include <sdf/JointAxis.hh>
#include <sdf/Link.hh>
#include <sdf/Model.hh>
#include <sdf/ParserConfig.hh>
#include <sdf/Root.hh>
#include <sdf/World.hh>
#include <sdf/sdf_config.h>

namespace {

// JSON writes a small JSON document by hand: the program needs nothing beyond
// libsdformat, and the shapes it prints are few.
std::string quote(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// number prints a double exactly enough to round-trip; JSON has no NaN or
// infinity, so those are null.
std::string number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string vec(const ignition::math::Vector3d &v) {
  return "[" + number(v.X()) + "," + number(v.Y()) + "," + number(v.Z()) + "]";
}

// pose is a pose as SDF writes it: position (m) and roll, pitch, yaw (rad).
std::string pose(const ignition::math::Pose3d &p) {
  return "{\"xyz\":" + vec(p.Pos()) + ",\"rpy\":" + vec(p.Rot().Euler()) + "}";
}

std::string codeName(sdf::ErrorCode c) {
  switch (c) {
#define NAME(x) case sdf::ErrorCode::x: return #x;
    NAME(NONE) NAME(FILE_READ) NAME(DUPLICATE_NAME) NAME(RESERVED_NAME)
    NAME(ATTRIBUTE_MISSING) NAME(ATTRIBUTE_INVALID) NAME(ATTRIBUTE_DEPRECATED)
    NAME(ATTRIBUTE_INCORRECT_TYPE) NAME(ELEMENT_MISSING) NAME(ELEMENT_INVALID)
    NAME(ELEMENT_DEPRECATED) NAME(ELEMENT_INCORRECT_TYPE) NAME(URI_INVALID)
    NAME(URI_LOOKUP) NAME(DIRECTORY_NONEXISTANT) NAME(MODEL_CANONICAL_LINK_INVALID)
    NAME(MODEL_WITHOUT_LINK) NAME(NESTED_MODELS_UNSUPPORTED) NAME(LINK_INERTIA_INVALID)
    NAME(JOINT_CHILD_LINK_INVALID) NAME(JOINT_PARENT_LINK_INVALID)
    NAME(JOINT_PARENT_SAME_AS_CHILD) NAME(FRAME_ATTACHED_TO_INVALID)
    NAME(FRAME_ATTACHED_TO_CYCLE) NAME(FRAME_ATTACHED_TO_GRAPH_ERROR)
    NAME(POSE_RELATIVE_TO_INVALID) NAME(POSE_RELATIVE_TO_CYCLE)
    NAME(POSE_RELATIVE_TO_GRAPH_ERROR) NAME(STRING_READ)
    NAME(MODEL_PLACEMENT_FRAME_INVALID) NAME(VERSION_DEPRECATED)
    NAME(MERGE_INCLUDE_UNSUPPORTED)
#undef NAME
  }
  return "CODE_" + std::to_string(static_cast<int>(c));
}

std::string jointType(sdf::JointType t) {
  switch (t) {
    case sdf::JointType::BALL: return "ball";
    case sdf::JointType::CONTINUOUS: return "continuous";
    case sdf::JointType::FIXED: return "fixed";
    case sdf::JointType::GEARBOX: return "gearbox";
    case sdf::JointType::PRISMATIC: return "prismatic";
    case sdf::JointType::REVOLUTE: return "revolute";
    case sdf::JointType::REVOLUTE2: return "revolute2";
    case sdf::JointType::SCREW: return "screw";
    case sdf::JointType::UNIVERSAL: return "universal";
    case sdf::JointType::INVALID: break;
  }
  return "invalid";
}

std::string errorJSON(const sdf::Error &e) {
  std::string out = "{\"code\":" + quote(codeName(e.Code())) + ",\"message\":" + quote(e.Message());
  if (auto f = e.FilePath()) out += ",\"file\":" + quote(*f);
  if (auto l = e.LineNumber()) out += ",\"line\":" + std::to_string(*l);
  if (auto x = e.XmlPath()) out += ",\"xml_path\":" + quote(*x);
  return out + "}";
}

// resolved is an object's pose in the named frame ("" is its default
// frame), or null when libsdformat cannot resolve it (its errors are then
// among the load errors).
std::string resolved(const sdf::SemanticPose &sp, const std::string &frame) {
  ignition::math::Pose3d p;
  if (!sp.Resolve(p, frame).empty()) return "null";
  return pose(p);
}

std::string axisJSON(const sdf::JointAxis *a) {
  if (a == nullptr) return "null";
  std::string out = "{\"xyz\":" + vec(a->Xyz()) + ",\"expressed_in\":" + quote(a->XyzExpressedIn());
  ignition::math::Vector3d inModel;
  if (a->ResolveXyz(inModel, "__model__").empty()) out += ",\"xyz_in_model\":" + vec(inModel);
  out += ",\"lower\":" + number(a->Lower()) + ",\"upper\":" + number(a->Upper()) +
         ",\"effort\":" + number(a->Effort()) + ",\"velocity\":" + number(a->MaxVelocity());
  return out + "}";
}

std::string linkJSON(const sdf::Link &l) {
  const auto &in = l.Inertial();
  const auto &mm = in.MassMatrix();
  const auto d = mm.DiagonalMoments(), o = mm.OffDiagonalMoments();
  std::string out = "{\"name\":" + quote(l.Name());
  out += ",\"mass_kg\":" + number(mm.Mass());
  out += ",\"inertia_kg_m2\":{\"ixx\":" + number(d.X()) + ",\"iyy\":" + number(d.Y()) + ",\"izz\":" + number(d.Z()) +
         ",\"ixy\":" + number(o.X()) + ",\"ixz\":" + number(o.Y()) + ",\"iyz\":" + number(o.Z()) + "}";
  out += ",\"inertial_pose\":" + pose(in.Pose());
  out += ",\"pose\":" + pose(l.RawPose()) + ",\"pose_relative_to\":" + quote(l.PoseRelativeTo());
  out += ",\"pose_in_model\":" + resolved(l.SemanticPose(), "__model__");
  out += ",\"visual_count\":" + std::to_string(l.VisualCount());
  out += ",\"collision_count\":" + std::to_string(l.CollisionCount());
  return out + "}";
}

std::string jointJSON(const sdf::Joint &j) {
  std::string out = "{\"name\":" + quote(j.Name()) + ",\"type\":" + quote(jointType(j.Type())) +
                    ",\"parent\":" + quote(j.ParentLinkName()) + ",\"child\":" + quote(j.ChildLinkName());
  out += ",\"axis\":" + axisJSON(j.Axis(0));
  if (j.Axis(1) != nullptr) out += ",\"axis2\":" + axisJSON(j.Axis(1));
  out += ",\"pose\":" + pose(j.RawPose()) + ",\"pose_relative_to\":" + quote(j.PoseRelativeTo());
  return out + "}";
}

std::string modelJSON(const sdf::Model &m) {
  std::string out = "{\"name\":" + quote(m.Name()) + ",\"static\":" + (m.Static() ? "true" : "false");
  out += ",\"canonical_link\":" + quote(m.CanonicalLinkName());
  out += ",\"pose\":" + pose(m.RawPose());
  out += ",\"links\":[";
  for (uint64_t i = 0; i < m.LinkCount(); ++i) out += (i ? "," : "") + linkJSON(*m.LinkByIndex(i));
  out += "],\"joints\":[";
  for (uint64_t i = 0; i < m.JointCount(); ++i) out += (i ? "," : "") + jointJSON(*m.JointByIndex(i));
  out += "],\"models\":[";
  for (uint64_t i = 0; i < m.ModelCount(); ++i) out += (i ? "," : "") + modelJSON(*m.ModelByIndex(i));
  return out + "]}";
}

std::string worldJSON(const sdf::World &w) {
  std::string out = "{\"name\":" + quote(w.Name()) + ",\"gravity\":" + vec(w.Gravity()) + ",\"models\":[";
  for (uint64_t i = 0; i < w.ModelCount(); ++i) out += (i ? "," : "") + modelJSON(*w.ModelByIndex(i));
  return out + "]}";
}

// messages splits what libsdformat printed on its console (it prints some
// warnings and the details of an XML error there rather than returning
// them) into {level, text}: a message starts with its label ("Error
// [parser.cc:719] ..."), colour codes and the source location removed, and
// runs on over the lines that follow it.
std::string messages(const std::string &printed) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(printed);
  std::string line;
  while (std::getline(in, line)) {
    std::string clean;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\x1b') {  // ESC [ ... m
        while (i < line.size() && line[i] != 'm') ++i;
        continue;
      }
      clean += line[i];
    }
    while (!clean.empty() && (clean.back() == ' ' || clean.back() == '\r')) clean.pop_back();
    if (clean.empty()) continue;
    std::string level;
    for (const char *l : {"Error", "Warning", "Msg", "Dbg"}) {
      if (clean.rfind(std::string(l) + " [", 0) == 0) level = l;
    }
    if (level.empty()) {
      if (!out.empty()) out.back().second += " " + clean;
      continue;
    }
    size_t close = clean.find("] ");
    std::string text = close == std::string::npos ? clean.substr(level.size() + 1) : clean.substr(close + 2);
    for (auto &c : level) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.emplace_back(level == "msg" ? "info" : level, text);
  }
  std::string json = "[";
  for (size_t i = 0; i < out.size(); ++i) {
    json += (i ? "," : "") + std::string("{\"level\":") + quote(out[i].first) + ",\"text\":" + quote(out[i].second) + "}";
  }
  return json + "]";
}

}  // namespace

int main(int argc, char **argv) {
  if (argc == 2 && std::string(argv[1]) == "--version") {
    // What a health check asks: the library it was built against, and the
    // newest SDF version that library reads.
    std::cout << "{\"libsdformat_version\":" << quote(SDF_VERSION_FULL)
              << ",\"sdf_protocol_version\":" << quote(SDF_PROTOCOL_VERSION) << "}" << std::endl;
    return 0;
  }
  if (argc != 2 || std::string(argv[1]).empty() || std::string(argv[1])[0] == '-') {
    std::fprintf(stderr, "usage: %s FILE.sdf|FILE.world (or --version)\nprints libsdformat's report on the file as JSON; exit 0 valid, 1 not valid\n",
                 argc > 0 ? argv[0] : "metaforge-sdfcheck");
    return 2;
  }
  const std::string file = argv[1];

  // libsdformat looks for a relative <include> uri in the working folder
  // (among others): run in the file's own, so one is found beside the
  // file, where MetaForge checked it may be read, and nowhere else.
  std::string path = file;
  if (char *real = realpath(file.c_str(), nullptr)) {
    path = real;
    std::free(real);
    const std::string dir = path.substr(0, path.find_last_of('/') + 1);
    if (chdir(dir.c_str()) != 0) {
      std::fprintf(stderr, "%s: cannot enter %s\n", argv[0], dir.c_str());
      return 2;
    }
  }

  // libsdformat's console also logs to $HOME/.sdformat/sdformat.log; a
  // checker writes nothing, so it runs without HOME (the console then says
  // on stderr that it will not log).
  unsetenv("HOME");

  // libsdformat prints warnings (unknown elements, deprecated ones) on its
  // console rather than returning them: catch them for the report.
  std::ostringstream console;
  sdf::Console::Instance()->GetMsgStream().SetStream(&console);

  // An element SDF does not define (a misspelt <inertal>) is legal, copied
  // through for plugins, and by default only logged; warn, so the report
  // shows it without calling the file invalid (as `gz sdf -k` would not).
  sdf::ParserConfig config;
  config.SetUnrecognizedElementsPolicy(sdf::EnforcementPolicy::WARN);

  sdf::Root root;
  const sdf::Errors errors = root.Load(path, config);

  std::string out = "{\"file\":" + quote(file) + ",\"valid\":" + (errors.empty() ? "true" : "false");
  out += ",\"sdf_version\":" + quote(root.Version());
  out += ",\"libsdformat_version\":" + quote(SDF_VERSION_FULL);
  out += ",\"errors\":[";
  for (size_t i = 0; i < errors.size(); ++i) out += (i ? "," : "") + errorJSON(errors[i]);
  out += "],\"messages\":" + messages(console.str());
  out += ",\"worlds\":[";
  for (uint64_t i = 0; i < root.WorldCount(); ++i) out += (i ? "," : "") + worldJSON(*root.WorldByIndex(i));
  out += "],\"models\":[";
  if (root.Model() != nullptr) out += modelJSON(*root.Model());
  out += "]}";

  std::cout << out << std::endl;
  return errors.empty() ? 0 : 1;
}
