package hsn

import "sync"

// builtinCodes is the built-in master: headings and subheadings of the goods
// Galla's shops sell, each described in Galla's own short words (at most 30
// characters, the length of GSTR-1's desc). It is not the full
// classification: a code it does not list may well exist (docs/gstr1.md,
// "HSN master"). A code added here needs its heading here too.
var builtinCodes = [][2]string{
	{"0701", "Potatoes, fresh or chilled"},
	{"0902", "Tea"},
	{"1006", "Rice"},
	{"2106", "Food preparations n.e.s."},
	{"2401", "Raw tobacco"},
	{"2402", "Cigarettes and cigars"},
	{"2403", "Other manufactured tobacco"},
	{"2404", "Nicotine inhalation products"},
	{"3926", "Other articles of plastics"},
	{"392690", "Other plastic articles"},
	{"4202", "Cases, bags and pouches"},
	{"420232", "Pocket cases, plastic or cloth"},
	{"4901", "Printed books and leaflets"},
	{"490199", "Other printed books"},
	{"6305", "Packing sacks and bags"},
	{"7007", "Safety glass"},
	{"700719", "Toughened glass, other"},
	{"7102", "Diamonds"},
	{"710239", "Other non-industrial diamonds"},
	{"7118", "Coins"},
	{"8302", "Metal fittings and mountings"},
	{"8414", "Fans and air pumps"},
	{"841451", "Table and ceiling fans"},
	{"8415", "Air conditioners"},
	{"841510", "Window and wall ACs"},
	{"8418", "Refrigerators and freezers"},
	{"841821", "Household refrigerators"},
	{"8443", "Printers and copiers"},
	{"844332", "Printers for computers"},
	{"8450", "Washing machines"},
	{"845011", "Fully automatic washers"},
	{"8471", "Computers"},
	{"847130", "Laptops and tablets"},
	{"847141", "Desktop computers"},
	{"847160", "Keyboards, mice and scanners"},
	{"847170", "Computer storage units"},
	{"8473", "Parts of computers"},
	{"847330", "Computer parts and accessories"},
	{"8504", "Transformers and chargers"},
	{"850440", "Chargers and power adapters"},
	{"8506", "Primary cells and batteries"},
	{"850610", "Alkaline cells"},
	{"8507", "Rechargeable batteries"},
	{"850760", "Lithium-ion batteries"},
	{"8513", "Portable electric lamps"},
	{"851310", "Torches and portable lamps"},
	{"8516", "Electric heaters and ovens"},
	{"851631", "Hair dryers"},
	{"851650", "Microwave ovens"},
	{"8517", "Telephone sets"},
	{"851711", "Cordless telephones"},
	{"851713", "Smartphones"},
	{"851714", "Other mobile phones"},
	{"851762", "Routers, modems and switches"},
	{"851771", "Antennas for phones"},
	{"851779", "Parts of phones"},
	{"8518", "Microphones and speakers"},
	{"851810", "Microphones"},
	{"851822", "Multiple loudspeaker sets"},
	{"851829", "Other loudspeakers"},
	{"851830", "Headphones and earphones"},
	{"8519", "Sound players and recorders"},
	{"8521", "Video players and recorders"},
	{"8523", "Memory cards and storage media"},
	{"852351", "Flash memory cards and drives"},
	{"852352", "Smart cards"},
	{"8524", "Flat panel display modules"},
	{"8525", "Cameras and transmitters"},
	{"852580", "Video and web cameras"},
	{"8527", "Radio receivers"},
	{"8528", "Monitors and televisions"},
	{"852852", "Computer monitors"},
	{"852872", "Colour televisions"},
	{"8529", "Parts of TVs and radios"},
	{"8536", "Switches, plugs and sockets"},
	{"853669", "Plugs and sockets"},
	{"8544", "Insulated wire and cable"},
	{"854442", "Cables with connectors"},
	{"854449", "Other insulated cables"},
	{"8703", "Motor cars"},
	{"870323", "Petrol cars of 1500-3000 cc"},
	{"9006", "Photographic cameras"},
	{"9102", "Wrist watches"},
	{"910212", "Digital wrist watches"},
	{"9504", "Video game consoles and games"},
	{"950450", "Video game consoles"},
	{"9608", "Ball-point and other pens"},
	{"960810", "Ball-point pens"},
}

// builtin is the built-in master, made on the first look-up.
var builtin = sync.OnceValue(func() *Master {
	desc := make(map[string]string, len(builtinCodes))
	for _, c := range builtinCodes {
		desc[c[0]] = c[1]
	}
	m, err := newMaster(desc)
	if err != nil {
		panic("hsn: the built-in master: " + err.Error()) // TestBuiltin checks it
	}
	return m
})

// Builtin is the master Galla ships (builtinCodes).
func Builtin() *Master { return builtin() }
