// "Your match is ready": the banner of templates/live/_match_ready.html, on every page of a
// signed-in player. The page renders the matches waiting as they stand; this listens on
// /ws/notify/ and shows a match the moment it starts ({"type": "notify.match"}), and on each
// (re)connection takes the server's whole list ({"type": "notify.matches"}). The socket
// reconnects with a growing delay, and is closed while the page has been hidden for long
// (opened again, with the current list, when the page is shown). A short sound, off unless
// the player turns it on, is remembered in localStorage; a dismissed match is remembered in
// a cookie that the server reads too, so the next page does not show it again.
const root = document.querySelector("[data-live-ready]");

const SOUND_KEY = "live-ready-sound";
const TITLES_KEY = "live-ready-titles";
const DISMISSED_COOKIE = "live_ready_dismissed";
const REMEMBERED = 20;
const FIRST_RETRY_MS = 1_000;
const LAST_RETRY_MS = 60_000;
const HIDDEN_STOP_MS = 5 * 60_000;
const PING_MS = 50_000;

function stored(key, fallback) {
  try {
    const value = localStorage.getItem(key);
    return value === null ? fallback : JSON.parse(value);
  } catch { return fallback; } // storage refused (private mode) or garbled: the defaults
}

function store(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch { /* storage refused: not remembered */ }
}

// ------------------------------------------------------------------ what is shown

function dismissedIds() {
  const entry = document.cookie.split("; ").find((part) => part.startsWith(`${DISMISSED_COOKIE}=`));
  if (!entry) return [];
  return entry.slice(DISMISSED_COOKIE.length + 1).split(".").filter((id) => /^\d+$/.test(id)).map(Number);
}

function setDismissed(ids) {
  const kept = ids.slice(-REMEMBERED).join(".");
  document.cookie = `${DISMISSED_COOKIE}=${kept}; path=/; max-age=${kept ? 86_400 : 0}; SameSite=Lax`;
}

function pathOf(url) {
  try { return new URL(url, location.origin).pathname; } catch { return null; }
}

// A match as the banner shows it: {id, url, title, against, game}.
function fromServer(match) {
  const known = stored(TITLES_KEY, {})[match.id];
  return {
    id: Number(match.id),
    url: known?.url || match.url,
    title: known?.title || match.title,
    against: (match.opponents || []).join(", "),
    game: match.game || "",
  };
}

function fromItem(item) {
  return fromServer({
    id: item.dataset.matchId,
    url: item.querySelector("a")?.getAttribute("href") || "",
    title: item.dataset.title,
    opponents: item.dataset.opponents ? [item.dataset.opponents] : [],
    game: item.dataset.game,
  });
}

// A title and url announced with a match are not kept by the server: remember them here.
function remember(match) {
  const titles = stored(TITLES_KEY, {});
  titles[match.id] = { title: match.title, url: match.url };
  const ids = Object.keys(titles).map(Number).sort((a, b) => a - b);
  for (const old of ids.slice(0, Math.max(0, ids.length - REMEMBERED))) delete titles[old];
  store(TITLES_KEY, titles);
}

// The page of a match's own board needs no banner for it.
function onItsBoard(match) { return pathOf(match.url) === location.pathname; }

function shown(match) {
  const path = pathOf(match.url);
  return path !== null && path.startsWith("/") && !onItsBoard(match) && !dismissedIds().includes(match.id);
}

function itemFor(match, fresh) {
  const item = document.createElement("li");
  item.className = "live-ready-item";
  item.dataset.matchId = String(match.id);
  if (fresh) item.dataset.fresh = "";
  const text = document.createElement("span");
  text.className = "live-ready-text";
  const title = document.createElement("strong");
  title.textContent = match.title;
  const game = document.createElement("span");
  game.className = "live-ready-game";
  game.textContent = match.game ? `(${match.game})` : "";
  text.append("Your match is ready: ", title, ` vs ${match.against} `, game);
  const dash = document.createElement("span");
  dash.setAttribute("aria-hidden", "true");
  dash.textContent = "—";
  const link = document.createElement("a");
  link.className = "live-ready-link";
  link.href = pathOf(match.url);
  link.textContent = "Open board";
  item.append(text, " ", dash, " ", link);
  return item;
}

let matches = [];

function render(freshIds = new Set()) {
  matches = matches.filter(shown);
  const list = root.querySelector("[data-live-ready-list]");
  list.replaceChildren(...matches.map((match) => itemFor(match, freshIds.has(match.id))));
  root.toggleAttribute("data-empty", matches.length === 0);
  root.querySelector("[data-live-ready-tools]").hidden = matches.length === 0;
}

// ------------------------------------------------------------------ sound

let audio = null;

function soundOn() { return stored(SOUND_KEY, false) === true; }

function showSound() {
  const button = root.querySelector("[data-live-ready-sound]");
  button.hidden = false;
  button.setAttribute("aria-checked", String(soundOn()));
  button.querySelector("[data-live-ready-sound-state]").textContent = soundOn() ? "on" : "off";
}

function chime() {
  if (!soundOn()) return;
  try {
    if (!audio) {
      // A page the player has not touched yet may not play sound: stay silent rather than fail.
      if (navigator.userActivation && !navigator.userActivation.hasBeenActive) return;
      audio = new AudioContext();
    }
    if (audio.state === "suspended") audio.resume().catch(() => {});
    const start = audio.currentTime;
    const tone = audio.createOscillator();
    const volume = audio.createGain();
    tone.type = "sine";
    tone.frequency.setValueAtTime(660, start);
    tone.frequency.setValueAtTime(990, start + 0.14);
    volume.gain.setValueAtTime(0.0001, start);
    volume.gain.exponentialRampToValueAtTime(0.18, start + 0.02);
    volume.gain.exponentialRampToValueAtTime(0.0001, start + 0.4);
    tone.connect(volume).connect(audio.destination);
    tone.start(start);
    tone.stop(start + 0.42);
  } catch { /* no audio on this device: the banner says it all */ }
}

// ------------------------------------------------------------------ socket

let socket = null;
let retry = FIRST_RETRY_MS;
let retryTimer = null;
let hiddenTimer = null;
let pinger = null;
let stopped = false; // for good: the server says this visitor is not signed in
let sleeping = false; // the page has been hidden for long

function announce(match) {
  // Announced now: its own title and url, over any remembered from an earlier announcement.
  remember({ id: Number(match.id), title: match.title, url: match.url });
  const fresh = fromServer(match);
  if (onItsBoard(fresh)) return;
  setDismissed(dismissedIds().filter((id) => id !== fresh.id));
  matches = [fresh, ...matches.filter((known) => known.id !== fresh.id)];
  render(new Set([fresh.id]));
  chime();
}

function replaceAll(list) {
  const before = new Set(matches.map((match) => match.id));
  matches = list.map(fromServer);
  const fresh = new Set(matches.filter((match) => !before.has(match.id) && shown(match)).map((match) => match.id));
  render(fresh);
  if (fresh.size) chime();
}

function onFrame(message) {
  let frame;
  try { frame = JSON.parse(message.data); } catch { return; }
  if (frame.type === "notify.match" && frame.match) announce(frame.match);
  else if (frame.type === "notify.matches" && Array.isArray(frame.matches)) {
    replaceAll(frame.matches);
    root.dataset.connected = ""; // listening: a match that starts from now on is shown at once
  }
}

function schedule() {
  if (stopped || sleeping || retryTimer !== null) return;
  const wait = retry + Math.random() * retry * 0.3;
  retry = Math.min(retry * 2, LAST_RETRY_MS);
  retryTimer = setTimeout(connect, wait);
}

function connect() {
  retryTimer = null;
  if (stopped || sleeping || socket !== null) return;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  let opened;
  try {
    opened = new WebSocket(`${scheme}://${location.host}${root.dataset.wsPath}`);
  } catch {
    schedule();
    return;
  }
  socket = opened;
  opened.addEventListener("open", () => {
    retry = FIRST_RETRY_MS;
    clearInterval(pinger);
    pinger = setInterval(() => {
      if (opened.readyState === WebSocket.OPEN) opened.send(JSON.stringify({ type: "ping" }));
    }, PING_MS);
  });
  opened.addEventListener("message", onFrame);
  opened.addEventListener("error", () => { /* a close follows; it decides */ });
  opened.addEventListener("close", (event) => {
    if (socket === opened) socket = null;
    clearInterval(pinger);
    delete root.dataset.connected;
    if (event.code === 4401) stopped = true; // signed out meanwhile: the next page has no banner
    else schedule();
  });
}

function sleep() {
  sleeping = true;
  clearTimeout(retryTimer);
  retryTimer = null;
  if (socket) socket.close(1000);
}

function onVisibility() {
  if (document.hidden) {
    clearTimeout(hiddenTimer);
    hiddenTimer = setTimeout(sleep, HIDDEN_STOP_MS);
    return;
  }
  clearTimeout(hiddenTimer);
  if (sleeping) {
    sleeping = false;
    retry = FIRST_RETRY_MS;
    connect();
  }
}

// ------------------------------------------------------------------ start

function followHeader() {
  // Sticks right under the site header, whose height changes (phone menu, wrapping).
  const header = document.querySelector(".site-header");
  if (!header) return;
  const place = () => root.style.setProperty("--live-ready-top", `${Math.round(header.getBoundingClientRect().height)}px`);
  place();
  if ("ResizeObserver" in window) new ResizeObserver(place).observe(header);
  else addEventListener("resize", place);
}

if (root) {
  matches = [...root.querySelectorAll("[data-live-ready-list] > li")].map(fromItem);
  render();
  showSound();
  followHeader();
  root.querySelector("[data-live-ready-sound]").addEventListener("click", () => {
    store(SOUND_KEY, !soundOn());
    showSound();
    if (soundOn()) chime(); // what it will sound like (this click lets the page play it)
  });
  root.querySelector("[data-live-ready-dismiss]").addEventListener("click", () => {
    setDismissed([...dismissedIds(), ...matches.map((match) => match.id)]);
    matches = [];
    render();
  });
  document.addEventListener("visibilitychange", onVisibility);
  if (document.hidden) onVisibility();
  connect();
}
