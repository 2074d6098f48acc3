package receipts

import (
	"strconv"
	"strings"
)

// Amount formats paise with Indian digit grouping and two decimals, without a
// currency sign: 7499900 is "74,999.00", 1234567800 is "1,23,45,678.00".
func Amount(paise int64) string {
	var b []byte
	neg := paise < 0
	u := uint64(paise)
	if neg {
		u = -u // also right for math.MinInt64
	}
	digits := strconv.FormatUint(u/100, 10)
	if neg {
		b = append(b, '-')
	}
	b = appendIndian(b, digits)
	frac := u % 100
	return string(append(b, '.', byte('0'+frac/10), byte('0'+frac%10)))
}

// appendIndian appends digits grouped the Indian way: the last three digits, then
// pairs (12,34,56,789).
func appendIndian(b []byte, d string) []byte {
	if len(d) <= 3 {
		return append(b, d...)
	}
	head, tail := d[:len(d)-3], d[len(d)-3:]
	first := len(head) % 2
	if first == 0 {
		first = 2
	}
	b = append(b, head[:first]...)
	for i := first; i < len(head); i += 2 {
		b = append(b, ',')
		b = append(b, head[i:i+2]...)
	}
	return append(append(b, ','), tail...)
}

// Money formats paise with a currency sign in front: Money(7499900, "₹") is
// "₹74,999.00"; a negative amount is "-₹1.00".
func Money(paise int64, sign string) string {
	s := Amount(paise)
	if paise < 0 {
		return "-" + sign + s[1:]
	}
	return sign + s
}

// ones names 0..19.
func ones(n uint64) string {
	return [...]string{"Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine",
		"Ten", "Eleven", "Twelve", "Thirteen", "Fourteen", "Fifteen", "Sixteen", "Seventeen", "Eighteen", "Nineteen"}[n]
}

// tens names 20, 30, ... 90 by their first digit.
func tens(n uint64) string {
	return [...]string{"", "", "Twenty", "Thirty", "Forty", "Fifty", "Sixty", "Seventy", "Eighty", "Ninety"}[n]
}

// Words spells an amount the Indian way, as printed on a tax invoice:
// 7499900 is "Rupees Seventy-Four Thousand Nine Hundred Ninety-Nine Only",
// 1234567850 is "Rupees One Crore Twenty-Three Lakh Forty-Five Thousand Six Hundred
// Seventy-Eight and Fifty Paise Only". A negative amount starts with "Minus".
func Words(paise int64) string {
	var b strings.Builder
	u := uint64(paise)
	if paise < 0 {
		b.WriteString("Minus ")
		u = -u
	}
	b.WriteString("Rupees ")
	rupees, p := u/100, u%100
	switch {
	case rupees == 0 && p > 0:
		b.WriteString(belowHundred(p))
		b.WriteString(" Paise Only")
		return b.String()
	case rupees == 0:
		b.WriteString("Zero Only")
		return b.String()
	}
	b.WriteString(indianWords(rupees))
	if p > 0 {
		b.WriteString(" and ")
		b.WriteString(belowHundred(p))
		b.WriteString(" Paise")
	}
	b.WriteString(" Only")
	return b.String()
}

// indianWords spells n > 0 in crore, lakh, thousand and hundred; above 99 crore the
// crores are themselves spelled the same way ("One Lakh Crore").
func indianWords(n uint64) string {
	var parts []string
	if c := n / 10000000; c > 0 {
		parts = append(parts, indianWords(c)+" Crore")
		n %= 10000000
	}
	if l := n / 100000; l > 0 {
		parts = append(parts, belowHundred(l)+" Lakh")
		n %= 100000
	}
	if t := n / 1000; t > 0 {
		parts = append(parts, belowHundred(t)+" Thousand")
		n %= 1000
	}
	if h := n / 100; h > 0 {
		parts = append(parts, ones(h)+" Hundred")
		n %= 100
	}
	if n > 0 {
		parts = append(parts, belowHundred(n))
	}
	return strings.Join(parts, " ")
}

// belowHundred spells 1..99: "Seven", "Nineteen", "Forty", "Ninety-Nine".
func belowHundred(n uint64) string {
	if n < 20 {
		return ones(n)
	}
	if n%10 == 0 {
		return tens(n / 10)
	}
	return tens(n/10) + "-" + ones(n%10)
}

// halfPercent formats half of bp basis points, the rate of each of CGST and SGST:
// 1800 is "9%", 25 is "0.125%", 150 is "0.75%".
func halfPercent(bp int) string {
	v := bp * 5 // thousandths of a percent
	s := strconv.Itoa(v / 1000)
	if f := v % 1000; f != 0 {
		s += "." + strings.TrimRight(strconv.Itoa(1000 + f)[1:], "0")
	}
	return s + "%"
}

// percent formats basis points as a percentage: 1800 is "18%", 250 is "2.5%",
// 1234 is "12.34%".
func percent(bp int) string {
	s := strconv.Itoa(bp / 100)
	if f := bp % 100; f != 0 {
		fs := strconv.Itoa(100 + f)[1:]
		s += "." + strings.TrimRight(fs, "0")
	}
	return s + "%"
}
