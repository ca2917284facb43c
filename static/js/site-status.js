// Footer status line: service health from /healthz, and worker heartbeats pushed live
// over the site WebSocket (/ws/site/) when the channel layer reaches the workers.

const statusEl = document.querySelector("[data-site-status]");
const dot = statusEl?.querySelector("[data-status-dot]");
const text = statusEl?.querySelector("[data-status-text]");
const heartbeatEl = document.querySelector("[data-heartbeat]");

const SERVICES = ["database", "broker", "channel_layer", "cache"];
let lastBeat = null;

function describeBeat() {
  if (!lastBeat) return "no worker heartbeat yet";
  const seconds = Math.max(0, Math.round((Date.now() - lastBeat.at) / 1000));
  return `worker heartbeat ${seconds} s ago`;
}

// Written only when it changes: the line is redrawn every second, and touching the page
// when nothing changed still has the browser lay it out again.
function render(state, summary) {
  if (!statusEl) return;
  if (dot.dataset.state !== state) dot.dataset.state = state;
  const words = `${summary} · ${describeBeat()}`;
  if (text.textContent !== words) text.textContent = words;
}

async function refreshHealth() {
  if (!statusEl) return;
  try {
    const response = await fetch(statusEl.dataset.healthzUrl, { headers: { Accept: "application/json" } });
    const report = await response.json();
    if (report.heartbeat?.last_beat_at) {
      lastBeat = { at: Date.parse(report.heartbeat.last_beat_at), worker: report.heartbeat.worker };
    }
    const down = SERVICES.filter((name) => report[name] !== "ok");
    statusEl.dataset.state = down.length ? "degraded" : "ok";
    render(down.length ? "degraded" : "ok", down.length ? `Down: ${down.join(", ")}` : "All services ok");
  } catch (error) {
    render("degraded", "Site unreachable");
  }
}

function onHeartbeat(event) {
  lastBeat = { at: Date.parse(event.at), worker: event.worker };
  if (heartbeatEl) {
    heartbeatEl.textContent = `Last worker heartbeat from ${event.worker} (beat ${event.beats}), received live.`;
  }
  render(statusEl?.dataset.state || "ok", statusEl?.dataset.state === "degraded" ? text.textContent.split(" · ")[0] : "All services ok");
}

function connect(delay = 1000) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws/site/`);
  socket.addEventListener("message", (message) => {
    const event = JSON.parse(message.data);
    if (event.type === "site.heartbeat") onHeartbeat(event);
  });
  socket.addEventListener("open", () => { delay = 1000; });
  socket.addEventListener("close", () => setTimeout(() => connect(Math.min(delay * 2, 30000)), delay));
}

refreshHealth();
setInterval(refreshHealth, 15000);
setInterval(() => { if (statusEl?.dataset.state) render(statusEl.dataset.state, text.textContent.split(" · ")[0]); }, 1000);
connect();
