// Event page: keeps the live section (progress, pairings, standings, bracket) current.
//
// The workers broadcast "tournament.update" to ws/tournaments/<id>/ after every committed
// change; the page then re-fetches its live section (tournaments:live) and swaps it in.
// Without a channel layer that crosses processes (data-live="0"), or when the socket
// fails, it polls the API every 3 s and re-fetches when the progress line changes.

const root = document.querySelector("[data-tournament-page]");
const POLL_MS = 3000;
const OVER = new Set(["finished", "cancelled"]);

if (root) {
  const section = root.querySelector("[data-live-section]");
  const stateNode = root.querySelector("[data-tournament-state]");
  const liveState = root.querySelector("[data-live-state]");
  let lastKey = null;
  let pollTimer = null;
  let refreshing = false;
  let state = root.dataset.state;

  async function refresh() {
    if (refreshing) return;
    refreshing = true;
    try {
      const response = await fetch(root.dataset.liveUrl, { headers: { Accept: "text/html" } });
      if (response.ok) section.innerHTML = await response.text();
    } catch (error) {
      // A failed fetch leaves the last good section in place; the next update retries.
    } finally {
      refreshing = false;
    }
  }

  function apply(update) {
    const key = `${update.state}|${update.round}|${update.progress?.text}`;
    if (update.state && stateNode && update.state !== state) {
      state = update.state;
      stateNode.textContent = state.charAt(0).toUpperCase() + state.slice(1);
      stateNode.className = `status-pill state-${state}`;
    }
    if (key !== lastKey) {
      const shown = section.querySelector("[data-progress-line]")?.textContent.trim();
      const stale = lastKey !== null || shown !== update.progress?.text || update.state !== root.dataset.state;
      lastKey = key;
      if (stale) refresh();
    }
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
      if (data.type === "tournament.update") apply(data);
    });
    socket.addEventListener("open", () => {
      if (liveState) liveState.textContent = "Live updates";
    });
    socket.addEventListener("close", () => startPolling());
    socket.addEventListener("error", () => startPolling());
  }

  if (root.dataset.live === "1") connect();
  else startPolling();
}
