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

// @mention suggestions in the post editor: after "@" and the first letters, the thread's
// other readers (JSON script "mention-names") whose username starts so; arrows move, Enter
// or Tab picks, Escape closes; a click picks too.
function mentionSuggestions(textarea, names) {
  const list = document.createElement("ul");
  list.id = "mention-list";
  list.className = "mention-list";
  list.setAttribute("role", "listbox");
  list.setAttribute("aria-label", "People to mention");
  list.hidden = true;
  textarea.after(list);
  textarea.setAttribute("aria-autocomplete", "list");
  textarea.setAttribute("aria-controls", list.id);
  textarea.setAttribute("aria-expanded", "false");
  let matches = [];
  let active = 0;
  let start = -1;

  function typedWord() {
    const caret = textarea.selectionStart;
    const found = /(^|\s)@([\w.+-]*)$/.exec(textarea.value.slice(0, caret));
    return found ? { start: caret - found[2].length, typed: found[2].toLowerCase() } : null;
  }

  function close() {
    list.hidden = true;
    matches = [];
    textarea.setAttribute("aria-expanded", "false");
    textarea.removeAttribute("aria-activedescendant");
  }

  function render() {
    list.replaceChildren(...matches.map((name, i) => {
      const option = document.createElement("li");
      option.id = `mention-option-${i}`;
      option.setAttribute("role", "option");
      option.setAttribute("aria-selected", i === active ? "true" : "false");
      option.textContent = `@${name}`;
      option.addEventListener("mousedown", (event) => {
        event.preventDefault(); // keep the focus in the text box
        pick(i);
      });
      return option;
    }));
    list.hidden = false;
    textarea.setAttribute("aria-expanded", "true");
    textarea.setAttribute("aria-activedescendant", `mention-option-${active}`);
  }

  function update() {
    const word = typedWord();
    if (!word) return close();
    matches = names.filter((n) => n.toLowerCase().startsWith(word.typed)).slice(0, 8);
    if (!matches.length) return close();
    start = word.start;
    active = 0;
    render();
  }

  function pick(i) {
    const caret = textarea.selectionStart;
    const name = matches[i];
    textarea.value = `${textarea.value.slice(0, start)}${name} ${textarea.value.slice(caret)}`;
    const after = start + name.length + 1;
    textarea.setSelectionRange(after, after);
    close();
    textarea.focus();
  }

  textarea.addEventListener("input", update);
  textarea.addEventListener("keydown", (event) => {
    if (list.hidden) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      active = (active + (event.key === "ArrowDown" ? 1 : matches.length - 1)) % matches.length;
      render();
    } else if (event.key === "Enter" || event.key === "Tab") {
      event.preventDefault();
      pick(active);
    } else if (event.key === "Escape") {
      close();
    }
  });
  textarea.addEventListener("blur", close);
}

const mentionData = document.getElementById("mention-names");
const postBody = document.getElementById("post-body");
if (mentionData && postBody) mentionSuggestions(postBody, JSON.parse(mentionData.textContent));

export { mentionSuggestions };

// The replay's campaign slider: the number follows the thumb; letting go opens that event.
const slider = document.querySelector(".replay-slider input[type=range]");
if (slider) {
  const shown = slider.form.querySelector("output");
  slider.addEventListener("input", () => { shown.textContent = `${slider.value} of ${slider.max}`; });
  slider.addEventListener("change", () => slider.form.submit());
}

// "Start from" a report or the map picture: fetched and inserted at the cursor, so what was
// typed stays (without script the form reloads the page with the reply box filled).
const quoteForm = document.querySelector("form.quote-form[data-quote-url]");
if (quoteForm) {
  quoteForm.addEventListener("submit", async (event) => {
    const body = document.getElementById("post-body");
    const markup = document.getElementById("post-markup");
    if (!body) return;
    event.preventDefault();
    const params = new URLSearchParams(new FormData(quoteForm));
    if (event.submitter && event.submitter.name) {
      params.set(event.submitter.name, event.submitter.value);
      if (event.submitter.name === "quote_map") params.delete("quote_report");
    }
    if (markup) params.set("markup", markup.value);
    const response = await fetch(`${quoteForm.dataset.quoteUrl}?${params}`, { credentials: "same-origin" });
    if (!response.ok) return;
    const text = await response.text();
    const start = body.selectionStart ?? body.value.length;
    const end = body.selectionEnd ?? body.value.length;
    const before = body.value.slice(0, start);
    const gap = before && !before.endsWith("\n") ? "\n" : "";
    body.value = before + gap + text + body.value.slice(end);
    const written = response.headers.get("X-Markup");
    if (markup && written) markup.value = written;
    body.focus();
    const caret = (before + gap + text).length;
    body.setSelectionRange(caret, caret);
  });
}
