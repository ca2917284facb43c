// The site-wide notice of live challenges waiting for an answer: the page renders it as it
// stands, and this keeps it current by asking GET /api/live/challenges/waiting/ while the
// tab is visible (a hidden tab asks nothing, and asks at once when shown again).
const notice = document.querySelector("[data-live-notice]");
const EVERY_MS = 15_000;

function describe(waiting) {
  const { count, latest } = waiting;
  const name = document.createElement("strong");
  name.textContent = latest.challenger;
  if (count === 1) return [name, ` challenges you to a live ${latest.game_title} match.`];
  return [name, ` and ${count - 1} more challenge you to live matches.`];
}

async function refresh() {
  try {
    const response = await fetch(notice.dataset.waitingUrl, { credentials: "same-origin", headers: { Accept: "application/json" } });
    if (!response.ok) return; // signed out meanwhile, or rate-limited: try again later
    const waiting = await response.json();
    if (waiting.count > 0 && waiting.latest) {
      notice.querySelector("[data-live-notice-text]").replaceChildren(...describe(waiting));
    }
    notice.hidden = !(waiting.count > 0 && waiting.latest);
  } catch { /* offline: try again later */ }
}

if (notice) {
  setInterval(() => { if (!document.hidden) refresh(); }, EVERY_MS);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(); });
}
