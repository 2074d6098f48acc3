package receipts_test

import (
	"fmt"
	"os"
	"time"

	"galla/receipts"
)

func ExampleText() {
	r := receipts.Receipt{
		Kind:     receipts.KindSale,
		Shop:     receipts.Shop{Name: "Galla Mobiles", Address: []string{"14, MG Road, Bengaluru"}, GSTIN: "29ABCDE1234F1Z5"},
		Number:   "T1-000125",
		Terminal: "T1",
		Cashier:  "Asha",
		Time:     time.Date(2026, 11, 22, 18, 30, 0, 0, time.UTC),
		Lines:    []receipts.Line{{Name: "Phone case", HSN: "3926", Qty: 1, Unit: "PCS", UnitPrice: 59900, Amount: 59900, GSTRate: 1800}},
		Taxes:    []receipts.TaxLine{{Rate: 1800, Taxable: 50763, CGST: 4568, SGST: 4569}},
		Total:    59900,
		Tenders:  []receipts.Tender{{Kind: receipts.TenderCash, Amount: 59900, Tendered: 100000, Change: 40100}},
		// A registered seller's invoice says no tax is paid under reverse charge.
		NoReverseCharge: true,
	}
	if err := receipts.Text(os.Stdout, r, 32); err != nil {
		fmt.Println(err)
	}
	// Output:
	//          Galla Mobiles
	//      14, MG Road, Bengaluru
	//      GSTIN 29ABCDE1234F1Z5
	//
	//           TAX INVOICE
	//      ORIGINAL FOR RECIPIENT
	// --------------------------------
	// Invoice No.            T1-000125
	// Date           22 Nov 2026 18:30
	// Reverse charge                No
	// Terminal T1         Cashier Asha
	// --------------------------------
	// Phone case
	//   HSN 3926 GST 18%
	//   1 PCS x 599.00          599.00
	// Items 1  Qty 1            599.00
	// --------------------------------
	// Taxable value @18%        507.63
	//   CGST @9%                 45.68
	//   SGST @9%                 45.69
	// ================================
	// TOTAL                    ₹599.00
	// Rupees Five Hundred Ninety-Nine
	// Only
	// ================================
	// Paid by cash              599.00
	//   Cash tendered         1,000.00
	//   Change                  401.00
	//
	//                for Galla Mobiles
	//
	//             Authorised signatory
}

func ExampleWords() {
	fmt.Println(receipts.Words(7499900))
	fmt.Println(receipts.Words(1234567850))
	// Output:
	// Rupees Seventy-Four Thousand Nine Hundred Ninety-Nine Only
	// Rupees One Crore Twenty-Three Lakh Forty-Five Thousand Six Hundred Seventy-Eight and Fifty Paise Only
}

func ExampleSignQR() {
	key := []byte("the terminal's key")
	text := receipts.SignQR(key, receipts.QRPayload{MerchantOrderID: "GAL-1", ServiceOrderID: "1523", PaymentID: "1523_1", Amount: 7499900})
	p, err := receipts.ParseQR(key, text)
	fmt.Println(p.MerchantOrderID, p.Amount, err)
	_, err = receipts.ParseQR([]byte("another terminal's key"), text)
	fmt.Println(err)
	// Output:
	// GAL-1 7499900 <nil>
	// receipts: qr: not signed by this terminal
}
