//go:build unix

package e2e

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// cadObject is one object of describe_model.
type cadObject struct {
	ObjID  string   `json:"obj_id"`
	Label  string   `json:"label"`
	Type   string   `json:"type"`
	Volume *float64 `json:"volume_mm3"`
}

type cadModel struct {
	Objects []cadObject `json:"objects"`
	Bodies  []string    `json:"bodies"`
}

type toolError struct {
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// cadSession is what cad_session_client.mjs saw.
type cadSession struct {
	Supplier struct {
		Parts []struct {
			Label  string  `json:"label"`
			Volume float64 `json:"volume"`
		} `json:"parts"`
		Described cadModel `json:"described"`
	} `json:"supplier"`
	Opened struct {
		SessionID  string `json:"session_id"`
		WorkflowID string `json:"workflow_id"`
	} `json:"opened"`
	Edits []struct {
		Obj    string  `json:"obj"`
		Volume float64 `json:"volume"`
		Edits  int     `json:"edits"`
	} `json:"edits"`
	Described cadModel  `json:"described"`
	BadFillet toolError `json:"badFillet"`
	BadLength toolError `json:"badLength"`
	AfterBad  cadModel  `json:"afterBad"`
	Closed    struct {
		Status string `json:"status"`
		Edits  int    `json:"edits"`
		Saved  struct {
			Document string `json:"document"`
			STEP     string `json:"step"`
			Export   struct {
				Volume float64 `json:"volume_mm3"`
			} `json:"export"`
			WorkProductID  string `json:"work_product_id"`
			WorkProductRef string `json:"work_product_ref"`
		} `json:"saved"`
		Error string `json:"error"`
	} `json:"closed"`
	Recorded struct {
		Node struct {
			Type       string         `json:"type"`
			Properties map[string]any `json:"properties"`
		} `json:"node"`
	} `json:"recorded"`
	AfterClose toolError `json:"afterClose"`
	Unknown    toolError `json:"unknown"`
}

// Issue 23 with the TypeScript SDK: a supplier's STEP seen part by part
// in a session; a bracket made feature by feature in a FreeCAD editing
// session, each edit durable (an Update of the session's workflow),
// measured against the closed form, recorded in the twin when the session
// closes; a bad edit changes nothing and says why.
func TestCadSessionThroughMCP(t *testing.T) {
	began := time.Now()
	var o cadSession
	runStdioAgent(t, "cad_session_client.mjs", freePorts(t, 3), 10*time.Minute, &o)
	t.Logf("the CAD session scenario took %s", time.Since(began).Round(time.Millisecond))

	near := func(what string, got, want, rel float64) {
		t.Helper()
		if math.Abs(got-want) > rel*math.Abs(want) {
			t.Errorf("%s = %.6f, want %.6f within %g%%", what, got, want, rel*100)
		}
	}
	// The supplier's block: 40 x 30 x 20 = 24000 mm^3, one part, and the
	// session opened on it holds that part under the same label.
	if len(o.Supplier.Parts) != 1 {
		t.Fatalf("supplier parts = %+v, want one", o.Supplier.Parts)
	}
	near("supplier part volume", o.Supplier.Parts[0].Volume, 24000, 1e-3)
	found := false
	for _, obj := range o.Supplier.Described.Objects {
		if obj.Label == o.Supplier.Parts[0].Label && obj.Volume != nil {
			found = true
			near("the supplier part in the session", *obj.Volume, 24000, 1e-3)
		}
	}
	if !found {
		t.Errorf("the session opened on the import has no object labelled %q: %+v", o.Supplier.Parts[0].Label, o.Supplier.Described)
	}

	// The bracket: box 24000; the hole removes pi*5^2*20; each filleted
	// corner removes (r^2 - pi*r^2/4)*20 with r = 3.
	box := 40.0 * 30 * 20
	hole := math.Pi * 25 * 20
	corners := 4 * (9 - 9*math.Pi/4) * 20
	if o.Opened.WorkflowID != "cad-session-"+o.Opened.SessionID {
		t.Errorf("opened %+v, want the workflow cad-session-<session_id>", o.Opened)
	}
	wantIDs := []string{"Sketch", "Pad", "Sketch001", "Pocket", "Fillet"}
	if len(o.Edits) != len(wantIDs) {
		t.Fatalf("edits = %+v", o.Edits)
	}
	for i, e := range o.Edits {
		if e.Obj != wantIDs[i] || e.Edits != i+1 {
			t.Errorf("edit %d = %+v, want obj_id %s and %d edits", i+1, e, wantIDs[i], i+1)
		}
	}
	near("volume after the pad", o.Edits[1].Volume, box, 1e-3)
	near("volume after the pocket", o.Edits[3].Volume, box-hole, 1e-3)
	near("volume after the fillet", o.Edits[4].Volume, box-hole-corners, 1e-3)

	// A fillet too large fails in FreeCAD and says what to try; a negative
	// length is refused before the session sees it; neither changes the
	// document.
	if o.BadFillet.Error == nil || !strings.Contains(o.BadFillet.Error.Message, "smaller radius") {
		t.Errorf("a 50 mm fillet answered %+v, want an error saying to try a smaller radius", o.BadFillet.Error)
	}
	if o.BadLength.Error == nil || !strings.Contains(o.BadLength.Error.Message, "length") {
		t.Errorf("a negative length answered %+v, want an error naming length", o.BadLength.Error)
	}
	if !reflect.DeepEqual(o.Described, o.AfterBad) {
		t.Errorf("the failed edits changed the document:\nbefore %+v\nafter  %+v", o.Described, o.AfterBad)
	}

	// Closing saved the document and its STEP, and recorded the STEP as a
	// cad_model of the project with the volume measured from it.
	c := o.Closed
	if c.Status != "closed" || c.Edits != 5 || c.Error != "" || !strings.HasSuffix(c.Saved.Document, ".FCStd") ||
		!strings.HasSuffix(c.Saved.STEP, ".step") || c.Saved.WorkProductID == "" || c.Saved.WorkProductRef == "" {
		t.Fatalf("closed = %+v", c)
	}
	near("the closed document's STEP volume", c.Saved.Export.Volume, box-hole-corners, 1e-3)
	v, _ := o.Recorded.Node.Properties["volume_mm3"].(float64)
	near("the recorded cad_model's volume", v, box-hole-corners, 1e-3)
	if o.Recorded.Node.Properties["cad_session_id"] != o.Opened.SessionID {
		t.Errorf("the recorded cad_model %+v does not name its session %s", o.Recorded.Node, o.Opened.SessionID)
	}

	if o.AfterClose.Error == nil || !strings.Contains(o.AfterClose.Error.Message, "open a new one") {
		t.Errorf("an edit after close answered %+v, want a refusal saying to open a new session", o.AfterClose.Error)
	}
	if o.Unknown.Error == nil || !strings.Contains(o.Unknown.Error.Message, "no CAD session") {
		t.Errorf("an unknown session answered %+v, want one saying there is no such session", o.Unknown.Error)
	}
	raw, _ := json.Marshal(o.Recorded)
	t.Logf("recorded: %s", raw)
}
