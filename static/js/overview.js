// The overview is drawn for one phase: when the phase bar announces that another phase is
// open (its refresh, or an action on it), the page is read again.
document.body.addEventListener("phase-changed", (event) => {
  const drawn = document.querySelector("[data-overview-phase]");
  if (!drawn) return;
  const open = event.detail && event.detail.phase !== undefined && event.detail.phase !== null
    ? String(event.detail.phase) : "";
  if (open !== drawn.dataset.overviewPhase) window.location.reload();
});
