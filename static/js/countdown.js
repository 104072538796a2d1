// Live deadline countdowns: every element [data-countdown="<ISO moment>"] gets its
// [data-countdown-left] text updated each second. The server has already written the
// deadline in the viewer's zone; this only counts down, so it needs no time zone data.
// Elements swapped in later by HTMX are found too: the page is scanned on every tick.

function timeLeft(deadline, now) {
  let seconds = Math.round((deadline - now) / 1000);
  const past = seconds < 0;
  seconds = Math.abs(seconds);
  const days = Math.floor(seconds / 86400);
  const hours = Math.floor((seconds % 86400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const parts = [];
  if (days) parts.push(`${days} d`);
  if (days || hours) parts.push(`${hours} h`);
  parts.push(`${minutes} min`);
  // Seconds only in the last hour, when they matter.
  if (!days && !hours) parts.push(`${seconds % 60} s`);
  const text = parts.join(" ");
  return past ? `deadline passed ${text} ago` : `${text} left`;
}

function tick() {
  const now = Date.now();
  for (const el of document.querySelectorAll("[data-countdown]")) {
    const deadline = Date.parse(el.dataset.countdown);
    const left = el.querySelector("[data-countdown-left]");
    if (Number.isNaN(deadline) || !left) continue;
    const text = `(${timeLeft(deadline, now)})`;
    if (left.textContent !== text) left.textContent = text;
    el.classList.toggle("countdown-past", deadline <= now);
  }
}

export { timeLeft };

tick();
setInterval(tick, 1000);
