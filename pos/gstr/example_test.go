package gstr_test

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"galla/pos/gstr"
)

// A month of one sale and one return to unregistered buyers in the shop's
// state: b2cs is the sale less the return.
func ExampleGSTR1() {
	at := func(day int) time.Time { return time.Date(2026, time.July, day, 12, 0, 0, 0, time.UTC) }
	docs := []gstr.Document{
		{Kind: gstr.Invoice, Number: "T1/2627/000001", Date: at(1), ShopState: "27",
			Lines: []gstr.Line{{HSN: "8544", Qty: 2, Rate: 1800, Taxable: 1000_00, CGST: 90_00, SGST: 90_00}}},
		{Kind: gstr.CreditNote, Number: "T1/C2627/00001", Date: at(2), ShopState: "27", OriginalNumber: "T1/2627/000001",
			Lines: []gstr.Line{{HSN: "8544", Qty: 1, Rate: 1800, Taxable: 500_00, CGST: 45_00, SGST: 45_00}}},
	}
	r, err := gstr.GSTR1(gstr.Month{Year: 2026, Month: time.July}, "27AAPFU0939F1ZV", docs)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := json.Marshal(r.B2CS)
	fmt.Println(string(b))
	_ = gstr.WriteCSV(os.Stdout, docs)
	// Output:
	// [{"sply_ty":"INTRA","pos":"27","typ":"OE","rt":18,"txval":500.00,"camt":45.00,"samt":45.00,"csamt":0.00}]
	// document_no,date,kind,original_no,buyer_gstin,buyer_name,place_of_supply,item,hsn,qty,uqc,taxable,rate,igst,cgst,sgst,cess,total,imei,tender,cashier,seller_gstin
	// T1/2627/000001,2026-07-01,invoice,,,,27,,8544,2,NOS,1000.00,18,0.00,90.00,90.00,0.00,1180.00,,,,
	// T1/C2627/00001,2026-07-02,credit-note,T1/2627/000001,,,27,,8544,-1,NOS,-500.00,18,0.00,-45.00,-45.00,0.00,-590.00,,,,
}
