package kicad

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ercSettings are the ERC settings a check runs with: KiCad 6's defaults,
// overridden by the project's .kicad_pro (its "erc" section) when the
// schematic has one beside it with the same name, as KiCad reads it.
type ercSettings struct {
	severity map[string]string
	pinMap   [pinTypeCount][pinTypeCount]int
	used     ERCSettingsUsed
}

// ERCSettingsUsed says which settings the check ran with.
type ERCSettingsUsed struct {
	// ProjectFile is the .kicad_pro read, or "" when there is none and
	// KiCad 6's defaults were used.
	ProjectFile string `json:"project_file"`
	// RuleSeverities are the rule keys whose severity the project set to
	// something other than KiCad 6's default.
	RuleSeverities map[string]string `json:"rule_severities"`
	// PinMapCells are the pin-conflict matrix cells the project changed.
	PinMapCells int `json:"pin_map_cells_changed"`
	// ExclusionsNotApplied counts the project's erc_exclusions, which this
	// checker does not apply (their violations are reported).
	ExclusionsNotApplied int `json:"exclusions_not_applied"`
}

func defaultERCSettings() *ercSettings {
	s := &ercSettings{severity: map[string]string{}, pinMap: defaultPinMap}
	for _, r := range ercRules {
		s.severity[r.key] = r.severity
	}
	s.used.RuleSeverities = map[string]string{}
	return s
}

// loadERCSettings reads <schematic stem>.kicad_pro beside the root
// schematic, confined to the allowed roots like the schematic. No project
// file means defaults; an unreadable or malformed one also means
// defaults, with a warning saying so.
func (a *Adapter) loadERCSettings(rootSchematic string) (*ercSettings, []string, error) {
	s := defaultERCSettings()
	pro := strings.TrimSuffix(rootSchematic, filepath.Ext(rootSchematic)) + ".kicad_pro"
	if _, err := os.Lstat(pro); errors.Is(err, fs.ErrNotExist) {
		return s, nil, nil
	}
	real, err := a.ws.ResolveRead(filepath.Base(pro)+" beside "+filepath.Base(rootSchematic), pro)
	if err != nil {
		return nil, nil, err
	}
	raw, err := os.ReadFile(real)
	if err != nil {
		return s, []string{fmt.Sprintf("project file %s cannot be read (%v): KiCad 6's default ERC settings were used", pro, err)}, nil
	}
	var doc struct {
		ERC *struct {
			RuleSeverities map[string]string `json:"rule_severities"`
			PinMap         [][]int           `json:"pin_map"`
			Exclusions     []string          `json:"erc_exclusions"`
		} `json:"erc"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return s, []string{fmt.Sprintf("project file %s is not valid JSON (%v): KiCad 6's default ERC settings were used", pro, err)}, nil
	}
	s.used.ProjectFile = pro
	if doc.ERC == nil {
		return s, nil, nil
	}
	var warnings []string
	for key, sev := range doc.ERC.RuleSeverities {
		if _, known := s.severity[key]; !known {
			continue // a check this checker does not run
		}
		switch sev {
		case sevError, sevWarning, sevIgnore:
		default:
			warnings = append(warnings, fmt.Sprintf("%s: rule_severities.%s is %q, not error, warning or ignore; the default was kept", pro, key, sev))
			continue
		}
		if key == rulePinToPin {
			// Only "ignore" changes pin conflicts; each keeps its cell's level.
			if sev == sevIgnore {
				s.severity[key] = sevIgnore
				s.used.RuleSeverities[key] = sev
			}
			continue
		}
		if sev != s.severity[key] {
			s.severity[key] = sev
			s.used.RuleSeverities[key] = sev
		}
	}
	// KiCad takes a pin_map of 12 rows of 12 cells, each 0-3 (3, its
	// "unconnected", reports as an error like 2).
	if len(doc.ERC.PinMap) == pinTypeCount {
		m, ok := s.pinMap, true
		for i, row := range doc.ERC.PinMap {
			if len(row) != pinTypeCount {
				ok = false
				break
			}
			for j, v := range row {
				if v >= pinOK && v <= pinError+1 {
					m[i][j] = min(v, pinError)
				}
			}
		}
		if ok {
			for i := range m {
				for j := range m[i] {
					if m[i][j] != defaultPinMap[i][j] {
						s.used.PinMapCells++
					}
				}
			}
			s.pinMap = m
		}
	}
	s.used.ExclusionsNotApplied = len(doc.ERC.Exclusions)
	if n := len(doc.ERC.Exclusions); n > 0 {
		warnings = append(warnings, fmt.Sprintf("%s lists %d ERC exclusions; they are not applied, so the violations they excluded are reported", pro, n))
	}
	return s, warnings, nil
}

// enabled reports whether a rule is checked at all.
func (s *ercSettings) enabled(rule string) bool { return s.severity[rule] != sevIgnore }
