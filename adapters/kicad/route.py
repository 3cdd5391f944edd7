# Board work of kicad.auto_route, run by the Debian system Python that
# imports KiCad 6's pcbnew. Usage:
#   route.py export <board.kicad_pcb> <output dir> <board.dsn>
#   route.py merge  <board.kicad_pcb> <output dir> <copper.json> <routed.kicad_pcb>
# It prints one line "METAFORGE_JSON <json>" last; pcbnew's own chatter may
# come before it. It writes only the files it is given, in <output dir>.
#
# KiCad 6 can export a Specctra DSN headless but not import a session
# (ImportSpecctraSES needs the GUI's frame), so merge adds the routed
# copper itself, as KiCad's importer does: the board's unlocked tracks and
# vias are replaced by the session's (locked ones are exported as fixed,
# which a session leaves out, so they stay), then the zones are refilled.
# Without a session (replace false) the board is copied as it was.
import json
import math
import sys

try:
    import pcbnew
except ImportError as e:
    print("METAFORGE_NO_PCBNEW %s" % e)
    sys.exit(3)


# Items taken off a board are kept referenced until the script ends: when
# SWIG collects the wrapper of a removed track (it has no destructor for
# one, and says so), KiCad 6's bindings stop resolving other types (a
# board's Drawings() comes back as a bare SwigPyObject).
removed = []


def remove(board, item):
    board.Remove(item)
    removed.append(item)


def emit(obj):
    sys.stdout.write("\nMETAFORGE_JSON " + json.dumps(obj) + "\n")
    sys.stdout.flush()


def unconnected(board):
    """Connections the board's own ratsnest says are not made by copper."""
    board.BuildConnectivity()
    return int(board.GetConnectivity().GetUnconnectedCount())


def copper_drawings(board):
    """Text and graphics on copper layers: the board's and the
    footprints' (visible reference and value included)."""
    items = [d for d in board.GetDrawings() if pcbnew.IsCopperLayer(d.GetLayer())]
    for fp in board.GetFootprints():
        items += [g for g in fp.GraphicalItems() if pcbnew.IsCopperLayer(g.GetLayer())]
        items += [t for t in (fp.Reference(), fp.Value()) if t.IsVisible() and pcbnew.IsCopperLayer(t.GetLayer())]
    return items


def keepout_outline(item, clearance):
    """The item's copper grown by the clearance, as (x, y) corners in nm: a
    rectangle around a straight line, else the bounding box."""
    if isinstance(item, pcbnew.PCB_SHAPE) and item.GetShape() == pcbnew.SHAPE_T_SEGMENT:
        s, e = item.GetStart(), item.GetEnd()
        half = item.GetWidth() / 2.0 + clearance
        dx, dy = e.x - s.x, e.y - s.y
        length = math.hypot(dx, dy)
        ux, uy = (dx / length, dy / length) if length > 0 else (1.0, 0.0)
        nx, ny = -uy, ux
        return [(s.x - (ux - nx) * half, s.y - (uy - ny) * half), (e.x + (ux + nx) * half, e.y + (uy + ny) * half),
                (e.x + (ux - nx) * half, e.y + (uy - ny) * half), (s.x - (ux + nx) * half, s.y - (uy + ny) * half)]
    bb = item.GetBoundingBox()
    x1, y1 = bb.GetX() - clearance, bb.GetY() - clearance
    x2, y2 = bb.GetRight() + clearance, bb.GetBottom() + clearance
    return [(x1, y1), (x2, y1), (x2, y2), (x1, y2)]


def add_copper_keepouts(board, dsn):
    """KiCad 6's DSN export leaves out text and graphics on copper layers,
    so Freerouting would route across them and the DRC would find the
    tracks too close. Each becomes a keepout on its layer, grown by the
    board's biggest clearance, in the DSN's structure. Returns how many."""
    items = copper_drawings(board)
    if not items:
        return 0
    with open(dsn) as f:
        text = f.read()
    if "(unit um)" not in text:
        raise ValueError("the DSN is not in micrometres; its keepouts cannot be added")
    end = text.find("\n  (placement")
    close = text.rfind(")", 0, end)
    if end < 0 or close < 0:
        raise ValueError("the DSN has no structure followed by a placement")
    clearance = board.GetDesignSettings().GetBiggestClearanceValue()
    lines = []
    for it in items:
        corners = keepout_outline(it, clearance)
        corners.append(corners[0])
        # DSN: micrometres, Y up.
        pts = " ".join("%.1f %.1f" % (x / 1000.0, -y / 1000.0) for x, y in corners)
        lines.append('  (keepout "" (polygon "%s" 0 %s))\n  ' % (board.GetLayerName(it.GetLayer()), pts))
    with open(dsn, "w") as f:
        f.write(text[:close] + "".join(lines) + text[close:])
    return len(items)


def export(board, dsn):
    before = unconnected(board)
    locked = sum(1 for t in board.GetTracks() if t.IsLocked())
    # Freerouting 2.2.3 mishandles a DSN's existing wiring (it recurses
    # without end on some, or drops routes), and the merge replaces
    # unlocked tracks and vias anyway: they are left out of the DSN (this
    # board is not saved). Locked ones go in, as fixed wiring.
    for t in list(board.GetTracks()):
        if not t.IsLocked():
            remove(board, t)
    if not pcbnew.ExportSpecctraDSN(board, dsn):
        emit({"error": "pcbnew could not export the board to Specctra DSN"})
        return
    try:
        keepouts = add_copper_keepouts(board, dsn)
    except ValueError as e:
        emit({"error": str(e)})
        return
    # Every connection the board needs is what stays unconnected with no
    # copper at all: no tracks, no vias, no zone fill (this board is not
    # saved).
    for t in list(board.GetTracks()):
        remove(board, t)
    for z in board.Zones():
        z.UnFill()
    emit({
        "dsn_file": dsn,
        "connections_total": unconnected(board),
        "unrouted_before": before,
        "locked_tracks": locked,
        "copper_keepouts": keepouts,
        "copper_layers": [board.GetLayerName(l) for l in board.GetEnabledLayers().CuStack()],
    })


def copper_layer(board, name, cache):
    """The enabled copper layer the session names (the board's own name
    for it, as the DSN export wrote it, or KiCad's standard one)."""
    if name not in cache:
        lid = board.GetLayerID(name)
        ok = lid >= 0 and pcbnew.IsCopperLayer(lid) and board.IsLayerEnabled(lid)
        cache[name] = lid if ok else None
    return cache[name]


def merge(board, copper_file, routed):
    with open(copper_file) as f:
        copper = json.load(f)
    layers, nets = {}, {}
    unknown_layers, unknown_nets = set(), set()

    def net_of(name):
        if name not in nets:
            nets[name] = board.FindNet(name)
        if nets[name] is None:
            unknown_nets.add(name)
        return nets[name]

    for t in copper["tracks"]:
        if copper_layer(board, t["layer"], layers) is None:
            unknown_layers.add(t["layer"])
        net_of(t["net"])
    for v in copper["vias"]:
        for l in (v["top_layer"], v["bottom_layer"]):
            if copper_layer(board, l, layers) is None:
                unknown_layers.add(l)
        net_of(v["net"])
    if unknown_layers or unknown_nets:
        emit({"unknown_layers": sorted(unknown_layers), "unknown_nets": sorted(unknown_nets),
              "copper_layers": [board.GetLayerName(l) for l in board.GetEnabledLayers().CuStack()]})
        return

    kept = 0
    for t in list(board.GetTracks()):
        if t.IsLocked() or not copper["replace"]:
            kept += 1
        else:
            remove(board, t)
    for t in copper["tracks"]:
        track = pcbnew.PCB_TRACK(board)
        track.SetStart(pcbnew.wxPoint(t["x1_nm"], t["y1_nm"]))
        track.SetEnd(pcbnew.wxPoint(t["x2_nm"], t["y2_nm"]))
        track.SetWidth(t["width_nm"])
        track.SetLayer(layers[t["layer"]])
        track.SetNet(nets[t["net"]])
        board.Add(track)
    drill_default = board.GetDesignSettings().GetCurrentViaDrill()
    for v in copper["vias"]:
        via = pcbnew.PCB_VIA(board)
        via.SetPosition(pcbnew.wxPoint(v["x_nm"], v["y_nm"]))
        via.SetWidth(v["diameter_nm"])
        via.SetDrill(v["drill_nm"] or drill_default)
        top, bottom = layers[v["top_layer"]], layers[v["bottom_layer"]]
        through = {top, bottom} == {pcbnew.F_Cu, pcbnew.B_Cu}
        via.SetViaType(pcbnew.VIATYPE_THROUGH if through else pcbnew.VIATYPE_BLIND_BURIED)
        via.SetLayerPair(top, bottom)
        via.SetNet(nets[v["net"]])
        board.Add(via)
    zones = list(board.Zones())
    if zones:
        pcbnew.ZONE_FILLER(board).Fill(board.Zones())
    if not pcbnew.SaveBoard(routed, board):
        emit({"error": "pcbnew could not save the routed board to %s" % routed})
        return
    emit({
        "routed_board": routed,
        "tracks_added": len(copper["tracks"]),
        "vias_added": len(copper["vias"]),
        "locked_kept": kept,
        "zones_refilled": len(zones),
        "unrouted": unconnected(board),
        "via_drill_default_nm": drill_default,
        "vias_with_default_drill": sum(1 for v in copper["vias"] if not v["drill_nm"]),
    })


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    board = pcbnew.LoadBoard(path)
    if board is None:
        emit({"error": "pcbnew could not load the board"})
        return
    if cmd == "export":
        export(board, sys.argv[4])
    elif cmd == "merge":
        merge(board, sys.argv[4], sys.argv[5])
    else:
        emit({"error": "unknown command %s" % cmd})


main()
