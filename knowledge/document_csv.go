package knowledge

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strings"
)

// csvText is a CSV file as one line per row, each value named by its
// column, "header: value; header: value", so a search for a value finds
// the row with what the value is (a catalogue's "mpn: TPS54331; v_out: 5").
// Empty values are left out; a row may have fewer or more fields than the
// header (a column beyond it is named "column N").
func csvText(data []byte) (string, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a spreadsheet's byte-order mark
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	rows, err := r.ReadAll()
	if err != nil {
		return "", err
	}
	if len(rows) == 0 {
		return "", nil
	}
	header := rows[0]
	for i := range header {
		header[i] = strings.TrimSpace(header[i])
	}
	var out []string
	for _, row := range rows[1:] {
		var fields []string
		for i, v := range row {
			v = strings.TrimSpace(v)
			if v == "" {
				continue
			}
			name := fmt.Sprintf("column %d", i+1)
			if i < len(header) && header[i] != "" {
				name = header[i]
			}
			fields = append(fields, name+": "+v)
		}
		if len(fields) > 0 {
			out = append(out, strings.Join(fields, "; "))
		}
	}
	return strings.Join(out, "\n"), nil
}
