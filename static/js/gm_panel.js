// The GM panel fetches itself again when the phase bar announces that another phase is open
// (htmx's trigger filters would need eval, which the Content-Security-Policy forbids).
document.body.addEventListener("phase-changed", (event) => {
  const panel = document.getElementById("gm-panel");
  if (!panel || !window.htmx) return;
  const open = event.detail && event.detail.phase !== undefined && event.detail.phase !== null
    ? String(event.detail.phase) : "";
  if (open !== (panel.dataset.phase || "")) window.htmx.trigger(panel, "another-phase");
});
