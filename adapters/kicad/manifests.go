package kicad

import (
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
)

// Manifests declares the tools. All are reads that write only the call's
// own folder; the checks and exports are idempotent (the same files give
// the same answer), kicad.auto_route is not (routeManifest says why).
func (a *Adapter) Manifests() []adapters.Manifest {
	tool := func(id, name, capability, desc string, in json.RawMessage, out string, timeout int) adapters.Manifest {
		return adapters.Manifest{
			ToolID: id, AdapterID: AdapterID, Name: name, Description: desc, Capability: capability,
			InputSchema: in, OutputSchema: json.RawMessage(out),
			Idempotent: true, TimeoutSeconds: timeout,
		}
	}
	return []adapters.Manifest{
		tool(ToolRunDRC, "Run PCB design-rule check", "drc_check", drcDescription, drcInputSchema, drcOutputSchema, 180),
		tool(ToolRunERC, "Run schematic electrical-rule check", "erc_check", ercDescription, ercInputSchema, ercOutputSchema, 120),
		tool(ToolExportGerber, "Export Gerber and drill files", "gerber_export", gerberDescription, gerberInputSchema, gerberOutputSchema, 180),
		tool(ToolExportBOM, "Export bill of materials", "bom_export", bomDescription, bomInputSchema, bomOutputSchema, 60),
		tool(ToolExportNetlist, "Export netlist", "netlist_export", netlistDescription, netlistInputSchema, netlistOutputSchema, 120),
		tool(ToolGetPinMapping, "Get a component's pin-to-net mapping", "pin_mapping", pinMapDescription, pinMapInputSchema, pinMapOutputSchema, 120),
		generateSchematicManifest(),
		routeManifest(),
	}
}
