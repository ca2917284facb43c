// Challenge form: once your deck is chosen, only decks of the same game can be picked as
// opponents, and an extra opponent field shows only when the deck's game seats enough
// players (each own deck says its game's data-max-seats; each extra field the seats it needs).

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
  const seats = Number(own.selectedOptions[0]?.dataset.maxSeats || 2);
  for (const field of form.querySelectorAll("[data-seats-needed]")) {
    const show = seats >= Number(field.dataset.seatsNeeded);
    field.hidden = !show;
    if (!show) field.querySelector("select").value = "";
  }
}

if (form) {
  form.querySelector("[data-own-deck]").addEventListener("change", sync);
  sync();
}
