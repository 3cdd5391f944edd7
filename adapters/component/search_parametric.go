package component

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/components"
	"github.com/metaforge/metaforge/protocol"
)

// ToolSearchParametric queries the catalogue by figures.
const ToolSearchParametric = "component.search_parametric"

type searchParametricArgs struct {
	Category string            `json:"category,omitempty" jsonschema:"the category searched (buck_converter, ldo, boost_converter, motor_driver...); leave it out to search every category"`
	Filters  []json.RawMessage `json:"filters,omitempty" jsonschema:"conditions every row must meet: strings such as \"v_out==5 V\" or objects {name, op, value, max, unit}"`
	Kind     string            `json:"kind,omitempty" jsonschema:"assembly (bought complete) or part (a discrete component); leave it out for both"`
	Limit    int               `json:"limit,omitempty" jsonschema:"how many rows to return"`
}

// filterItem lets a filter be a string or a {name, op, value, max, unit}
// object.
func filterItem(s *jsonschema.Schema) {
	obj, err := jsonschema.For[components.Filter](nil)
	if err != nil {
		panic(err)
	}
	obj.Properties["op"].Enum = []any{"==", "!=", "<", "<=", ">", ">=", "between"}
	maxLen := 200
	*s = jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "string", MaxLength: &maxLen}, obj}}
}

var searchParametricTool = adapters.Declare(adapters.Manifest{
	ToolID:    ToolSearchParametric,
	AdapterID: AdapterID,
	Name:      "Search the component catalogue by figures",
	Description: "Range and comparison query against the typed component catalogue: a category plus filters on its figures, e.g. " +
		"category buck_converter, filters [\"v_out==5 V\", \"efficiency>0.9\", \"i_out>=2 A\"]. A filter is " + components.FilterSyntax +
		" A row that does not state a filtered figure never matches it; excluded_missing counts such rows per figure. An empty " +
		"answer says so in message, naming the category and the filters. Rows come " + components.Order + ", up to limit (default 20, " +
		"at most 200; matched counts them all). Each row carries its figures as given and in SI, price, image_url, footprint, " +
		"cad_model_url, datasheet_url (as indexed), kind, and source: where it came from (FILE#L12, a CSV line; FILE#/3, a JSON " +
		"row; knowledge:SOURCE_ID#page=2, figures a person accepted from a datasheet); candidate is the same part as " +
		"twin.select_component and twin.record_component_selection take one. Reads only.",
	Capability:     "component_search",
	Idempotent:     true,
	Short:          true,
	TimeoutSeconds: 30,
}, method((*Adapter).searchParametric),
	adapters.At("category", adapters.MinLength(1), adapters.MaxLength(100)),
	adapters.At("filters", adapters.MaxItems(50)),
	adapters.At("filters[]", filterItem),
	adapters.At("kind", adapters.Enum("assembly", "part")),
	adapters.At("limit", adapters.Minimum(1), adapters.Maximum(components.MaxLimit), adapters.Default(components.DefaultLimit)),
)

// parametricAnswer is a search's answer with its rows as candidates.
type parametricAnswer struct {
	components.Answer
	Rows []resultRow `json:"rows"`
}

func (a *Adapter) searchParametric(ctx context.Context, in searchParametricArgs) (any, error) {
	filters, err := readFilters(in.Filters)
	if err != nil {
		return nil, err
	}
	ans, err := components.Search(ctx, a.cat, components.Query{Category: in.Category, Filters: filters, Kind: in.Kind, Limit: in.Limit})
	if err != nil {
		return nil, classify(err)
	}
	return parametricAnswer{Answer: ans, Rows: resultRows(ans.Rows)}, nil
}

// readFilters reads each filter, a string or an object, naming the one
// that cannot be read.
func readFilters(raw []json.RawMessage) ([]components.Filter, error) {
	out := make([]components.Filter, 0, len(raw))
	for i, r := range raw {
		var s string
		if json.Unmarshal(r, &s) == nil {
			f, err := components.ParseFilter(s)
			if err != nil {
				return nil, protocol.Invalid("filters[%d]: %v", i, err)
			}
			out = append(out, f)
			continue
		}
		var f components.Filter
		dec := json.NewDecoder(strings.NewReader(string(r)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			return nil, protocol.Invalid("filters[%d] must be a string such as \"v_out==5 V\" or {name, op, value, unit}: %v", i, err)
		}
		if err := f.Check(); err != nil {
			return nil, protocol.Invalid("filters[%d]: %v", i, err)
		}
		out = append(out, f)
	}
	return out, nil
}
