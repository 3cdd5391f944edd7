# Board work for the MetaForge kicad adapter, run by the Debian system
# Python that imports KiCad 6's pcbnew. Usage:
#   board.py drc|gerber|pads <board.kicad_pcb> <output dir> [<layers json>]
# It prints one line "METAFORGE_JSON <json>" last; pcbnew's own chatter may
# come before it. It writes only into <output dir>.
import json
import os
import sys

try:
    import pcbnew
except ImportError as e:
    print("METAFORGE_NO_PCBNEW %s" % e)
    sys.exit(3)


def emit(obj):
    sys.stdout.write("\nMETAFORGE_JSON " + json.dumps(obj) + "\n")
    sys.stdout.flush()


def drc(board, path, outdir):
    report = os.path.join(outdir, os.path.splitext(os.path.basename(path))[0] + "-drc.rpt")
    ok = pcbnew.WriteDRCReport(board, report, pcbnew.EDA_UNITS_MILLIMETRES, True)
    emit({"ok": bool(ok), "report_file": report})


# Layers a fabrication house wants, in the usual order; copper is added
# from the board's enabled copper layers.
FAB_LAYERS = ["F.Paste", "B.Paste", "F.Silkscreen", "B.Silkscreen", "F.Mask", "B.Mask", "Edge.Cuts"]


def layer_ids(board, wanted):
    """The layers to plot: the named ones, or every enabled fab layer."""
    enabled = list(board.GetEnabledLayers().Seq())
    if wanted:
        by_name = {}
        for lid in range(pcbnew.PCB_LAYER_ID_COUNT):
            by_name[pcbnew.LayerName(lid)] = lid  # standard: F.Cu, F.Silkscreen
            by_name[board.GetLayerName(lid)] = lid  # the board's own: top_cu
            by_name[board.GetStandardLayerName(lid)] = lid
        by_name["F.SilkS"], by_name["B.SilkS"] = pcbnew.F_SilkS, pcbnew.B_SilkS  # KiCad 5 names
        ids, unknown, disabled = [], [], []
        for name in wanted:
            lid = by_name.get(name)
            if lid is None:
                unknown.append(name)
            elif lid not in enabled:
                disabled.append(name)
            elif lid not in ids:
                ids.append(lid)
        return ids, unknown, disabled
    copper = [l for l in enabled if pcbnew.IsCopperLayer(l)]
    std = {board.GetStandardLayerName(l): l for l in enabled}
    fab = [std[name] for name in FAB_LAYERS if name in std]
    return copper + fab, [], []


def gerber(board, path, outdir, wanted):
    ids, unknown, disabled = layer_ids(board, wanted)
    if unknown or disabled:
        emit({"unknown_layers": unknown, "disabled_layers": disabled,
              "enabled_layers": [board.GetStandardLayerName(l) for l in board.GetEnabledLayers().Seq()]})
        return
    pc = pcbnew.PLOT_CONTROLLER(board)
    po = pc.GetPlotOptions()
    po.SetOutputDirectory(outdir)
    po.SetPlotFrameRef(False)
    po.SetUseGerberProtelExtensions(False)
    po.SetCreateGerberJobFile(False)
    po.SetUseGerberX2format(True)
    po.SetIncludeGerberNetlistInfo(True)
    po.SetSubtractMaskFromSilk(False)
    po.SetUseAuxOrigin(False)
    po.SetSkipPlotNPTH_Pads(False)
    po.SetDrillMarksType(pcbnew.PCB_PLOT_PARAMS.NO_DRILL_SHAPE)
    files = []
    for lid in ids:
        std = board.GetStandardLayerName(lid)
        pc.SetLayer(lid)
        pc.OpenPlotfile(std.replace(".", "_"), pcbnew.PLOT_FORMAT_GERBER, std)
        if not pc.PlotLayer():
            emit({"error": "pcbnew could not plot layer %s" % std})
            return
        files.append({"layer": std, "board_layer_name": board.GetLayerName(lid), "path": pc.GetPlotFileName()})
    pc.ClosePlot()
    drill = pcbnew.EXCELLON_WRITER(board)
    drill.SetOptions(False, False, pcbnew.wxPoint(0, 0), False)
    drill.SetFormat(True)
    before = set(os.listdir(outdir))
    drill.CreateDrillandMapFilesSet(outdir, True, False)
    drills = sorted(f for f in set(os.listdir(outdir)) - before if f.endswith(".drl"))
    emit({"gerbers": files, "drill_files": [os.path.join(outdir, f) for f in drills]})


def pads(board, path):
    fps = []
    for fp in board.GetFootprints():
        attrs = fp.GetAttributes()
        item = {
            "reference": fp.GetReference(),
            "value": fp.GetValue(),
            "footprint": fp.GetFPID().GetUniStringLibId(),
            "exclude_from_bom": bool(attrs & pcbnew.FP_EXCLUDE_FROM_BOM),
            "board_only": bool(attrs & pcbnew.FP_BOARD_ONLY),
            "pads": [],
        }
        for pad in fp.Pads():
            item["pads"].append({
                "number": pad.GetNumber(),
                "pin_name": pad.GetPinFunction(),
                "net": pad.GetNetname() if pad.GetNetCode() > 0 else "",
            })
        fps.append(item)
    emit({"net_count": board.GetNetCount(), "footprints": fps})


def main():
    cmd, path, outdir = sys.argv[1], sys.argv[2], sys.argv[3]
    board = pcbnew.LoadBoard(path)
    if board is None:
        emit({"error": "pcbnew could not load the board"})
        return
    if cmd == "drc":
        drc(board, path, outdir)
    elif cmd == "gerber":
        gerber(board, path, outdir, json.loads(sys.argv[4]) if len(sys.argv) > 4 else [])
    elif cmd == "pads":
        pads(board, path)
    else:
        emit({"error": "unknown command %s" % cmd})


main()
