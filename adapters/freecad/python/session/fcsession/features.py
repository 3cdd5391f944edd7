"""The PartDesign features an edit adds to a body."""
from .bodies import answer, body_for, body_of, feature_or_tip, get, origin_feature, sketch
from .failures import invalid
from .selectors import edges


def create_body(doc, args):
    body = doc.addObject("PartDesign::Body", "Body")
    if args.get("label"):
        body.Label = args["label"]
    return answer(doc, body, body)


def pad(doc, args):
    sk = sketch(doc, args["sketch"])
    body = body_of(doc, sk)
    f = body.newObject("PartDesign::Pad", "Pad")
    f.Profile = sk
    if (args.get("type") or "dimension") == "through_all":
        # 0.20's Pad has no ThroughAll: up to the body's last face does it.
        f.Type = "UpToLast"
    else:
        f.Type = "Length"
        f.Length = float(args["length"])
    f.Reversed = bool(args.get("reversed"))
    f.Midplane = bool(args.get("symmetric"))
    return answer(doc, f, body)


def pocket(doc, args):
    sk = sketch(doc, args["sketch"])
    body = body_of(doc, sk)
    if body.Tip is None:
        raise invalid("body %s has no solid to pocket; pad a sketch first" % body.Name)
    f = body.newObject("PartDesign::Pocket", "Pocket")
    f.Profile = sk
    if args.get("through_all"):
        f.Type = "ThroughAll"
    else:
        f.Type = "Length"
        f.Length = float(args["depth"])
    f.Reversed = bool(args.get("reversed"))
    f.Midplane = bool(args.get("symmetric"))
    return answer(doc, f, body)


def axis_ref(body, sk, axis):
    if axis in ("V_Axis", "H_Axis"):
        return (sk, [axis])
    return (origin_feature(body, axis + "_Axis"), [""])


def revolve(doc, args):
    sk = sketch(doc, args["sketch"])
    body = body_of(doc, sk)
    f = body.newObject("PartDesign::Revolution", "Revolution")
    f.Profile = sk
    f.ReferenceAxis = axis_ref(body, sk, args.get("axis") or "V_Axis")
    f.Angle = float(args.get("angle") or 360.0)
    return answer(doc, f, body)


def loft(doc, args):
    names = args["sketches"]
    sks = [sketch(doc, n) for n in names]
    body = body_of(doc, sks[0])
    f = body.newObject("PartDesign::AdditiveLoft", "AdditiveLoft")
    f.Profile = sks[0]
    f.Sections = sks[1:]
    f.Ruled = bool(args.get("ruled"))
    for sk in sks:
        sk.Visibility = False
    return answer(doc, f, body)


def sweep(doc, args):
    profile = sketch(doc, args["profile"])
    path = get(doc, args["path"], "path")
    body = body_of(doc, profile)
    f = body.newObject("PartDesign::AdditivePipe", "AdditivePipe")
    f.Profile = profile
    f.Spine = (path, ["Edge%d" % i for i in range(1, len(path.Shape.Edges) + 1)])
    return answer(doc, f, body)


def shell(doc, args):
    base = feature_or_tip(doc, args.get("feature") or "")
    body = body_of(doc, base)
    count = len(base.Shape.Faces)
    for n in args["faces"]:
        if not n.startswith("Face") or not n[4:].isdigit() or not 1 <= int(n[4:]) <= count:
            raise invalid("%s has no face %r; its faces are Face1..Face%d" % (base.Name, n, count))
    f = body.newObject("PartDesign::Thickness", "Thickness")
    f.Base = (base, list(args["faces"]))
    f.Value = float(args["thickness"])
    f.Reversed = True  # the wall grows inwards: the outside stays where it is
    return answer(doc, f, body)


def dress(doc, args, kind, name, prop, key):
    base = feature_or_tip(doc, args.get("feature") or "")
    body = body_of(doc, base)
    picked = edges(base.Shape, args.get("edges") or [], args.get("selector") or "", base.Name)
    f = body.newObject(kind, name)
    f.Base = (base, picked)
    setattr(f, prop, float(args[key]))
    out = answer(doc, f, body)
    out["edges"] = picked
    return out


def fillet(doc, args):
    return dress(doc, args, "PartDesign::Fillet", "Fillet", "Radius", "radius")


def chamfer(doc, args):
    return dress(doc, args, "PartDesign::Chamfer", "Chamfer", "Size", "size")


def originals(doc, names):
    feats = [get(doc, n, "feature") for n in names]
    body = body_of(doc, feats[0])
    for f in feats[1:]:
        if body_of(doc, f) != body:
            raise invalid("the features of a pattern must be in one body: %s is in %s" % (f.Name, body_of(doc, f).Name))
    return feats, body


def linear_pattern(doc, args):
    feats, body = originals(doc, args["features"])
    f = body.newObject("PartDesign::LinearPattern", "LinearPattern")
    f.Originals = feats
    f.Direction = (origin_feature(body, args["direction"] + "_Axis"), [""])
    f.Length = float(args["length"])
    f.Occurrences = int(args["occurrences"])
    f.Reversed = bool(args.get("reversed"))
    body.Tip = f  # Body.newObject leaves the tip where it was for a pattern
    return answer(doc, f, body)


def polar_pattern(doc, args):
    feats, body = originals(doc, args["features"])
    f = body.newObject("PartDesign::PolarPattern", "PolarPattern")
    f.Originals = feats
    f.Axis = (origin_feature(body, args["axis"] + "_Axis"), [""])
    f.Angle = float(args.get("angle") or 360.0)
    f.Occurrences = int(args["occurrences"])
    f.Reversed = bool(args.get("reversed"))
    body.Tip = f  # Body.newObject leaves the tip where it was for a pattern
    return answer(doc, f, body)
