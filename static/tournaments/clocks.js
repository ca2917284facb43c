// The clocks of live tables: every [data-clock] shows a player's time left, and one whose
// data-running is "1" counts down here every second from the data-remaining-ms it was
// drawn with. The event page redraws its tables on each update of the event, so a clock is
// re-synced with the server then; nodes are looked up on every tick for that reason.

const seen = new WeakMap();

function text(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

function tick() {
  const now = performance.now();
  for (const node of document.querySelectorAll("[data-clock]")) {
    if (!seen.has(node)) seen.set(node, now);
    const remaining = Number(node.dataset.remainingMs);
    if (!Number.isFinite(remaining)) continue;
    const left = node.dataset.running === "1" ? remaining - (now - seen.get(node)) : remaining;
    const shown = text(left);
    if (node.textContent !== shown) node.textContent = shown;
    node.classList.toggle("is-low", node.dataset.running === "1" && left < 30_000);
  }
}

tick();
setInterval(tick, 250);
