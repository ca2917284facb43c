// The card table of a metagame page: sort by a column (click its heading again to
// reverse), filter by card type. The rows carry their figures in data attributes;
// a figure with no value ("—") sorts last either way.

const table = document.querySelector("[data-card-table]");
const typeSelect = document.querySelector("[data-card-type]");

if (table) {
  const body = table.tBodies[0];
  const dataKey = (name) => name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());

  const sortBy = (button) => {
    const heading = button.closest("th");
    const descending = heading.getAttribute("aria-sort") !== "descending";
    for (const th of table.tHead.rows[0].cells) th.removeAttribute("aria-sort");
    heading.setAttribute("aria-sort", descending ? "descending" : "ascending");
    const key = dataKey(button.dataset.sort);
    const text = button.dataset.kind === "text";
    const rows = [...body.rows];
    rows.sort((a, b) => {
      const x = a.dataset[key];
      const y = b.dataset[key];
      if (text) return descending ? y.localeCompare(x) : x.localeCompare(y);
      if (x === "" || y === "") return (x === "") - (y === "");
      return descending ? Number(y) - Number(x) : Number(x) - Number(y);
    });
    body.append(...rows);
  };

  table.tHead.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-sort]");
    if (button) sortBy(button);
  });

  if (typeSelect) {
    typeSelect.addEventListener("change", () => {
      for (const row of body.rows) row.hidden = Boolean(typeSelect.value) && row.dataset.type !== typeSelect.value;
    });
  }
}
