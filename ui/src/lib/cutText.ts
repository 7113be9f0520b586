// Text cut to fit a column is never lost: hovering (or focusing) a cell whose text does not
// fit shows the whole text as its tooltip. One listener on a table serves all its cells.

/** Whether `element` (or a part of it marked `.cut`) shows less than its text. */
function isCut(element: HTMLElement): boolean {
  if (element.scrollWidth > element.clientWidth + 1) return true;
  for (const part of element.querySelectorAll<HTMLElement>(".cut")) {
    if (part.scrollWidth > part.clientWidth + 1) return true;
  }
  return false;
}

/** A `mouseover`/`focusin` handler: the cell under the event gets its text as `title` when cut.
 *  Cells with a tooltip of their own (`data-title`) keep it. */
export function titleCutCells(event: Event, selector = "td, [role='cell']"): void {
  const target = event.target;
  if (!(target instanceof Element)) return;
  const cell = target.closest<HTMLElement>(selector);
  if (!cell || cell.dataset.title !== undefined) return;
  if (isCut(cell)) cell.title = (cell.textContent ?? "").replace(/\s+/g, " ").trim();
  else cell.removeAttribute("title");
}
