// The overview is drawn for one phase: when the phase bar announces that another phase is
// open (its refresh, or an action on it), the page is read again. The bar's own answer (a
// message such as "You drew: …") is kept across that reload and shown in the new bar.
const KEY = "warcamp-phase-bar-message";

function reloadKeepingMessage() {
  let done = false;
  const reload = () => {
    if (done) return;
    done = true;
    const message = document.querySelector("#phase-bar .phase-bar-message");
    if (message) sessionStorage.setItem(KEY, message.textContent.trim());
    window.location.reload();
  };
  // The trigger comes with the response, before the fresh bar is swapped in.
  document.body.addEventListener("htmx:afterSettle", reload, { once: true });
  setTimeout(reload, 1500);
}

document.body.addEventListener("phase-changed", (event) => {
  const drawn = document.querySelector("[data-overview-phase]");
  if (!drawn) return;
  const open = event.detail && event.detail.phase !== undefined && event.detail.phase !== null
    ? String(event.detail.phase) : "";
  if (open !== drawn.dataset.overviewPhase) reloadKeepingMessage();
});

const kept = sessionStorage.getItem(KEY);
if (kept) {
  sessionStorage.removeItem(KEY);
  const actions = document.querySelector("#phase-bar .phase-actions");
  if (actions) {
    const p = document.createElement("p");
    p.className = "phase-bar-message";
    p.setAttribute("role", "status");
    p.textContent = kept;
    actions.before(p);
  }
}
