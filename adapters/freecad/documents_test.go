package freecad

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// These tests drive real FreeCAD processes (/usr/bin/python3 with
// Debian's freecad-python3), as a worker does.

func newDocs(t *testing.T) *Documents {
	t.Helper()
	d := NewDocuments(t.TempDir())
	t.Cleanup(func() { _ = d.CloseAll() })
	return d
}

func opCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// step is one journalled op: what was sent and the obj_id it made.
type step struct {
	op   string
	args map[string]any
}

func apply(t *testing.T, d *Documents, session, op string, args map[string]any) map[string]any {
	t.Helper()
	out, err := applyErr(t, d, session, op, args)
	if err != nil {
		t.Fatalf("%s %v: %v", op, args, err)
	}
	return out
}

func applyErr(t *testing.T, d *Documents, session, op string, args map[string]any) (map[string]any, error) {
	t.Helper()
	withID := map[string]any{"session_id": session}
	for k, v := range args {
		withID[k] = v
	}
	raw, _ := json.Marshal(withID)
	res, err := d.Apply(opCtx(t), session, op, raw)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(res, &out); err != nil {
		t.Fatalf("%s answered %s, which does not decode: %v", op, res, err)
	}
	return out, nil
}

func open(t *testing.T, d *Documents, session, base string) map[string]any {
	t.Helper()
	res, err := d.Open(opCtx(t), session, base)
	if err != nil {
		t.Fatalf("Open(%s, %q): %v", session, base, err)
	}
	var out map[string]any
	if err := json.Unmarshal(res, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// The part: a 40 x 30 x 20 block, a 10 mm hole through it, the
// four vertical outer edges filleted at 3 mm.
//
// Closed form of its volume:
//
//	block           40 * 30 * 20                = 24000
//	hole            pi * 5^2 * 20               = 1570.796...
//	each fillet takes from its corner, over the 20 mm height, the square
//	r x r less the quarter disc pi r^2 / 4:
//	4 corners       4 * (3^2 - pi * 3^2 / 4) * 20 = 154.513...
//	V = 24000 - 1570.796 - 154.513 = 22274.690 mm^3
//
// The fillet's selector |Z must pick the 4 outer edges and not the
// hole's seam, a straight vertical edge too: picking it would fail the
// fillet or change the volume.
var blockVolume = 40*30*20 - math.Pi*5*5*20 - 4*(3*3-math.Pi*3*3/4)*20

// blockOps are the session's edits up to the fillet; the sketches are
// named by the obj_ids the kernel returns, which are deterministic
// (Sketch, Sketch001).
func blockOps() []step {
	return []step{
		{"create_sketch", map[string]any{"plane": "XY", "geometry": []any{
			map[string]any{"type": "rectangle", "x": 0, "y": 0, "width": 40, "height": 30}}}},
		{"pad_sketch", map[string]any{"sketch": "Sketch", "length": 20}},
		{"create_sketch", map[string]any{"plane": "XY", "offset": 20, "geometry": []any{
			map[string]any{"type": "circle", "cx": 20, "cy": 15, "r": 5}}}},
		{"pocket_sketch", map[string]any{"sketch": "Sketch001", "through_all": true}},
		{"fillet", map[string]any{"selector": "|Z", "radius": 3}},
	}
}

// run applies ops and returns the obj_ids they made.
func run(t *testing.T, d *Documents, session string, ops []step) []string {
	t.Helper()
	var ids []string
	for _, s := range ops {
		out := apply(t, d, session, s.op, s.args)
		ids = append(ids, out["obj_id"].(string))
	}
	return ids
}

func exportVolume(t *testing.T, d *Documents, session string) (float64, map[string]any) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "part.step")
	out := apply(t, d, session, "export_model", map[string]any{"path": path, "color": []any{200, 100, 50}})
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("export_model wrote no file: %v", err)
	}
	return out["volume_mm3"].(float64), out
}

func TestSessionBlockWithHoleAndFillets(t *testing.T) {
	d := newDocs(t)
	open(t, d, "s1", "")
	ids := run(t, d, "s1", blockOps())
	want := []string{"Sketch", "Pad", "Sketch001", "Pocket", "Fillet"}
	if strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Fatalf("obj_ids %v, want %v", ids, want)
	}

	// The fillet took the 4 outer vertical edges, not the hole's seam.
	desc := apply(t, d, "s1", "describe_model", nil)
	var fillet map[string]any
	for _, o := range desc["objects"].([]any) {
		if o.(map[string]any)["obj_id"] == "Fillet" {
			fillet = o.(map[string]any)
		}
	}
	if fillet == nil {
		t.Fatalf("describe_model lists no Fillet: %v", desc)
	}

	vol, out := exportVolume(t, d, "s1")
	if rel := math.Abs(vol-blockVolume) / blockVolume; rel > 0.001 {
		t.Errorf("exported volume %.3f mm^3, want %.3f within 0.1%% (off by %.4f%%)", vol, blockVolume, rel*100)
	}
	// Its bounding box is the block's: the fillets and the hole are inside it.
	bb := out["bounding_box"].(map[string]any)["size"].([]any)
	for i, w := range []float64{40, 30, 20} {
		if math.Abs(bb[i].(float64)-w) > 1e-3 {
			t.Errorf("exported bounding box %v, want 40 x 30 x 20", bb)
		}
	}
	// The body's tip is the fillet, with the same volume as the file's.
	if v := fillet["volume_mm3"].(float64); math.Abs(v-blockVolume)/blockVolume > 0.001 {
		t.Errorf("describe_model's Fillet volume %.3f, want %.3f", v, blockVolume)
	}
}

// The fillet's edges: exactly four, picked by |Z.
func TestFilletSelectorSkipsTheHolesSeam(t *testing.T) {
	d := newDocs(t)
	open(t, d, "s", "")
	ops := blockOps()
	run(t, d, "s", ops[:4])
	out := apply(t, d, "s", "fillet", ops[4].args)
	edges := out["edges"].([]any)
	if len(edges) != 4 {
		t.Errorf("|Z picked %v, want the 4 outer vertical edges (the hole's seam is a vertical line too, and is not one)", edges)
	}
}

// A session rebuilt by replaying its journal gets the same ids and the
// same part: onto a fresh empty document, and onto the .FCStd saved part
// way through.
func TestSessionReplayGivesTheSameIDsAndPart(t *testing.T) {
	d := newDocs(t)
	open(t, d, "first", "")
	ids1 := run(t, d, "first", blockOps())
	vol1, _ := exportVolume(t, d, "first")

	open(t, d, "replayed", "")
	ids2 := run(t, d, "replayed", blockOps())
	vol2, _ := exportVolume(t, d, "replayed")
	if strings.Join(ids1, ",") != strings.Join(ids2, ",") {
		t.Errorf("replay made %v, the original %v", ids2, ids1)
	}
	if math.Abs(vol1-vol2) > 1e-6*vol1 {
		t.Errorf("replay's volume %.6f, the original's %.6f", vol2, vol1)
	}

	// Saved after the pad, then reopened (as after a worker died) with the
	// rest of the journal replayed.
	open(t, d, "saved", "")
	ops := blockOps()
	head := run(t, d, "saved", ops[:2])
	saved := filepath.Join(t.TempDir(), "session.FCStd")
	if err := d.Save(opCtx(t), "saved", saved); err != nil {
		t.Fatalf("Save: %v", err)
	}
	if err := d.Close("saved"); err != nil {
		t.Fatal(err)
	}
	if d.Live("saved") {
		t.Fatal("a closed session still counts as live")
	}
	reopened := open(t, d, "saved", saved)
	if !strings.Contains(string(mustJSON(reopened)), `"Pad"`) {
		t.Fatalf("the reopened document has no Pad: %v", reopened)
	}
	tail := run(t, d, "saved", ops[2:])
	vol3, _ := exportVolume(t, d, "saved")
	if got := strings.Join(append(head, tail...), ","); got != strings.Join(ids1, ",") {
		t.Errorf("save-and-replay made %s, the original %v", got, ids1)
	}
	if math.Abs(vol1-vol3) > 1e-6*vol1 {
		t.Errorf("save-and-replay's volume %.6f, the original's %.6f", vol3, vol1)
	}
}

func mustJSON(v any) []byte {
	raw, _ := json.Marshal(v)
	return raw
}

// An op FreeCAD cannot do (a 50 mm fillet on a 40 x 30 block) is aborted
// whole: the document is exactly as before and the answer says why.
func TestFailingOpLeavesTheDocumentAsItWas(t *testing.T) {
	d := newDocs(t)
	open(t, d, "s", "")
	ops := blockOps()
	run(t, d, "s", ops[:4])
	before := apply(t, d, "s", "describe_model", nil)

	_, err := applyErr(t, d, "s", "fillet", map[string]any{"selector": "|Z", "radius": 50})
	if err == nil {
		t.Fatal("a 50 mm fillet on a 40 x 30 block succeeded")
	}
	for _, want := range []string{"Fillet", "Failed to create fillet", "nothing was changed", "try a smaller radius"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q does not say %q", err, want)
		}
	}
	after := apply(t, d, "s", "describe_model", nil)
	if !bytes.Equal(mustJSON(before), mustJSON(after)) {
		t.Errorf("the failed fillet changed the document:\nbefore %s\nafter  %s", mustJSON(before), mustJSON(after))
	}

	// An op refused half way (its sketch made, then its face not found)
	// is undone too, and says what to use instead.
	_, err = applyErr(t, d, "s", "create_sketch", map[string]any{"face": map[string]any{"feature": "Pocket", "face": "Face99"},
		"geometry": []any{map[string]any{"type": "circle", "cx": 0, "cy": 0, "r": 1}}})
	if err == nil || !strings.Contains(err.Error(), "Pocket has no face 'Face99'; its faces are Face1..Face") {
		t.Errorf("a sketch on a missing face answered %v", err)
	}
	_, err = applyErr(t, d, "s", "pad_sketch", map[string]any{"sketch": "Nope", "length": 5})
	if err == nil || !strings.Contains(err.Error(), "there is no sketch 'Nope' in the document; describe_model lists the obj_ids") {
		t.Errorf("a pad of a missing sketch answered %v", err)
	}
	if after := apply(t, d, "s", "describe_model", nil); !bytes.Equal(mustJSON(before), mustJSON(after)) {
		t.Errorf("the refused ops changed the document:\nbefore %s\nafter  %s", mustJSON(before), mustJSON(after))
	}

	// The ids stay deterministic: the aborted Fillet freed its name.
	out := apply(t, d, "s", "fillet", ops[4].args)
	if out["obj_id"] != "Fillet" {
		t.Errorf("the fillet after the failed one is %v, want Fillet", out["obj_id"])
	}

	// A script that raises is undone too.
	_, err = applyErr(t, d, "s", "execute_code", map[string]any{"code": "doc.addObject('Part::Box', 'Box')\nraise ValueError('stop here')"})
	if err == nil || !strings.Contains(err.Error(), "ValueError: stop here") {
		t.Errorf("a raising script answered %v, want its ValueError", err)
	}
	again := apply(t, d, "s", "describe_model", nil)
	if strings.Contains(string(mustJSON(again)), `"Box"`) {
		t.Errorf("the raising script's Box is still in the document: %s", mustJSON(again))
	}
}

// A FreeCAD process that dies takes its document with it: Apply answers
// ErrNotLive, so the caller rebuilds the session.
func TestKilledProcessIsNotLive(t *testing.T) {
	d := newDocs(t)
	opened := open(t, d, "s", "")
	run(t, d, "s", blockOps()[:2])
	pid := int(opened["process_id"].(float64))
	if !d.Live("s") {
		t.Fatal("an opened session is not live")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill %d: %v", pid, err)
	}
	for i := 0; i < 100 && alive(pid); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if d.Live("s") {
		t.Error("a session whose process was killed still counts as live")
	}
	_, err := applyErr(t, d, "s", "describe_model", nil)
	if !errors.Is(err, ErrNotLive) {
		t.Fatalf("Apply after the kill answered %v, want ErrNotLive", err)
	}
	// And stays so until the session is reopened.
	if _, err := applyErr(t, d, "s", "describe_model", nil); !errors.Is(err, ErrNotLive) {
		t.Errorf("the second Apply after the kill answered %v, want ErrNotLive", err)
	}
	if err := d.Save(opCtx(t), "s", filepath.Join(t.TempDir(), "x.FCStd")); !errors.Is(err, ErrNotLive) {
		t.Errorf("Save after the kill answered %v, want ErrNotLive", err)
	}
	open(t, d, "s", "")
	if ids := run(t, d, "s", blockOps()[:2]); ids[1] != "Pad" {
		t.Errorf("the reopened session made %v", ids)
	}
}

// Apply on a session never opened is ErrNotLive.
func TestUnknownSessionIsNotLive(t *testing.T) {
	d := newDocs(t)
	if _, err := applyErr(t, d, "nobody", "describe_model", nil); !errors.Is(err, ErrNotLive) {
		t.Errorf("Apply on a session never opened answered %v, want ErrNotLive", err)
	}
}

// execute_code's result comes back as plain data (FORGE-512), capped.
func TestExecuteCodeReturnsItsResult(t *testing.T) {
	d := newDocs(t)
	open(t, d, "s", "")
	run(t, d, "s", blockOps()[:2])
	out := apply(t, d, "s", "execute_code", map[string]any{
		"code": "pad = doc.getObject('Pad')\nresult = {'volume': pad.Shape.Volume, 'corner': pad.Shape.BoundBox.getPoint(0) if False else App.Vector(40, 30, 20), 'pad': pad}",
	})
	res := out["result"].(map[string]any)
	// The pad is the 40 x 30 x 20 block: 24000 mm^3.
	if v := res["volume"].(float64); math.Abs(v-24000) > 1e-6 {
		t.Errorf("result.volume %v, want 24000", v)
	}
	if c := res["corner"].([]any); c[0].(float64) != 40 || c[1].(float64) != 30 || c[2].(float64) != 20 {
		t.Errorf("a Vector came back as %v, want [40 30 20]", c)
	}
	if p := res["pad"].(map[string]any); p["obj_id"] != "Pad" {
		t.Errorf("a document object came back as %v, want its obj_id Pad", p)
	}
	if out["result_truncated"] != false {
		t.Errorf("a short result is marked truncated: %v", out)
	}

	long := apply(t, d, "s", "execute_code", map[string]any{"code": "result = 'x' * 30000"})
	if long["result_truncated"] != true || len(long["result"].(string)) != 20000 {
		t.Errorf("a 30000-character result came back %d characters long, truncated %v; want 20000, true",
			len(long["result"].(string)), long["result_truncated"])
	}
}

// The exported STEP carries the colour asked for as COLOUR_RGB styling,
// and measures what the document holds.
func TestExportWritesColourAndBakedPlacement(t *testing.T) {
	d := newDocs(t)
	open(t, d, "s", "")
	run(t, d, "s", blockOps()[:2])
	// Move the body: the file's geometry must be where the body is.
	apply(t, d, "s", "execute_code", map[string]any{"code": "doc.getObject('Body').Placement.Base = App.Vector(100, 0, 0)"})
	path := filepath.Join(t.TempDir(), "moved.step")
	out := apply(t, d, "s", "export_model", map[string]any{"path": path, "color": []any{1, 0.5, 0}})
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "COLOUR_RGB('',1.000000,0.500000,0.000000)") || !strings.Contains(string(text), "STYLED_ITEM") {
		t.Errorf("the STEP has no COLOUR_RGB (1, 0.5, 0) styling")
	}
	// The placement is in the geometry itself (FORGE-505), not an
	// assembly transform a reader may drop: the far corner's vertices are
	// written at x = 140.
	if !strings.Contains(string(text), "CARTESIAN_POINT('',(140.,0.,20.))") || strings.Contains(string(text), "ITEM_DEFINED_TRANSFORMATION") {
		t.Errorf("the body's placement is not baked into the STEP's geometry")
	}
	// The bounding box is measured from the file: x from 100 to 140.
	min := out["bounding_box"].(map[string]any)["min"].([]any)
	if math.Abs(min[0].(float64)-100) > 1e-6 {
		t.Errorf("the exported block starts at x = %v, want 100 (the body's placement baked in)", min[0])
	}
	if v := out["volume_mm3"].(float64); math.Abs(v-24000) > 1e-3 {
		t.Errorf("exported volume %v, want 40*30*20 = 24000", v)
	}
}
