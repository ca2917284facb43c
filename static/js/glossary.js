// Glossary terms that explain themselves. Any element with data-term="<slug>" (and an
// optional data-game="<game key>", else the nearest ancestor's data-game, else
// the page's) becomes a link to its glossary entry with a tooltip shown on hover and on
// keyboard focus, announced through aria-describedby. Inside an element marked
// data-glossary (with data-game), text that names a term (its name or an alias, whole
// words) is wrapped the same way. data-term may hold the term's slug or its printed name
// ("Armor 2"). The terms come from /rules/glossary.json, fetched once
// and only when the page has something to explain. See docs/site.md.
//
//   import { explainTerms } from "/static/js/glossary.js";
//   explainTerms(boardElement);   // after drawing new content that carries data-term

const script = document.querySelector("script[data-glossary-url]");
const GLOSSARY_URL = script?.dataset.glossaryUrl || "/rules/glossary.json";
let loading = null;
let tooltip = null;
let counter = 0;

function load() {
  if (!loading) {
    loading = fetch(GLOSSARY_URL, { headers: { Accept: "application/json" } })
      .then((response) => (response.ok ? response.json() : { games: {} }))
      .then((data) => {
        const bySlug = {};
        const byName = {};
        for (const [game, terms] of Object.entries(data.games || {})) {
          bySlug[game] = {};
          byName[game] = {};
          for (const term of terms) {
            bySlug[game][term.slug] = term;
            for (const name of [term.term, ...(term.aliases || [])]) byName[game][name.toLowerCase()] = term;
          }
        }
        return { bySlug, byName };
      })
      .catch(() => ({ bySlug: {}, byName: {} }));
  }
  return loading;
}

function gameOf(element) {
  const own = element.closest("[data-game]")?.dataset.game;
  return own || document.body.dataset.game || null;
}

// data-term holds a slug ("presence") or a term's name or alias as printed ("Armor 2").
function find(index, value, game) {
  const key = value.trim().toLowerCase();
  const games = game ? [game, ...Object.keys(index.bySlug).filter((g) => g !== game)] : Object.keys(index.bySlug);
  for (const g of games) {
    const term = index.bySlug[g]?.[key] || index.byName[g]?.[key];
    if (term) return term;
  }
  return null;
}

function ensureTooltip() {
  if (tooltip) return tooltip;
  tooltip = document.createElement("div");
  tooltip.className = "term-tooltip";
  tooltip.id = "term-tooltip";
  tooltip.setAttribute("role", "tooltip");
  tooltip.hidden = true;
  document.body.append(tooltip);
  return tooltip;
}

function show(element) {
  const tip = ensureTooltip();
  tip.replaceChildren();
  const title = document.createElement("strong");
  title.textContent = element.dataset.termTitle;
  const text = document.createElement("span");
  text.textContent = element.dataset.termShort;
  tip.append(title, " ", text);
  tip.hidden = false;
  const box = element.getBoundingClientRect();
  const width = Math.min(320, document.documentElement.clientWidth - 16);
  tip.style.maxWidth = `${width}px`;
  const left = Math.max(8, Math.min(box.left + window.scrollX, window.scrollX + document.documentElement.clientWidth - width - 8));
  tip.style.left = `${left}px`;
  tip.style.top = `${box.bottom + window.scrollY + 6}px`;
  element.setAttribute("aria-describedby", `${element.dataset.termDescId} ${tip.id}`);
}

function hide(element) {
  if (tooltip) tooltip.hidden = true;
  element.setAttribute("aria-describedby", element.dataset.termDescId);
}

function decorate(element, term) {
  if (element.dataset.termReady) return;
  element.dataset.termReady = "1";
  element.classList.add("term");
  element.dataset.termTitle = term.term;
  element.dataset.termShort = term.short;
  // A hidden description keeps the explanation available to screen readers at all times.
  const desc = document.createElement("span");
  desc.className = "visually-hidden";
  desc.id = `term-desc-${++counter}`;
  desc.textContent = term.short;
  element.dataset.termDescId = desc.id;
  let target = element;
  // Inside a form (the deck builder) a term explains itself on hover but is no link and
  // no extra tab stop: following it would leave the unsaved form.
  const inForm = Boolean(element.closest("form"));
  if (inForm) {
    target.setAttribute("aria-describedby", desc.id);
    element.append(desc);
    target.addEventListener("mouseenter", () => show(target));
    target.addEventListener("mouseleave", () => hide(target));
    target.dataset.termTitle = term.term;
    target.dataset.termShort = term.short;
    target.dataset.termDescId = desc.id;
    return;
  }
  if (element.tagName !== "A" && !element.closest("a, button")) {
    const link = document.createElement("a");
    link.href = term.url;
    link.className = "term-link";
    link.append(...element.childNodes);
    element.append(link);
    target = link;
  } else if (element.tagName === "A" && !element.getAttribute("href")) {
    element.href = term.url;
  }
  if (!target.matches("a, button, [tabindex]")) target.tabIndex = 0;
  target.dataset.termTitle = term.term;
  target.dataset.termShort = term.short;
  target.dataset.termDescId = desc.id;
  target.setAttribute("aria-describedby", desc.id);
  element.append(desc);
  target.addEventListener("mouseenter", () => show(target));
  target.addEventListener("mouseleave", () => hide(target));
  target.addEventListener("focus", () => show(target));
  target.addEventListener("blur", () => hide(target));
  target.addEventListener("keydown", (event) => { if (event.key === "Escape") hide(target); });
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function markText(root, index) {
  for (const zone of root.querySelectorAll("[data-glossary]")) {
    const game = gameOf(zone);
    const names = index.byName[game];
    if (!names || zone.dataset.glossaryDone) continue;
    zone.dataset.glossaryDone = "1";
    const words = Object.keys(names).sort((a, b) => b.length - a.length).map(escapeRegExp);
    if (!words.length) continue;
    const pattern = new RegExp(`\\b(${words.join("|")})\\b`, "i");
    const walker = document.createTreeWalker(zone, NodeFilter.SHOW_TEXT, {
      acceptNode: (node) => (node.parentElement.closest("a, button, script, style, [data-term], .visually-hidden")
        ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
    });
    const nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    for (let node of nodes) {
      let match;
      while (node && (match = pattern.exec(node.textContent))) {
        const term = names[match[1].toLowerCase()];
        const after = node.splitText(match.index);
        node = after.splitText(match[1].length);
        const span = document.createElement("span");
        span.dataset.term = term.slug;
        span.dataset.game = game;
        after.replaceWith(span);
        span.append(after);
      }
    }
  }
}

export async function explainTerms(root = document) {
  if (!root.querySelector("[data-term], [data-glossary]")) return;
  const index = await load();
  markText(root, index);
  for (const element of root.querySelectorAll("[data-term]")) {
    const term = find(index, element.dataset.term, gameOf(element));
    if (term) decorate(element, term);
  }
}

explainTerms();
