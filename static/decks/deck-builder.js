// The deck builder: a card pool to search and add from, kept in step with the decklist
// text box. The text box is the one source of truth — the form submits it, the server
// validates it — so the builder only ever edits its lines: lines it does not understand
// are left exactly as typed, and shown in the list as lines to fix.

const form = document.querySelector("[data-deck-builder]");

if (form) {
  const rules = JSON.parse(document.getElementById("deck-rules").textContent);
  const textarea = form.querySelector("[data-decklist-input]");
  const list = form.querySelector("[data-builder-list]");
  const summary = form.querySelector("[data-builder-summary]");
  const countEl = form.querySelector("[data-builder-count]");
  const targetEl = form.querySelector("[data-builder-target]");
  const warningsEl = form.querySelector("[data-builder-warnings]");
  const commanderSelect = form.querySelector("[data-commander-select]");
  const commanderLabel = form.querySelector("[data-commander-label]");
  const search = form.querySelector("[data-pool-search]");
  const typeSelect = form.querySelector("[data-pool-type]");
  const poolCount = form.querySelector("[data-pool-count]");
  const pools = [...form.querySelectorAll("[data-pool]")];

  const LINE = /^\s*(\d+)\s*[xX×]?\s+(.+?)\s*$/;

  // Card names of each game, folded for lookups, mapping to the pool's spelling.
  const names = {};
  for (const pool of pools) {
    names[pool.dataset.pool] = new Map(
      [...pool.querySelectorAll("[data-pool-item]")].map((item) => [item.dataset.name.toLowerCase(), item]),
    );
  }

  const currentGame = () => {
    const checked = form.querySelector('input[name="game"]:checked');
    return checked ? checked.value : null;
  };

  const commanderPattern = (label) => new RegExp(`^\\s*${label}\\s*:\\s*(.*?)\\s*(#.*)?$`, "i");

  // Parse the text box into lines: {kind: "card" | "commander" | "other" | "blank", ...}.
  function parse(text) {
    const game = currentGame();
    const label = game ? rules[game].label : "(?:Leader|Celestial)";
    const commanderLine = commanderPattern(label);
    return text.split("\n").map((raw) => {
      const body = raw.split("#")[0].trim();
      if (!body) return { kind: "blank", raw };
      const commander = raw.match(commanderLine);
      if (commander) return { kind: "commander", raw, name: commander[1] };
      const card = body.match(LINE);
      if (card) return { kind: "card", raw, count: Number(card[1]), name: card[2] };
      return { kind: "other", raw };
    });
  }

  // The text never starts with blank lines (a list built by clicking starts with its first
  // card) and ends with exactly one newline; an empty list is an empty box.
  function write(lines) {
    const text = lines.map((line) => line.raw).join("\n").replace(/^(\s*\n)+/, "").replace(/\s+$/, "");
    textarea.value = text ? `${text}\n` : "";
    refresh();
  }

  function changeCount(name, delta) {
    const lines = parse(textarea.value);
    const key = name.toLowerCase();
    const found = lines.find((line) => line.kind === "card" && line.name.toLowerCase() === key);
    if (found) {
      found.count = Math.max(0, found.count + delta);
      found.raw = `${found.count} ${found.name}`;
      write(found.count ? lines : lines.filter((line) => line !== found));
    } else if (delta > 0) {
      const kept = lines.filter((line, index) => !(line.kind === "blank" && index === lines.length - 1));
      kept.push({ kind: "card", raw: `${delta} ${name}`, count: delta, name });
      write(kept);
    }
  }

  function renderList(lines, game, hasCommander) {
    const rule = game ? rules[game] : null;
    const known = game ? names[game] : new Map();
    list.replaceChildren();
    let total = 0;
    let unknown = 0;
    const warnings = [];
    for (const line of lines) {
      if (line.kind === "blank" || line.kind === "commander") continue;
      const row = document.createElement("li");
      row.className = "builder-row";
      if (line.kind === "other") {
        unknown += 1;
        row.classList.add("is-problem");
        row.textContent = `Not a card line: “${line.raw.trim()}” — write it as “2 Card Name”.`;
        list.append(row);
        continue;
      }
      total += line.count;
      const item = known.get(line.name.toLowerCase());
      const count = document.createElement("span");
      count.className = "builder-count";
      count.textContent = `${line.count}×`;
      const name = document.createElement("span");
      name.className = "builder-name";
      name.textContent = item ? item.dataset.name : line.name;
      row.append(count, name);
      if (!item) {
        unknown += 1;
        row.classList.add("is-problem");
        name.append(game ? ` — not in the ${rules[game].title} card pool` : " — choose a game first");
      } else {
        const type = document.createElement("span");
        type.className = "builder-type muted";
        type.textContent = item.dataset.typeTitle;
        row.append(type);
        if (rule && rule.max_copies && line.count > rule.max_copies) {
          row.classList.add("is-problem");
          warnings.push(`${line.count} copies of ${item.dataset.name} (at most ${rule.max_copies})`);
        }
      }
      const minus = button("−", `One less ${name.textContent}`, () => changeCount(line.name, -1));
      const plus = button("+", `One more ${name.textContent}`, () => changeCount(line.name, +1));
      plus.dataset.plus = "";
      plus.dataset.name = line.name.toLowerCase();
      row.append(minus, plus);
      list.append(row);
    }
    if (unknown) warnings.push(`${unknown} line${unknown === 1 ? "" : "s"} to fix`);
    if (rule && total >= rule.deck_size && !hasCommander) warnings.push(`no ${rule.label} yet`);
    countEl.textContent = String(total);
    targetEl.textContent = rule && rule.deck_size ? ` of ${rule.deck_size}` : "";
    if (rule && rule.deck_size && total !== rule.deck_size && total > 0) {
      warnings.unshift(total < rule.deck_size ? `${rule.deck_size - total} to go` : `${total - rule.deck_size} too many`);
    }
    warningsEl.textContent = warnings.length ? ` · ${warnings.join(" · ")}` : "";
    summary.classList.toggle("is-complete", Boolean(rule && total === rule.deck_size && !warnings.length));
    summary.classList.toggle("is-problem", warnings.length > 0 && total > 0);
    return total;
  }

  // "+" is offered only while the card can go in: below the game's copy limit and with
  // room left in the deck (the server checks both again).
  function addBlocked(rule, copies, total) {
    if (!rule) return "";
    if (rule.deck_size && total >= rule.deck_size) return `the deck has its ${rule.deck_size} cards`;
    if (rule.max_copies && copies >= rule.max_copies) return `at most ${rule.max_copies} copies`;
    return "";
  }

  function button(text, label, onClick) {
    const el = document.createElement("button");
    el.type = "button";
    el.className = "button button-small button-ghost";
    el.textContent = text;
    el.setAttribute("aria-label", label);
    el.addEventListener("click", onClick);
    return el;
  }

  function renderPool(lines, game, total) {
    const counts = new Map();
    for (const line of lines) {
      if (line.kind === "card") counts.set(line.name.toLowerCase(), (counts.get(line.name.toLowerCase()) || 0) + line.count);
    }
    const rule = game ? rules[game] : null;
    for (const plus of list.querySelectorAll("[data-plus]")) {
      const why = addBlocked(rule, counts.get(plus.dataset.name) || 0, total);
      plus.disabled = Boolean(why);
      plus.title = why;
    }
    const words = (search.value || "").toLowerCase().split(/\s+/).filter(Boolean);
    const type = typeSelect.value;
    let shown = 0;
    for (const pool of pools) {
      pool.hidden = pool.dataset.pool !== game;
      if (pool.hidden) continue;
      for (const item of pool.querySelectorAll("[data-pool-item]")) {
        const visible = (!type || item.dataset.type === type) && words.every((w) => item.dataset.search.includes(w));
        item.hidden = !visible;
        if (visible) shown += 1;
        const badge = item.querySelector("[data-in-deck]");
        if (badge) {
          const n = counts.get(item.dataset.name.toLowerCase()) || 0;
          badge.textContent = n ? `${n} in deck` : "";
          const add = item.querySelector("[data-add-card]");
          const why = addBlocked(rule, n, total);
          add.disabled = Boolean(why);
          add.title = why;
          if (n && rule && rule.max_copies && n >= rule.max_copies) badge.textContent += " (the most)";
        }
      }
    }
    poolCount.textContent = game ? `${shown} card${shown === 1 ? "" : "s"}` : "Choose a game to see its cards.";
  }

  function syncCommander(lines, game) {
    if (!game) return;
    commanderLabel.textContent = rules[game].label;
    for (const group of commanderSelect.querySelectorAll("optgroup")) {
      const mine = group.dataset.game === game;
      group.hidden = !mine;
      group.disabled = !mine;
    }
    const named = lines.find((line) => line.kind === "commander");
    if (named) {
      const option = [...commanderSelect.options].find(
        (o) => !o.parentElement.disabled && o.value.toLowerCase() === named.name.toLowerCase(),
      );
      if (option) commanderSelect.value = option.value;
    }
    const selected = commanderSelect.selectedOptions[0];
    if (selected && selected.parentElement.disabled) commanderSelect.value = "";
  }

  function refreshTypes(game) {
    const seen = new Map();
    const pool = pools.find((p) => p.dataset.pool === game);
    if (pool) {
      for (const item of pool.querySelectorAll("[data-pool-item]")) seen.set(item.dataset.type, item.dataset.typeTitle);
    }
    const current = typeSelect.value;
    typeSelect.replaceChildren(new Option("Every type", ""));
    for (const [type, title] of seen) typeSelect.append(new Option(title, type));
    typeSelect.value = seen.has(current) ? current : "";
  }

  function refresh() {
    const game = currentGame();
    const lines = parse(textarea.value);
    syncCommander(lines, game);
    const hasCommander = Boolean(commanderSelect.value) || lines.some((line) => line.kind === "commander");
    const total = renderList(lines, game, hasCommander);
    renderPool(lines, game, total);
  }

  // The builder only works with scripts: show its parts now.
  for (const el of form.querySelectorAll("[data-builder-summary], [data-builder-list], [data-pool-filters], .pool-item-actions")) {
    el.hidden = false;
  }

  form.addEventListener("click", (event) => {
    const item = event.target.closest("[data-pool-item]");
    if (!item) return;
    if (event.target.closest("[data-add-card]")) changeCount(item.dataset.name, +1);
    if (event.target.closest("[data-choose-commander]")) {
      commanderSelect.value = item.dataset.name;
      // The select wins over a commander line in the text: drop the line.
      const lines = parse(textarea.value).filter((line) => line.kind !== "commander");
      write(lines);
    }
  });
  commanderSelect.addEventListener("change", () => {
    write(parse(textarea.value).filter((line) => line.kind !== "commander"));
  });
  textarea.addEventListener("input", refresh);
  search.addEventListener("input", refresh);
  typeSelect.addEventListener("change", refresh);
  for (const radio of form.querySelectorAll('input[name="game"]')) {
    radio.addEventListener("change", () => {
      refreshTypes(currentGame());
      refresh();
    });
  }

  // One submit per page: a second click while the first is sent does nothing (and the
  // form's idempotency key makes a second request return the first deck anyway).
  form.addEventListener("submit", (event) => {
    if (form.dataset.sending) { event.preventDefault(); return; }
    form.dataset.sending = "1";
    for (const submit of form.querySelectorAll('[type="submit"]')) submit.setAttribute("aria-disabled", "true");
  });
  window.addEventListener("pageshow", () => {
    delete form.dataset.sending;
    for (const submit of form.querySelectorAll('[type="submit"]')) submit.removeAttribute("aria-disabled");
  });

  refreshTypes(currentGame());
  refresh();
  const summaryBox = document.querySelector("[data-error-summary]");
  if (summaryBox) summaryBox.focus();
}
