/* Fault injection (replicas.worlds.faults), injected at the end of a world's pages.
   - Interstitial: dismissing posts to the reserved endpoint; without JavaScript the
     form posts and the page reloads, with it the modal just closes. A modal that
     comes in an htmx answer lands in #rg-faults-layer, present on every page.
   - Layout shift: at the first mouse move (and, if the fault sets one, after a fixed
     delay) a banner is inserted at the top of the target, pushing it down under the
     pointer. The mouse-move trigger keeps it tied to the agent's action, not to timing. */
(function () {
  "use strict";
  // delegated: a modal may arrive later, in an htmx answer's out-of-band swap
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches(".rg-backdrop form")) return;
    event.preventDefault();
    var data = new FormData(form, event.submitter);
    fetch(form.action, { method: "POST", body: data, credentials: "same-origin", headers: { "X-ReplicaGym-Fault": "1" } })
      .then(function (response) {
        if (response.ok) {
          var backdrop = form.closest(".rg-backdrop");
          if (backdrop) backdrop.remove();
        }
      });
  }, true);

  var config = document.getElementById("rg-layout-shift");
  if (!config) return;
  JSON.parse(config.textContent).forEach(function (shift) {
    var done = false;
    function insert() {
      if (done) return;
      done = true;
      var target = document.querySelector(shift.selector) || document.body;
      var banner = document.createElement("div");
      banner.className = "rg-shift-banner";
      banner.setAttribute("role", "region");
      banner.setAttribute("aria-label", "Announcement");
      banner.style.height = shift.shift_px + "px";
      var text = document.createElement("span");
      text.textContent = "New: a faster ticket view is rolling out to your team.";
      var link = document.createElement("a");
      link.href = shift.href;
      link.textContent = "Try it now";
      banner.appendChild(text);
      banner.appendChild(link);
      target.insertBefore(banner, target.firstChild);
    }
    document.addEventListener("mousemove", insert, { once: true, capture: true });
    if (shift.delay_ms > 0) setTimeout(insert, shift.delay_ms);
  });
})();
