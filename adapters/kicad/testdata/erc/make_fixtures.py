#!/usr/bin/env python3
"""Writes the ERC test schematics beside this script (KiCad 6 format).

One clean circuit, and variants of it that each break one ERC rule once.
The symbols are copied from Debian's kicad-symbols libraries
(/usr/share/kicad/symbols), as KiCad 6 embeds them, so eeschema finds them
unchanged. The circuit: R1 drives the input of U1 (74LVC1G04, whose GND
and VCC pins are invisible power inputs), U1's output loads R2, R1 and R2
go to GND, and PWR_FLAGs drive GND and VCC.

usage: make_fixtures.py   (then run kicad6_gui_erc.sh on each file to
record KiCad 6's own report, *.kicad6.rpt)
"""
import os
import re
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
SYMBOLS = "/usr/share/kicad/symbols"
NS = uuid.UUID("6f1d2c1e-5a55-4c6e-9c0b-2f0c1e0e2c25")


def uid(*parts):
    """A stable uuid, so regenerating gives the same files."""
    return str(uuid.uuid5(NS, "/".join(str(p) for p in parts)))


def lib_symbol(lib, name):
    """The symbol's text in its library, renamed lib:name as KiCad embeds it."""
    text = open(os.path.join(SYMBOLS, lib + ".kicad_sym")).read()
    start = text.index('(symbol "%s"' % name)
    depth, i = 0, start
    while True:
        c = text[i]
        if c == '"':
            i = text.index('"', i + 1)
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                break
        i += 1
    body = text[start:i + 1]
    assert "extends" not in body.split("\n")[0], name
    body = body.replace('(symbol "%s"' % name, '(symbol "%s:%s"' % (lib, name), 1)
    return "\n".join("  " + line for line in body.split("\n"))


LIBS = [("Device", "R"), ("74xGxx", "74LVC1G04"), ("power", "GND"), ("power", "VCC"), ("power", "PWR_FLAG")]


class Sheet:
    def __init__(self, name):
        self.name = name
        self.items = []
        self.symbols = []  # (uuid, reference, value)

    def symbol(self, lib_id, ref, value, x, y, pins, angle=0):
        u = uid(self.name, ref, x, y)
        self.symbols.append((u, ref, value))
        hide = " hide" if ref.startswith("#") else ""
        pin_lines = "\n".join('    (pin "%s" (uuid %s))' % (p, uid(u, p)) for p in pins)
        self.items.append("""  (symbol (lib_id "%s") (at %s %s %d) (unit 1)
    (in_bom yes) (on_board yes)
    (uuid %s)
    (property "Reference" "%s" (id 0) (at %s %s 0)
      (effects (font (size 1.27 1.27))%s)
    )
    (property "Value" "%s" (id 1) (at %s %s 0)
      (effects (font (size 1.27 1.27)))
    )
    (property "Footprint" "" (id 2) (at %s %s 0)
      (effects (font (size 1.27 1.27)) hide)
    )
    (property "Datasheet" "" (id 3) (at %s %s 0)
      (effects (font (size 1.27 1.27)) hide)
    )
%s
  )""" % (lib_id, x, y, angle, u, ref, x + 2.54, y - 1.27, hide, value, x + 2.54, y + 1.27, x, y, x, y, pin_lines))

    def wire(self, *pts):
        for (x1, y1), (x2, y2) in zip(pts, pts[1:]):
            self.items.append("""  (wire (pts (xy %s %s) (xy %s %s))
    (stroke (width 0) (type solid) (color 0 0 0 0))
    (uuid %s)
  )""" % (x1, y1, x2, y2, uid(self.name, "wire", x1, y1, x2, y2)))

    def no_connect(self, x, y):
        self.items.append("  (no_connect (at %s %s) (uuid %s))" % (x, y, uid(self.name, "nc", x, y)))

    def label(self, kind, text, x, y):
        shape = " (shape input)" if kind != "label" else ""
        self.items.append("""  (%s "%s"%s (at %s %s 0)%s
    (effects (font (size 1.27 1.27)) (justify left bottom))
    (uuid %s)
  )""" % (kind, text, shape, x, y, " (fields_autoplaced)" if kind == "global_label" else "", uid(self.name, kind, text, x, y)))

    def sheet(self, name, file, x, y, w, h, pins):
        pin_lines = "\n".join("""    (pin "%s" input (at %s %s 180)
      (effects (font (size 1.27 1.27)) (justify left))
      (uuid %s)
    )""" % (p, px, py, uid(self.name, "sheetpin", name, p)) for p, px, py in pins)
        self.items.append("""  (sheet (at %s %s) (size %s %s) (fields_autoplaced)
    (stroke (width 0.1524) (type solid) (color 0 0 0 0))
    (fill (color 0 0 0 0.0000))
    (uuid %s)
    (property "Sheet name" "%s" (id 0) (at %s %s 0)
      (effects (font (size 1.27 1.27)) (justify left bottom))
    )
    (property "Sheet file" "%s" (id 1) (at %s %s 0)
      (effects (font (size 1.27 1.27)) (justify left top))
    )
%s
  )""" % (x, y, w, h, self.sheet_uuid(name), name, x, y - 0.7, file, x, y + h + 0.6, pin_lines))

    def sheet_uuid(self, name):
        return uid(self.name, "sheet", name)

    def text(self, root_uuid, instances, sheets=("/",)):
        """The file; instances are (path, reference, value) for the root."""
        libs = "\n".join(lib_symbol(l, n) for l, n in LIBS)
        out = ["(kicad_sch (version 20211123) (generator eeschema)", "",
               "  (uuid %s)" % root_uuid, "", '  (paper "A4")', "", "  (lib_symbols", libs, "  )", ""]
        out += [i + "\n" for i in self.items]
        if instances is not None:
            out.append("  (sheet_instances")
            for i, s in enumerate(sheets):
                out.append('    (path "%s" (page "%d"))' % (s, i + 1))
            out.append("  )\n")
            out.append("  (symbol_instances")
            for path, ref, value in instances:
                out.append('    (path "%s"\n      (reference "%s") (unit 1) (value "%s") (footprint "")\n    )' % (path, ref, value))
            out.append("  )")
        out.append(")")
        return "\n".join(out) + "\n"


# Positions (mm, on KiCad's 1.27 mm grid). U1's input is at x-7.62, its
# output at x+6.35; R's pin 1 is 3.81 above its centre, pin 2 below.
U1 = (101.6, 76.2)
U1A, U1Y = (93.98, 76.2), (107.95, 76.2)
GATE_PINS = ["2", "3", "4", "5"]


def clean(s, r2=True, flag_gnd=True, r2_ref="R2", r1_wire=True):
    s.symbol("74xGxx:74LVC1G04", "U1", "74LVC1G04", U1[0], U1[1], GATE_PINS)
    s.symbol("Device:R", "R1", "10k", 86.36, 80.01, ["1", "2"])
    if r1_wire:
        s.wire((86.36, 76.2), U1A)
    s.wire((86.36, 83.82), (86.36, 88.9))
    s.symbol("power:GND", "#PWR01", "GND", 86.36, 88.9, ["1"])
    if flag_gnd:
        s.symbol("power:PWR_FLAG", "#FLG01", "PWR_FLAG", 81.28, 88.9, ["1"], angle=180)
        s.wire((81.28, 88.9), (86.36, 88.9))
    if r2:
        s.symbol("Device:R", r2_ref, "10k", 114.3, 80.01, ["1", "2"])
        s.wire(U1Y, (114.3, 76.2))
        s.wire((114.3, 83.82), (114.3, 88.9))
        s.symbol("power:GND", "#PWR02", "GND", 114.3, 88.9, ["1"])
    s.symbol("power:VCC", "#PWR03", "VCC", 127.0, 66.04, ["1"])
    s.symbol("power:PWR_FLAG", "#FLG02", "PWR_FLAG", 132.08, 66.04, ["1"])
    s.wire((127.0, 66.04), (132.08, 66.04))


def second_gate(s):
    s.symbol("74xGxx:74LVC1G04", "U2", "74LVC1G04", 101.6, 60.96, GATE_PINS)


VARIANTS = {
    # Nothing to report.
    "clean": lambda s: clean(s),
    # U1's output touches nothing: pin_not_connected.
    "pin_not_connected": lambda s: clean(s, r2=False),
    # U2's output joins U1's: two outputs on one net, pin_to_pin (error).
    "pin_to_pin": lambda s: (clean(s), second_gate(s), s.wire((93.98, 60.96), U1A), s.wire((107.95, 60.96), U1Y)),
    # No PWR_FLAG on GND: its power inputs have no power output.
    "power_pin_not_driven": lambda s: clean(s, flag_gnd=False),
    # U1's input joins only U2's input; R1 loads U2's output instead.
    "pin_not_driven": lambda s: (clean(s, r1_wire=False), second_gate(s), s.wire(U1A, (93.98, 60.96)),
                                 s.wire((86.36, 76.2), (86.36, 55.88), (110.49, 55.88), (110.49, 60.96), (107.95, 60.96))),
    # A no-connect flag on R1's pin 1, which is wired to U1.
    "no_connect_connected": lambda s: (clean(s), s.no_connect(86.36, 76.2)),
    # A no-connect flag on nothing.
    "no_connect_dangling": lambda s: (clean(s), s.no_connect(63.5, 63.5)),
    # A local label on a wire stub that reaches no pin.
    "label_dangling": lambda s: (clean(s), s.wire((60.96, 101.6), (66.04, 101.6)), s.label("label", "FLOAT", 60.96, 101.6)),
    # A global label used once, on U1's output alone.
    "global_label_dangling": lambda s: (clean(s, r2=False), s.wire(U1Y, (113.03, 76.2)), s.label("global_label", "GOUT", 113.03, 76.2)),
    # Two names on the wire from R1 to U1.
    "multiple_net_names": lambda s: (clean(s), s.label("label", "NA", 88.9, 76.2), s.label("label", "NB", 91.44, 76.2)),
    # A wire that touches nothing.
    "wire_dangling": lambda s: (clean(s), s.wire((60.96, 101.6), (66.04, 101.6))),
    # R2 is called R1 too.
    "duplicate_reference": lambda s: clean(s, r2_ref="R1"),
    # R2 is not annotated.
    "unannotated": lambda s: clean(s, r2_ref="R?"),
    # SIG and sig name two nets.
    "similar_labels": lambda s: (clean(s), s.label("label", "SIG", 88.9, 76.2), s.label("label", "sig", 110.49, 76.2)),
}


def write(name, text):
    with open(os.path.join(HERE, name), "w") as f:
        f.write(text)


# Variants read with a project file (.kicad_pro) whose ERC settings change
# the outcome: its pin_map makes two connected outputs a warning, and its
# rule_severities make an unconnected pin a warning and ignore dangling
# no-connect flags.
PROJECTS = {
    "pin_map_override": (VARIANTS["pin_to_pin"], {"pin_map": "outputs_warn"}),
    "severity_override": (lambda s: (clean(s, r2=False), s.no_connect(63.5, 63.5)),
                          {"rule_severities": {"pin_not_connected": "warning", "no_connect_dangling": "ignore"}}),
}

DEFAULT_PIN_MAP = [
    [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2], [0, 2, 0, 1, 0, 0, 1, 0, 2, 2, 2, 2],
    [0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 2], [0, 1, 0, 0, 0, 0, 1, 1, 2, 1, 1, 2],
    [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2],
    [1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 2], [0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 2],
    [0, 2, 1, 2, 0, 0, 1, 0, 2, 2, 2, 2], [0, 2, 0, 1, 0, 0, 1, 0, 2, 0, 0, 2],
    [0, 2, 1, 1, 0, 0, 1, 0, 2, 0, 0, 2], [2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
]


def project(erc):
    import copy
    import json
    erc = copy.deepcopy(erc)
    if erc.get("pin_map") == "outputs_warn":
        erc["pin_map"] = copy.deepcopy(DEFAULT_PIN_MAP)
        erc["pin_map"][1][1] = 1  # output to output: warning
    return json.dumps({"erc": erc, "meta": {"filename": "", "version": 1}}, indent=2) + "\n"


def main():
    for name, build in VARIANTS.items():
        s = Sheet(name)
        build(s)
        root = uid(name, "root")
        write("erc_%s.kicad_sch" % name, s.text(root, [("/" + u, r, v) for u, r, v in s.symbols]))
    for name, (build, erc) in PROJECTS.items():
        s = Sheet(name)
        build(s)
        write("erc_%s.kicad_sch" % name, s.text(uid(name, "root"), [("/" + u, r, v) for u, r, v in s.symbols]))
        write("erc_%s.kicad_pro" % name, project(erc))
    hierarchy()


def hierarchy():
    """A root placing one sheet whose hierarchical labels are IN (answered
    by the sheet pin IN) and EXTRA (answered by none): hier_label_mismatch.
    R11 and R12 sit in parallel between them, so EXTRA's net has two pins
    and is not dangling."""
    child = Sheet("hier_child")
    child.symbol("Device:R", "R11", "1k", 101.6, 80.01, ["1", "2"])
    child.symbol("Device:R", "R12", "1k", 111.76, 80.01, ["1", "2"])
    child.wire((111.76, 76.2), (101.6, 76.2), (96.52, 76.2))
    child.label("hierarchical_label", "IN", 96.52, 76.2)
    child.wire((111.76, 83.82), (101.6, 83.82), (96.52, 83.82))
    child.label("hierarchical_label", "EXTRA", 96.52, 83.82)
    root = Sheet("hier_root")
    clean(root)
    sheet_uuid = root.sheet_uuid("sub")
    root.sheet("sub", "erc_hier_child.kicad_sch", 127.0, 76.2, 20.32, 12.7, [("IN", 127.0, 80.01)])
    root.wire((127.0, 80.01), (120.65, 80.01), (120.65, 76.2), (114.3, 76.2))
    root_uuid = uid("hier_root", "root")
    instances = [("/" + u, r, v) for u, r, v in root.symbols]
    instances += [("/%s/%s" % (sheet_uuid, u), r, v) for u, r, v in child.symbols]
    write("erc_hier_label_mismatch.kicad_sch", root.text(root_uuid, instances, sheets=("/", "/" + sheet_uuid)))
    write("erc_hier_child.kicad_sch", child.text(uid("hier_child", "root"), None))


if __name__ == "__main__":
    main()
