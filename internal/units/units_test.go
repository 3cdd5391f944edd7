package units

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestParseQuantity(t *testing.T) {
	for _, tc := range []struct {
		in    string
		value float64
		unit  string
	}{
		{"3300 mV", 3300, "mV"},
		{"3.3V", 3.3, "V"},
		{"3.3v", 3.3, "v"},
		{"50 uA", 50, "uA"},
		{"50 µA", 50, "uA"}, // micro sign
		{"50 μA", 50, "uA"}, // Greek mu
		{"2 W", 2, "W"},
		{"150 mm", 150, "mm"},
		{"1.2 kg", 1.2, "kg"},
		{"200 MPa", 200, "MPa"},
		{"85 °C", 85, "°C"},
		{"85°C", 85, "°C"},
		{"85 C", 85, "C"},
		{"85 deg C", 85, "degC"},
		{"85 ℃", 85, "°C"},
		{"-40 °C", -40, "°C"},
		{"−40 °C", -40, "°C"}, // U+2212 minus
		{"10 %", 10, "%"},
		{"$20", 20, "$"},
		{"$ 1.25", 1.25, "$"},
		{"20 USD", 20, "USD"},
		{"100 nF", 100, "nF"},
		{"4.7 kΩ", 4.7, "kΩ"},
		{"4.7 k\u2126", 4.7, "kΩ"}, // ohm sign
		{"10 kohm", 10, "kohm"},
		{"2.4 GHz", 2.4, "GHz"},
		{"5 ms", 5, "ms"},
		{"1e-3 A", 0.001, "A"},
		{".5 mm", 0.5, "mm"},
		{"75", 75, ""},
		{"1200 mm2", 1200, "mm2"},
		{"3 N·m", 3, "N·m"},
	} {
		q, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if q.Value != tc.value || q.Unit != tc.unit {
			t.Errorf("Parse(%q) = %v %q, want %v %q", tc.in, q.Value, q.Unit, tc.value, tc.unit)
		}
	}
}

func TestParseQuantityRefusals(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want error
		says string
	}{
		{"", ErrNotAQuantity, "empty"},
		{"SOT-23", ErrNotAQuantity, "does not start with a number"},
		{"2.7-5.5 V", ErrNotAQuantity, "is a range"},
		{"2.7 - 5.5 V", ErrNotAQuantity, "is a range"},
		{"2.7 to 5.5 V", ErrNotAQuantity, "is a range"},
		{"3.3 V ±5%", ErrNotAQuantity, "tolerance"},
		{"1,200 mA", ErrNotAQuantity, "thousands separators"},
		{"$20 k", ErrNotAQuantity, "nothing may follow"},
		{"75 furlongs", ErrUnknownUnit, `"furlongs" is not a unit`},
		{"10 k", ErrUnknownUnit, `"k" is not a unit`}, // 10k is not 10 kelvin
		{"5 ma", ErrUnknownUnit, "ambiguous: it could be MA or mA"},
		{"5 MM", ErrUnknownUnit, "ambiguous: it could be Mm or mm"},
	} {
		_, err := Parse(tc.in)
		if !errors.Is(err, tc.want) || !strings.Contains(fmt.Sprint(err), tc.says) {
			t.Errorf("Parse(%q) = %v, want %v saying %q", tc.in, err, tc.want, tc.says)
		}
	}
}

func TestConvert(t *testing.T) {
	for _, tc := range []struct {
		v        float64
		from, to string
		want     float64
		tol      float64 // absolute
	}{
		{3300, "mV", "V", 3.3, 0}, // exact after rounding to 12 significant digits
		{3.3, "V", "mV", 3300, 0},
		{75, "uA", "uA", 75, 0}, // same unit: untouched
		{0.075, "mA", "uA", 75, 0},
		{50, "µA", "mA", 0.05, 0},
		{2, "W", "mW", 2000, 0},
		{150, "mm", "m", 0.15, 0},
		{1, "in", "mm", 25.4, 0},
		{12, "in", "ft", 1, 0},
		{1.2, "kg", "g", 1200, 0},
		{1, "lb", "kg", 0.45359237, 0},
		{200, "MPa", "Pa", 2e8, 0},
		{200, "MPa", "N/mm2", 200, 0},
		{1, "ksi", "MPa", 6.894757293168361, 2e-12}, // 6.89475729317 after rounding to 12 digits
		{1, "bar", "kPa", 100, 0},
		{85, "°C", "K", 358.15, 0}, // offsets: absolute temperatures
		{85, "C", "K", 358.15, 0},
		{0, "K", "°C", -273.15, 0},
		{212, "°F", "°C", 100, 0},
		{-40, "°C", "°F", -40, 0},
		{10, "%", "1", 0.1, 0},
		{0.93, "ratio", "%", 93, 0},
		{250, "ppm", "%", 0.025, 0},
		{2.4, "GHz", "MHz", 2400, 0},
		{100, "nF", "uF", 0.1, 0},
		{4700, "pF", "nF", 4.7, 0},
		{4.7, "kΩ", "ohm", 4700, 0},
		{1, "MOhm", "kohm", 1000, 0},
		{5, "ms", "us", 5000, 0},
		{2, "h", "min", 120, 0},
		{1200, "mm2", "cm2", 12, 0}, // area: a length squared
		{1, "m^3", "L", 1000, 0},    // volume
		{1, "mL", "mm3", 1000, 0},
		{180, "deg", "rad", math.Pi, 1e-12},
		{1, "kWh", "J", 3.6e6, 0},
		{1, "kNm", "N·m", 1000, 0},
		{20, "$", "USD", 20, 0},
		{3.3, "KV", "V", 3300, 0}, // case-insensitive when it names one unit
		{3.3, "v", "mV", 3300, 0},
		{1, "cm", "mm", 10, 0},
		{2000, "mAh", "Ah", 2, 0}, // battery capacity
		{5, "VDC", "mV", 5000, 0},
		{36, "km/h", "m/s", 10, 0},
		{3000, "rpm", "RPM", 3000, 0},
	} {
		got, err := Convert(tc.v, tc.from, tc.to)
		if err != nil {
			t.Errorf("Convert(%v, %s, %s): %v", tc.v, tc.from, tc.to, err)
			continue
		}
		if math.Abs(got-tc.want) > tc.tol {
			t.Errorf("Convert(%v, %s, %s) = %.17g, want %v ± %g", tc.v, tc.from, tc.to, got, tc.want, tc.tol)
		}
	}
}

func TestConvertRefusesIncompatibleUnits(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		want     error
		says     string
	}{
		{"mm", "kg", ErrIncompatibleUnits, "mm measures length and kg measures mass"},
		{"uA", "V", ErrIncompatibleUnits, "uA measures current and V measures voltage"},
		{"°C", "W", ErrIncompatibleUnits, "°C measures temperature and W measures power"},
		{"mm", "mm2", ErrIncompatibleUnits, "mm measures length and mm2 measures area"},
		{"$", "EUR", ErrIncompatibleUnits, "different currencies, and no exchange rate is applied"},
		{"deg", "°C", ErrIncompatibleUnits, "deg measures angle and °C measures temperature"},
		{"furlong", "m", ErrUnknownUnit, `"furlong" is not a unit`},
		{"V", "", ErrUnknownUnit, "no unit given"},
		{"rpm", "Hz", ErrIncompatibleUnits, "rpm measures rotational speed and Hz measures frequency"},
	} {
		_, err := Convert(1, tc.from, tc.to)
		if !errors.Is(err, tc.want) || !strings.Contains(fmt.Sprint(err), tc.says) {
			t.Errorf("Convert(1, %s, %s) = %v, want %v saying %q", tc.from, tc.to, err, tc.want, tc.says)
		}
	}
}

func TestUnitDimensions(t *testing.T) {
	for u, want := range map[string]string{
		"mV": Voltage, "uA": Current, "W": Power, "mm": Length, "kg": Mass, "MPa": Pressure,
		"°C": Temperature, "GHz": Frequency, "nF": Capacitance, "kΩ": Resistance, "ms": Time,
		"%": Dimensionless, "$": "currency USD", "€": "currency EUR", "mm2": Area, "mm^3": Volume, "N": Force,
	} {
		if got, err := Dimension(u); err != nil || got != want {
			t.Errorf("Dimension(%s) = %q, %v; want %q", u, got, err, want)
		}
	}
	if CanBeNegative(Mass) || CanBeNegative(Length) || CanBeNegative("currency USD") || !CanBeNegative(Voltage) || !CanBeNegative(Temperature) {
		t.Error("CanBeNegative: mass, length and money cannot be; voltage and °C can")
	}
}
