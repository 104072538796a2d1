// A form with data-confirm asks before it is sent, naming the consequence (starting a
// campaign). htmx forms use hx-confirm instead.
document.addEventListener("submit", (event) => {
  const form = event.target.closest("form[data-confirm]");
  if (form && !window.confirm(form.dataset.confirm)) event.preventDefault();
});
