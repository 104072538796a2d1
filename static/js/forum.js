// Copy buttons of the export pages: <button data-copy="textarea-id">.
function copyFrom(button) {
  const field = document.getElementById(button.dataset.copy);
  const status = button.parentElement.querySelector(".copy-status");
  const done = (text) => { if (status) status.textContent = text; };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(field.value).then(() => done("Copied."), () => done("Copy failed: select the text and copy it."));
  } else {
    field.select();
    done(document.execCommand("copy") ? "Copied." : "Select the text and copy it.");
  }
}

document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-copy]");
  if (button) copyFrom(button);
});

export { copyFrom };
