/* Galla payment-service sandbox: the browser checkout (iFrame mode).
 *
 *   var checkout = new Checkout({orderToken: TOKEN, paymentMode: "CREDIT_DEBIT,UPI",
 *       successHandler: async function (r) { ... r.payment_id, r.service_order_id },
 *       failedHandler: async function (r) { ... r.error_code, r.error_message }});
 *   checkout.open();   // shows the hosted page in an overlay iframe
 *   checkout.close();  // removes it
 *
 * The success handler runs once per order flow; the failure handler once per failed
 * attempt. After success the merchant inquires the order server to server. */
(function () {
  "use strict";
  var script = document.currentScript;
  var origin = script && script.src ? new URL(script.src).origin : window.location.origin;
  // The overlay is styled by classes in a style element that carries this
  // script's nonce: a merchant page whose Content-Security-Policy allows its
  // scripts by nonce allows these styles too, without 'unsafe-inline' (an
  // inline style attribute would be refused and leave a bare 300x150 frame).
  var nonce = script ? (script.nonce || script.getAttribute("nonce") || "") : "";
  var css = ".galla-checkout-overlay{position:fixed;inset:0;z-index:2147483647;background:rgba(0,0,0,.55);" +
    "display:flex;align-items:center;justify-content:center}" +
    ".galla-checkout-frame{width:420px;max-width:100%;height:640px;max-height:100%;border:0;border-radius:10px;background:#fff}" +
    "@media (max-width:480px){.galla-checkout-frame{width:100%;height:100%;border-radius:0}}";

  function addStyle() {
    if (document.getElementById("galla-checkout-style")) { return; }
    var style = document.createElement("style");
    style.id = "galla-checkout-style";
    if (nonce) { style.nonce = nonce; }
    style.textContent = css;
    (document.head || document.documentElement).appendChild(style);
  }

  function Checkout(options) {
    if (!(this instanceof Checkout)) { return new Checkout(options); }
    this.options = options || {};
    this.overlay = null;
    this.frame = null;
    this.succeeded = false;
    this._listener = this._onMessage.bind(this);
  }

  Checkout.prototype.open = function (options) {
    if (options) {
      for (var k in options) { if (Object.prototype.hasOwnProperty.call(options, k)) { this.options[k] = options[k]; } }
    }
    if (this.overlay) { return; }
    var o = this.options;
    if (!o.orderToken) { throw new Error("Checkout: the orderToken option is required"); }
    // The token from create order is already URL-encoded: it is appended as it is.
    var q = "orderToken=" + o.orderToken;
    var add = function (name, value) {
      if (value !== undefined && value !== null && value !== "") { q += "&" + name + "=" + encodeURIComponent(String(value)); }
    };
    add("theme", o.theme || "default");
    add("channelId", o.channelId || "WEB");
    add("paymentMode", o.paymentMode);
    add("countryCode", o.countryCode || "91");
    add("mobileNumber", o.mobileNumber);
    add("emailId", o.emailId);
    add("showSavedCardsFeature", o.showSavedCardsFeature === false ? "false" : "true");

    addStyle();
    var overlay = document.createElement("div");
    overlay.id = "galla-checkout-overlay";
    overlay.className = "galla-checkout-overlay";
    var frame = document.createElement("iframe");
    frame.id = "galla-checkout-frame";
    frame.title = "Checkout";
    frame.src = origin + "/checkout/v1/pay?" + q;
    frame.className = "galla-checkout-frame";
    frame.setAttribute("allow", "payment");
    overlay.appendChild(frame);
    document.body.appendChild(overlay);
    this.overlay = overlay;
    this.frame = frame;
    window.addEventListener("message", this._listener);
  };

  Checkout.prototype.close = function () {
    window.removeEventListener("message", this._listener);
    if (this.overlay && this.overlay.parentNode) { this.overlay.parentNode.removeChild(this.overlay); }
    this.overlay = null;
    this.frame = null;
  };

  Checkout.prototype._onMessage = function (ev) {
    if (!this.frame || ev.origin !== origin || ev.source !== this.frame.contentWindow) { return; }
    var d = ev.data || {};
    if (d.source !== "galla-checkout") { return; }
    var o = this.options;
    var p = d.payload || {};
    if (d.event === "success") {
      if (this.succeeded) { return; }
      this.succeeded = true;
      var ok = { payment_id: String(p.payment_id || ""), service_order_id: String(p.service_order_id || "") };
      this.close();
      if (typeof o.successHandler === "function") { o.successHandler(ok); }
    } else if (d.event === "failure") {
      var bad = {
        error_code: String(p.error_code || ""), error_message: String(p.error_message || ""),
        payment_id: String(p.payment_id || ""), service_order_id: String(p.service_order_id || "")
      };
      if (typeof o.failedHandler === "function") { o.failedHandler(bad); }
    } else if (d.event === "close") {
      this.close();
    }
  };

  window.Checkout = Checkout;
})();
