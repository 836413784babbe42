// Every weights table of the page (the sentence's `<table id="weights">`, the
// teaching panels' and the trained model's open head): a real table for
// screen readers, for copying and for the tests, one header cell per key,
// one row per query, each weight written with 4 decimals.
//
// A long matrix (more than ALL_ROWS rows or columns) would make n² cells, a
// million at 1,024 tokens, rebuilt on every change. There the table has
// fixed column widths (so laying it out never measures a cell) and renders
// only the cells in view, the focused query's row always among them, with
// spacers that keep both scroll bars true; aria-rowcount, aria-colcount,
// aria-rowindex and aria-colindex tell assistive technology the real size
// and where each cell sits. Off screen it holds the focused row alone, and
// fills in when scrolled into view. The header keeps one cell per key,
// updated in place (typing a word changes one).
//
// Printed, a long table holds its first PRINT_KEYS keys, as many as A4 or
// Letter paper takes at the print style's size, and its first PRINT_ROWS
// rows, and its caption says so.

import { attr, el, put, putText, setChildren } from './dom.js';
import { grouped, weight } from './text.js';

/** Up to this many rows and columns every cell is rendered. */
const ALL_ROWS = 16;
/** Height of a row in CSS pixels (style.css keeps it fixed). */
const ROW_HEIGHT = 26;
/** Where the body's rows start in the scrolling box: below the caption and the header, about a row each. */
const ROWS_TOP = 2 * ROW_HEIGHT;
/** In a long table: the width of the query column and of every key column. */
const HEAD_WIDTH = 112;
const COL_WIDTH = 64;
/**
 * Labels this long always fit a key column (50 px of text at 0.8rem: four
 * of the widest letters), so their header cell needs no title to show the
 * whole word. Most words are this short: setting a title on all 1,024 cells
 * when the text shifts would restyle each of them.
 */
const ALWAYS_FITS = 4;
/** The widest colspan HTML keeps (a larger one reads back as this, and would be written again on every draw). */
const MAX_SPAN = 1000;
/** Rows and columns rendered beyond the visible ones, on each side. */
const OVERSCAN = 2;
/** Key columns a printed long table holds: what 718 px of A4 (less its margins) takes at the print style's size. */
const PRINT_KEYS = 18;
/** Rows a printed long table holds, the focused row besides: a third of a page at the print style's size. */
const PRINT_ROWS = 24;

const CAPTION = 'Attention weights: each row is a query token, each column a key token; a row sums to 1 (to 0 when every key of its query is masked).';

export class WeightsTable {
  /**
   * `table`: the `<table>` to fill, inside its scrolling box (`.table-scroll`)
   * if it has one. options: { note (an element that says, for a long table,
   * how to reach its rows), longNote(rows) (that text) }
   */
  constructor(ctx, table, { note = null, longNote = (rows) => `${grouped(rows)} rows: scroll the table, or focus a row, to bring it into view.` } = {}) {
    this.ctx = ctx;
    this.table = table;
    this.scroll = table.closest('.table-scroll');
    this.note = note;
    this.longNote = longNote;
    this.data = null;
    this.focus = null;
    this.columns = el('colgroup');
    this.headRow = el('tr');
    this.headRow.append(el('th', 'query \\ key'));
    this.head = el('thead');
    this.head.append(this.headRow);
    this.body = el('tbody');
    this.captionText = el('span');
    // Written while printing only; the print style shows it.
    this.printLine = el('span', null, 'print-only');
    this.captionCell = el('caption');
    this.captionCell.append(this.captionText, this.printLine);
    this.rows = new Map(); // query row → its <tr>, while the data (build() empties it) and the columns in view stay
    this.rowsMade = null; // the columns the kept rows have cells for
    this.spacers = []; // the spacer rows, reused
    // Where the table is scrolled, read only in its scroll event: reading it
    // during an update would force a layout (of the whole table, off screen).
    this.scrolled = { top: 0, left: 0 };
    this.revealOwed = false; // a new focus, to scroll into the box's view (reveal)
    // Off screen (most of the time: the table is at the bottom), a long table
    // keeps only the focused row: an update then lays out a few cells, not hundreds.
    this.inView = true;
    new IntersectionObserver(([entry]) => {
      const was = this.inView;
      this.inView = entry.isIntersecting;
      if (this.inView && !was) this.drawRows();
    }, { rootMargin: '200px' }).observe(this.scroll ?? table);
    let frame = 0;
    ctx.observe(this.scroll ?? table, () => this.drawRows());
    this.scroll?.addEventListener('scroll', () => {
      // The reader's own scroll wins over a focus still to bring into view.
      this.revealOwed = false;
      frame ||= requestAnimationFrame(() => {
        frame = 0;
        this.scrolled = { top: this.scroll.scrollTop, left: this.scroll.scrollLeft };
        this.drawRows();
      });
    }, { passive: true });
    // While printing, the rows and columns drawn are fixed, not those in the
    // box's view: the box, unbounded on paper, would grow by the rows it
    // draws, and draw more (300 rows: 6 pages).
    this.printed = null;
    addEventListener('beforeprint', () => {
      if (!this.data) return;
      this.printed = { rows: [0, PRINT_ROWS - 1], cols: [0, PRINT_KEYS - 1] };
      this.drawRows();
    });
    addEventListener('afterprint', () => {
      this.printed = null;
      this.drawRows();
    });
  }

  /**
   * Shows `data` ({ rows, cols, rowLabels, colLabels, weights, masked and
   * padding (optional: a byte per cell and per key), caption (optional) },
   * as analysis.js panelData makes it) with query row `focus` (or null) marked.
   */
  show(data, focus) {
    const next = focus !== null && focus < data.rows ? focus : null;
    // A new focus is brought into the box's view (the long table's note says
    // so) when the table is next drawn on screen.
    if (next !== null && next !== this.focus) this.revealOwed = true;
    this.focus = next;
    if (data !== this.data) {
      this.data = data;
      this.build();
    }
    this.drawRows();
  }

  /** Empties the table (the matrix could not be computed). */
  clear() {
    this.data = null;
    this.table.replaceChildren();
    put(this.note, 'textContent', '');
  }

  get long() {
    return Math.max(this.data.rows, this.data.cols) > ALL_ROWS;
  }

  /** Row `i`, with the cells of columns `from..=to` (spacers for the rest). */
  row(i, shown) {
    const [from, to] = shown;
    const { cols } = this.data;
    const long = this.long;
    const tr = el('tr');
    const th = el('th');
    th.scope = 'row';
    tr.append(th);
    if (from > 0) tr.append(this.gap(from));
    for (let j = from; j <= to; j++) {
      const td = el('td');
      if (long) td.setAttribute('aria-colindex', String(j + 2));
      tr.append(td);
    }
    if (to < cols - 1) tr.append(this.gap(cols - 1 - to));
    return this.fill(tr, i, shown);
  }

  /** Writes row `i` into `tr`, a row that `row` made for the same columns. */
  fill(tr, i, [from, to]) {
    const { cols, rowLabels, weights, masked, padding } = this.data;
    put(tr.dataset, 'row', String(i));
    attr(tr, 'aria-rowindex', String(i + 2));
    const th = tr.firstChild;
    putText(th, rowLabels[i]);
    put(th, 'title', this.long ? rowLabels[i] : '');
    let td = from > 0 ? th.nextSibling.nextSibling : th.nextSibling;
    for (let j = from, k = i * cols + from; j <= to; j++, k++, td = td.nextSibling) {
      putText(td, weight(weights[k]));
      put(td, 'className', masked?.[k] ? 'masked' : '');
      put(td, 'title', masked?.[k] ? (padding?.[j] ? 'masked: padding' : 'masked') : '');
    }
    return tr;
  }

  /** An empty cell in place of `count` columns. */
  gap(count) {
    const td = el('td', null, 'spacer');
    td.colSpan = Math.min(MAX_SPAN, count);
    td.setAttribute('aria-hidden', 'true');
    return td;
  }

  /** The first and last rows and columns in view (all of them for a short matrix). */
  window() {
    const { rows, cols } = this.data;
    if (!this.long) return { rows: [0, rows - 1], cols: [0, cols - 1] };
    if (this.printed) {
      const clamp = ([from, to], size) => [Math.min(from, size - 1), Math.min(to, size - 1)];
      return { rows: clamp(this.printed.rows, rows), cols: clamp(this.printed.cols, cols) };
    }
    const height = (this.scroll && this.ctx.heightOf(this.scroll)) || 320;
    const width = (this.scroll && this.ctx.widthOf(this.scroll)) || 800;
    const { top, left } = this.scrolled;
    const first = Math.max(0, Math.floor((top - ROWS_TOP) / ROW_HEIGHT) - OVERSCAN);
    const firstCol = Math.max(0, Math.floor((left - HEAD_WIDTH) / COL_WIDTH) - OVERSCAN);
    return {
      rows: [Math.min(first, rows - 1), Math.min(rows - 1, first + Math.ceil(height / ROW_HEIGHT) + 2 * OVERSCAN)],
      cols: [Math.min(firstCol, cols - 1), Math.min(cols - 1, firstCol + Math.ceil(width / COL_WIDTH) + 2 * OVERSCAN)],
    };
  }

  /**
   * The rows in view, the focused row wherever it is, and spacers for the
   * rest. Rows already in the table stay (a new focus moves a class, a
   * scroll adds the rows that came into view): rebuilding them would make the
   * browser lay out the whole table, 1,024 header cells of it, again.
   */
  drawRows() {
    if (!this.data) return;
    const scrollTo = this.revealOwed && this.inView ? this.reveal() : null;
    const { focus } = this;
    const n = this.data.rows;
    const { rows: [first, last], cols } = this.window();
    const made = `${cols[0]} ${cols[1]}`;
    if (this.rowsMade !== made) {
      this.rowsMade = made;
      this.rows = new Map();
    }
    const kept = new Map();
    const children = [];
    let gaps = 0;
    const row = (i) => {
      const tr = this.rows.get(i) ?? this.row(i, cols);
      kept.set(i, tr);
      const focused = i === focus;
      put(tr, 'className', focused ? 'focused' : '');
      attr(tr, 'aria-current', focused ? 'true' : null);
      children.push(tr);
    };
    const gap = (count) => {
      if (count <= 0) return;
      const tr = this.spacerRow(gaps++);
      put(tr.firstChild, 'colSpan', Math.min(MAX_SPAN, this.data.cols + 1));
      put(tr.firstChild.style, 'height', `${count * ROW_HEIGHT}px`);
      children.push(tr);
    };
    if (this.long && !this.inView && !this.printed) {
      // Off screen, the focused row alone, first, over one spacer: a new
      // focus rewrites that row's cells (the spacer stays), where replacing
      // the row, or resizing spacers around it, made the browser lay out the
      // whole table again, its 1,024 header cells (3 ms against 1.3, traced).
      // In view, drawRows puts every row at its place.
      const at = focus ?? 0;
      if (this.rows.size === 1 && !this.rows.has(at)) {
        const [tr] = this.rows.values();
        this.rows = new Map([[at, this.fill(tr, at, cols)]]);
      }
      row(at);
      gap(n - 1);
    } else {
      if (focus !== null && focus < first) {
        gap(focus);
        row(focus);
        gap(first - focus - 1);
      } else {
        gap(first);
      }
      for (let i = first; i <= last; i++) row(i);
      if (focus !== null && focus > last) {
        gap(focus - last - 1);
        row(focus);
        gap(n - 1 - focus);
      } else {
        gap(n - 1 - last);
      }
    }
    this.rows = kept;
    setChildren(this.body, children);
    put(this.printLine, 'textContent', this.printed && this.long ? printNote(cols[1] + 1, this.data.cols, kept.size, n) : '');
    if (scrollTo !== null) this.scroll.scrollTop = scrollTo;
  }

  /**
   * Where the box scrolls to show the focused row in its middle, or null
   * when the row is in view already (below the sticky header). Rows have a
   * fixed height, so this reads no layout; `scrolled` takes the new place at
   * once, for the rows drawn now. Only the box scrolls, never the page.
   */
  reveal() {
    this.revealOwed = false;
    const height = this.scroll && this.ctx.heightOf(this.scroll);
    if (!height || this.focus === null) return null;
    const top = ROWS_TOP + this.focus * ROW_HEIGHT;
    const at = this.scrolled.top;
    if (top >= at + ROW_HEIGHT && top + ROW_HEIGHT <= at + height) return null;
    const target = Math.max(0, Math.round(top - (height - ROW_HEIGHT) / 2));
    this.scrolled = { ...this.scrolled, top: target };
    return target;
  }

  /** The `k`th spacer row: a row of no cells in place of several rows. */
  spacerRow(k) {
    if (!this.spacers[k]) {
      const tr = el('tr', null, 'spacer');
      tr.setAttribute('aria-hidden', 'true');
      tr.append(el('td'));
      this.spacers[k] = tr;
    }
    return this.spacers[k];
  }

  /** Writes key `label` into header cell `th` (with a title where a long table's column may cut it). */
  label(th, label, long) {
    putText(th, label);
    put(th, 'title', long && label.length > ALWAYS_FITS ? label : '');
  }

  /**
   * Adds the header cells still missing, HEADER_CHUNK now and as many in
   * each frame after: a thousand new ones at once (a short text replaced by
   * 1,024 words) cost the browser 30-40 ms of style and layout in one
   * frame. The table is aria-busy until they are all in.
   */
  growHeader() {
    const { cols, colLabels } = this.data;
    const long = this.long;
    const end = Math.min(cols, this.headRow.children.length - 1 + HEADER_CHUNK);
    for (let j = this.headRow.children.length - 1; j < end; j++) {
      const th = el('th');
      th.scope = 'col';
      this.label(th, colLabels[j], long);
      this.headRow.append(th);
    }
    attr(this.table, 'aria-busy', end < cols ? 'true' : null);
    if (end < cols) {
      const { data } = this;
      this.ctx.afterPaint(() => {
        if (this.data === data) this.growHeader();
      });
    }
  }

  /** The caption, the header, the column widths and the size, for the data's labels. */
  build() {
    const { rows, cols, colLabels } = this.data;
    const long = this.long;
    this.rows = new Map(); // made for the previous data
    if (!this.table.contains(this.body)) this.table.replaceChildren(this.captionCell, this.columns, this.head, this.body);
    put(this.captionText, 'textContent', this.data.caption ?? CAPTION);
    // The header cells, changed only where a key did; the missing ones come
    // a chunk a frame (growHeader).
    const cells = this.headRow.children;
    while (cells.length > cols + 1) this.headRow.lastChild.remove();
    for (let j = 0; j < cells.length - 1; j++) this.label(cells[j + 1], colLabels[j], long);
    this.growHeader();
    // The same two <col>s, changed only where the size did: new ones would
    // make the browser lay out every cell of the table again.
    if (long) {
      if (!this.columns.firstChild) this.columns.append(col(HEAD_WIDTH), col(COL_WIDTH));
      put(this.columns.lastChild, 'span', cols);
    } else if (this.columns.firstChild) {
      this.columns.replaceChildren();
    }
    put(this.table.style, 'width', long ? `${HEAD_WIDTH + cols * COL_WIDTH}px` : '');
    attr(this.table, 'aria-rowcount', String(rows + 1));
    attr(this.table, 'aria-colcount', String(cols + 1));
    put(this.table.dataset, 'full', long ? '0' : '1');
    put(this.note, 'textContent', long ? this.longNote(rows) : '');
  }
}

/** The printed caption's line: what of a long table the paper leaves out, or nothing. */
function printNote(keys, cols, rows, of) {
  const parts = [];
  if (keys < cols) parts.push(`the first ${grouped(keys)} of its ${grouped(cols)} keys`);
  if (rows < of) parts.push(`${grouped(rows)} of its ${grouped(of)} rows`);
  return parts.length ? ` Printed here: ${parts.join(' and ')}; Download CSV has them all.` : '';
}

/** Header cells added per frame (growHeader). */
const HEADER_CHUNK = 256;

/** A `<col>` of `width` pixels. */
function col(width) {
  const column = el('col');
  column.style.width = `${width}px`;
  return column;
}
