// The /live/ lobby: queue (polls where I stand until matched), play a bot, challenge a player.
const root = document.querySelector("[data-live-lobby]");

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

function showError(message) {
  const node = root.querySelector("[data-lobby-error]");
  node.textContent = message;
  node.hidden = !message;
}

if (root) {
  const queueForm = root.querySelector('[data-form="queue"]');
  const state = root.querySelector("[data-queue-state]");
  const leave = root.querySelector("[data-leave]");
  let polling = null;

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
  leave.addEventListener("click", async () => showQueue(await call(root.dataset.queueUrl, "DELETE")));

  const botForm = root.querySelector('[data-form="bot"]');
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

  const challengeForm = root.querySelector('[data-form="challenge"]');
  const list = root.querySelector("[data-challenges]");
  async function refreshChallenges() {
    try {
      const found = await call(root.dataset.challengesUrl, "GET");
      const accepted = found.accepted.find((c) => c.url && !sessionStorage.getItem(`seen-${c.id}`));
      if (accepted) { sessionStorage.setItem(`seen-${accepted.id}`, "1"); location.href = accepted.url; return; }
      list.replaceChildren(...found.received.map((c) => {
        const item = document.createElement("li");
        item.textContent = `${c.challenger} challenges you (${c.game}, ${c.deck}) `;
        for (const [text, accept] of [["Accept", true], ["Decline", false]]) {
          const button = document.createElement("button");
          button.type = "button";
          button.className = "button button-small";
          button.textContent = text;
          button.addEventListener("click", async () => {
            try {
              const deck = Number(new FormData(challengeForm).get("deck"));
              const answer = await call(`${root.dataset.challengesUrl}${c.id}/`, "POST", accept ? { accept, deck } : { accept });
              if (answer.url) location.href = answer.url; else refreshChallenges();
            } catch (error) { showError(error.message); }
          });
          item.append(button);
        }
        return item;
      }), ...found.sent.map((c) => {
        const item = document.createElement("li");
        item.textContent = `Waiting for ${c.challenged} to answer…`;
        return item;
      }));
    } catch (error) { /* signed out or offline: try again later */ }
  }
  challengeForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    showError("");
    try {
      const data = new FormData(challengeForm);
      await call(root.dataset.challengesUrl, "POST", { username: data.get("username"), deck: Number(data.get("deck")) });
      refreshChallenges();
    } catch (error) { showError(error.message); }
  });
  refreshChallenges();
  setInterval(refreshChallenges, 3000);
  call(root.dataset.queueUrl, "GET").then(showQueue).catch(() => {});
}
