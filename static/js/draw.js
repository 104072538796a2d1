// The alliance's draw: offer a random draw (16 random bytes as hex, made in this browser)
// in an empty draw field; the player may keep it or type their own. The phase bar is
// swapped by htmx, so the offer is made again after every swap.
const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

function offer() {
  for (const input of document.querySelectorAll("input[data-random-draw]")) {
    if (!input.value) {
      input.value = hex(crypto.getRandomValues(new Uint8Array(16)));
    }
  }
}

offer();
document.body.addEventListener("htmx:afterSettle", offer);
