// Shared by the teach-*.test.mjs browser tests: reading the teaching views'
// tables as numbers and text.
import assert from 'node:assert/strict';

/** Any table as { caption, header: [column labels], rows: [{ label, cells: [text], classes: [class] }] }. */
export async function tableOf(page, selector) {
  await page.waitForSelector(`${selector} tbody tr`, { timeout: 10000 });
  return page.locator(selector).evaluate((table) => ({
    caption: table.querySelector('caption')?.textContent ?? '',
    header: [...table.querySelectorAll('thead th')].slice(1).map((th) => th.textContent),
    rows: [...table.querySelectorAll('tbody tr')].map((tr) => ({
      label: tr.querySelector('th')?.textContent ?? '',
      cells: [...tr.querySelectorAll('td')].map((td) => td.textContent),
      classes: [...tr.querySelectorAll('td')].map((td) => td.className),
    })),
  }));
}

/** The row labelled `label` of a table read by tableOf. */
export function rowNamed(table, label) {
  const row = table.rows.find((r) => r.label === label);
  assert.ok(row, `no row '${label}' in ${JSON.stringify(table.rows.map((r) => r.label))}`);
  return row.cells;
}

/** Printed numbers equal `expected` rounded to `decimals`, exactly as printed. */
export function assertPrinted(cells, expected, decimals = 4) {
  assert.deepEqual(cells, expected.map((x) => x.toFixed(decimals)));
}

/** Waits until the table at `selector` has a header equal to `header`. */
export async function waitForHeader(page, selector, header) {
  await page.waitForFunction(([sel, want]) => {
    const ths = [...document.querySelectorAll(`${sel} thead th`)].slice(1).map((th) => th.textContent);
    return JSON.stringify(ths) === JSON.stringify(want);
  }, [selector, header], { timeout: 10000 });
}
