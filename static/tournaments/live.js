// Event page: keeps the live section (progress, pairings, standings, bracket) current.
//
// The workers broadcast "tournament.update" to ws/tournaments/<id>/ after every committed
// change; the page then re-fetches its live section (tournaments:live) and swaps it in.
// Without a channel layer that crosses processes (data-live="0"), or when the socket
// fails, it polls the API every 3 s and re-fetches when the progress line changes.
//
// When the state itself changes (open -> running -> finished, or cancelled), the parts
// outside the live section that depend on it (notice, settings with the countdown, the
// organiser's tools, entries with Enter and Drop) are re-fetched too (tournaments:parts)
// and swapped in, so that a finished event no longer offers what only an open or running
// one can do.
//
// A live event (data-live-event="1": people play) re-reads its live section on every
// update, not only when the progress line changes: a player's own match, presence on the
// boards and the clocks change without it. While it runs the section is also re-read every
// 15 s (the clocks tick in between, see clocks.js), and at the moment a [data-refresh-at]
// names (check-in opening). While it is open for entries an update also re-reads the
// entries (who checked in), unless the visitor is using a form there.

const root = document.querySelector("[data-tournament-page]");
const POLL_MS = 3000;
const OVER = new Set(["finished", "cancelled"]);
const LABELS = { draft: "Draft", open: "Open for entries", running: "Running", paused: "Paused",
                 finished: "Finished", cancelled: "Cancelled" };

if (root) {
  const section = root.querySelector("[data-live-section]");
  const stateNode = root.querySelector("[data-tournament-state]");
  const liveState = root.querySelector("[data-live-state]");
  let lastKey = null;
  let pollTimer = null;
  let state = root.dataset.state;
  const renderedState = state;
  const liveEvent = root.dataset.liveEvent === "1";
  const RESYNC_MS = 15000;
  let refreshAtTimer = null;

  // One fetch at a time per target; a request made while one is on its way runs once more
  // after it, so that the last update (the event finishing) is never dropped and an older
  // answer never lands after a newer one.
  function serialized(run) {
    let running = false;
    let again = false;
    return async function request() {
      if (running) {
        again = true;
        return;
      }
      running = true;
      try {
        do {
          again = false;
          try {
            await run();
          } catch (error) {
            // A failed fetch leaves the last good content in place; the next update retries.
          }
        } while (again);
      } finally {
        running = false;
      }
    };
  }

  const refresh = serialized(async () => {
    const response = await fetch(root.dataset.liveUrl, { headers: { Accept: "text/html" } });
    if (response.ok) {
      section.innerHTML = await response.text();
      scheduleRefreshAt();
    }
  });

  // Something in the section changes at a known time (check-in opens): re-read it then.
  function scheduleRefreshAt() {
    if (refreshAtTimer) clearTimeout(refreshAtTimer);
    refreshAtTimer = null;
    const at = Date.parse(section.querySelector("[data-refresh-at]")?.dataset.refreshAt ?? "");
    const wait = at - Date.now();
    if (Number.isFinite(wait) && wait < 86_400_000) {
      refreshAtTimer = setTimeout(() => refresh(), Math.max(0, wait) + 500);
    }
  }

  function usingAPartsForm() {
    return Boolean(document.activeElement?.closest("[data-state-part] form"));
  }

  const refreshParts = serialized(async () => {
    const response = await fetch(root.dataset.partsUrl, { headers: { Accept: "text/html" } });
    if (!response.ok) return;
    const fresh = document.createElement("template");
    fresh.innerHTML = await response.text();
    for (const part of fresh.content.querySelectorAll("[data-state-part]")) {
      root.querySelector(`[data-state-part="${part.dataset.statePart}"]`)?.replaceWith(part);
    }
  });

  function showState(next) {
    state = next;
    root.dataset.state = next;
    if (stateNode) {
      stateNode.textContent = LABELS[next] ?? next;
      stateNode.className = `status-pill state-${next}`;
    }
    // Only an event still open for entries counts down to its start.
    if (next !== "open" && next !== "draft") {
      for (const node of root.querySelectorAll("[data-countdown]")) node.remove();
    }
    if (OVER.has(next) && liveState) liveState.hidden = true;
    refreshParts();
  }

  function apply(update, pushed = false) {
    const key = `${update.state}|${update.round}|${update.progress?.text}`;
    const first = lastKey === null;
    const stateChanged = Boolean(update.state && update.state !== state);
    if (stateChanged) showState(update.state);
    if (key !== lastKey) {
      const shown = section.querySelector("[data-progress-line]")?.textContent.trim();
      const stale = lastKey !== null || shown !== update.progress?.text || update.state !== renderedState;
      lastKey = key;
      if (stale) refresh();
    } else if (liveEvent && pushed && !first) {
      refresh();
    }
    if (liveEvent && pushed && !first && !stateChanged && state === "open" && !usingAPartsForm()) refreshParts();
    if (OVER.has(update.state) && pollTimer) {
      clearInterval(pollTimer);
      pollTimer = null;
    }
  }

  async function poll() {
    try {
      const response = await fetch(root.dataset.apiUrl, { headers: { Accept: "application/json" } });
      if (!response.ok) return;
      const data = await response.json();
      apply({ state: data.state, round: data.current_round, progress: data.progress });
    } catch (error) {
      // Try again on the next tick.
    }
  }

  function startPolling() {
    if (pollTimer || OVER.has(state)) return;
    if (liveState) liveState.textContent = "Updates every 3 s";
    poll();
    pollTimer = setInterval(poll, POLL_MS);
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    let socket;
    try {
      socket = new WebSocket(`${scheme}://${location.host}${root.dataset.wsPath}`);
    } catch (error) {
      startPolling();
      return;
    }
    socket.addEventListener("message", (event) => {
      const data = JSON.parse(event.data);
      if (data.type === "tournament.update") apply(data, true);
    });
    socket.addEventListener("open", () => {
      if (liveState) liveState.textContent = "Live updates";
    });
    socket.addEventListener("close", () => startPolling());
    socket.addEventListener("error", () => startPolling());
  }

  if (root.dataset.live === "1") connect();
  else startPolling();
  scheduleRefreshAt();
  if (liveEvent) {
    setInterval(() => {
      if (state === "running" && !document.hidden) refresh();
    }, RESYNC_MS);
  }
}
