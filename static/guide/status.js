// Status page: one line per service from /healthz, refreshed every 15 s.

const list = document.querySelector("[data-status-services]");
const NAMES = { database: "Database", broker: "Task broker", channel_layer: "Live updates (channel layer)", cache: "Cache" };

function item(label, value) {
  const li = document.createElement("li");
  const ok = value === "ok";
  li.className = ok ? "service-ok" : "service-down";
  const name = document.createElement("strong");
  name.textContent = label;
  const state = document.createElement("span");
  state.textContent = ok ? "ok" : value;
  li.append(name, " ", state);
  return li;
}

async function refresh() {
  try {
    const response = await fetch(list.dataset.healthzUrl, { headers: { Accept: "application/json" } });
    const report = await response.json();
    list.replaceChildren(...Object.entries(NAMES).map(([key, label]) => item(label, report[key] ?? "unknown")));
  } catch (error) {
    list.replaceChildren(item("Site", "unreachable"));
  }
}

if (list) {
  refresh();
  setInterval(refresh, 15000);
}
