// Small storefront behaviours; every page also works without them.
// Selects marked data-autosubmit submit their form on change (the sort box, the cart quantity).
document.addEventListener("change", (event) => {
  const el = event.target;
  if (el.matches("select[data-autosubmit]") && el.form) el.form.requestSubmit();
});
// The search box's suggestions arrive through htmx (/s/suggest); keep the combobox's state in step
// and close the list on Escape or when focus leaves the search form.
(() => {
  const box = document.getElementById("twotabsearchtextbox");
  const list = document.getElementById("nav-suggestions");
  if (!box || !list) return;
  const sync = () => box.setAttribute("aria-expanded", list.querySelector("li") ? "true" : "false");
  document.body.addEventListener("htmx:afterSwap", (event) => { if (event.target === list) sync(); });
  const close = () => { list.replaceChildren(); sync(); };
  box.addEventListener("keydown", (event) => { if (event.key === "Escape") close(); });
  box.form.addEventListener("focusout", (event) => { if (!box.form.contains(event.relatedTarget)) setTimeout(close, 150); });
})();
// The "Added to cart" side sheet (htmx fragment from /cart/add): close on its × or the scrim, or Escape.
document.addEventListener("click", (event) => {
  if (event.target.closest("[data-sheet-close]")) document.getElementById("added-sheet")?.replaceChildren();
});
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") document.getElementById("added-sheet")?.replaceChildren();
});
// The header's popovers ("Deliver to", Account & Lists) close when a click lands outside them;
// the All drawer closes on its × or its scrim, and all of them on Escape.
document.addEventListener("click", (event) => {
  for (const pop of document.querySelectorAll(".nav-deliver[open], .nav-acct[open]")) {
    if (!pop.contains(event.target)) pop.open = false;
  }
  if (event.target.closest("[data-drawer-close]")) event.target.closest("details").open = false;
});
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  for (const pop of document.querySelectorAll(".nav-deliver[open], .nav-acct[open], .nav-all[open]")) pop.open = false;
});
// The home page's hero carousel: its arrows scroll one slide (without script, the slides scroll by hand).
document.addEventListener("click", (event) => {
  const arrow = event.target.closest("[data-hero]");
  const slides = document.getElementById("hero-slides");
  if (arrow && slides) slides.scrollBy({ left: Number(arrow.dataset.hero) * slides.clientWidth, behavior: "smooth" });
});
