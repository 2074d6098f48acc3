package ui

import (
	"context"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"galla/pos"
)

// settingsScreen is screen 10 (managers): the shop's details, the discount a cashier
// may give without a manager, the gateway (sandbox or live; the secret is typed once
// and never shown again), the printer with a test print, and the staff.
type settingsScreen struct {
	u        *UI
	settings Settings

	root       fyne.CanvasObject
	shop       *keyEntry
	address    *keyEntry
	gstin      *keyEntry
	state      *keyEntry     // the GST state code; a GSTIN gives it
	compo      *widget.Check // the composition scheme: bills of supply
	rates      *keyEntry     // the shop's GST rate list
	turnover   *keyEntry     // the previous year's aggregate turnover, in crore
	docs       *widget.Label // what the sales print, and why
	discount   *keyEntry     // the discount limit without a manager, in rupees
	live       *widget.Check
	gatewayURL *keyEntry
	merchant   *keyEntry
	access     *keyEntry
	secret     *keyEntry
	where      *widget.Label // where the access code and the secret are kept
	profile    *widget.Select
	printer    *keyEntry
	phone      *keyEntry // where the page for pay on the customer's phone listens
	upi        *upiSetting
	storeLink  *storeSetting // what a manager must do about the counter's store
	version    *widget.Label // this Galla's version
	dataDir    *widget.Label // where the journal and the configuration are kept
	backups    *widget.Label // the space the journal's backups use, and the keeping rule
	message    *widget.Label
	save       *action
	testPrint  *action
	addStaff   *action
	staffA     *action // the staff list (staff.go)
	back       *action
	liveA      *action
	profileA   *action
}

// phoneHint explains the phone page's address under its entry.
const phoneHint = "Pay on phone: e.g. 0.0.0.0:7071 so the customer's phone on the shop's Wi-Fi can open the page; " +
	"empty keeps it on this computer. Applies the next time the page starts (after Galla restarts)."

func newSettingsScreen(u *UI) *settingsScreen {
	s := &settingsScreen{u: u}
	entry := func(ph string) *keyEntry {
		e := newKeyEntry(u)
		e.SetPlaceHolder(ph)
		return e
	}
	s.shop = entry("Shop name as printed")
	s.address = entry("Address")
	s.gstin = entry("GSTIN")
	s.state = entry("GST state code, e.g. 27 (a GSTIN gives it)")
	s.compo = widget.NewCheck("Composition scheme (bills of supply)", nil)
	s.rates = entry("all, or e.g. 0, 5, 18")
	s.turnover = entry("crore, e.g. 12.5 (last financial year)")
	s.docs = widget.NewLabel("")
	s.docs.Wrapping = fyne.TextWrapWord
	s.discount = entry("Rupees, e.g. 500; 0: every discount needs a manager")
	s.live = widget.NewCheck("Live service (off: the sandbox)  [Ctrl+G]", nil)
	s.gatewayURL = entry("Live service base URL, https://…")
	s.merchant = entry("Merchant id")
	s.access = entry("Access code")
	s.access.Password = true
	s.access.noCopy = true
	s.secret = entry("Secret key")
	s.secret.Password = true
	s.secret.noCopy = true
	s.where = widget.NewLabel("")
	s.where.Wrapping = fyne.TextWrapWord
	s.profile = widget.NewSelect(nil, nil)
	s.printer = entry("192.168.1.50:9100, printer name or file path")
	s.phone = entry("127.0.0.1:0 (this computer only)")
	s.upi = newUPISetting(u)
	s.storeLink = newStoreSetting(u)
	chain := []*keyEntry{s.shop, s.address, s.gstin, s.state, s.rates, s.turnover, s.discount, s.printer, s.phone, s.gatewayURL, s.merchant, s.access, s.secret}
	for i, e := range chain {
		if i+1 < len(chain) {
			next := chain[i+1]
			e.OnSubmitted = func(string) { u.win.Canvas().Focus(next) }
		} else {
			e.OnSubmitted = func(string) { s.store() }
		}
	}
	s.version = widget.NewLabel(u.opts.Version)
	s.version.Wrapping = fyne.TextWrapWord
	s.dataDir = widget.NewLabel(u.opts.DataDir)
	s.dataDir.Wrapping = fyne.TextWrapWord
	s.backups = widget.NewLabel("")
	s.backups.Wrapping = fyne.TextWrapWord
	s.message = widget.NewLabel("")
	s.message.Wrapping = fyne.TextWrapWord
	s.save = u.newAction("Save", fyne.KeyS, fyne.KeyModifierControl, s.store)
	s.save.btn.Importance = widget.HighImportance
	s.testPrint = u.newAction("Test print", fyne.KeyF5, 0, s.printTest)
	s.addStaff = u.newAction("Add staff", fyne.KeyF6, 0, s.askStaff)
	s.staffA = u.newAction("Staff", fyne.KeyF7, 0, func() { u.staff.open() })
	s.back = u.newAction("Back", fyne.KeyEscape, 0, func() { u.goTo(u.sale) })
	s.liveA = u.newAction("Live", fyne.KeyG, fyne.KeyModifierControl, func() { s.live.SetChecked(!s.live.Checked) })
	s.profileA = u.newAction("Profile", fyne.KeyP, fyne.KeyModifierControl, func() { cycle(s.profile) })

	// The hint wraps under its field (a form's own hint does not), so the two
	// columns keep their width.
	hint := widget.NewRichText(&widget.TextSegment{Text: phoneHint,
		Style: widget.RichTextStyle{SizeName: theme.SizeNameCaptionText, ColorName: theme.ColorNamePlaceHolder}})
	hint.Wrapping = fyne.TextWrapWord
	phoneItem := widget.NewFormItem("Phone page address", container.NewVBox(s.phone, hint))
	whereItem := widget.NewFormItem("Secrets kept in", s.where)
	// Two columns, the shop, its GST and the printer on the left, the payment
	// service, the phone page and UPI on the right, so that every field fits on a
	// 1366×768 screen.
	shop := widget.NewForm(
		widget.NewFormItem("Shop", s.shop),
		widget.NewFormItem("Address", s.address),
		widget.NewFormItem("GSTIN", s.gstin),
		widget.NewFormItem("State code", s.state),
		widget.NewFormItem("Scheme", s.compo),
		widget.NewFormItem("GST rates", s.rates),
		widget.NewFormItem("Turnover (crore)", s.turnover),
		widget.NewFormItem("Documents", s.docs),
		widget.NewFormItem("Discount without manager (₹)", s.discount),
		widget.NewFormItem("Printer profile [Ctrl+P]", s.profile),
		widget.NewFormItem("Printer", s.printer),
		// Here, where the column has room: a row more on the right would
		// scroll the screen at 1366×768.
		widget.NewFormItem("Backups", s.backups),
	)
	service := widget.NewForm(
		widget.NewFormItem("Gateway", s.live),
		widget.NewFormItem("Service URL", s.gatewayURL),
		widget.NewFormItem("Merchant id", s.merchant),
		widget.NewFormItem("Access code", s.access),
		widget.NewFormItem("Secret", s.secret),
		whereItem,
		phoneItem,
		s.upi.item(),
		widget.NewFormItem("Galla", s.version),
		widget.NewFormItem("Data directory", s.dataDir),
	)
	if it := s.storeLink.item(); it != nil {
		service.AppendItem(it)
	}
	buttons := container.NewGridWithColumns(5, s.back.btn, s.staffA.btn, s.addStaff.btn, s.testPrint.btn, s.save.btn)
	s.root = container.NewPadded(container.NewBorder(heading("Settings"), container.NewVBox(s.message, buttons), nil, nil,
		container.NewVScroll(container.NewGridWithColumns(2, shop, service))))
	return s
}

func (s *settingsScreen) view() fyne.CanvasObject { return s.root }

func (s *settingsScreen) actions() []*action {
	return []*action{s.save, s.testPrint, s.addStaff, s.staffA, s.back, s.liveA, s.profileA}
}

func (s *settingsScreen) shown() {
	s.u.win.Canvas().Focus(s.shop)
}

func (s *settingsScreen) load() {
	s.storeLink.refresh()
	s.profile.Options = s.u.till.Admin.PrinterProfiles()
	s.u.async(func(ctx context.Context) func() {
		st, err := s.u.till.Admin.Settings(ctx)
		upiLoaded := s.upi.load(ctx)
		backups := backupsText(s.u.till.Books.BackupSpace())
		return func() {
			upiLoaded()
			s.backups.SetText(backups)
			// Texts that wrap (the backups, what the documents print) are set
			// after the form was laid out: lay it out again for their lines.
			defer s.root.Refresh()
			if err != nil {
				s.message.SetText(sentence(err))
				return
			}
			s.settings = st
			s.shop.SetText(st.ShopName)
			s.address.SetText(st.Address)
			s.gstin.SetText(st.GSTIN)
			s.state.SetText(st.State)
			s.compo.SetChecked(st.Composition)
			s.rates.SetText(st.Rates)
			s.turnover.SetText(st.Turnover)
			s.docs.SetText(st.DocumentsNote)
			s.discount.SetText(strings.TrimSuffix(st.DiscountLimit.Plain(), ".00"))
			s.live.SetChecked(st.Live)
			s.gatewayURL.SetText(st.GatewayURL)
			s.merchant.SetText(st.MerchantID)
			s.showSecrets(st)
			s.profile.SetSelected(st.PrinterProfile)
			s.printer.SetText(st.PrinterAddr)
			s.phone.SetText(st.PhoneListen)
		}
	})
}

// backupsRule is the keeping rule of the day backups, as Settings states it in
// one line: every day of the last two weeks, the month-ends of the last 24
// months, every financial-year end (pos/journal's PruneBackups applies it at
// every day close).
const backupsRule = "(14 days, 24 month-ends, year ends)"

// backupsText is what Settings shows of the backups, and of those that hold
// customers' details in clear.
func backupsText(space pos.BackupSpace, ok bool, err error) string {
	switch {
	case err != nil:
		return sentence(err)
	case !ok:
		return "No backups are kept by this terminal."
	}
	if clear := space.ClearText(); clear != "" {
		return space.String() + " " + backupsRule + ". " + clear
	}
	return space.String() + " " + backupsRule
}

func (s *settingsScreen) store() {
	limit, err := pos.ParsePaise(s.discount.Text)
	if err != nil || limit < 0 {
		s.message.SetText("Type the discount a cashier may give without a manager in rupees, like 500, or 0 so that every discount needs a manager.")
		s.u.win.Canvas().Focus(s.discount)
		return
	}
	st := s.settings
	st.DiscountLimit = limit
	st.ShopName = strings.TrimSpace(s.shop.Text)
	st.Address = strings.TrimSpace(s.address.Text)
	st.GSTIN = strings.TrimSpace(s.gstin.Text)
	st.State = strings.TrimSpace(s.state.Text)
	st.Composition = s.compo.Checked
	st.Rates = strings.TrimSpace(s.rates.Text)
	st.Turnover = strings.TrimSpace(s.turnover.Text)
	st.Live = s.live.Checked
	st.GatewayURL = strings.TrimSpace(s.gatewayURL.Text)
	st.MerchantID = strings.TrimSpace(s.merchant.Text)
	st.AccessCode = strings.TrimSpace(s.access.Text) // empty keeps the stored one
	st.PrinterProfile = s.profile.Selected
	st.PrinterAddr = strings.TrimSpace(s.printer.Text)
	st.PhoneListen = strings.TrimSpace(s.phone.Text)
	secret := s.secret.Text
	s.secret.SetText("") // secrets never stay on screen
	s.access.SetText("")
	by := s.u.user
	s.save.btn.Disable()
	s.message.SetText("Saving…")
	saveUPI := s.upi.saver(by)
	s.u.async(func(ctx context.Context) func() {
		err := s.u.till.Admin.SaveSettings(ctx, by, st, secret)
		if err == nil {
			err = saveUPI(ctx)
		}
		var saved Settings
		if err == nil {
			saved, err = s.u.till.Admin.Settings(ctx)
		}
		return func() {
			s.save.btn.Enable()
			if err != nil {
				s.message.SetText(sentence(err))
				return
			}
			s.settings = saved
			s.showSecrets(saved)
			s.state.SetText(saved.State)
			s.rates.SetText(saved.Rates)
			s.turnover.SetText(saved.Turnover)
			s.docs.SetText(saved.DocumentsNote)
			s.message.SetText("Saved.")
			s.u.bar.refreshStatus()
		}
	})
}

// showSecrets shows the access code and the secret as replace-only fields: empty,
// with a placeholder that says whether one is stored (the access code masked), and
// where they are kept.
func (s *settingsScreen) showSecrets(st Settings) {
	s.access.SetText("")
	if st.AccessCodeShown != "" {
		s.access.SetPlaceHolder("Stored (" + st.AccessCodeShown + "); type a new one only to replace it")
	} else {
		s.access.SetPlaceHolder("Access code (typed once, never shown again)")
	}
	s.secret.SetText("")
	if st.SecretSet {
		s.secret.SetPlaceHolder("A secret is stored; type a new one only to replace it")
	} else {
		s.secret.SetPlaceHolder("Secret key (typed once, never shown again)")
	}
	s.where.SetText(st.SecretsWhere)
}

func (s *settingsScreen) printTest() {
	s.message.SetText("Printing a test page…")
	s.u.async(func(ctx context.Context) func() {
		err := s.u.till.Documents.TestPrint(ctx)
		return func() {
			if err != nil {
				s.message.SetText("The test page did not print: " + sentence(err))
				return
			}
			s.message.SetText("The test page printed.")
		}
	})
}

func (s *settingsScreen) askStaff() {
	name := newKeyEntry(s.u)
	name.SetPlaceHolder("Name")
	role := newKeyEntry(s.u)
	role.SetText(string(RoleCashier))
	role.SetPlaceHolder("cashier or manager")
	pin := newKeyEntry(s.u)
	pin.Password = true
	pin.SetPlaceHolder("PIN")
	again := newKeyEntry(s.u)
	again.Password = true
	again.SetPlaceHolder("The same PIN again")
	s.u.dialogs.ask("Add staff", "A cashier sells; a manager also refunds, closes the day and changes settings.",
		[]*keyEntry{name, role, pin, again}, func(p *prompt) {
			r := Role(strings.ToLower(strings.TrimSpace(role.Text)))
			if r != RoleCashier && r != RoleManager {
				p.say("The role is cashier or manager.")
				return
			}
			if pin.Text != again.Text {
				pin.SetText("")
				again.SetText("")
				p.say("The two PINs differ: type the PIN twice the same.")
				return
			}
			n, code := strings.TrimSpace(name.Text), pin.Text
			pin.SetText("")
			again.SetText("")
			p.ok.Disable()
			s.u.async(func(ctx context.Context) func() {
				err := s.u.till.Staffer.AddStaff(ctx, n, r, code)
				return func() {
					p.ok.Enable()
					if err != nil {
						p.say(sentence(err))
						return
					}
					p.close()
					s.message.SetText(n + " can sign in now.")
				}
			})
		})
}
