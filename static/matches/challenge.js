// Challenge form: once your deck is chosen, only decks of the same game can be picked as
// opponents, and the extra opponent fields show only for Conquest (2 to 4 players).

const form = document.querySelector("[data-challenge-form]");

function sync() {
  const own = form.querySelector("[data-own-deck]");
  const game = own.selectedOptions[0]?.dataset.game || "";
  for (const select of form.querySelectorAll("[data-opponent]")) {
    for (const option of select.options) {
      if (!option.value) continue;
      const hidden = Boolean(game) && option.dataset.game !== game;
      option.hidden = hidden;
      option.disabled = hidden;
      if (hidden && option.selected) select.value = "";
    }
  }
  for (const field of form.querySelectorAll("[data-conquest-only]")) {
    const show = game === "conquest";
    field.hidden = !show;
    if (!show) field.querySelector("select").value = "";
  }
}

if (form) {
  form.querySelector("[data-own-deck]").addEventListener("change", sync);
  sync();
}
