/* The "Orders & Billing" app of the ticket page's context panel.
   Reads the customer's orders, payments and refunds from the desk's billing API over HTTP
   and posts refunds to it; a refused refund shows the API's own error in the form, and a
   slow or failing API shows a spinner, then a timeout or error message with a retry. */
(function () {
  "use strict";
  var TIMEOUT_MS = 8000;

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "class") node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return node;
  }
  // From the page, not document.cookie: production marks the CSRF cookie HttpOnly.
  function csrf() {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.getAttribute("content") : "";
  }
  var SYMBOLS = { USD: "$", EUR: "€", GBP: "£", CAD: "CA$" };
  function money(amount, currency) {
    var n = Number(amount);
    var text = isNaN(n) ? String(amount) : n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    return (SYMBOLS[currency] || (currency ? currency + " " : "")) + text;
  }
  function day(iso) { return iso ? String(iso).slice(0, 10) : ""; }
  function errorText(status, body) {
    if (body && typeof body === "object") {
      var msg = body.detail || body.error || body.message;
      if (msg && typeof msg === "object") msg = msg.message || JSON.stringify(msg);
      if (!msg) {
        var parts = [];
        Object.keys(body).forEach(function (k) {
          var v = body[k];
          parts.push((k === "non_field_errors" ? "" : k + ": ") + (Array.isArray(v) ? v.join(" ") : v));
        });
        msg = parts.join("; ");
      }
      if (msg) return msg;
    }
    return "The billing service answered " + status + ".";
  }

  /* fetch with a time limit; resolves {ok, status, body} or rejects with {timeout} / {network} */
  function request(url, options) {
    var ctrl = new AbortController();
    var timer = setTimeout(function () { ctrl.abort(); }, TIMEOUT_MS);
    options = options || {};
    options.signal = ctrl.signal;
    options.credentials = "same-origin";
    options.headers = Object.assign({ Accept: "application/json" }, options.headers || {});
    return fetch(url, options).then(function (resp) {
      clearTimeout(timer);
      return resp.text().then(function (text) {
        var body = null;
        try { body = text ? JSON.parse(text) : null; } catch (e) { body = null; }
        return { ok: resp.ok, status: resp.status, body: body };
      });
    }, function (err) {
      clearTimeout(timer);
      throw { timeout: err && err.name === "AbortError", network: true };
    });
  }

  function setState(app, state) { app.setAttribute("data-billing-state", state); }

  /* (re)load the customer's orders; `notice` (e.g. a refund's confirmation) is shown above them once they are
     drawn, whether or not they load, since drawing replaces everything in the app's body */
  function load(app, notice) {
    var body = app.querySelector("[data-billing-body]");
    var customer = app.getAttribute("data-customer");
    setState(app, "loading");
    body.replaceChildren(el("div", { class: "app__spinner", role: "status", text: "Loading orders…" }));
    request("/api/v2/billing/customers/" + encodeURIComponent(customer) + "/orders").then(function (res) {
      if (!res.ok) { failed(app, errorText(res.status, res.body)); return; }
      render(app, res.body || {});
      setState(app, "loaded");
    }, function (err) {
      failed(app, err.timeout ? "The billing service did not answer in time." : "Could not reach the billing service.");
    }).then(function () { if (notice) body.prepend(notice); });
  }

  function failed(app, message) {
    var body = app.querySelector("[data-billing-body]");
    var retry = el("button", { type: "button", class: "c-btn c-btn--sm", text: "Try again" });
    retry.addEventListener("click", function () { load(app); });
    body.replaceChildren(el("div", { class: "alert alert--error", role: "alert" }, [el("p", { text: message })]), retry);
    setState(app, "error");
  }

  function render(app, data) {
    var body = app.querySelector("[data-billing-body]");
    var orders = data.orders || data.results || [];
    var nodes = [];
    if (!orders.length) nodes.push(el("p", { class: "app__hint", text: "No orders for this customer." }));
    orders.forEach(function (order) {
      var lines = (order.items || []).map(function (it) {
        return el("li", {}, [el("span", { text: (it.quantity > 1 ? it.quantity + " × " : "") + it.name }), el("span", { text: money(it.unit_price, order.currency) })]);
      });
      var box = el("article", { class: "order", "data-order": order.id }, [
        el("header", { class: "order__head" }, [
          el("strong", { text: order.id + " · " + money(order.total, order.currency) }),
          el("span", { class: "order__state", text: (order.status || "").replace(/_/g, " ") + " · " + day(order.placed_at) }),
        ]),
        lines.length ? el("ul", { class: "order__lines" }, lines) : null,
      ]);
      (order.payments || []).forEach(function (p) { box.appendChild(paymentRow(app, p)); });
      nodes.push(box);
    });
    (data.subscriptions || []).forEach(function (sub) {
      var box = el("article", { class: "order", "data-subscription": sub.id }, [
        el("header", { class: "order__head" }, [
          el("strong", { text: sub.id + " · " + (sub.plan || "") + " " + money(sub.price, sub.currency) + "/" + (sub.interval || "") }),
          el("span", { class: "order__state", text: (sub.status || "") + " · renews " + day(sub.current_period_end) }),
        ]),
      ]);
      (sub.payments || []).forEach(function (p) { box.appendChild(paymentRow(app, p)); });
      nodes.push(box);
    });
    body.replaceChildren.apply(body, nodes);
  }

  function paymentRow(app, p) {
    var refunded = (p.refunds || []).reduce(function (s, r) { return s + Number(r.amount); }, 0);
    var row = el("div", { class: "pay", "data-payment": p.id }, [
      el("span", { class: "pay__id", text: p.id }),
      el("span", { class: "pay__amount", text: money(p.amount, p.currency) }),
      el("span", { class: "pay__meta", text: (p.card_brand || "card") + " ····" + (p.card_last4 || "") + " · " + day(p.captured_at) + (p.status && p.status !== "succeeded" ? " · " + p.status : "") }),
    ]);
    if ((p.refunds || []).length) {
      row.appendChild(el("span", { class: "pay__refunds", text: "Refunded " + money(refunded.toFixed(2), p.currency) + " (" + p.refunds.map(function (r) { return r.id + " " + (r.kind || ""); }).join(", ") + ")" }));
    }
    var refundable = p.refundable === undefined ? Number(p.amount) - refunded : Number(p.refundable);
    if ((p.status === "succeeded" || !p.status) && refundable > 0) {
      var btn = el("button", { type: "button", class: "link-btn", text: "Refund", "aria-label": "Refund payment " + p.id });
      btn.addEventListener("click", function () { openRefund(app, row, p); });
      row.appendChild(btn);
    }
    return row;
  }

  var REASONS = [
    ["", "Select a reason…"], ["duplicate", "Duplicate charge"], ["damaged", "Item damaged"], ["not_received", "Item not received"],
    ["missing_item", "Item missing from order"], ["wrong_item", "Wrong item sent"], ["cancellation", "Subscription cancellation"],
    ["goodwill", "Goodwill gesture"], ["other", "Other"],
  ];

  function openRefund(app, row, p) {
    var existing = app.querySelector(".refund-form");
    if (existing) existing.remove();
    var idp = "refund-" + p.id;
    var kinds = el("div", { class: "refund-form__kinds", role: "radiogroup", "aria-label": "Refund type" }, ["full", "partial", "prorated"].map(function (k, i) {
      var input = el("input", { type: "radio", name: "kind", value: k, id: idp + "-" + k });
      if (i === 0) input.checked = true;
      return el("label", { for: idp + "-" + k }, [input, " " + k.charAt(0).toUpperCase() + k.slice(1)]);
    }));
    var reason = el("select", { class: "c-field__input c-field__input--select", name: "reason", id: idp + "-reason" },
      REASONS.map(function (r) { return el("option", { value: r[0], text: r[1] }); }));
    var amount = el("input", { class: "c-field__input", name: "amount", id: idp + "-amount", inputmode: "decimal", placeholder: "0.00" });
    var note = el("input", { class: "c-field__input", name: "note", id: idp + "-note", maxlength: "500" });
    var errors = el("div", { class: "refund-form__error", "aria-live": "assertive" });
    var submit = el("button", { type: "submit", class: "c-btn c-btn--primary c-btn--sm", text: "Issue refund" });
    var cancel = el("button", { type: "button", class: "c-btn c-btn--basic c-btn--sm", text: "Cancel" });
    var form = el("form", { class: "refund-form", "data-refund-form": p.id, novalidate: "" }, [
      el("strong", { text: "Refund " + p.id }),
      el("p", { class: "refund-form__quote", "data-refund-quote": "", text: "Refundable: " + money(p.refundable !== undefined ? p.refundable : p.amount, p.currency) }),
      kinds,
      el("div", { class: "c-field" }, [el("label", { class: "c-field__label", for: idp + "-amount", text: "Amount (" + (p.currency || "") + ")" }), amount]),
      el("div", { class: "c-field" }, [el("label", { class: "c-field__label", for: idp + "-reason", text: "Reason" }), reason]),
      el("div", { class: "c-field" }, [el("label", { class: "c-field__label", for: idp + "-note", text: "Note" }), note]),
      errors,
      el("div", { class: "refund-form__actions" }, [cancel, submit]),
    ]);
    function syncAmount() {
      var kind = form.querySelector("input[name=kind]:checked").value;
      amount.disabled = kind !== "partial";
      if (kind === "full") amount.value = Number(p.refundable !== undefined ? p.refundable : p.amount).toFixed(2);
      if (kind === "prorated") amount.value = quote && quote.prorated !== null && quote.prorated !== undefined ? Number(quote.prorated).toFixed(2) : "";
      amount.placeholder = kind === "prorated" ? "Calculated by billing" : "0.00";
    }
    var quote = null;
    kinds.addEventListener("change", syncAmount);
    syncAmount();
    request("/api/v2/billing/payments/" + encodeURIComponent(p.id) + "/quote").then(function (res) {
      if (!res.ok || !res.body) return;
      quote = res.body;
      var parts = ["Refundable: " + money(quote.remaining, quote.currency)];
      parts.push("Your limit: " + (quote.limit === null || quote.limit === undefined ? "none" : money(quote.limit, quote.currency)));
      if (quote.prorated !== null && quote.prorated !== undefined) parts.push("Prorated: " + money(quote.prorated, quote.currency));
      if (quote.within_window === false) parts.push("outside the " + quote.window_days + "-day window");
      var q = form.querySelector("[data-refund-quote]");
      if (q) q.textContent = parts.join(" · ");
      syncAmount();
    }, function () { /* the form works without the quote: the API checks the amount anyway */ });
    cancel.addEventListener("click", function () { form.remove(); });
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var kind = form.querySelector("input[name=kind]:checked").value;
      var payload = { kind: kind, reason: reason.value, note: note.value, ticket: Number(app.getAttribute("data-ticket")) };
      if (kind === "partial") payload.amount = amount.value.trim();
      errors.replaceChildren();
      if (!payload.reason) { errors.replaceChildren(el("div", { class: "alert alert--error", role: "alert", text: "Choose a reason code." })); return; }
      submit.disabled = true;
      errors.replaceChildren(el("div", { class: "app__spinner", role: "status", text: "Issuing refund…" }));
      request("/api/v2/billing/payments/" + encodeURIComponent(p.id) + "/refunds", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrf() },
        body: JSON.stringify(payload),
      }).then(function (res) {
        submit.disabled = false;
        if (!res.ok) {
          errors.replaceChildren(el("div", { class: "alert alert--error", role: "alert", text: errorText(res.status, res.body) }));
          return;
        }
        var r = res.body || {};
        var done = el("div", { class: "alert alert--success", role: "status", text: "Refund " + (r.id || "") + " of " + money(r.amount, r.currency || p.currency) + " issued." });
        load(app, done);
      }, function (err) {
        submit.disabled = false;
        errors.replaceChildren(el("div", { class: "alert alert--error", role: "alert", text: err.timeout ? "The billing service did not answer in time. The refund may not have been issued: reload the orders before trying again." : "Could not reach the billing service." }));
      });
    });
    row.after(form);
    reason.focus();
  }

  document.addEventListener("click", function (e) {
    var opener = e.target.closest("[data-billing-open]");
    if (opener) load(opener.closest("[data-billing]"));
  });
})();
