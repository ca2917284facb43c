// The organiser's form: the "Live rounds" settings are shown only for events where people
// play, the bot cap only for mixed events, the minutes between rounds only for scheduled
// rounds. Without this script every setting stays visible (and a bot event ignores them).

const form = document.querySelector("[data-tournament-form]");

if (form) {
  const live = form.querySelector("[data-live-settings]");
  const mixedOnly = form.querySelector("[data-mixed-only]");
  const scheduledOnly = form.querySelector("[data-scheduled-only]");
  const note = form.querySelector("[data-live-settings-note]");

  function sync() {
    const entrants = form.querySelector("input[name=entrants]:checked")?.value ?? "bots";
    const roundStart = form.querySelector("select[name=round_start]")?.value ?? "at_once";
    // A setting the service refused stays in view whoever plays, so its message is seen.
    if (live) live.hidden = entrants === "bots" && !live.querySelector(".field-invalid");
    if (mixedOnly) mixedOnly.hidden = entrants !== "mixed";
    if (scheduledOnly) scheduledOnly.hidden = roundStart !== "scheduled";
    if (note) {
      note.textContent = entrants === "mixed"
        ? "People play their games live on the board; bots entered by their owners play theirs there too."
        : "People play their games live on the board, round by round.";
    }
  }

  form.addEventListener("change", sync);
  sync();
}
