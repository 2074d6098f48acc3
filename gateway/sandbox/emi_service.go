package sandbox

import (
	"encoding/json"
	"net/url"
	"strconv"
)

// emiService is the contract's EMI endpoints: the calculator of offers, the
// validation of a scheme for a card, the EMI payment and the IMEI check that
// blocks a phone for an order (brand EMI). The offers themselves and the scheme
// checks are in emi.go.
type emiService struct{ *core }

// ---- calculator ----

type calculatorJSON struct {
	MerchantData struct {
		MerchantID *int64 `json:"merchant_id"`
	} `json:"merchant_data"`
	PaymentData struct {
		AmountInPaisa *int64 `json:"amount_in_paisa"`
	} `json:"payment_data"`
	ProductDetails []struct {
		ProductCode   string `json:"product_code"`
		ProductAmount *int64 `json:"product_amount"`
	} `json:"product_details"`
}

func (em *emiService) merchantByNumber(id *int64) *merchant {
	if id == nil {
		return nil
	}
	return em.merchants[strconv.FormatInt(*id, 10)]
}

func (em *emiService) emiCalculator(r *request) *reply {
	em.mu.Lock()
	defer em.mu.Unlock()
	var in calculatorJSON
	if err := json.Unmarshal(r.body, &in); err != nil {
		return errInvalidCode()
	}
	m := em.merchantByNumber(in.MerchantData.MerchantID)
	if m == nil || in.PaymentData.AmountInPaisa == nil || *in.PaymentData.AmountInPaisa < 1 || len(in.ProductDetails) == 0 {
		return errInvalidCode()
	}
	if rep := em.limited(m.ID); rep != nil {
		return rep
	}
	var products []product
	var sum int64
	for _, p := range in.ProductDetails {
		if p.ProductCode == "" || p.ProductAmount == nil || *p.ProductAmount < 0 {
			return errInvalidCode()
		}
		products = append(products, product{Code: p.ProductCode, Amount: *p.ProductAmount})
		sum += *p.ProductAmount
	}
	if sum != *in.PaymentData.AmountInPaisa {
		return errInvalidCode()
	}
	return jsonReply(200, calculatorReply{Issuer: offers(products), AcquirerData: acquirerJSON{AcquirerID: AcquirerID},
		ResponseCode: 1, ResponseMessage: msgSuccess})
}

// ---- scheme validation ----

type schemeValidationJSON struct {
	MerchantData struct {
		MerchantID *int64 `json:"merchant_id"`
	} `json:"merchant_data"`
	PaymentData struct {
		AmountInPaisa *int64 `json:"amount_in_paisa"`
	} `json:"payment_data"`
	CardData struct {
		CardNumber string `json:"card_number"`
	} `json:"card_data"`
	EMIData      *tenureJSON  `json:"emi_data"`
	AcquirerData acquirerJSON `json:"acquirer_data"`
}

func (em *emiService) schemeValidation(r *request) *reply {
	em.mu.Lock()
	defer em.mu.Unlock()
	var in schemeValidationJSON
	if err := json.Unmarshal(r.body, &in); err != nil {
		return errInvalidResp()
	}
	m := em.merchantByNumber(in.MerchantData.MerchantID)
	if m == nil || in.PaymentData.AmountInPaisa == nil || !validAcquirer(in.AcquirerData.AcquirerID) {
		return errInvalidResp()
	}
	if rep := em.limited(m.ID); rep != nil {
		return rep
	}
	if rep := checkScheme(*in.PaymentData.AmountInPaisa, in.CardData.CardNumber, in.EMIData); rep != nil {
		return rep
	}
	return respCode(200, 1, msgSuccess)
}

// ---- EMI payment ----

type emiCardJSON struct {
	cardJSON
	IsCardToBeSaved bool `json:"is_card_to_be_saved"`
}

type emiPaymentJSON struct {
	MerchantData struct {
		MerchantID *int64 `json:"merchant_id"`
	} `json:"merchant_data"`
	CardData     *emiCardJSON `json:"card_data"`
	CustomerData struct {
		CountryCode   string `json:"country_code"`
		MobileNumber  string `json:"mobile_number"`
		EmailID       string `json:"email_id"`
		CustomerToken string `json:"customer_token"`
	} `json:"customer_data"`
	EMIData      *tenureJSON  `json:"emi_data"`
	AcquirerData acquirerJSON `json:"acquirer_data"`
}

type emiPaymentReply struct {
	Content         string  `json:"content"`
	PaymentID       int64   `json:"payment_id"`
	OrderID         int64   `json:"order_id"`
	AmountInPaise   int64   `json:"amount_in_paise"`
	Token           string  `json:"token"`
	APIURL          *string `json:"api_url"`
	ResponseCode    int     `json:"response_code"`
	ResponseMessage string  `json:"response_message"`
}

func (em *emiService) emiPayment(r *request) *reply {
	if r.Header.Get("checkoutmode") != "SEAMLESS" {
		return errInvalidResp()
	}
	em.mu.Lock()
	defer em.mu.Unlock()
	o, rep := em.payableOrder(r)
	if rep != nil {
		return rep
	}
	var in emiPaymentJSON
	if err := json.Unmarshal(r.body, &in); err != nil || in.CardData == nil || in.EMIData == nil ||
		em.merchantByNumber(in.MerchantData.MerchantID) != o.m || !validAcquirer(in.AcquirerData.AcquirerID) ||
		!in.CardData.valid(em.now()) {
		return errInvalidResp()
	}
	cust, ok := mergeCustomer(o, customer{CountryCode: in.CustomerData.CountryCode, Mobile: in.CustomerData.MobileNumber, Email: in.CustomerData.EmailID})
	if !ok {
		return errInvalidResp()
	}
	emi := in.EMIData
	if emi.AuthAmount != o.amount || !sameProducts(o.products, emi.OfferScheme.ProductDetails) {
		return errAmount()
	}
	if rep := checkScheme(o.amount, in.CardData.CardNumber, emi); rep != nil {
		return rep
	}
	need := map[string]int{}
	for _, d := range emi.OfferScheme.ProductDetails {
		if b, _, ok := brandOfProduct(d.ProductCode); ok && b.imei && d.SubventionType != SubventionStandard {
			need[d.ProductCode]++
		}
	}
	for code, k := range need {
		if len(o.imeiOK[code]) < k {
			return errIMEIRequired()
		}
	}
	issuer := issuerOf(in.CardData.CardNumber)
	mode := paymentModeEMI
	if is, _ := issuerByName(issuer); is.debit {
		mode = paymentModeDebitEMI
	}
	p, rep := em.newPayment(o, in.CardData.cardJSON, cust, emi.AuthAmount, mode, issuer)
	if rep != nil {
		return rep
	}
	return jsonReply(200, emiPaymentReply{
		Content: authContent(baseURL(r.Request), p.id), PaymentID: atoi(p.id), OrderID: atoi(o.id),
		AmountInPaise: p.amount, Token: url.QueryEscape(o.token), ResponseCode: 14010, ResponseMessage: msgSuccess,
	})
}

// ---- IMEI validation ----

type imeiItemJSON struct {
	ProductCode string `json:"product_code"`
	IMEINo      string `json:"imei_no"`
}

type imeiJSON struct {
	MerchantData struct {
		MerchantID *int64 `json:"merchant_id"`
	} `json:"merchant_data"`
	ProductIMEIDetails []imeiItemJSON `json:"product_imei_details"`
}

type imeiStatusJSON struct {
	ResponseCode    int    `json:"response_code"`
	ResponseMessage string `json:"response_message"`
}

type imeiItemReply struct {
	ProductCode          string         `json:"product_code"`
	IMEINo               string         `json:"imei_no"`
	IMEIProcessingStatus imeiStatusJSON `json:"imei_processing_status"`
}

type imeiReply struct {
	ProductIMEIDetails []imeiItemReply `json:"product_imei_details"`
	ResponseCode       int             `json:"response_code"`
	ResponseMessage    string          `json:"response_message"`
}

func (em *emiService) imeiValidation(r *request) *reply {
	em.mu.Lock()
	defer em.mu.Unlock()
	o, rep := em.orderByToken(r.URL.Query().Get("token"))
	if rep != nil {
		return rep
	}
	if rep := em.limited(o.m.ID); rep != nil {
		return rep
	}
	var in imeiJSON
	if err := json.Unmarshal(r.body, &in); err != nil || em.merchantByNumber(in.MerchantData.MerchantID) != o.m ||
		len(in.ProductIMEIDetails) == 0 || len(in.ProductIMEIDetails) > 100 {
		return errInvalidResp()
	}
	out := imeiReply{ResponseCode: 0, ResponseMessage: msgSuccess}
	seen := map[string]bool{}
	for _, it := range in.ProductIMEIDetails {
		st := imeiStatusJSON{ResponseCode: 0, ResponseMessage: msgSuccess}
		b, _, known := brandOfProduct(it.ProductCode)
		switch {
		case len(it.IMEINo) != 15 || !allDigits(it.IMEINo) || !luhnValid(it.IMEINo):
			st = imeiStatusJSON{1, "INVALID_IMEI"}
		case !known || !contains(b.tacs, it.IMEINo[:8]):
			st = imeiStatusJSON{2, "IMEI_NOT_OF_BRAND"}
		case seen[it.IMEINo]:
			st = imeiStatusJSON{3, "IMEI_ALREADY_BLOCKED"}
		default:
			blocked, err := em.blockedByOther(it.IMEINo, o)
			if err != nil {
				return em.archiveFault(err)
			}
			if blocked {
				st = imeiStatusJSON{3, "IMEI_ALREADY_BLOCKED"}
			}
		}
		seen[it.IMEINo] = true
		if st.ResponseCode != 0 {
			out.ResponseCode, out.ResponseMessage = 107, "IMEI VALIDATION FAILED"
		}
		out.ProductIMEIDetails = append(out.ProductIMEIDetails, imeiItemReply{ProductCode: it.ProductCode, IMEINo: it.IMEINo, IMEIProcessingStatus: st})
	}
	if out.ResponseCode == 0 {
		for _, it := range in.ProductIMEIDetails {
			if em.imeis[it.IMEINo] == "" {
				em.imeis[it.IMEINo] = o.id
				o.imeis = append(o.imeis, it.IMEINo)
			}
			if o.imeiOK[it.ProductCode] == nil {
				o.imeiOK[it.ProductCode] = map[string]bool{}
			}
			o.imeiOK[it.ProductCode][it.IMEINo] = true
		}
	}
	return jsonReply(200, out)
}

// blockedByOther reports whether imei is blocked by an order other than o. An order
// that has ended FAILED (its attempts used up or its token expired unpaid) can no
// longer be paid, so its blocks lapse here and the phone can be sold again; a paid
// order keeps them until a full refund.
func (em *emiService) blockedByOther(imei string, o *order) (bool, error) {
	id, err := em.state.imeiHolder(imei)
	if err != nil || id == "" || id == o.id {
		return false, err
	}
	holder := em.orders[id]
	if holder == nil {
		return true, nil
	}
	em.settle(holder)
	if holder.status() != orderFailed {
		return true, nil
	}
	for _, b := range holder.imeis {
		delete(em.imeis, b)
	}
	holder.imeis = nil
	holder.imeiOK = map[string]map[string]bool{}
	return false, nil
}
