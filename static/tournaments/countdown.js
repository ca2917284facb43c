// Countdowns to an event's start: every [data-countdown="<ISO time>"] shows "in 3 h 12 min"
// and is refreshed every second; past the time it says the event is starting. The nodes
// are looked up on every tick: the event page replaces (or removes) them when its state
// changes, and a countdown that is gone stops counting.

function text(ms) {
  if (ms <= 0) return "(starting now)";
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (d) return `(in ${d} d ${h} h)`;
  if (h) return `(in ${h} h ${m} min)`;
  if (m) return `(in ${m} min ${sec} s)`;
  return `(in ${sec} s)`;
}

function tick() {
  const now = Date.now();
  for (const node of document.querySelectorAll("[data-countdown]")) {
    node.textContent = text(Date.parse(node.dataset.countdown) - now);
  }
}

if (document.querySelector("[data-countdown]")) {
  tick();
  setInterval(tick, 1000);
}
