// Small storefront behaviours; every page also works without them.
// Selects marked data-autosubmit submit their form on change (the sort box, the cart quantity).
document.addEventListener("change", (event) => {
  const el = event.target;
  if (el.matches("select[data-autosubmit]") && el.form) el.form.requestSubmit();
});
// Search suggestions from the catalogue as one types, in the search box's datalist.
(() => {
  const box = document.getElementById("twotabsearchtextbox");
  const list = document.getElementById("search-suggestions");
  if (!box || !list) return;
  let timer = null;
  box.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const res = await fetch(`/s/suggest?k=${encodeURIComponent(box.value)}`);
      if (!res.ok) return;
      const { suggestions } = await res.json();
      list.replaceChildren(...suggestions.map((s) => Object.assign(document.createElement("option"), { value: s })));
    }, 150);
  });
})();
