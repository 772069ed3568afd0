/* The recorder (replicas.worlds.recording): put on a world's pages only in an annotator's recording session.

   It turns what the person does into the engine's action strings, aimed at the bids the
   engine's own helper (window.__replicagym, served inline before this file) stamps, so a
   replay in the engine's Chromium finds the same elements. Stamping happens just before
   each action is recorded: the DOM then is the settled page the engine would have
   observed before running that action. Steps go to the recording bar over a
   BroadcastChannel (same origin), which reaches the bar from its frame and from any tab
   the page opens. Only trusted events count: a page script cannot forge a step. */
(() => {
  if (window.__rgRecorder || !window.__replicagym || !window.BroadcastChannel) return;
  const channel = new BroadcastChannel("rg-recorder");
  const q = (s) => JSON.stringify(String(s));
  const TEXT_TYPES = new Set(["text", "email", "password", "search", "tel", "url", "number", "date", "datetime-local",
    "month", "week", "time", "color", ""]);
  const ACTIONABLE = "a[href],button,input,select,textarea,summary,label,[role],[tabindex],[contenteditable=''],[contenteditable=true]";
  // Keys that do something by themselves; printable keys in a text field are the fill's.
  const KEYS = new Set(["Enter", "Escape", "Tab", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "PageUp", "PageDown",
    "Home", "End", "Backspace", "Delete", " "]);

  // Which tab this document is in: the bar's frame is tab 0; a tab the page opened keeps its id in sessionStorage.
  const framed = window.parent !== window;
  let tab = framed ? "main" : sessionStorage.getItem("rg-tab");
  if (!framed && (!tab || tab === "main")) {
    tab = "t" + Math.random().toString(36).slice(2);
    sessionStorage.setItem("rg-tab", tab);
  }

  const bidOf = (el) => {
    if (!el || el.nodeType !== 1) return null;
    window.__replicagym.stamp();
    return el.getAttribute("bid");
  };
  const isTextField = (el) => el && ((el.tagName === "INPUT" && TEXT_TYPES.has((el.getAttribute("type") || "").toLowerCase()))
    || el.tagName === "TEXTAREA" || el.isContentEditable);
  const isToggle = (el) => el && el.tagName === "INPUT" && (el.type === "checkbox" || el.type === "radio");
  const fieldValue = (el) => (el.isContentEditable && el.tagName !== "INPUT" && el.tagName !== "TEXTAREA" ? el.innerText : el.value);
  const here = () => location.pathname + location.search;

  // A selector for the element that holds on other seeds, where its bid may differ: role=ROLE[name='NAME']
  // (matched by the engine's Playwright exactly, case and all) or #id, sent with the bid action as its
  // alternative. Only given when this page has exactly one element it could match, and only where the name
  // computed here surely is the accessible name Playwright computes: anything unusual gives none.
  const ROLES = new Set(["button", "link", "tab", "menuitem", "checkbox", "radio", "option", "combobox", "textbox"]);
  const TEXTBOX_TYPES = new Set(["", "text", "email", "password", "tel", "url"]);
  const norm = (s) => String(s || "").replace(/\s+/g, " ").trim();
  const roleOf = (el) => {
    const explicit = (el.getAttribute("role") || "").trim().split(/\s+/)[0];
    if (explicit) return ROLES.has(explicit) ? explicit : null;
    const tag = el.tagName, type = (el.getAttribute("type") || "").toLowerCase();
    if (tag === "BUTTON" || (tag === "INPUT" && ["button", "submit", "reset"].includes(type))) return "button";
    if (tag === "A" && el.hasAttribute("href")) return "link";
    if (tag === "OPTION") return "option";
    if (tag === "SELECT") return el.multiple || el.size > 1 ? null : "combobox";
    if (tag === "TEXTAREA") return "textbox";
    if (tag === "INPUT" && (type === "checkbox" || type === "radio")) return type;
    if (tag === "INPUT" && TEXTBOX_TYPES.has(type) && !el.hasAttribute("list")) return "textbox";
    return null;
  };
  const pseudo = (n) => ["::before", "::after"].some((p) => !["none", "normal", '""'].includes(getComputedStyle(n, p).content));
  // The text of a node as its accessible name from content, or null where that could differ: hidden or
  // aria-hidden text, images, nested labels, CSS generated content, blocks that add spaces.
  const plainText = (node) => {
    const inner = [...node.querySelectorAll("*")];
    if (inner.length > 30 || [node, ...inner].some(pseudo)) return null;
    if (inner.some((n) => n.matches("img,svg,input,select,textarea,[aria-label],[aria-labelledby],[hidden]")
      || (n.closest("[aria-hidden=true]") && norm(n.textContent)))) return null;
    const text = norm(node.textContent);
    return text && text === norm(node.innerText) ? text : null;
  };
  const nameOf = (el, role) => {
    if (el.hasAttribute("aria-labelledby")) return null;
    const aria = norm(el.getAttribute("aria-label"));
    if (aria) return aria;
    if (["textbox", "combobox", "checkbox", "radio"].includes(role)) {
      return el.labels && el.labels.length === 1 ? plainText(el.labels[0]) : null;
    }
    if (el.tagName === "INPUT") return norm(el.value) || null;
    return plainText(el);
  };
  const robustOf = (el) => {
    const role = roleOf(el);
    const name = role && nameOf(el, role);
    if (name) {
      // every element of that role whose name might equal this one counts, from any text its name can be made of
      // (a name from elsewhere, by aria-labelledby or an image's alt, counts whatever it is)
      const wanted = name.toLowerCase();
      const same = [...document.querySelectorAll("[role],a[href],button,input,select,textarea,option")].filter((o) => {
        if (roleOf(o) !== role) return false;
        if (o.hasAttribute("aria-labelledby") || o.querySelector("img,svg,[aria-label]")) return true;
        const texts = [o.getAttribute("aria-label"), o.textContent, o.value, o.title, o.getAttribute("placeholder"),
          ...[...(o.labels || [])].map((l) => l.textContent)];
        return texts.some((t) => norm(t).toLowerCase().includes(wanted));
      });
      if (same.length === 1 && same[0] === el) return `role=${role}[name='${name.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}']`;
    }
    // an id with digits may be a record's (ticket-8003): it would not hold on another seed
    if (el.id && /^[A-Za-z][A-Za-z_-]*$/.test(el.id) && document.querySelectorAll("#" + el.id).length === 1) return "#" + el.id;
    return null;
  };

  let pendingScroll = null;
  // `el`: the element the action addresses, whose robust selector goes with the step
  const send = (action, extra = {}, el = null) => {
    if (pendingScroll && !extra.scroll) flushScroll();
    const selector = el ? robustOf(el) : null;
    channel.postMessage({ kind: "step", action, url: here(), at: Date.now(), tab, ...extra, ...(selector ? { selector } : {}) });
  };

  // Typing: one fill per field and value, sent when the field is left (change) or before a key acts on it.
  const filled = new WeakMap();
  const flushFill = (el) => {
    if (!isTextField(el)) return;
    const value = fieldValue(el);
    if (filled.get(el) === value) return;
    const bid = bidOf(el);
    if (bid === null) return;
    filled.set(el, value);
    send(`fill(${q(bid)}, ${q(value)})`, {}, el);
  };
  const initialValues = new WeakMap();
  document.addEventListener("focusin", (e) => {
    if (e.isTrusted && isTextField(e.target) && !filled.has(e.target)) {
      initialValues.set(e.target, fieldValue(e.target));
      filled.set(e.target, fieldValue(e.target)); // untouched fields record nothing
    }
  }, true);
  document.addEventListener("change", (e) => {
    if (!e.isTrusted) return;
    const el = e.target;
    if (isTextField(el)) return flushFill(el);
    const bid = bidOf(el);
    if (bid === null) return;
    if (isToggle(el)) {
      send(el.checked ? `check(${q(bid)})` : `uncheck(${q(bid)})`, {}, el);
    } else if (el.tagName === "SELECT") {
      const labels = [...el.selectedOptions].map((o) => o.label || o.text);
      send(el.multiple ? `select_option(${q(bid)}, [${labels.map(q).join(", ")}])` : `select_option(${q(bid)}, ${q(labels[0] || "")})`, {}, el);
    }
  }, true);
  document.addEventListener("focusout", (e) => { if (e.isTrusted) flushFill(e.target); }, true);

  // Clicks: on the element a person means (the link or button around the icon they hit).
  let lastClick = null;
  document.addEventListener("click", (e) => {
    if (!e.isTrusted || e.button !== 0) return;
    const raw = e.target;
    const el = (raw.closest && raw.closest(ACTIONABLE)) || raw;
    // toggles and selects are recorded by their change; a text field by its fill
    if (isToggle(el) || el.tagName === "SELECT" || el.tagName === "OPTION" || isTextField(el)) return;
    if (el.tagName === "LABEL" && el.control && (isToggle(el.control) || isTextField(el.control))) return;
    if (e.detail > 1) return; // the second click of a double click: the dblclick says it
    // detail 0: a click the browser made for a key (Enter submitting a form, Space on a
    // button), already recorded as that key's press
    if (e.detail === 0) return;
    const bid = bidOf(el);
    if (bid === null) return;
    const mods = ["Alt", "Control", "Meta", "Shift"].filter((m) => e.getModifierState(m));
    lastClick = { bid, at: Date.now() };
    send(mods.length ? `click(${q(bid)}, modifiers=[${mods.map(q).join(", ")}])` : `click(${q(bid)})`, {}, el);
  }, true);
  document.addEventListener("dblclick", (e) => {
    if (!e.isTrusted) return;
    const el = (e.target.closest && e.target.closest(ACTIONABLE)) || e.target;
    const bid = bidOf(el);
    if (bid === null) return;
    // the first click of it was recorded as a click: the dblclick takes its place
    const replace = !!lastClick && lastClick.bid === bid && Date.now() - lastClick.at < 1000;
    lastClick = null;
    send(`dblclick(${q(bid)})`, replace ? { replace: true } : {}, el);
  }, true);

  // Keys that act: flush the field's text first, so the replay types before it presses.
  document.addEventListener("keydown", (e) => {
    if (!e.isTrusted || e.isComposing) return;
    const el = document.activeElement && document.activeElement !== document.body ? document.activeElement : document.body;
    const combo = ["Alt", "Control", "Meta"].filter((m) => e.getModifierState(m) && e.key !== m);
    const printable = e.key.length === 1 && e.key !== " ";
    if (["Alt", "Control", "Meta", "Shift"].includes(e.key)) return;
    if (isTextField(el) && printable && !combo.length) return;
    if (isTextField(el) && e.key === " ") return;
    if (!KEYS.has(e.key) && !combo.length && !printable) return;
    if (isToggle(el) && e.key === " ") return; // the change records it
    if (el.tagName === "SELECT" && !combo.length && e.key !== "Enter" && e.key !== "Escape" && e.key !== "Tab") return; // so does a select's
    flushFill(el);
    const bid = bidOf(el);
    if (bid === null) return;
    if (e.shiftKey && !printable) combo.push("Shift");
    send(`press(${q(bid)}, ${q([...combo, e.key === " " ? "Space" : e.key].join("+"))})`, {}, el === document.body ? null : el);
  }, true);

  // Scrolling: one scroll(dx, dy) per wheel gesture, sent when it rests (or before the next step).
  let base = { x: window.scrollX, y: window.scrollY };
  let scrollTimer = null;
  const flushScroll = () => {
    clearTimeout(scrollTimer);
    const dx = Math.round(window.scrollX - base.x), dy = Math.round(window.scrollY - base.y);
    pendingScroll = null;
    base = { x: window.scrollX, y: window.scrollY };
    if (dx || dy) send(`scroll(${dx}, ${dy})`, { scroll: true });
  };
  // Only a person's wheel (or touch) makes a scroll step: the page scrolling a field into view
  // for a click or a focus is part of that action, and the engine's replay does it by itself.
  let lastWheel = -Infinity;
  const wheeled = (e) => { if (e.isTrusted) lastWheel = performance.now(); };
  window.addEventListener("wheel", wheeled, { capture: true, passive: true });
  window.addEventListener("touchmove", wheeled, { capture: true, passive: true });
  window.addEventListener("scroll", (e) => {
    if (!e.isTrusted) return;
    if (!pendingScroll && performance.now() - lastWheel > 600) {
      base = { x: window.scrollX, y: window.scrollY };
      return;
    }
    pendingScroll = true;
    clearTimeout(scrollTimer);
    scrollTimer = setTimeout(flushScroll, 400);
  }, { passive: true });

  // Drag and drop (HTML5): from the dragged element to the one it was dropped on.
  let dragFrom = null;
  document.addEventListener("dragstart", (e) => { if (e.isTrusted) dragFrom = bidOf(e.target); }, true);
  document.addEventListener("drop", (e) => {
    if (!e.isTrusted || dragFrom === null) return;
    const to = bidOf((e.target.closest && e.target.closest("[bid]")) || e.target);
    if (to !== null && to !== dragFrom) send(`drag_and_drop(${q(dragFrom)}, ${q(to)})`);
    dragFrom = null;
  }, true);

  // Tabs: this document says which tab it is in; coming back to a tab is a tab_focus.
  channel.postMessage({ kind: "hello", tab, url: here() });
  const focused = () => channel.postMessage({ kind: "focus", tab });
  window.addEventListener("focus", focused);
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") focused(); });

  // The bar asks a framed page for its URL and to go back or forward.
  channel.onmessage = (e) => {
    const m = e.data || {};
    if (m.kind === "navigate" && m.tab === tab) {
      if (m.to === "back") history.back(); else if (m.to === "forward") history.forward();
    }
  };
  Object.defineProperty(window, "__rgRecorder", { value: { tab }, enumerable: false });
})();
