package twin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// A device instance is one built unit of a product, known by its serial
// number: what a measurement was taken on. It is a record (a unit is built
// once; it has no revisions), INSTANCE_OF the product it is a unit of.

// DeviceInstanceNodeType is the node type of a built unit.
const DeviceInstanceNodeType = "device_instance"

// builtRecords are the records of built units and what was measured on
// them; only their own rules write them.
var builtRecords = []string{DeviceInstanceNodeType, MeasurementNodeType}

// DeviceWrite is a built unit to register.
type DeviceWrite struct {
	ProjectID string
	// ProductRef names the product: KEY, KEY@n or a node id.
	ProductRef, Serial string
	// BuildDate is YYYY-MM-DD, or empty.
	BuildDate, Notes string
	IdempotencyKey   string
}

// Check refuses a unit with no serial, no product, or a build date that
// is not a date, before anything is read.
func (w DeviceWrite) Check() error {
	if strings.TrimSpace(w.Serial) == "" {
		return Refusef("serial is blank: give the unit's serial number, as on its label")
	}
	if strings.TrimSpace(w.ProductRef) == "" {
		return Refusef("product_ref is blank: name the product the unit is built to (KEY, KEY@n or a node id)")
	}
	if d := strings.TrimSpace(w.BuildDate); d != "" {
		if _, err := time.Parse(time.DateOnly, d); err != nil {
			return Refusef("build_date %q is not a date; write it as YYYY-MM-DD (2026-03-14)", w.BuildDate)
		}
	}
	return nil
}

// Device is a registered built unit and the product it is a unit of.
type Device struct {
	Node, Product Node
}

// productKey is what makes serials unique: the product's item (any of its
// revisions), or the node itself for a record.
func productKey(n Node) string {
	if n.ItemKey != "" {
		return n.ItemKey
	}
	return n.ID
}

// RegisterDeviceInstance records a built unit INSTANCE_OF its product.
// Serials are unique per product, ignoring case and surrounding space: a
// serial the product already has is refused naming the unit registered
// under it (a retry of the registering write returns that unit). Two
// registrations racing with one serial are not serialized against each
// other.
func RegisterDeviceInstance(ctx context.Context, s Store, w DeviceWrite) (Device, error) {
	if err := w.Check(); err != nil {
		return Device{}, err
	}
	serial := strings.TrimSpace(w.Serial)
	product, err := ResolveRef(ctx, s, w.ProjectID, w.ProductRef)
	if err != nil {
		return Device{}, fmt.Errorf("product_ref %s: %w", w.ProductRef, err)
	}
	if product.Type == DeviceInstanceNodeType || product.Type == MeasurementNodeType {
		return Device{}, Refusef("product_ref %s is a %s, not a product; name the product design the unit is built to", w.ProductRef, product.Type)
	}
	built, err := s.NodesByType(ctx, w.ProjectID, DeviceInstanceNodeType)
	if err != nil {
		return Device{}, err
	}
	for _, u := range built {
		key, _ := u.Properties["product_key"].(string)
		sn, _ := u.Properties["serial"].(string)
		if key != productKey(product) || !strings.EqualFold(strings.TrimSpace(sn), serial) {
			continue
		}
		if w.IdempotencyKey != "" && u.CallID == w.IdempotencyKey {
			return Device{Node: u, Product: product}, nil
		}
		return Device{}, Refusef("serial %s is already registered for %s as unit %s (registered %s); a serial names one unit of a product: "+
			"check the label, or measure against %s", sn, product.Label(), u.ID, u.CreatedAt.UTC().Format(time.DateOnly), u.ID)
	}
	props := map[string]any{"serial": serial, "product": product.RefOrID(), "product_key": productKey(product), "product_type": product.Type,
		"product_name": product.Name}
	if d := strings.TrimSpace(w.BuildDate); d != "" {
		props["build_date"] = d
	}
	if n := strings.TrimSpace(w.Notes); n != "" {
		props["notes"] = n
	}
	n, err := s.RecordNode(ctx, RecordWrite{ProjectID: w.ProjectID, Type: DeviceInstanceNodeType, Name: serial, Properties: props,
		Links:          []Link{{Type: EdgeInstanceOf, To: product.ID, Properties: map[string]any{"ref": product.RefOrID()}}},
		IdempotencyKey: w.IdempotencyKey})
	if err != nil {
		return Device{}, err
	}
	return Device{Node: n, Product: product}, nil
}

// DeviceInstance finds a registered built unit by its node id, or by its
// serial when exactly one unit in the project has it (a serial that looks
// like a node id is still found).
func DeviceInstance(ctx context.Context, s Store, projectID, ref string) (Node, error) {
	ref = strings.TrimSpace(ref)
	if strings.HasPrefix(ref, "n-") {
		n, err := ResolveRef(ctx, s, projectID, ref)
		switch {
		case err == nil && n.Type != DeviceInstanceNodeType:
			return Node{}, Refusef("%s is a %s, not a built unit; register the unit with twin.register_device_instance and pass its node id", n.Label(), n.Type)
		case err == nil:
			return n, nil
		case !errors.Is(err, ErrNotFound):
			return Node{}, err
		}
	}
	all, err := s.NodesByType(ctx, projectID, DeviceInstanceNodeType)
	if err != nil {
		return Node{}, err
	}
	var found []Node
	for _, u := range all {
		if sn, _ := u.Properties["serial"].(string); strings.EqualFold(strings.TrimSpace(sn), ref) {
			found = append(found, u)
		}
	}
	switch len(found) {
	case 0:
		return Node{}, Refusef("no built unit in this project has serial %q; register it with twin.register_device_instance, or pass its node id", ref)
	case 1:
		return found[0], nil
	}
	var ids []string
	for _, u := range found {
		ids = append(ids, fmt.Sprintf("%s (of %v)", u.ID, u.Properties["product"]))
	}
	return Node{}, Refusef("serial %q names %d units of different products (%s); pass the unit's node id", ref, len(found), strings.Join(ids, ", "))
}
