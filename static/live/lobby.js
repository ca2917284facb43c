// The /live/ lobby: queue (polls where I stand until matched), play a bot, challenge a
// player, and the challenges made to me (accept with a deck of their game, or decline) and
// by me (cancel), kept current every 3 s without losing a deck being chosen.
const root = document.querySelector("[data-live-lobby]");
const REFRESH_MS = 3000;

function csrf() {
  return document.cookie.split("; ").find((c) => c.startsWith("csrftoken="))?.split("=")[1] ?? "";
}

async function call(url, method, body) {
  const response = await fetch(url, {
    method,
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrf() },
    credentials: "same-origin",
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error?.message ?? `the server answered ${response.status}`);
  return data;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value === true ? "" : value);
  node.append(...children);
  return node;
}

function showError(message) {
  const node = root.querySelector("[data-lobby-error]");
  node.textContent = message;
  node.hidden = !message;
}

function startQueue() {
  const queueForm = root.querySelector('[data-form="queue"]');
  if (!queueForm) return;
  const state = root.querySelector("[data-queue-state]");
  const leave = root.querySelector("[data-leave]");
  let polling = null;

  // "matched" only ever names a match still being played: the server forgets the pairing
  // once the match is over, so this never sends anyone back to a finished match.
  function showQueue(status) {
    if (status.state === "matched") {
      state.textContent = "Opponent found! Opening the match…";
      location.href = status.url;
      return;
    }
    leave.hidden = status.state !== "waiting";
    state.textContent = status.state === "waiting" ? `Waiting for an opponent… (${status.waited_seconds} s)` : "";
    clearTimeout(polling);
    if (status.state === "waiting") {
      polling = setTimeout(async () => showQueue(await call(root.dataset.queueUrl, "GET")), 1000);
    }
  }

  queueForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    showError("");
    try {
      const data = new FormData(queueForm);
      showQueue(await call(root.dataset.queueUrl, "POST", { deck: Number(data.get("deck")), seats: Number(data.get("seats")) }));
    } catch (error) { showError(error.message); }
  });
  leave.addEventListener("click", async () => {
    try { showQueue(await call(root.dataset.queueUrl, "DELETE")); } catch (error) { showError(error.message); }
  });
  call(root.dataset.queueUrl, "GET").then(showQueue).catch(() => {});
}

function startBot() {
  const botForm = root.querySelector('[data-form="bot"]');
  if (!botForm) return;
  botForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    showError("");
    try {
      const data = new FormData(botForm);
      const match = await call(root.dataset.botUrl, "POST",
        { deck: Number(data.get("deck")), bot: data.get("bot"), seats: Number(data.get("seats")) });
      location.href = match.url;
    } catch (error) { showError(error.message); }
  });
}

function startChallenges() {
  const url = root.dataset.challengesUrl;
  const decks = JSON.parse(document.getElementById("live-decks")?.textContent ?? "[]");
  const inbox = root.querySelector("[data-challenge-inbox]");
  const received = root.querySelector("[data-challenges-received]");
  const sent = root.querySelector("[data-challenges-sent]");
  // One item per challenge, kept across refreshes so that a deck being chosen stays chosen.
  const items = new Map();

  async function answer(item, id, body) {
    const error = item.querySelector("[data-challenge-error]");
    error.hidden = true;
    for (const button of item.querySelectorAll("button")) button.disabled = true;
    try {
      const done = await call(`${url}${id}/`, "POST", body);
      if (done.url) { location.href = done.url; return; }
      refresh();
    } catch (failure) {
      error.textContent = failure.message;
      error.hidden = false;
      for (const button of item.querySelectorAll("button")) button.disabled = false;
    }
  }

  function button(text, attrs, onClick) {
    const node = el("button", { type: "button", class: "button button-small", ...attrs }, text);
    node.addEventListener("click", onClick);
    return node;
  }

  function receivedItem(c) {
    const item = el("li", { class: "live-challenge", "data-challenge": c.id, "data-received": true });
    const actions = el("div", { class: "live-challenge-actions" });
    const choices = decks.filter((d) => d.game === c.game);
    if (choices.length) {
      const select = el("select", { name: "deck", "aria-label": `Your ${c.game_title} deck` },
        ...choices.map((d) => el("option", { value: d.id }, d.name)));
      actions.append(select, button("Accept", { "data-accept": true },
        () => answer(item, c.id, { accept: true, deck: Number(select.value) })));
    } else {
      actions.append(el("span", { class: "muted" }, `To accept, register a ${c.game_title} deck: `),
        el("a", { href: root.dataset.decksUrl }, "your decks"));
    }
    actions.append(button("Decline", { "data-decline": true, class: "button button-small button-ghost" },
      () => answer(item, c.id, { accept: false })));
    item.append(el("p", {}, el("strong", {}, c.challenger), ` challenges you to ${c.game_title} with “${c.deck}”.`),
      actions, el("p", { class: "form-error", "data-challenge-error": true, role: "alert", hidden: true }));
    return item;
  }

  function sentItem(c) {
    const item = el("li", { class: "live-challenge", "data-challenge": c.id, "data-sent": true });
    item.append(el("p", {}, "Waiting for ", el("strong", {}, c.challenged), ` to answer (${c.game_title}, “${c.deck}”)…`),
      el("div", { class: "live-challenge-actions" }, button("Cancel", { "data-cancel": true, class: "button button-small button-ghost" },
        () => answer(item, c.id, { accept: false }))),
      el("p", { class: "form-error", "data-challenge-error": true, role: "alert", hidden: true }));
    return item;
  }

  function declinedItem(c) {
    return el("li", { class: "live-challenge muted", "data-challenge": c.id, "data-declined": true },
      el("p", {}, el("strong", {}, c.challenged), ` declined your ${c.game_title} challenge.`));
  }

  function place(list, kind, challenges, make) {
    const wanted = challenges.map((c) => {
      const key = `${kind}-${c.id}-${c.status}`;
      if (!items.has(key)) items.set(key, make(c));
      return items.get(key);
    });
    for (const [key, item] of items) {
      if (key.startsWith(`${kind}-`) && !wanted.includes(item)) { item.remove(); items.delete(key); }
    }
    wanted.forEach((item, index) => { if (list.children[index] !== item) list.insertBefore(item, list.children[index] ?? null); });
  }

  async function refresh() {
    try {
      const found = await call(url, "GET");
      const accepted = found.accepted.find((c) => c.url && !sessionStorage.getItem(`seen-${c.id}`));
      if (accepted) { sessionStorage.setItem(`seen-${accepted.id}`, "1"); location.href = accepted.url; return; }
      place(received, "received", found.received, receivedItem);
      place(sent, "sent", [...found.sent, ...found.declined], (c) => (c.status === "declined" ? declinedItem(c) : sentItem(c)));
      inbox.hidden = items.size === 0;
    } catch { /* signed out or offline: try again later */ }
  }

  const challengeForm = root.querySelector('[data-form="challenge"]');
  challengeForm?.addEventListener("submit", async (event) => {
    event.preventDefault();
    showError("");
    try {
      const data = new FormData(challengeForm);
      await call(url, "POST", { username: data.get("username"), deck: Number(data.get("deck")) });
      challengeForm.querySelector('[name="username"]').value = "";
      refresh();
    } catch (error) { showError(error.message); }
  });
  refresh();
  setInterval(() => { if (!document.hidden) refresh(); }, REFRESH_MS);
}

if (root) {
  startQueue();
  startBot();
  startChallenges();
}
