// The battle page: clicking a hex of the map writes its label into the path or hex field
// being filled in (the last one focused, else the first on the page); a path gets the hex
// added at its end, a single hex is replaced. Without JavaScript the fields are typed.
let current = null;

document.addEventListener("focusin", (event) => {
  if (event.target instanceof HTMLInputElement && event.target.dataset.hexInput) {
    current = event.target;
  }
});

document.addEventListener("click", (event) => {
  const hex = event.target instanceof Element ? event.target.closest("[data-hex]") : null;
  if (!hex) return;
  const field = current ?? document.querySelector("input[data-hex-input]");
  if (!field) return;
  const label = hex.dataset.hex;
  if (field.dataset.hexInput === "hexes") {
    const parts = field.value.split(/[\s,]+/).filter(Boolean);
    parts.push(label);
    field.value = parts.join(" ");
  } else {
    field.value = label;
  }
  document.querySelectorAll(".hex.is-picked").forEach((h) => h.classList.remove("is-picked"));
  hex.classList.add("is-picked");
  field.dispatchEvent(new Event("input", { bubbles: true }));
});

// The page is drawn for one step; its hidden poller asks every minute whether another step is
// open now (the phase bar's "phase-changed"). Reloading could lose an order being written, so
// the page says so and links to the new step instead.
document.body.addEventListener("phase-changed", (event) => {
  const drawn = document.querySelector("[data-battle-step]");
  const notice = document.querySelector(".battle-moved-on");
  if (!drawn || !notice) return;
  const open = event.detail && event.detail.phase !== undefined && event.detail.phase !== null
    ? String(event.detail.phase) : "";
  if (open !== drawn.dataset.battleStep) notice.hidden = false;
});
