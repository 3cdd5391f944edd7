package datasheettest

// The three datasheets: a buck converter, an LDO and a dual op-amp, each
// with its electrical characteristics on page 2. The figures are written
// here once, beside the cells that print them; rows with want nil are
// printed but cannot be read without guessing.

func v(x float64) *float64 { return &x }

func fig(name, symbol, conditions string, min, typ, max *float64, unit string) *Figure {
	return &Figure{Name: name, Symbol: symbol, Conditions: conditions, Min: min, Typ: typ, Max: max, Unit: unit}
}

var buck = sheet{
	mpn:          "MFB2307",
	manufacturer: "Acme Power",
	category:     "buck-converter",
	title:        "MFB2307 3 A, 28 V Synchronous Step-Down Converter",
	summary:      "3 A 28 V synchronous step-down buck converter",
	pages: [][]block{
		{
			{heading: "MFB2307 3 A, 28 V Synchronous Step-Down Converter"},
			{heading: "Features"},
			{para: "Wide input voltage range from 4.5 V to 28 V. Up to 3 A continuous output current. Integrated high-side and low-side power switches. Fixed 1.4 MHz switching frequency allows small inductors and ceramic output capacitors. Internal soft-start limits the inrush current at power-up. Cycle-by-cycle current limit, hiccup short-circuit protection and thermal shutdown protect the converter and the load."},
			{heading: "Applications"},
			{para: "Distributed power systems fed from a 12 V or 24 V bus, flight controllers and drone power boards, set-top boxes, networking equipment and industrial controllers that need a compact synchronous buck regulator with high efficiency at full load."},
			{heading: "Description"},
			{para: "The MFB2307 from Acme Power is a monolithic synchronous step-down buck converter. Peak current mode control gives fast transient response and simple loop compensation. The output voltage is set by an external resistor divider on the feedback pin, from 0.8 V up to about 90 percent of the input voltage. In shutdown the converter draws about one microampere from the input. The device comes in a thermally enhanced eight pin package with an exposed pad."},
		},
		{
			{heading: "Electrical Characteristics"},
			{para: "VIN = 12 V, TA = 25 °C, unless otherwise noted. Typical values are the most likely values at room temperature and are not guaranteed limits."},
			{table: []row{
				{[7]string{"Input voltage range", "VIN", "", "4.5", "", "28", "V"}, fig("Input voltage range", "VIN", "", v(4.5), nil, v(28), "V")},
				{[7]string{"Quiescent current", "IQ", "VFB = 0.9 V, not switching", "", "40", "60", "µA"}, fig("Quiescent current", "IQ", "VFB = 0.9 V, not switching", nil, v(40), v(60), "µA")},
				{[7]string{"Shutdown current", "ISD", "EN = 0 V", "", "1", "3", "µA"}, fig("Shutdown current", "ISD", "EN = 0 V", nil, v(1), v(3), "µA")},
				{[7]string{"Feedback voltage", "VFB", "TA = 25 °C", "0.788", "0.8", "0.812", "V"}, fig("Feedback voltage", "VFB", "TA = 25 °C", v(0.788), v(0.8), v(0.812), "V")},
				{[7]string{"Switching frequency", "fSW", "", "1.2", "1.4", "1.6", "MHz"}, fig("Switching frequency", "fSW", "", v(1.2), v(1.4), v(1.6), "MHz")},
				{[7]string{"Output current", "IOUT", "", "", "", "3", "A"}, fig("Output current", "IOUT", "", nil, nil, v(3), "A")},
				{[7]string{"Current limit", "ILIM", "", "4.2", "5", "5.8", "A"}, fig("Current limit", "ILIM", "", v(4.2), v(5), v(5.8), "A")},
				{[7]string{"Efficiency", "", "VOUT = 5 V, IOUT = 1 A", "", "92", "", "%"}, fig("Efficiency", "", "VOUT = 5 V, IOUT = 1 A", nil, v(92), nil, "%")},
				{[7]string{"", "", "VOUT = 5 V, IOUT = 3 A", "", "88", "", "%"}, fig("Efficiency", "", "VOUT = 5 V, IOUT = 3 A", nil, v(88), nil, "%")},
				{[7]string{"Load regulation", "", "IOUT = 0.1 A to 3 A", "", "-0.2", "", "%"}, fig("Load regulation", "", "IOUT = 0.1 A to 3 A", nil, v(-0.2), nil, "%")},
				{[7]string{"Soft-start time", "tSS", "", "", "2.5", "", "ms"}, fig("Soft-start time", "tSS", "", nil, v(2.5), nil, "ms")},
				{[7]string{"Minimum on-time", "tON", "", "", "see text", "", "ns"}, nil},
				{[7]string{"Thermal shutdown", "TSD", "", "", "160", "", "°C"}, fig("Thermal shutdown", "TSD", "", nil, v(160), nil, "°C")},
			}},
			{para: "Note 1: the efficiency figures are measured on the evaluation board with a 4.7 uH shielded inductor and two 22 uF ceramic output capacitors. Note 2: the minimum on-time depends on the load current and the inductor ripple; see Application Information."},
		},
		{
			{heading: "Application Information"},
			{para: "Setting the output voltage: the feedback pin regulates to 0.8 V, so the output voltage is VOUT = 0.8 V x (1 + R1 / R2). Choose R2 near 10 kilohm to keep the divider current small compared with the load at light load while preserving noise immunity on the feedback trace."},
			{para: "Inductor selection: a ripple current of about 30 percent of the maximum load is a good compromise between inductor size and output ripple. At 1.4 MHz with a 12 V input and a 5 V output, a 4.7 uH inductor with a saturation current above the current limit is recommended."},
			{para: "Layout: keep the input capacitor, the power switch node and the ground return of the output capacitor in a tight loop. Connect the exposed pad to a ground plane with several thermal vias."},
			{heading: "Thermal Information"},
			{table: []row{
				{[7]string{"Junction-to-ambient resistance", "RTHJA", "JEDEC board", "", "45", "", "°C/W"}, fig("Junction-to-ambient resistance", "RTHJA", "JEDEC board", nil, v(45), nil, "°C/W")},
				{[7]string{"Operating junction temperature", "TJ", "", "-40", "", "125", "°C"}, fig("Operating junction temperature", "TJ", "", v(-40), nil, v(125), "°C")},
			}},
		},
		{
			{heading: "Package and Ordering Information"},
			{para: "The MFB2307 is supplied in an eight pin SOIC package with exposed pad, marked 2307 on the top side, on tape and reel of 2500 units. The part is lead free and RoHS compliant. Acme Power reserves the right to change the specifications in this datasheet without notice."},
		},
	},
}

var ldo = sheet{
	mpn:          "MFL1117",
	manufacturer: "Acme Power",
	category:     "ldo",
	title:        "MFL1117 800 mA Low-Dropout Linear Regulator",
	summary:      "800 mA 3.3 V low-dropout linear regulator LDO",
	pages: [][]block{
		{
			{heading: "MFL1117 800 mA Low-Dropout Linear Regulator"},
			{heading: "Features"},
			{para: "Fixed 3.3 V output with 1 percent accuracy. Dropout of 1.2 V at the full load of 800 mA. Internal current limit and thermal shutdown. Stable with a 10 uF tantalum or ceramic output capacitor. Available in SOT-223 and TO-252 packages."},
			{heading: "Description"},
			{para: "The MFL1117 from Acme Power is a positive low-dropout linear regulator designed to supply 3.3 V logic and microcontrollers from a 5 V rail. Its PNP pass element and trimmed reference give a stable output over line, load and temperature. The ground current flows to the output, which keeps the efficiency high at light load."},
			{heading: "Applications"},
			{para: "Post regulators for switching supplies, 5 V to 3.3 V conversion on microcontroller boards, sensor modules and battery chargers."},
		},
		{
			{heading: "Electrical Characteristics"},
			{para: "VIN = 5 V, IOUT = 10 mA, TA = 25 °C, unless otherwise noted."},
			{table: []row{
				{[7]string{"Input voltage", "VIN", "", "4.5", "", "15", "V"}, fig("Input voltage", "VIN", "", v(4.5), nil, v(15), "V")},
				{[7]string{"Output voltage", "VOUT", "IOUT = 10 mA, VIN = 5 V", "3.267", "3.3", "3.333", "V"}, fig("Output voltage", "VOUT", "IOUT = 10 mA, VIN = 5 V", v(3.267), v(3.3), v(3.333), "V")},
				{[7]string{"Initial accuracy", "", "TA = 25 °C", "", "±1", "", "%"}, nil},
				{[7]string{"Line regulation", "", "VIN = 4.8 V to 15 V", "", "0.2", "0.5", "%"}, fig("Line regulation", "", "VIN = 4.8 V to 15 V", nil, v(0.2), v(0.5), "%")},
				{[7]string{"Load regulation", "", "IOUT = 0 mA to 800 mA", "", "0.4", "1.0", "%"}, fig("Load regulation", "", "IOUT = 0 mA to 800 mA", nil, v(0.4), v(1), "%")},
				{[7]string{"Dropout voltage", "VDO", "IOUT = 100 mA", "", "1.0", "1.1", "V"}, fig("Dropout voltage", "VDO", "IOUT = 100 mA", nil, v(1), v(1.1), "V")},
				{[7]string{"", "", "IOUT = 800 mA", "", "1.2", "1.3", "V"}, fig("Dropout voltage", "VDO", "IOUT = 800 mA", nil, v(1.2), v(1.3), "V")},
				{[7]string{"Current limit", "ILIM", "VIN - VOUT = 1.5 V", "0.9", "1.1", "1.5", "A"}, fig("Current limit", "ILIM", "VIN - VOUT = 1.5 V", v(0.9), v(1.1), v(1.5), "A")},
				{[7]string{"Quiescent current", "IQ", "", "", "5", "10", "mA"}, fig("Quiescent current", "IQ", "", nil, v(5), v(10), "mA")},
				{[7]string{"Ripple rejection", "PSRR", "f = 120 Hz", "60", "75", "", "dB"}, fig("Ripple rejection", "PSRR", "f = 120 Hz", v(60), v(75), nil, "dB")},
				{[7]string{"Temperature coefficient", "", "", "", "0.005", "", "%/°C"}, fig("Temperature coefficient", "", "", nil, v(0.005), nil, "%/°C")},
				{[7]string{"Thermal shutdown", "TSD", "", "", "155", "", "°C"}, fig("Thermal shutdown", "TSD", "", nil, v(155), nil, "°C")},
			}},
			{para: "The dropout voltage is measured when the output falls 100 mV below its value at VIN = 5 V."},
		},
		{
			{heading: "Application Information"},
			{para: "Output capacitor: the regulator needs at least 10 uF on the output with an equivalent series resistance between 0.1 and 1 ohm for stability. Input capacitor: place 10 uF close to the input pin when the regulator is more than a few centimetres from the bulk capacitor of the supply."},
			{para: "Power dissipation: the regulator dissipates (VIN - VOUT) x IOUT. From 5 V to 3.3 V at 800 mA this is 1.36 W, which the SOT-223 package handles with a copper area of about 2 square centimetres on the tab."},
			{para: "Ordering: MFL1117 in SOT-223, tape and reel of 2500; MFL1117 in TO-252, tape and reel of 2500."},
		},
	},
}

var opamp = sheet{
	mpn:          "MFA358",
	manufacturer: "Borealis Analog",
	category:     "op-amp",
	title:        "MFA358 Dual Low-Power Operational Amplifier",
	summary:      "dual low-power operational amplifier op-amp single supply",
	pages: [][]block{
		{
			{heading: "MFA358 Dual Low-Power Operational Amplifier"},
			{heading: "Features"},
			{para: "Two independent high-gain operational amplifiers in one package. Single supply from 3 V to 32 V or split supplies. Input common-mode range includes ground. Low supply current of 0.7 mA independent of the supply voltage. Internally frequency compensated for unity gain."},
			{heading: "Description"},
			{para: "The MFA358 from Borealis Analog contains two op-amps designed to operate from a single power supply over a wide range of voltages. Typical uses are transducer amplifiers, active filters, DC gain blocks and the conventional op-amp circuits that are easier to build from a single supply rail."},
			{heading: "Applications"},
			{para: "Sensor signal conditioning, battery monitoring, current sense amplifiers, active filters and comparators in motor controllers and power supplies."},
		},
		{
			{heading: "Electrical Characteristics"},
			{para: "VS = 5 V, TA = 25 °C, unless otherwise noted. Input bias current flows out of the input pins, hence the negative sign."},
			{table: []row{
				{[7]string{"Supply voltage", "VS", "single supply", "3", "", "32", "V"}, fig("Supply voltage", "VS", "single supply", v(3), nil, v(32), "V")},
				{[7]string{"Input offset voltage", "VOS", "TA = 25 °C", "", "2", "7", "mV"}, fig("Input offset voltage", "VOS", "TA = 25 °C", nil, v(2), v(7), "mV")},
				{[7]string{"Offset voltage drift", "", "", "", "7", "", "µV/°C"}, fig("Offset voltage drift", "", "", nil, v(7), nil, "µV/°C")},
				{[7]string{"Input bias current", "IIB", "", "", "-20", "-250", "nA"}, fig("Input bias current", "IIB", "", nil, v(-20), v(-250), "nA")},
				{[7]string{"Input offset current", "IIO", "", "", "2", "50", "nA"}, fig("Input offset current", "IIO", "", nil, v(2), v(50), "nA")},
				{[7]string{"Open-loop voltage gain", "AOL", "VO = 1 V to 11 V", "25", "100", "", "V/mV"}, fig("Open-loop voltage gain", "AOL", "VO = 1 V to 11 V", v(25), v(100), nil, "V/mV")},
				{[7]string{"Common-mode rejection", "CMRR", "", "65", "80", "", "dB"}, fig("Common-mode rejection", "CMRR", "", v(65), v(80), nil, "dB")},
				{[7]string{"Gain-bandwidth product", "GBW", "", "", "1.1", "", "MHz"}, fig("Gain-bandwidth product", "GBW", "", nil, v(1.1), nil, "MHz")},
				{[7]string{"Slew rate", "SR", "", "", "0.3", "", "V/µs"}, fig("Slew rate", "SR", "", nil, v(0.3), nil, "V/µs")},
				{[7]string{"Supply current", "ICC", "VS = 5 V, no load", "", "0.7", "1.2", "mA"}, fig("Supply current", "ICC", "VS = 5 V, no load", nil, v(0.7), v(1.2), "mA")},
				{[7]string{"Short-circuit current", "ISC", "", "", "40", "60", "mA"}, fig("Short-circuit current", "ISC", "", nil, v(40), v(60), "mA")},
				{[7]string{"Operating temperature", "TA", "", "-40", "", "85", "°C"}, fig("Operating temperature", "TA", "", v(-40), nil, v(85), "°C")},
			}},
		},
		{
			{heading: "Application Information"},
			{para: "Single supply operation: bias the non-inverting input at half the supply for AC signals, or use the ground-sensing input range for DC signals near zero volts. The output swings to within about 20 mV of ground when it sinks no current."},
			{para: "Capacitive loads above 100 pF at unity gain reduce the phase margin; add a small series resistor at the output. Unused amplifiers should be connected as followers with the input at mid supply."},
			{para: "Ordering: MFA358 in SOIC-8 and MSOP-8, tubes of 75 or tape and reel of 2500."},
		},
	},
}
