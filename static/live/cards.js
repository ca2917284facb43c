// Card text on the live board: the game's public card pool (/cards/<game>/text.json,
// fetched once), small card faces for the hand, and a tip that shows a card's face on
// hover, on keyboard focus and on tap, for every element that names a card (data-card-id).

let pool = {};
let byName = [];

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Load the game's card texts; the board works (with names only) if this fails. */
export async function loadCards(game) {
  try {
    const response = await fetch(`/cards/${game}/text.json`, { credentials: "same-origin" });
    if (response.ok) pool = (await response.json()).cards ?? {};
  } catch {
    pool = {};
  }
  // Longest names first, so "Echo of the Null" wins over a shorter name inside it.
  byName = Object.values(pool).map((c) => c.name).sort((a, b) => b.length - a.length);
  return pool;
}

export const cardInfo = (id) => pool[id] ?? null;

/** A card's face: name, costs, art, type line, keywords, rules text, labelled stats. */
export function cardFace(id, { name = null, compact = false, extra = null } = {}) {
  const card = cardInfo(id);
  const title = card?.name ?? name ?? id;
  if (!card) return el("div", { class: "lc-face", "data-card-id": id }, el("strong", { class: "lc-name" }, title));
  return el("div", { class: `lc-face lc-type-${card.type}${compact ? " lc-compact" : ""}` },
    el("div", { class: "lc-head" },
      el("strong", { class: "lc-name" }, title),
      card.costs.length ? el("span", { class: "lc-costs" }, card.costs.map((c) =>
        el("span", { class: `lc-cost lc-cost-${c.key}`, title: `${c.label} ${c.value}` },
          el("abbr", { title: c.label }, c.label), " ", el("b", {}, c.value)))) : null),
    el("img", { class: "lc-art", src: card.art, alt: "", width: 240, height: 140, loading: "lazy", decoding: "async" }),
    el("p", { class: "lc-typeline" }, card.type_line),
    card.keywords.length ? el("p", { class: "lc-keywords" }, card.keywords.join(" · ")) : null,
    el("p", { class: "lc-text" }, card.text || "No rules text."),
    card.stats.length ? el("p", { class: "lc-stats" }, card.stats.map((s) =>
      el("span", { class: `lc-stat lc-stat-${s.key}` }, el("abbr", { title: s.label }, s.short), " ", el("b", {}, s.value)))) : null,
    extra);
}

/** Text with every card name of the pool wrapped in a span that shows its text. */
export function withCardNames(text) {
  if (!byName.length) return [text];
  const out = [];
  let rest = text;
  while (rest) {
    let best = null;
    for (const name of byName) {
      const at = rest.indexOf(name);
      if (at >= 0 && (best === null || at < best.at)) best = { at, name };
    }
    if (!best) { out.push(rest); break; }
    const card = Object.values(pool).find((c) => c.name === best.name);
    out.push(rest.slice(0, best.at),
      el("span", { class: "lc-ref", "data-card-id": card.id, tabindex: 0 }, best.name));
    rest = rest.slice(best.at + best.name.length);
  }
  return out;
}

/**
 * Show a card's face next to whatever names it (data-card-id) under `root`: on mouse
 * hover, on keyboard focus, and on a long press or a tap of the "i" on a touch screen.
 */
export function attachTips(root) {
  const tip = el("div", { class: "lc-tip", role: "tooltip", id: "live-card-tip", hidden: true });
  document.body.append(tip);
  let shownFor = null;
  const show = (target) => {
    const id = target.dataset.cardId;
    if (!id || !cardInfo(id)) return;
    shownFor = target;
    tip.replaceChildren(cardFace(id));
    tip.hidden = false;
    const box = target.getBoundingClientRect();
    const width = Math.min(260, window.innerWidth - 16);
    tip.style.width = `${width}px`;
    let left = box.right + 8;
    if (left + width > window.innerWidth - 8) left = box.left - width - 8;
    if (left < 8) left = Math.max(8, Math.min(window.innerWidth - width - 8, box.left));
    const height = tip.offsetHeight;
    let top = box.top;
    if (left === Math.max(8, Math.min(window.innerWidth - width - 8, box.left))) {
      top = box.top - height - 8 < 8 ? box.bottom + 8 : box.top - height - 8;
    }
    top = Math.max(8, Math.min(top, window.innerHeight - height - 8));
    tip.style.left = `${left}px`;
    tip.style.top = `${top}px`;
  };
  const hide = () => { tip.hidden = true; shownFor = null; };
  const cardTarget = (event) => event.target.closest?.("[data-card-id]");
  root.addEventListener("mouseover", (event) => {
    const target = cardTarget(event);
    if (target && root.contains(target)) show(target);
  });
  root.addEventListener("mouseout", (event) => {
    const target = cardTarget(event);
    if (target && !target.contains(event.relatedTarget)) hide();
  });
  // Keyboard focus shows the text; a tap or a click that focuses does not (it chooses).
  root.addEventListener("focusin", (event) => {
    const target = cardTarget(event);
    if (target && target.matches(":focus-visible")) show(target);
  });
  root.addEventListener("focusout", (event) => { if (!event.relatedTarget?.closest?.("[data-card-info]")) hide(); });
  // Touch: the "i" of a card (data-card-info) shows its text without choosing it; a tap
  // anywhere else hides it.
  document.addEventListener("click", (event) => {
    const info = event.target.closest?.("[data-card-info]");
    if (!info || !root.contains(info)) { if (shownFor) hide(); return; }
    event.preventDefault();
    event.stopPropagation();
    show(info.closest("[data-card-id]"));
  }, true);
  document.addEventListener("keydown", (event) => { if (event.key === "Escape") hide(); });
  // Scrolling moves the tip with its card (or drops it when the card is gone).
  window.addEventListener("scroll", () => {
    if (shownFor?.isConnected) show(shownFor); else if (shownFor) hide();
  }, { passive: true });
  return { hide };
}
