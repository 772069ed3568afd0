// ReplicaGym's in-page helper, installed in every document of an episode (an init script)
// and re-installed on demand (idempotent). It tracks what "the page has settled" needs
// to know (DOM mutations, in-flight fetch/XHR, pending short timers), stamps BrowserGym-
// style `bid` attributes, and serialises the DOM (with live form values, or as served).
(() => {
  if (window.__replicagym) return;
  const SKIP = new Set(["SCRIPT", "STYLE", "META", "LINK", "HEAD", "TITLE", "NOSCRIPT", "TEMPLATE", "BASE"]);
  // Timers longer than this are treated as background work, not part of settling.
  const SHORT_TIMER_MS = 1000;
  const state = {
    counter: 0,
    lastActivity: performance.now(),
    inflight: 0,
    timers: new Set(),
    popups: 0,
    dirty: true,
    observer: null,
  };
  const touch = () => { state.lastActivity = performance.now(); };

  // Frozen time for the screenshots: no caret blink, animations and transitions end at once.
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync("*,*::before,*::after{caret-color:transparent!important;animation-duration:0s!important;" +
      "animation-delay:0s!important;transition-duration:0s!important;transition-delay:0s!important;" +
      "scroll-behavior:auto!important}");
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  } catch (e) { /* not a styled document (e.g. an XML page) */ }

  state.observer = new MutationObserver((records) => {
    touch();
    // Only added elements need new bids; attribute and text changes do not.
    if (!state.dirty) state.dirty = records.some((r) => r.type === "childList" && r.addedNodes.length > 0);
  });
  state.observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  // Scrolling changes the picture without touching the DOM.
  document.addEventListener("scroll", touch, { capture: true, passive: true });
  document.addEventListener("scrollend", touch, { capture: true, passive: true });

  const origFetch = window.fetch;
  if (origFetch) {
    window.fetch = function (...args) {
      state.inflight++; touch();
      const done = () => { state.inflight--; touch(); };
      try {
        const p = origFetch.apply(this, args);
        p.then(done, done);
        return p;
      } catch (e) { done(); throw e; }
    };
  }
  const origSend = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    state.inflight++; touch();
    this.addEventListener("loadend", () => { state.inflight--; touch(); }, { once: true });
    try { return origSend.apply(this, args); } catch (e) { state.inflight--; throw e; }
  };
  const origSetTimeout = window.setTimeout, origClearTimeout = window.clearTimeout;
  window.setTimeout = function (fn, delay, ...rest) {
    if (typeof fn !== "function" || !(Number(delay) <= SHORT_TIMER_MS)) return origSetTimeout.call(this, fn, delay, ...rest);
    let id;
    // No touch() when it fires: what the callback does (DOM changes, requests) is seen
    // by itself, and Playwright's own polling of settled() runs on timers in this world.
    const wrapped = function (...a) { state.timers.delete(id); return fn.apply(this, a); };
    id = origSetTimeout.call(this, wrapped, delay, ...rest);
    state.timers.add(id);
    return id;
  };
  window.clearTimeout = function (id) { state.timers.delete(id); return origClearTimeout.call(this, id); };

  // New tabs the page opened, so the engine knows to wait for them to appear.
  const origOpen = window.open;
  window.open = function (...args) {
    const win = origOpen.apply(this, args);
    if (win) state.popups++;
    return win;
  };
  window.addEventListener("click", (e) => {
    const link = e.target && e.target.closest ? e.target.closest("a[href][target]") : null;
    if (link && !e.defaultPrevented && link.target !== "_self" && link.target !== "_parent" && link.target !== "_top") state.popups++;
  });

  const elements = (root, out) => {
    for (const el of root.querySelectorAll("*")) {
      out.push(el);
      if (el.shadowRoot) elements(el.shadowRoot, out);
    }
    return out;
  };
  let shadowSeen = false;
  const hasShadow = () => shadowSeen;
  const origAttachShadow = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (...args) { shadowSeen = true; return origAttachShadow.apply(this, args); };
  const deepActive = () => {
    let el = document.activeElement;
    while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
    return el;
  };

  const api = {
    // For diagnostics: why the page is not settled.
    debug() {
      return { readyState: document.readyState, inflight: state.inflight, timers: state.timers.size,
               fonts: document.fonts ? document.fonts.status : null, quietFor: performance.now() - state.lastActivity };
    },
    // {popups} when the document has loaded, nothing is in flight and the DOM has been
    // quiet for quietMs; false otherwise.
    settled(quietMs) {
      if (document.readyState !== "complete") return false;
      if (state.inflight > 0 || state.timers.size > 0) return false;
      if (document.fonts && document.fonts.status !== "loaded") return false;
      if (performance.now() - state.lastActivity < quietMs) return false;
      return { popups: state.popups };
    },
    // Give every element without one a bid, in document order; keep the bids already there.
    stamp() {
      const seen = new Set();
      let fresh = 0;
      // Open shadow roots are not watched by the observer: pages with them are always walked.
      const walk = state.dirty || state.counter === 0 || hasShadow();
      for (const el of walk ? elements(document, []) : []) {
        if (SKIP.has(el.tagName)) continue;
        let bid = el.getAttribute("bid");
        // A cloned node copies its original's bid: the second one gets a new bid.
        if (bid === null || seen.has(bid)) {
          bid = String(state.counter++);
          el.setAttribute("bid", bid);
          fresh++;
        }
        seen.add(bid);
      }
      // Our own attribute writes are not page activity.
      if (state.observer) state.observer.takeRecords();
      state.dirty = false;
      const active = deepActive();
      return {
        fresh,
        title: document.title,
        focused: active && active !== document.body && active !== document.documentElement ? active.getAttribute("bid") : null,
      };
    },
    // The DOM as HTML. With `live`, form fields' current values are written into
    // attributes (what the agent sees); without, fields keep the values the page was
    // served with, so the verifier's final page never holds typing that was not saved.
    html(live = true) {
      const clone = document.documentElement.cloneNode(true);
      const doctype = document.doctype ? "<!DOCTYPE " + document.doctype.name + ">\n" : "";
      if (!live) return doctype + clone.outerHTML;
      const copies = [clone, ...clone.querySelectorAll("*")];
      const originals = [document.documentElement, ...document.documentElement.querySelectorAll("*")];
      for (let i = 0; i < originals.length && i < copies.length; i++) {
        const el = originals[i], copy = copies[i];
        if (el.tagName === "INPUT") {
          if (el.type === "checkbox" || el.type === "radio") {
            if (el.checked) copy.setAttribute("checked", ""); else copy.removeAttribute("checked");
          } else if (el.type !== "file") {
            copy.setAttribute("value", el.value);
          }
        } else if (el.tagName === "TEXTAREA") {
          copy.textContent = el.value;
        } else if (el.tagName === "OPTION") {
          if (el.selected) copy.setAttribute("selected", ""); else copy.removeAttribute("selected");
        }
      }
      return doctype + clone.outerHTML;
    },
  };
  Object.defineProperty(window, "__replicagym", { value: api, enumerable: false });
})();
