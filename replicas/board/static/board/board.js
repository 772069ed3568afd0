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
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("main");
        var main = document.getElementById("main");
        if (fresh && main) { main.innerHTML = fresh.innerHTML; document.title = doc.title; selected = -1; }
        else window.location.reload();
      });
  }

  // The issue side panel: opening or closing it swaps the board's main area in place and keeps
  // the address (?selectedIssue=KEY) so the page can be reloaded or shared.
  // Only the panel is fetched (an htmx-style request the board view answers with the panel alone):
  // the board around it stays as it is, and a click anywhere on a card opens it.
  function swapPanel(url) {
    var slot = document.getElementById("panel-slot");
    if (!slot) return refresh();
    return fetch(url, {
      credentials: "same-origin",
      headers: { "Accept": "text/html", "HX-Request": "true", "HX-Target": "panel-slot" },
    }).then(function (response) {
      if (!response.ok) { window.location.href = url; return; }
      return response.text().then(function (html) {
        slot.innerHTML = html;
        var open = !!slot.querySelector("[data-panel]");
        slot.closest(".boardpage").classList.toggle("boardpage--panel", open);
        var key = new URL(url, window.location.href).searchParams.get("selectedIssue") || "";
        document.querySelectorAll(".card").forEach(function (card) {
          card.classList.toggle("card--selected", open && card.dataset.key === key.toUpperCase());
        });
        var base = document.title.replace(/^\[[^\]]*\] /, "");
        document.title = open && key ? "[" + key.toUpperCase() + "] " + base : base;
      });
    });
  }

  document.addEventListener("click", function (e) {
    if (e.defaultPrevented || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) return;
    var link = e.target.closest("a[data-panel-link]");
    var card = !link && e.target.closest(".card");
    if (card && !e.target.closest("a, button, summary, .menu, form")) link = card.querySelector("a[data-panel-link]");
    if (!link) return;
    e.preventDefault();
    history.pushState(null, "", link.href);
    swapPanel(link.href).then(focusFromHash);
  });
  window.addEventListener("popstate", function () {
    if (document.querySelector("[data-board]")) swapPanel(window.location.href);
  });
  document.addEventListener("change", function (e) {
    if (e.target.matches("select[data-autosubmit]")) e.target.form.requestSubmit();
  });

  function answer(item, data) {
    if (data.ok) { refresh(); return; }
    if (data.status === 401 && data.login) { window.location.href = data.login; return; }
    if (data.reload) { refresh(); return; }  // a conflict: the server keeps the message for the refreshed board
    snapBack(item, data.error || "The work item couldn't be moved.");
  }

  function rankFields(hit) {
    var fields = {};
    if (hit.before) fields.before = hit.before.dataset.key;
    if (hit.after) fields.after = hit.after.dataset.key;
    return fields;
  }

  // A card dropped into another swimlane first takes that lane's epic or assignee (the product's
  // board does the same), then moves to the column it was dropped in.
  function changeLane(card, column) {
    var board = column.closest("[data-board]");
    var from = card.closest("[data-lane]"), to = column.closest("[data-lane]");
    if (!from || !to || from.dataset.lane === to.dataset.lane) return Promise.resolve({ ok: true, moved: false });
    return post("/browse/" + card.dataset.key + "/lane", { by: board.dataset.swimlanes, value: to.dataset.lane })
      .then(function (data) { data.moved = data.ok; return data; });
  }

  if (document.querySelector("[data-board]")) {
    draggable({
      item: ".card", drop: ".column", ghostClass: "card--ghost",
      dropped: function (card, column, hit) {
        changeLane(card, column).then(function (lane) {
          if (!lane.ok) { answer(card, lane); return; }
          dropOnColumn(card, column, hit, lane.moved);
        });
      },
    });
  }

  function dropOnColumn(card, column, hit, laneMoved) {
        var key = card.dataset.key, target = column.dataset.dropStatus;
        if (target === card.dataset.status) {
          var fields = rankFields(hit);
          if (!fields.before && !fields.after) { if (laneMoved) refresh(); else card.classList.remove("is-dragging"); return; }
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
          .then(function (data) { if (!data.ok && laneMoved) refresh().then(function () { flag(data.error); }); else answer(card, data); });
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
    var help = e.target.closest("[data-shortcuts-open]");
    if (help) {
      var menu = help.closest("details[open]");
      if (menu) menu.open = false;  // the Help menu closes as the dialog opens, as the product's menus do
      document.getElementById("shortcuts-dialog").showModal();
    }
    var all = e.target.closest("[data-select-all]");
    if (all) document.querySelectorAll('input[name="keys"]').forEach(function (box) { box.checked = all.checked; });
  });

  // --- mentions: typing @ in a comment offers the team; picking someone writes @Name in the box and
  // shows them as a chip; saving sends each picked @Name as the product's [~username] ---------------
  var picker = null;  // {box, list, start, options, active}

  function people() {
    var data = document.getElementById("mention-people");
    return data ? JSON.parse(data.textContent) : [];
  }

  function closePicker() {
    if (!picker) return;
    picker.list.hidden = true;
    picker.list.innerHTML = "";
    picker.box.removeAttribute("aria-activedescendant");
    picker = null;
  }

  function pick(person) {
    var box = picker.box, before = box.value.slice(0, picker.start), after = box.value.slice(box.selectionStart);
    var text = "@" + person.name + " ";
    box.value = before + text + after;
    picked(box)[person.name] = person.username;
    showChips(box);
    box.selectionStart = box.selectionEnd = before.length + text.length;
    closePicker();
    box.focus();
  }

  // who was picked in this box, by display name; a restored draft's chips say who it had
  function picked(box) {
    if (!box._picked) {
      box._picked = {};
      box.parentNode.querySelectorAll(".mention-chips .mention").forEach(function (chip) {
        box._picked[chip.textContent.slice(1)] = chip.dataset.username;
      });
    }
    return box._picked;
  }

  function showChips(box) {
    var chips = box.parentNode.querySelector(".mention-chips");
    if (!chips) return;
    var names = Object.keys(picked(box)).filter(function (name) { return box.value.indexOf("@" + name) >= 0; });
    chips.textContent = "Mentioning ";
    names.forEach(function (name) {
      var chip = document.createElement("span");
      chip.className = "mention";
      chip.dataset.username = picked(box)[name];
      chip.textContent = "@" + name;
      chips.appendChild(chip);
    });
    chips.hidden = !names.length;
  }

  document.addEventListener("submit", function (e) {
    var box = document.querySelector('[data-mentions][form="' + e.target.id + '"]');
    if (!box || !box._picked) return;
    // longest names first, so "@Ann Lee" is not read inside "@Ann Leeds"
    Object.keys(box._picked).sort(function (a, b) { return b.length - a.length; }).forEach(function (name) {
      box.value = box.value.split("@" + name).join("[~" + box._picked[name] + "]");
    });
  }, true);

  function showPicker(box) {
    var head = box.value.slice(0, box.selectionStart);
    // what follows the @ may be a full name: "@Robert Ha" offers Robert Harris
    var m = /(^|\s)@([^@\[\]\n]{0,40})$/.exec(head);
    if (!m) { closePicker(); return; }
    var words = m[2].toLowerCase().split(/\s+/).filter(Boolean);
    var found = people().filter(function (p) {
      var names = p.name.toLowerCase().split(" ").concat([p.username]);
      return words.every(function (w) { return names.some(function (n) { return n.indexOf(w) === 0; }); });
    }).slice(0, 8);
    var list = box.parentNode.querySelector(".mention-list");
    if (!found.length) { closePicker(); return; }
    picker = { box: box, list: list, start: head.length - m[2].length - 1, options: found, active: 0 };
    list.innerHTML = "";
    found.forEach(function (p, i) {
      var li = document.createElement("li");
      li.id = "mention-" + p.username;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", i === 0 ? "true" : "false");
      li.dataset.username = p.username;
      li.textContent = p.name + " (@" + p.username + ")";
      list.appendChild(li);
    });
    list.hidden = false;
    box.setAttribute("aria-activedescendant", "mention-" + found[0].username);
  }

  function movePicker(step) {
    var options = picker.list.querySelectorAll("[role=option]");
    options[picker.active].setAttribute("aria-selected", "false");
    picker.active = (picker.active + step + options.length) % options.length;
    options[picker.active].setAttribute("aria-selected", "true");
    picker.box.setAttribute("aria-activedescendant", options[picker.active].id);
  }

  document.addEventListener("input", function (e) {
    if (e.target.matches("[data-mentions]")) { showPicker(e.target); showChips(e.target); }
  });
  document.addEventListener("keydown", function (e) {
    if (!picker || e.target !== picker.box) return;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") { e.preventDefault(); movePicker(e.key === "ArrowDown" ? 1 : -1); }
    else if (e.key === "Enter" || e.key === "Tab") { e.preventDefault(); pick(picker.options[picker.active]); }
    else if (e.key === "Escape") { e.preventDefault(); closePicker(); }
  });
  // mousedown, not click: the textarea must not lose its caret before the pick
  document.addEventListener("mousedown", function (e) {
    var option = e.target.closest(".mention-list [role=option]");
    if (option && picker) {
      e.preventDefault();
      pick(picker.options.filter(function (p) { return p.username === option.dataset.username; })[0]);
    } else if (picker && e.target !== picker.box) closePicker();
  });

  // --- inline editing: each field of the issue view is a form of its own. Editing shows its check and
  // cross; Enter (Ctrl+Enter in a text area) or the check saves, Escape or the cross puts it back. --------
  function inlineOf(el) { return el && el.closest ? el.closest("form[data-inline]") : null; }
  function markDirty(e) { var form = inlineOf(e.target); if (form) form.classList.add("is-dirty"); }
  document.addEventListener("input", markDirty);
  document.addEventListener("change", markDirty);
  document.addEventListener("reset", function (e) {
    if (e.target.matches && e.target.matches("form[data-inline]")) e.target.classList.remove("is-dirty");
  });
  document.addEventListener("keydown", function (e) {
    var form = inlineOf(e.target);
    if (!form || picker) return;
    if (e.key === "Escape") { e.preventDefault(); form.reset(); e.target.blur(); }
    else if (e.key === "Enter" && e.target.tagName === "TEXTAREA" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); form.requestSubmit(); }
  });

  // --- keyboard shortcuts -----------------------------------------------------------------------
  var FIELD_KEYS = { e: "id_summary", a: "id_assignee", m: "id_body", l: "id_labels" };

  function focusFromHash() {
    var m = /^#edit-(\w+)$/.exec(window.location.hash);
    var field = m && document.getElementById(FIELD_KEYS[m[1]] || "");
    if (field) { field.focus(); if (field.scrollIntoView) field.scrollIntoView({ block: "center" }); }
  }
  focusFromHash();

  // e, a, m, l act on the issue open on the page (or in the panel), else on the selected card or row;
  // i assigns that issue to whoever is signed in.
  function issueShortcut(key, selectedItem) {
    var form = document.getElementById("issue-form");
    var target = selectedItem ? selectedItem.dataset.key : form && form.dataset.issueKey;
    if (!target) return false;
    if (key === "i") {
      post("/browse/" + target + "/assign-to-me", {}).then(function (data) {
        if (data.ok) refresh();
        else if (data.status === 401 && data.login) window.location.href = data.login;
        else flag(data.error || "The work item couldn't be assigned.");
      });
      return true;
    }
    if (form && (!selectedItem || form.dataset.issueKey === target)) {
      document.getElementById(FIELD_KEYS[key]).focus();
      return true;
    }
    var url = new URL(window.location.href);
    if (document.querySelector("[data-board]")) url.searchParams.set("selectedIssue", target);
    else url = new URL("/browse/" + target, window.location.href);
    url.hash = "edit-" + key;
    window.location.href = url.toString();
    return true;
  }

  // --- JQL autocomplete: what may come next at the caret (a field, its operators, its values, AND / OR /
  // ORDER BY), from the world's vocabulary fetched once; arrows pick, Enter or Tab accepts, Esc closes ---
  var JQL_TOKEN = /"(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|!=|>=|<=|!~|[=~<>(),]|[^\s=!~<>(),"']+/g;
  var SYMBOL_OPS = ["=", "!=", "~", "!~", "<", "<=", ">", ">="];
  var vocabulary = null;

  function jqlExpecting(tokens, vocab) {
    var state = "field", field = "", opWord = false, depth = 0;
    tokens.forEach(function (token) {
      var low = token.toLowerCase();
      if (state === "field") {
        if (low === "(") depth++;
        else if (low === "order") state = "order";
        else if (low !== "not") { field = token.replace(/^["']|["']$/g, ""); state = "op"; opWord = false; }
      } else if (state === "op") {
        if (SYMBOL_OPS.indexOf(low) >= 0) state = "value";
        else if (low === "in") state = "list";
        else if (low === "not" || low === "is" || low === "was") opWord = true;
        else if (low === "changed") state = "after";
        else if (opWord) state = "after";  // "is EMPTY", "was Done"
      } else if (state === "value") state = low === "(" ? "call" : "after";
      else if (state === "call") { if (low === ")") state = "after"; }
      else if (state === "list") { if (low === ")") state = "after"; }
      else if (state === "after") {
        if (low === "and" || low === "or") state = "field";
        else if (low === "order") state = "order";
        else if (low === "(") state = "call";
        else if (low === ")") depth--;
      } else if (state === "order") state = "orderfield";
      else if (state === "orderfield") state = "orderdir";
      else if (state === "orderdir") state = low === "," ? "orderfield" : "ordernext";
      else if (state === "ordernext" && low === ",") state = "orderfield";
    });
    var canonical = vocab.fields.filter(function (f) { return f.toLowerCase() === field.toLowerCase(); })[0] || field;
    var quote = function (v) { return /[\s,()]/.test(v) && !/\(\)$/.test(v) ? '"' + v + '"' : v; };
    if (state === "field") return vocab.fields.map(quote).concat(["NOT"]);
    if (state === "op") return opWord ? ["EMPTY", "in", "not"] : (vocab.operators[canonical] || SYMBOL_OPS);
    if (state === "value" || state === "list") return (vocab.values[canonical] || []).map(quote);
    if (state === "after") return ["AND", "OR", "ORDER BY"];
    if (state === "order") return ["BY"];
    if (state === "orderfield") return vocab.orderable;
    if (state === "orderdir") return ["ASC", "DESC"];
    return [];
  }

  function jqlSuggest(box) {
    var list = document.getElementById("jql-suggest");
    var before = box.value.slice(0, box.selectionStart);
    var tokens = before.match(JQL_TOKEN) || [];
    var partial = /[\s(,]$/.test(before) || !before ? "" : tokens.pop();
    if (/^[=~<>!(),]+$/.test(partial)) { tokens.push(partial); partial = ""; }
    var needle = partial.replace(/^["']/, "").toLowerCase();
    var options = jqlExpecting(tokens, vocabulary).filter(function (o) {
      var plain = o.replace(/^"/, "").toLowerCase();
      return plain.indexOf(needle) === 0 && plain !== needle;
    }).slice(0, 12);
    list.innerHTML = "";
    options.forEach(function (option, i) {
      var item = document.createElement("li");
      item.id = "jql-option-" + i;
      item.setAttribute("role", "option");
      item.setAttribute("aria-selected", i === 0 ? "true" : "false");
      item.textContent = option;
      item.dataset.value = option;
      item.dataset.partial = partial;
      list.appendChild(item);
    });
    list.hidden = !options.length;
    box.setAttribute("aria-expanded", options.length ? "true" : "false");
    if (options.length) box.setAttribute("aria-activedescendant", "jql-option-0");
    else box.removeAttribute("aria-activedescendant");
  }

  function jqlAccept(box, item) {
    var at = box.selectionStart, partial = item.dataset.partial;
    var start = at - partial.length;
    box.value = box.value.slice(0, start) + item.dataset.value + " " + box.value.slice(at);
    box.selectionStart = box.selectionEnd = start + item.dataset.value.length + 1;
    box.focus();
    jqlSuggest(box);
  }

  function jqlClose(box) {
    var list = document.getElementById("jql-suggest");
    if (list) list.hidden = true;
    box.setAttribute("aria-expanded", "false");
    box.removeAttribute("aria-activedescendant");
  }

  function jqlReady(box) {
    if (vocabulary) return Promise.resolve(vocabulary);
    return fetch(box.dataset.vocabulary, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (response) { return response.json(); })
      .then(function (data) { vocabulary = data; return data; });
  }

  document.addEventListener("input", function (e) {
    if (e.target.matches("textarea[data-vocabulary]")) jqlReady(e.target).then(function () { jqlSuggest(e.target); });
  });
  document.addEventListener("focusin", function (e) {
    if (e.target.matches("textarea[data-vocabulary]")) jqlReady(e.target);
  });
  document.addEventListener("keydown", function (e) {
    var box = e.target;
    if (!box.matches || !box.matches("textarea[data-vocabulary]")) return;
    var list = document.getElementById("jql-suggest");
    if (e.key === "Enter" && !e.shiftKey && (list.hidden || !list.children.length)) {
      e.preventDefault();  // Enter runs the query, as the product's JQL box does
      box.form.requestSubmit();
      return;
    }
    if (list.hidden) return;
    var items = Array.prototype.slice.call(list.children);
    var current = items.findIndex(function (li) { return li.getAttribute("aria-selected") === "true"; });
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      var next = (current + (e.key === "ArrowDown" ? 1 : -1) + items.length) % items.length;
      items.forEach(function (li, i) { li.setAttribute("aria-selected", i === next ? "true" : "false"); });
      box.setAttribute("aria-activedescendant", items[next].id);
      items[next].scrollIntoView({ block: "nearest" });
    } else if (e.key === "Enter" || e.key === "Tab") {
      e.preventDefault();
      jqlAccept(box, items[Math.max(current, 0)]);
    } else if (e.key === "Escape") {
      e.preventDefault();
      jqlClose(box);
    }
  });
  document.addEventListener("mousedown", function (e) {
    var item = e.target.closest("#jql-suggest li");
    if (!item) return;
    e.preventDefault();  // keep the caret in the box
    jqlAccept(document.getElementById("jql"), item);
  });
  document.addEventListener("focusout", function (e) {
    if (e.target.matches && e.target.matches("textarea[data-vocabulary]")) jqlClose(e.target);
  });

  // --- the board's live search: typing filters the board as the product does, without a reload;
  // only the board is swapped (the box keeps focus), and the address keeps ?text= for a reload --------
  var searchTimer = null;
  document.addEventListener("input", function (e) {
    var form = e.target.closest("form[data-live-search]");
    if (!form) return;
    clearTimeout(searchTimer);
    searchTimer = setTimeout(function () {
      var url = new URL(form.action, window.location.href);
      new FormData(form).forEach(function (value, name) { if (value) url.searchParams.append(name, value); });
      fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } })
        .then(function (response) { return response.text(); })
        .then(function (html) {
          var fresh = new DOMParser().parseFromString(html, "text/html").querySelector("[data-board], .empty");
          var current = document.querySelector("[data-board], .boardpage__board .empty");
          if (!fresh || !current) { window.location.href = url; return; }
          current.replaceWith(fresh);
          history.replaceState(null, "", url);
        });
    }, 200);
  });

  // --- dialogs over the page (Create, Start sprint, Complete sprint): fetched as a fragment into one
  // <dialog>. Create's space picker reloads it for another space, its work type shows only its fields,
  // and it posts in place so "Create another" keeps it open; the sprint dialogs post as plain forms ------
  function createFields(root) {
    var type = root.querySelector("#id_issue_type");
    if (!type) return;
    root.querySelectorAll("[data-types]").forEach(function (row) {
      var shown = row.dataset.types.split(" ").indexOf(type.value) >= 0;
      row.hidden = !shown;
      // a hidden field sends nothing, so a value typed before switching type can't be refused
      row.querySelectorAll("input, select, textarea").forEach(function (el) { el.disabled = !shown; });
    });
  }

  // Start sprint: the end date follows the duration, and is typed only for custom dates
  function sprintDates(root) {
    var weeks = root.querySelector("[data-sprint-start] #id_weeks"), end = root.querySelector("[data-sprint-start] #id_end_date");
    if (!weeks || !end) return;
    var custom = weeks.value === "custom";
    end.readOnly = !custom;
    if (!custom) {
      var day = new Date(root.querySelector("#sprint-start-date").value + "T12:00:00Z");
      day.setUTCDate(day.getUTCDate() + 7 * Number(weeks.value));
      end.value = day.toISOString().slice(0, 10);
    }
  }

  function openDialog(url, init) {
    var dialog = document.getElementById("modal-dialog");
    if (!dialog) { window.location.href = url; return Promise.resolve(); }
    var options = Object.assign({ credentials: "same-origin" }, init || {});
    options.headers = { "Accept": "text/html", "HX-Request": "true", "HX-Target": "modal-dialog", "X-CSRFToken": csrf ? csrf.content : "" };
    return fetch(url, options).then(function (response) {
      var go = response.headers.get("HX-Redirect");
      if (go || response.redirected) { window.location.href = go || response.url; return; }
      if (response.status !== 200 && response.status !== 400) { window.location.href = url; return; }
      return response.text().then(function (html) {
        dialog.innerHTML = html;
        var title = dialog.querySelector("h2[id]");
        if (title) dialog.setAttribute("aria-labelledby", title.id);
        createFields(dialog);
        sprintDates(dialog);
        if (!dialog.open) dialog.showModal();
        var first = dialog.querySelector("[autofocus], #id_summary");
        if (first) first.focus();
      });
    });
  }

  document.addEventListener("click", function (e) {
    var link = e.target.closest('[data-shortcut="c"], a[data-dialog-link]');
    if (!link || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) return;
    e.preventDefault();
    openDialog(link.href);
  });
  document.addEventListener("change", function (e) {
    if (e.target.id === "id_issue_type") createFields(e.target.closest("form"));
    if (e.target.id === "id_weeks") sprintDates(e.target.closest("[data-sprint-start]").parentNode);
    var space = e.target.closest("[data-create-space]");
    if (space && e.target.closest("#modal-dialog")) {
      var type = document.querySelector("#modal-dialog #id_issue_type");
      openDialog("/projects/" + encodeURIComponent(e.target.value) + "/issues/new?issue_type=" + encodeURIComponent(type ? type.value : ""));
    }
  });
  document.addEventListener("submit", function (e) {
    var form = e.target.closest("#modal-dialog [data-create-form]");
    if (!form) return;
    e.preventDefault();
    openDialog(form.action, { method: "POST", body: new FormData(form) });
  });
  // the notifications menu: its items are fetched when it is first opened (not on hover: every request
  // counts in the world's log), so no page render waits for them
  var bell = document.querySelector("details[data-notifications]");
  if (bell) {
    var notifications = null;
    var loadNotifications = function () {
      if (!notifications) {
        notifications = fetch(bell.dataset.notifications, {
          credentials: "same-origin", headers: { "Accept": "text/html", "HX-Request": "true", "HX-Target": "notifications" },
        }).then(function (response) {
          if (response.status !== 200) throw new Error(String(response.status));
          return response.text();
        }).then(function (html) {
          bell.querySelector(".menu").innerHTML = html;
        }).catch(function () { notifications = null; });
      }
      return notifications;
    };
    bell.addEventListener("toggle", function () { if (bell.open) loadNotifications(); });
  }

  var modalPage = document.querySelector(".modalpage");
  if (modalPage) { createFields(modalPage); sprintDates(modalPage); }

  var selected = -1;
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target;
    if (t.closest && t.closest("input, textarea, select, [contenteditable], dialog")) return;
    var items = document.querySelectorAll("[data-nav-item]");
    if (selected >= items.length) selected = -1;
    if (e.key === "c") { var create = document.querySelector('[data-shortcut="c"]'); if (create) { e.preventDefault(); openDialog(create.href); } }
    else if (e.key === "/") { var search = document.querySelector('[data-shortcut="/"]'); if (search) { e.preventDefault(); search.focus(); } }
    else if (e.key === "?") { e.preventDefault(); document.getElementById("shortcuts-dialog").showModal(); }
    else if (e.key === "e" || e.key === "a" || e.key === "m" || e.key === "l" || e.key === "i") {
      var item = items[selected] && items[selected].classList.contains("is-selected") && items[selected].dataset.key ? items[selected] : null;
      if (issueShortcut(e.key, item)) e.preventDefault();
    }
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
