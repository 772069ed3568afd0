/* The recording bar: receives the recorder's steps from the world's pages (frame and tabs) and posts them, in order. */
(() => {
  const config = JSON.parse(document.getElementById("rg-config").textContent);
  const channel = new BroadcastChannel("rg-recorder");
  const frame = document.getElementById("rg-frame");
  const list = document.getElementById("rg-steps");
  const count = document.getElementById("rg-count");
  const error = document.getElementById("rg-error");
  const thought = document.getElementById("rg-thought");
  const q = (s) => JSON.stringify(String(s));
  // Tab 0 is this window (bar and frame); tabs the world's pages open follow in the order they appear.
  const tabs = ["main"];
  const urls = { main: "" };
  let active = 0;
  let chain = Promise.resolve();
  let steps = config.steps;

  const post = (path, body) => fetch(path, {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-Recording-Token": config.token },
    body: JSON.stringify(body),
  }).then(async (r) => {
    const doc = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
    if (!r.ok) throw new Error(doc.error || `HTTP ${r.status}`);
    return doc;
  });

  const show = (doc, replace) => {
    let li = replace ? list.lastElementChild : null;
    if (!li) { li = document.createElement("li"); list.appendChild(li); }
    li.dataset.index = doc.index;
    li.textContent = "";
    const code = document.createElement("code");
    code.textContent = doc.action;
    li.appendChild(code);
    if (doc.thought) {
      const t = document.createElement("span");
      t.className = "color-fg-muted";
      t.textContent = " — " + doc.thought;
      li.appendChild(t);
    }
    steps = Number(doc.index) + 1;
    count.textContent = steps;
    list.scrollTop = list.scrollHeight;
  };

  const record = (action, { url = "", tab = "main", at = Date.now(), replace = false, selector = null } = {}) => {
    if (!config.editable) return chain;
    // the thought belongs to the step it was written before
    const text = replace ? "" : thought.value.trim();
    if (!replace) thought.value = "";
    chain = chain.then(() => post("steps", { action, url, tab, at_ms: Math.max(0, at - config.started), thought: text, replace, ...(selector ? { selector } : {}) }))
      .then((doc) => { error.textContent = ""; show(doc, replace); })
      .catch((e) => { error.textContent = `step not recorded: ${e.message}`; });
    return chain;
  };

  channel.onmessage = (event) => {
    const m = event.data || {};
    if (m.url) urls[m.tab] = m.url;
    if (m.kind === "step") {
      // the recorder's robust selector for the action's element, if it found one (replicas/worlds/static/worlds/recorder.js)
      record(m.action, { url: m.url, tab: m.tab, at: m.at, replace: !!m.replace, selector: m.selector || null });
    } else if (m.kind === "hello" && !tabs.includes(m.tab)) {
      tabs.push(m.tab);  // a tab the page opened: the engine, too, makes the new tab the active one
      active = tabs.length - 1;
    } else if (m.kind === "focus") {
      const index = tabs.indexOf(m.tab);
      if (index >= 0 && index !== active) {
        record(`tab_focus(${index})`, { url: urls[m.tab] || "", tab: m.tab });
        active = index;
      }
    }
  };
  window.addEventListener("focus", () => {
    if (active !== 0) { record("tab_focus(0)", { url: urls.main, tab: "main" }); active = 0; }
  });

  const framePath = () => {
    try { return frame.contentWindow.location.pathname + frame.contentWindow.location.search; } catch (e) { return ""; }
  };
  document.getElementById("rg-back").addEventListener("click", () => {
    record("go_back()", { url: framePath() }).then(() => frame.contentWindow.history.back());
  });
  document.getElementById("rg-forward").addEventListener("click", () => {
    record("go_forward()", { url: framePath() }).then(() => frame.contentWindow.history.forward());
  });
  const answer = document.getElementById("rg-answer");
  const sendAnswer = () => {
    const text = answer.value.trim();
    if (!text) { error.textContent = "write the answer first"; return; }
    answer.value = "";
    record(`send_msg_to_user(${q(text)})`, { url: framePath() });
  };
  document.getElementById("rg-answer-send").addEventListener("click", sendAnswer);
  answer.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); sendAnswer(); } });

  // a demonstration (for the task editor) has no Submit: the editor pulls its steps
  document.getElementById("rg-submit")?.addEventListener("click", (e) => {
    const button = e.currentTarget;
    button.disabled = true;
    // a typed value still in the frame's field is flushed by the recorder when the field loses focus
    try { frame.contentWindow.document.activeElement.blur(); } catch (err) { /* the frame is elsewhere */ }
    setTimeout(() => {
      chain.then(() => post("submit", {})).then((doc) => {
        document.getElementById("rg-rec-state").textContent = "Submitted";
        window.location.href = doc.next;
      }).catch((err) => { error.textContent = err.message; button.disabled = false; });
    }, 50);
  });
})();
