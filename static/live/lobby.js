// The /live/ lobby: queue (polls where I stand until matched), play a bot, challenge a
// player, and the challenges made to me (accept with a deck of their game, or decline) and
// by me (cancel), kept current every 3 s without losing a deck being chosen.
//
// Every create (queue, play a bot, challenge) is sent with an Idempotency-Key made when
// the form is filled in: pressing twice, or a retry after a lost answer, sends the same
// key and the server answers with what the first press created (docs/api.md).
const root = document.querySelector("[data-live-lobby]");
const REFRESH_MS = 3000;
const DECKS = JSON.parse(document.getElementById("live-decks")?.textContent ?? "[]");

function csrf() {
  return document.cookie.split("; ").find((c) => c.startsWith("csrftoken="))?.split("=")[1] ?? "";
}

function newKey() {
  if (globalThis.crypto?.randomUUID) return crypto.randomUUID();
  return `k${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`;
}

// The server's own words: each field's messages ("there is no player named 'zed'"),
// not the summary that only names the fields.
function messageOf(data, status) {
  const error = data.error ?? {};
  const problems = Object.values(error.fields ?? {}).flat();
  if (problems.length) return `${problems.map((p) => p.charAt(0).toUpperCase() + p.slice(1).replace(/\.$/, "")).join(". ")}.`;
  return error.message ?? `The server answered ${status}.`;
}

async function call(url, method, body, key) {
  const headers = { "Content-Type": "application/json", "X-CSRFToken": csrf() };
  if (key) headers["Idempotency-Key"] = key;
  const response = await fetch(url, {
    method,
    headers,
    credentials: "same-origin",
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(messageOf(data, response.status));
  return data;
}

// A create form: one key per filled-in form (a new one once the server has answered, or
// when a field changes), its submit button disabled while the request is out.
function createForm(form, send) {
  let key = newKey();
  let sending = false;
  const submit = form.querySelector('[type="submit"]');
  form.addEventListener("change", () => { if (!sending) key = newKey(); });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (sending) return;
    sending = true;
    submit.disabled = true;
    showError("");
    try {
      await send(new FormData(form), key);
      key = newKey();
    } catch (error) {
      showError(error.message, form);
      key = newKey();
    } finally {
      sending = false;
      submit.disabled = false;
    }
  });
}

// The seat counts the chosen deck's game offers (its queue_seats, from the registry).
function syncSeats(form) {
  const deckSelect = form.querySelector("[data-seats-from]");
  const seats = form.querySelector("[data-seats]");
  if (!deckSelect || !seats) return;
  const update = () => {
    const deck = DECKS.find((d) => String(d.id) === deckSelect.value);
    const counts = deck?.seats ?? [2];
    const current = Number(seats.value);
    seats.replaceChildren(...counts.map((n) => new Option(`${n} players`, String(n))));
    seats.value = String(counts.includes(current) ? current : counts[0]);
    seats.disabled = counts.length < 2;
  };
  deckSelect.addEventListener("change", update);
  update();
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value === true ? "" : value);
  node.append(...children);
  return node;
}

function showError(message, form = null) {
  for (const node of root.querySelectorAll("[data-lobby-error]")) {
    const mine = form ? node.closest("form") === form : !node.closest("form");
    node.textContent = mine ? message : "";
    node.hidden = !mine || !message;
  }
}

/** Send the player on to ``url`` (a match), noting it so the lobby never says it has checked. */
function go(url) {
  root.dataset.leaving = "";
  location.href = url;
}

function startQueue() {
  const queueForm = root.querySelector('[data-form="queue"]');
  if (!queueForm) return Promise.resolve();
  const state = root.querySelector("[data-queue-state]");
  const leave = root.querySelector("[data-leave]");
  let polling = null;

  // "matched" only ever names a match still being played: the server forgets the pairing
  // once the match is over, so this never sends anyone back to a finished match.
  function showQueue(status) {
    if (status.state === "matched") {
      state.textContent = "Opponent found! Opening the match…";
      go(status.url);
      return;
    }
    leave.hidden = status.state !== "waiting";
    state.textContent = status.state === "waiting" ? `Waiting for an opponent… (${status.waited_seconds} s)` : "";
    clearTimeout(polling);
    if (status.state === "waiting") {
      polling = setTimeout(async () => showQueue(await call(root.dataset.queueUrl, "GET")), 1000);
    }
  }

  syncSeats(queueForm);
  createForm(queueForm, async (data, key) => {
    showQueue(await call(root.dataset.queueUrl, "POST",
      { deck: Number(data.get("deck")), seats: Number(queueForm.querySelector("[data-seats]").value) }, key));
  });
  leave.addEventListener("click", async () => {
    try { showQueue(await call(root.dataset.queueUrl, "DELETE")); } catch (error) { showError(error.message); }
  });
  return call(root.dataset.queueUrl, "GET").then(showQueue).catch(() => {});
}

function startBot() {
  const botForm = root.querySelector('[data-form="bot"]');
  if (!botForm) return;
  syncSeats(botForm);
  createForm(botForm, async (data, key) => {
    const match = await call(root.dataset.botUrl, "POST",
      { deck: Number(data.get("deck")), bot: data.get("bot"), seats: Number(botForm.querySelector("[data-seats]").value) },
      key);
    go(match.url);
    // Stay disabled while the board opens: the page is leaving.
    await new Promise(() => {});
  });
}

function startChallenges() {
  const url = root.dataset.challengesUrl;
  const decks = DECKS;
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
      if (done.url) { go(done.url); return; }
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

  function show(found) {
    const accepted = found.accepted.find((c) => c.url && !sessionStorage.getItem(`seen-${c.id}`));
    if (accepted) { sessionStorage.setItem(`seen-${accepted.id}`, "1"); go(accepted.url); return; }
    place(received, "received", found.received, receivedItem);
    place(sent, "sent", [...found.sent, ...found.declined], (c) => (c.status === "declined" ? declinedItem(c) : sentItem(c)));
    inbox.hidden = items.size === 0;
  }

  async function refresh() {
    try {
      show(await call(url, "GET"));
    } catch { /* signed out or offline: try again later */ }
  }

  const challengeForm = root.querySelector('[data-form="challenge"]');
  if (challengeForm) {
    createForm(challengeForm, async (data, key) => {
      const username = String(data.get("username") ?? "").trim();
      if (!username) throw new Error("Name the player to challenge.");
      await call(url, "POST", { username, deck: Number(data.get("deck")) }, key);
      challengeForm.querySelector('[name="username"]').value = "";
      refresh();
    });
  }
  // The lists the page was served with are drawn at once, before anything is pressed:
  // drawn only after a first request, they would push the forms down under the pointer.
  const first = document.getElementById("live-challenges");
  if (first) show(JSON.parse(first.textContent));
  setInterval(() => { if (!document.hidden) refresh(); }, REFRESH_MS);
  return refresh();
}

if (root) {
  const asked = [startQueue(), startChallenges()];
  startBot();
  // Once the server has said where the player stands (queue and challenges) and that
  // sent them nowhere, the lobby says so: data-checked is what tests wait for before
  // they assert that nothing happened.
  Promise.all(asked).then(() => {
    if (!("leaving" in root.dataset)) root.dataset.checked = "";
  });
}
