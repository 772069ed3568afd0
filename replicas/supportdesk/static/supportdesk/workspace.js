/* Helpdesk agent workspace: keyboard shortcuts, list selection, dialogs, the composer.
   Everything here is an enhancement: forms and links work without it. */
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  function $(sel, root) { return (root || document).querySelector(sel); }
  function $$(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  function typing(el) {
    return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  }

  /* ---- ticket lists: selection, bulk bar, J/K/Enter/X ---- */
  function bulkRefresh() {
    var form = $("#bulk-form");
    if (!form) return;
    var boxes = $$("input[name=tickets]", form);
    var n = boxes.filter(function (b) { return b.checked; }).length;
    var bar = $("[data-bulk-bar]", form);
    if (bar) bar.classList.toggle("is-visible", n > 0);
    var count = $("[data-selected-count]", form);
    if (count) count.textContent = n;
    var all = $("[data-select-all]", form);
    if (all) { all.checked = n > 0 && n === boxes.length; all.indeterminate = n > 0 && n < boxes.length; }
  }

  function rows() { return $$("[data-ticket-list] tbody tr[data-href]"); }
  function focusRow(index) {
    var list = rows();
    if (!list.length) return;
    index = Math.max(0, Math.min(list.length - 1, index));
    list.forEach(function (r, i) { r.classList.toggle("is-focused", i === index); });
    list[index].scrollIntoView({ block: "nearest" });
  }
  function focusedIndex() {
    return rows().findIndex(function (r) { return r.classList.contains("is-focused"); });
  }

  document.addEventListener("change", function (e) {
    if (e.target.matches("[data-select-all]")) {
      $$("#bulk-form input[name=tickets]").forEach(function (b) { b.checked = e.target.checked; });
    }
    if (e.target.closest("#bulk-form")) bulkRefresh();
  });

  document.addEventListener("click", function (e) {
    var row = e.target.closest("tr[data-href]");
    if (row && !e.target.closest("a, input, button, label")) {
      window.location.href = row.getAttribute("data-href");
      return;
    }
    if (e.target.closest("[data-shortcuts-open]")) {
      var dlg = $("#shortcuts-dialog");
      if (dlg && !dlg.open) dlg.showModal();
    }
    var close = e.target.closest("[data-modal-close]");
    if (close && close.closest("#modal-root") && close.closest(".modal-backdrop")) {
      e.preventDefault();
      $("#modal-root").innerHTML = "";
    }
  });

  /* ---- the composer: public reply / internal note ---- */
  function composerMode(mode) {
    var composer = $("[data-composer]");
    if (!composer) return;
    var radio = $("input[name=comment_mode][value=" + mode + "]", composer);
    if (radio) { radio.checked = true; radio.dispatchEvent(new Event("change", { bubbles: true })); }
    var text = $("textarea", composer);
    if (text) text.focus();
  }
  document.addEventListener("change", function (e) {
    if (e.target.name === "comment_mode") {
      var composer = e.target.closest("[data-composer]");
      if (composer) composer.classList.toggle("is-note", e.target.value === "internal");
    }
  });

  /* ---- keyboard shortcuts ---- */
  document.addEventListener("keydown", function (e) {
    var key = e.key;
    var ctrlAlt = e.ctrlKey && e.altKey;
    if (ctrlAlt) {
      var k = key.toLowerCase();
      if (k === "v") { e.preventDefault(); window.location.href = "/agent/filters/your-unsolved"; return; }
      if (k === "h") { e.preventDefault(); window.location.href = "/agent/dashboard"; return; }
      if (k === "f") { e.preventDefault(); var s = $("#global-search"); if (s) s.focus(); return; }
      if (k === "c") { e.preventDefault(); composerMode("public"); return; }
      if (k === "x") { e.preventDefault(); composerMode("internal"); return; }
      if (k === "m") { e.preventDefault(); var m = $("[data-macro-select]"); if (m) m.focus(); return; }
      if (k === "w") {
        e.preventDefault();
        var current = $(".tab.is-current .tab__close");
        if (current) current.submit();
        return;
      }
    }
    if ((e.ctrlKey || e.metaKey) && key === "Enter") {
      var form = $("[data-ticket-form]");
      if (form) {
        e.preventDefault();
        var submit = $("[data-submit-default]", form);
        if (form.requestSubmit) form.requestSubmit(submit || undefined); else form.submit();
      }
      return;
    }
    if (typing(document.activeElement) || e.ctrlKey || e.metaKey || e.altKey) return;
    if (key === "?") {
      e.preventDefault();
      var dlg = $("#shortcuts-dialog");
      if (dlg && !dlg.open) dlg.showModal();
      return;
    }
    if (key === "/") { e.preventDefault(); var g = $("#global-search"); if (g) g.focus(); return; }
    if (!rows().length) return;
    if (key === "j" || key === "J") { e.preventDefault(); focusRow(focusedIndex() + 1); }
    else if (key === "k" || key === "K") { e.preventDefault(); focusRow(focusedIndex() < 0 ? 0 : focusedIndex() - 1); }
    else if (key === "Enter" && focusedIndex() >= 0) { e.preventDefault(); window.location.href = rows()[focusedIndex()].getAttribute("data-href"); }
    else if ((key === "x" || key === "X") && focusedIndex() >= 0) {
      var box = $("input[name=tickets]", rows()[focusedIndex()]);
      if (box) { box.checked = !box.checked; bulkRefresh(); }
    }
  });

  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && $("#modal-root .modal-backdrop")) $("#modal-root").innerHTML = "";
  });

  /* the Conversations / Events toggle follows the swapped-in pane */
  document.addEventListener("htmx:afterSettle", function () {
    var events = /\/events$/.test(window.location.pathname);
    $$("[data-seg]").forEach(function (a) {
      var on = (a.getAttribute("data-seg") === "events") === events;
      a.classList.toggle("is-on", on);
      if (on) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
    });
  });

  document.addEventListener("DOMContentLoaded", bulkRefresh);
  document.addEventListener("htmx:afterSwap", bulkRefresh);
  window.Helpdesk = { bulkRefresh: bulkRefresh, composerMode: composerMode };
})();
