package receipts

import "time"

// The receipts every renderer is tested with (golden files under testdata/).

var testKey = []byte("terminal-T1-test-key-0123456789abcdef")

func testShop() Shop {
	return Shop{
		Name:    "Galla Mobiles",
		Address: []string{"14, MG Road, Shivajinagar", "Bengaluru 560001, Karnataka"},
		Phone:   "080 4123 4567",
		GSTIN:   "29ABCDE1234F1Z5",
	}
}

func testTime() time.Time {
	return time.Date(2026, 11, 22, 14, 5, 9, 0, time.FixedZone("IST", 5*3600+1800))
}

func cardSale() Receipt {
	return Receipt{
		Kind:            KindSale,
		Shop:            testShop(),
		Number:          "T1-000123",
		Terminal:        "T1",
		Cashier:         "Asha",
		Time:            testTime(),
		MerchantOrderID: "GAL-20261122-T1-0007",
		Lines: []Line{
			{Name: "Sony WH-1000XM5 wireless headphones", HSN: "8518", Qty: 1, UnitPrice: 2999000, Amount: 2999000, GSTRate: 1800},
			{Name: "USB-C cable 1 m", HSN: "8544", Qty: 2, Unit: "PCS", UnitPrice: 49900, Amount: 99800, GSTRate: 1800},
		},
		Taxes: []TaxLine{{Rate: 1800, Taxable: 2626102, CGST: 236349, SGST: 236349}},
		Total: 3098800,
		Tenders: []Tender{{
			Kind: TenderCard, Amount: 3098800, CardBrand: "VISA", CardLast4: "1111",
			AuthCode: "A1B2C3", RRN: "432612345678", ServiceOrderID: "15230000012345",
			PaymentID: "15230000012345_1", Verified: true,
		}},
		QR:     SignQR(testKey, QRPayload{MerchantOrderID: "GAL-20261122-T1-0007", ServiceOrderID: "15230000012345", PaymentID: "15230000012345_1", Amount: 3098800}),
		Footer: []string{"Thank you for shopping with us!", "Exchange within 7 days with this receipt."},
	}
}

func emiSale() Receipt {
	return Receipt{
		Kind:            KindSale,
		Shop:            testShop(),
		Number:          "T1-000124",
		Terminal:        "T1",
		Cashier:         "Asha",
		Time:            testTime().Add(20 * time.Minute),
		MerchantOrderID: "GAL-20261122-T1-0008",
		Lines: []Line{{
			Name: "Samsung Galaxy S24 5G (8 GB, 256 GB, Onyx Black)", HSN: "8517", Qty: 1,
			UnitPrice: 7499900, Amount: 7499900, GSTRate: 1800, IMEIs: []string{"356938035643809"},
		}},
		Taxes: []TaxLine{{Rate: 1800, Taxable: 6355847, CGST: 572026, SGST: 572027}},
		Total: 7499900,
		Tenders: []Tender{{
			Kind: TenderEMI, Amount: 7499900, CardBrand: "MASTERCARD", CardLast4: "4444",
			AuthCode: "775533", RRN: "432612349999", ServiceOrderID: "15230000012346",
			PaymentID: "15230000012346_1", Verified: true,
			EMI: &EMIPlan{Issuer: "HDFC Bank", Program: "SAMSUNG no-cost EMI", TenureMonths: 6,
				Financed: 7499900, Monthly: 1249983, LastMonthly: 1249985, InterestRate: 1400, Interest: 309208, Discount: 309208,
				NoCost: true, TotalCost: 7499900},
		}},
		QR:     SignQR(testKey, QRPayload{MerchantOrderID: "GAL-20261122-T1-0008", ServiceOrderID: "15230000012346", PaymentID: "15230000012346_1", Amount: 7499900}),
		Footer: []string{"Thank you for shopping with us!"},
	}
}

func refund() Receipt {
	return Receipt{
		Kind:            KindRefund,
		Shop:            testShop(),
		Number:          "T1-R-000009",
		Terminal:        "T1",
		Cashier:         "Ravi (manager)",
		Time:            testTime().Add(26 * time.Hour),
		MerchantOrderID: "GAL-20261122-T1-0007",
		Refund: &Refund{OriginalNumber: "T1-000123", OriginalOrderID: "GAL-20261122-T1-0007",
			OriginalTime: testTime(), UniqueTxnID: "RF-20261123-0001", Partial: true, Reason: "Cable faulty"},
		Lines: []Line{{Name: "USB-C cable 1 m", HSN: "8544", Qty: 2, UnitPrice: 49900, Amount: 99800, GSTRate: 1800}},
		Taxes: []TaxLine{{Rate: 1800, Taxable: 84576, CGST: 7612, SGST: 7612}},
		Total: 99800,
		Tenders: []Tender{{Kind: TenderCard, Amount: 99800, CardBrand: "VISA", CardLast4: "1111",
			ServiceOrderID: "15230000012345", PaymentID: "15230000012345_1", Verified: true}},
		QR: SignQR(testKey, QRPayload{MerchantOrderID: "GAL-20261122-T1-0007", ServiceOrderID: "15230000012345", PaymentID: "15230000012345_1", Amount: -99800}),
	}
}

func reprint() Receipt {
	r := cardSale()
	r.Reprint = 2
	r.Tenders = append([]Tender{{Kind: TenderCash, Amount: 100000, Tendered: 200000, Change: 100000}}, r.Tenders...)
	r.Tenders[1].Amount = 2998800
	return r
}

func report(z bool) Receipt {
	r := Receipt{
		Kind:     KindXReport,
		Shop:     testShop(),
		Number:   "T1-X-20261122-03",
		Terminal: "T1",
		Cashier:  "Ravi (manager)",
		Time:     testTime().Add(7 * time.Hour),
		Report: &Report{
			Day:          testTime(),
			Sales:        ReportRow{Label: "Sales", Count: 42, Amount: 123456789},
			Refunds:      ReportRow{Label: "Refunds", Count: 2, Amount: 199600},
			Failed:       ReportRow{Label: "Failed payments", Count: 3, Amount: 8999700},
			Unknown:      ReportRow{Label: "Outcome unknown", Count: 1, Amount: 2499900},
			FirstReceipt: "T1-000101", LastReceipt: "T1-000144",
			ByTender: []ReportRow{
				{Label: "Card", Count: 20, Amount: 40000000},
				{Label: "EMI", Count: 12, Amount: 80000000},
				{Label: "Cash", Count: 8, Amount: 2456789},
				{Label: "Phone", Count: 2, Amount: 1000000},
			},
			ByEMI: []ReportRow{
				{Label: "HDFC Bank 6m no-cost", Count: 7, Amount: 50000000},
				{Label: "ICICI Bank 9m", Count: 5, Amount: 30000000},
			},
			Taxes:        []TaxLine{{Rate: 1800, Taxable: 104624398, CGST: 9416196, SGST: 9416195}},
			Net:          123257189,
			CashExpected: 2456789 + 500000,
		},
	}
	if z {
		r.Kind = KindZReport
		r.Number = "T1-Z-0057"
		r.Report.ZNumber = 57
	}
	return r
}

// goldenCases names every fixture; golden files are testdata/<name>.<ext>.
func goldenCases() []struct {
	name string
	r    Receipt
} {
	return []struct {
		name string
		r    Receipt
	}{
		{"card-sale", cardSale()},
		{"emi-sale", emiSale()},
		{"refund", refund()},
		{"reprint", reprint()},
		{"x-report", report(false)},
		{"z-report", report(true)},
		{"tax-invoice", taxInvoice()},
		{"composition-bill", compositionBill()},
		{"credit-note", creditNote()},
	}
}

// compositionBill is a composition shop's BILL OF SUPPLY: the legend of CGST
// Rule 5(1)(f) under the title, prices only, no tax anywhere.
func compositionBill() Receipt {
	shop := testShop()
	shop.State = "Karnataka (29)"
	return Receipt{
		Kind:            KindSale,
		Title:           "BILL OF SUPPLY",
		Legend:          "Composition taxable person, not eligible to collect tax on supplies",
		NoTax:           true,
		NoReverseCharge: true,
		Shop:            shop,
		Number:          "T1/B2627/00012",
		Terminal:        "T1",
		Cashier:         "Asha",
		Time:            testTime(),
		MerchantOrderID: "GAL-20261122-T1-0010",
		PlaceOfSupply:   "Karnataka (29)",
		Lines: []Line{
			{Name: "Redmi 13C 4GB/128GB", HSN: "8517", Qty: 1, Unit: "NOS", UnitPrice: 899900, Amount: 899900, IMEIs: []string{"356938035643817"}},
			{Name: "Tempered glass", HSN: "7007", Qty: 2, Unit: "PCS", UnitPrice: 29900, Discount: 9800, Amount: 50000},
		},
		Total:   949900,
		Tenders: []Tender{{Kind: TenderCash, Amount: 949900, Tendered: 950000, Change: 100}},
		Footer:  []string{"Thank you!"},
	}
}

// creditNote is a registered shop's CREDIT NOTE for the case of taxInvoice,
// returned: the buyer as on the invoice, the tax it reverses as IGST.
func creditNote() Receipt {
	inv := taxInvoice()
	return Receipt{
		Kind:            KindCreditNote,
		Title:           "CREDIT NOTE",
		NoReverseCharge: true,
		Shop:            inv.Shop,
		Number:          "T1/C2627/00003",
		Terminal:        "T1",
		Cashier:         "Ravi (manager)",
		Time:            testTime().Add(26 * time.Hour),
		MerchantOrderID: inv.MerchantOrderID,
		Buyer:           inv.Buyer,
		PlaceOfSupply:   inv.PlaceOfSupply,
		Interstate:      true,
		Credit: &CreditNote{InvoiceNumber: inv.Number, InvoiceTime: inv.Time, InvoiceOrderID: inv.MerchantOrderID, Reason: "wrong colour",
			Lines: []CreditLine{{Line: Line{Name: "Silicone case", HSN: "3926", Qty: 1, Unit: "PCS", UnitPrice: 118000, Amount: 100000, GSTRate: 1800},
				Taxable: 84746, Tax: 15254}}},
		Taxes:   []TaxLine{{Rate: 1800, Taxable: 84746, IGST: 15254}},
		Total:   100000,
		Tenders: []Tender{{Kind: TenderCard, Amount: 100000, CardBrand: "VISA", CardLast4: "1111", Verified: true}},
	}
}

// taxInvoice is an inter-state sale (IGST) of a Karnataka shop to an
// unregistered buyer whose address in Goa is on the invoice: a phone at
// ₹59,000.00 (taxable 50,000.00, IGST 9,000.00) and a case of ₹1,180.00 less
// ₹180.00 (1,000.00: taxable 847.46, IGST 152.54).
func taxInvoice() Receipt {
	shop := testShop()
	shop.State = "Karnataka (29)"
	return Receipt{
		Kind:            KindSale,
		Title:           "TAX INVOICE",
		Shop:            shop,
		Number:          "T1/2627/000123",
		Terminal:        "T1",
		Cashier:         "Asha",
		Time:            testTime(),
		MerchantOrderID: "GAL-20261122-T1-0009",
		Buyer:           &Buyer{Name: "Rohan Naik", Address: "House 12, Rua de Ourem, Panaji", State: "Goa (30)", Phone: "9822012345"},
		PlaceOfSupply:   "Goa (30)",
		Interstate:      true,
		NoReverseCharge: true,
		Lines: []Line{
			{Name: "Samsung Galaxy A55 5G 8GB/128GB Awesome Iceblue", HSN: "8517", Qty: 1, Unit: "NOS", UnitPrice: 5900000, Amount: 5900000, GSTRate: 1800,
				Taxable: 5000000, Tax: 900000, IMEIs: []string{"356938035643809"}},
			{Name: "Silicone case", HSN: "3926", Qty: 1, Unit: "PCS", UnitPrice: 118000, Discount: 18000, Amount: 100000, GSTRate: 1800, Taxable: 84746, Tax: 15254},
		},
		Taxes: []TaxLine{{Rate: 1800, Taxable: 5084746, IGST: 915254}},
		HSN: []HSNLine{
			{HSN: "8517", Rate: 1800, Qty: 1, Taxable: 5000000, IGST: 900000},
			{HSN: "3926", Rate: 1800, Qty: 1, Taxable: 84746, IGST: 15254},
		},
		Total: 6000000,
		Tenders: []Tender{{
			Kind: TenderCard, Amount: 6000000, CardBrand: "VISA", CardLast4: "1111",
			AuthCode: "A1B2C3", RRN: "432612345679", ServiceOrderID: "15230000012347",
			PaymentID: "15230000012347_1", Verified: true,
		}},
		QR:     SignQR(testKey, QRPayload{MerchantOrderID: "GAL-20261122-T1-0009", ServiceOrderID: "15230000012347", PaymentID: "15230000012347_1", Amount: 6000000}),
		Footer: []string{"Goods once sold are exchanged within 7 days with the bill."},
	}
}
