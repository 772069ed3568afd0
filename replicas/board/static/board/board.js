// Tracklane's behaviour on top of server-rendered pages: drag and drop of cards (board) and
// rows (backlog) by pointer events, so a real mouse drag and an agent's synthetic one work
// alike; keyboard shortcuts; small dialogs. Every action it takes is a form post the page
// also offers without JavaScript ("Move to..." menus, Move buttons).
(function () {
  "use strict";
  var csrf = document.querySelector('meta[name="csrf-token"]');
  var justDragged = false;
  document.addEventListener("click", function (e) {
    if (justDragged) { e.preventDefault(); e.stopPropagation(); }
  }, true);

  function flag(message) {
    var el = document.getElementById("js-flag");
    if (!el) return;
    el.textContent = message;
    el.hidden = false;
  }

  function post(url, fields) {
    var body = new URLSearchParams(fields);
    return fetch(url, {
      method: "POST", body: body, credentials: "same-origin",
      headers: { "X-CSRFToken": csrf ? csrf.content : "", "Accept": "application/json" },
    }).then(function (response) {
      return response.json().catch(function () { return { ok: false, error: "Something went wrong (" + response.status + "). Try again." }; })
        .then(function (data) { data.status = response.status; return data; });
    }).catch(function () { return { ok: false, error: "We couldn't reach the server. Check your connection and try again." }; });
  }

  // --- drag and drop ----------------------------------------------------------------------------
  // kind: {item, drop, ghostClass, attr} — the draggable element, its drop zones, how a drop is sent
  function draggable(kind) {
    var drag = null;

    function zoneAt(x, y) {
      var el = document.elementFromPoint(x, y);
      return el ? el.closest(kind.drop) : null;
    }

    function neighbours(zone, y, item) {
      var items = Array.prototype.filter.call(zone.querySelectorAll(kind.item), function (el) { return el !== item; });
      var before = null;
      for (var i = 0; i < items.length; i++) {
        var box = items[i].getBoundingClientRect();
        if (y < box.top + box.height / 2) { before = items[i]; break; }
      }
      var after = before ? items[items.indexOf(before) - 1] || null : items[items.length - 1] || null;
      return { before: before, after: after };
    }

    document.addEventListener("dragstart", function (e) {
      if (e.target.closest && e.target.closest(kind.item)) e.preventDefault();
    });
    document.addEventListener("pointerdown", function (e) {
      var item = e.target.closest(kind.item);
      if (!item || e.button !== 0 || e.target.closest("summary, button, select, input, .menu, form")) return;
      drag = { item: item, x: e.clientX, y: e.clientY, started: false, ghost: null, zone: null };
    });
    document.addEventListener("pointermove", function (e) {
      if (!drag) return;
      if (!drag.started) {
        if (Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y) < 5) return;
        drag.started = true;
        var box = drag.item.getBoundingClientRect();
        drag.dx = drag.x - box.left;
        drag.dy = drag.y - box.top;
        drag.ghost = drag.item.cloneNode(true);
        drag.ghost.classList.add(kind.ghostClass);
        drag.ghost.style.width = box.width + "px";
        drag.ghost.setAttribute("aria-hidden", "true");
        document.body.appendChild(drag.ghost);
        drag.item.classList.add("is-dragging");
      }
      drag.ghost.style.left = e.clientX - drag.dx + "px";
      drag.ghost.style.top = e.clientY - drag.dy + "px";
      var zone = zoneAt(e.clientX, e.clientY);
      if (zone !== drag.zone) {
        if (drag.zone) drag.zone.classList.remove("is-drop-target");
        if (zone) zone.classList.add("is-drop-target");
        drag.zone = zone;
      }
    });
    function end(e, cancelled) {
      if (!drag) return;
      var state = drag;
      drag = null;
      if (!state.started) return;
      state.ghost.remove();
      if (state.zone) state.zone.classList.remove("is-drop-target");
      var zone = cancelled ? null : zoneAt(e.clientX, e.clientY);
      if (!zone) { state.item.classList.remove("is-dragging"); return; }
      // the click that follows a drag ending on the card itself must not open the issue
      justDragged = true;
      setTimeout(function () { justDragged = false; }, 0);
      kind.dropped(state.item, zone, neighbours(zone, e.clientY, state.item));
    }
    document.addEventListener("pointerup", function (e) { end(e, false); });
    document.addEventListener("pointercancel", function (e) { end(e, true); });
  }

  function snapBack(item, message) {
    item.classList.remove("is-dragging");
    flag(message);
  }

  // Re-render the page's main area from the server, as the product refreshes its board after a
  // move: one more fetch rather than a navigation, so the page never goes blank mid-update.
  function refresh() {
    return fetch(window.location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (response) { return response.text(); })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("main");
        var main = document.getElementById("main");
        if (fresh && main) main.innerHTML = fresh.innerHTML;
        else window.location.reload();
      });
  }

  function answer(item, data) {
    if (data.ok) { refresh(); return; }
    if (data.status === 401 && data.login) { window.location.href = data.login; return; }
    if (data.reload) { refresh(); return; }  // a conflict: the server keeps the message for the refreshed board
    snapBack(item, data.error || "The issue couldn't be moved.");
  }

  function rankFields(hit) {
    var fields = {};
    if (hit.before) fields.before = hit.before.dataset.key;
    if (hit.after) fields.after = hit.after.dataset.key;
    return fields;
  }

  if (document.querySelector("[data-board]")) {
    draggable({
      item: ".card", drop: ".column", ghostClass: "card--ghost",
      dropped: function (card, column, hit) {
        var key = card.dataset.key, target = column.dataset.dropStatus;
        if (target === card.dataset.status) {
          var fields = rankFields(hit);
          if (!fields.before && !fields.after) { card.classList.remove("is-dragging"); return; }
          post("/browse/" + key + "/rank", fields).then(function (data) { answer(card, data); });
          return;
        }
        if (target === "Done") {
          // the product's transition screen: Done asks for a resolution
          var dialog = document.getElementById("resolve-dialog");
          var form = dialog.querySelector("[data-resolve-form]");
          form.action = "/browse/" + key + "/transition";
          form.elements.seen.value = card.dataset.status;
          dialog.querySelector("#resolve-title").textContent = "Move " + key + " to Done";
          card.classList.remove("is-dragging");
          dialog.showModal();
          return;
        }
        post("/browse/" + key + "/transition", { status: target, seen: card.dataset.status })
          .then(function (data) { answer(card, data); });
      },
    });
  }

  if (document.querySelector("[data-backlog]")) {
    draggable({
      item: ".brow", drop: ".bsection", ghostClass: "brow--ghost",
      dropped: function (row, section, hit) {
        var fields = rankFields(hit);
        var current = row.closest(".bsection");
        if (section !== current) fields.sprint = section.dataset.dropSprint;
        if (!fields.sprint && !fields.before && !fields.after) { row.classList.remove("is-dragging"); return; }
        post("/browse/" + row.dataset.key + "/rank", fields).then(function (data) { answer(row, data); });
      },
    });
  }

  document.addEventListener("click", function (e) {
    var close = e.target.closest("[data-dialog-close]");
    if (close) close.closest("dialog").close();
    if (e.target.closest("[data-shortcuts-open]")) document.getElementById("shortcuts-dialog").showModal();
    var all = e.target.closest("[data-select-all]");
    if (all) document.querySelectorAll('input[name="keys"]').forEach(function (box) { box.checked = all.checked; });
  });

  // --- keyboard shortcuts -----------------------------------------------------------------------
  var selected = -1;
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target;
    if (t.closest && t.closest("input, textarea, select, [contenteditable], dialog")) return;
    var items = document.querySelectorAll("[data-nav-item]");
    if (e.key === "c") { var create = document.querySelector('[data-shortcut="c"]'); if (create) { e.preventDefault(); window.location.href = create.href; } }
    else if (e.key === "/") { var search = document.querySelector('[data-shortcut="/"]'); if (search) { e.preventDefault(); search.focus(); } }
    else if (e.key === "?") { e.preventDefault(); document.getElementById("shortcuts-dialog").showModal(); }
    else if ((e.key === "j" || e.key === "k") && items.length) {
      if (items[selected]) items[selected].classList.remove("is-selected");
      selected = Math.max(0, Math.min(items.length - 1, selected + (e.key === "j" ? 1 : -1)));
      items[selected].classList.add("is-selected");
      items[selected].scrollIntoView({ block: "nearest" });
    } else if (e.key === "Enter" && items[selected]) {
      var link = items[selected].querySelector("a[href^='/browse/']");
      if (link) window.location.href = link.href;
    }
  });
})();
