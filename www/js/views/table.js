// The weights as a real table, for screen readers, for copying and for the
// tests: `<table id="weights">`, one header cell per key token, one row per
// query token, each weight written with 4 decimals. Long texts render only
// the rows in view (and the focused query's row, always), with spacers that
// keep the scroll bar true; aria-rowcount and aria-rowindex tell assistive
// technology the real size and where each row sits.

import { attr, el, put } from '../dom.js';
import { tableHead } from '../heatmap-view.js';

/** Up to this many tokens every row is rendered. */
const ALL_ROWS = 40;
/** Height of a row in CSS pixels (style.css keeps it fixed). */
const ROW_HEIGHT = 26;
/** Rows rendered beyond the visible ones, above and below. */
const OVERSCAN = 4;

export function mountTable(ctx) {
  const table = document.getElementById('weights');
  return table ? new WeightsTable(ctx, table) : { update() {} };
}

class WeightsTable {
  constructor(ctx, table) {
    this.ctx = ctx;
    this.table = table;
    this.scroll = table.closest('.table-scroll');
    this.note = document.getElementById('weights-note');
    this.analysis = null;
    this.focus = null;
    this.scrollTop = 0;
    this.rows = new Map(); // row index → <tr> of the current analysis
    this.body = el('tbody');
    let frame = 0;
    ctx.observe(this.scroll ?? table, () => this.drawRows());
    this.scroll?.addEventListener('scroll', () => {
      frame ||= requestAnimationFrame(() => {
        frame = 0;
        this.scrollTop = this.scroll.scrollTop;
        this.drawRows();
      });
    }, { passive: true });
  }

  rowOf(i) {
    if (this.rows.has(i)) return this.rows.get(i);
    const { n, labels, weights, masked } = this.analysis;
    const tr = el('tr');
    tr.dataset.row = String(i);
    tr.setAttribute('aria-rowindex', String(i + 2));
    const th = el('th', labels[i]);
    th.scope = 'row';
    tr.append(th);
    for (let j = 0, k = i * n; j < n; j++, k++) {
      const td = el('td', weights[k].toFixed(4));
      if (masked[k]) {
        td.className = 'masked';
        td.title = 'masked';
      }
      tr.append(td);
    }
    this.rows.set(i, tr);
    return tr;
  }

  spacer(count) {
    const tr = el('tr', null, 'spacer');
    tr.setAttribute('aria-hidden', 'true');
    const td = el('td');
    td.colSpan = this.analysis.n + 1;
    td.style.height = `${count * ROW_HEIGHT}px`;
    tr.append(td);
    return tr;
  }

  /** The first and last rows in view (every row for a short text). */
  range() {
    const n = this.analysis.n;
    if (n <= ALL_ROWS) return [0, n - 1];
    const height = this.scroll ? this.ctx.heightOf(this.scroll) || 320 : 320;
    const head = ROW_HEIGHT * 2; // the caption and the header row
    const first = Math.max(0, Math.floor((this.scrollTop - head) / ROW_HEIGHT) - OVERSCAN);
    return [first, Math.min(n - 1, first + Math.ceil(height / ROW_HEIGHT) + 2 * OVERSCAN)];
  }

  /** The rows in view, the focused row, and spacers for the rest. */
  drawRows() {
    if (!this.analysis) return;
    const { focus } = this;
    const n = this.analysis.n;
    const [first, last] = this.range();
    const children = [];
    if (focus !== null && focus < first) children.push(this.spacer(focus), this.rowOf(focus), this.spacer(first - focus - 1));
    else if (first > 0) children.push(this.spacer(first));
    for (let i = first; i <= last; i++) children.push(this.rowOf(i));
    if (focus !== null && focus > last) children.push(this.spacer(focus - last - 1), this.rowOf(focus), this.spacer(n - 1 - focus));
    else if (last < n - 1) children.push(this.spacer(n - 1 - last));
    this.body.replaceChildren(...children);
    for (const [i, tr] of this.rows) {
      // Rows far from view are dropped, so a long session does not keep n² cells.
      if (i !== focus && (i < first - 50 || i > last + 50)) this.rows.delete(i);
      tr.classList.toggle('focused', i === focus);
      attr(tr, 'aria-current', i === focus ? 'true' : null);
    }
  }

  build() {
    this.rows.clear();
    const { n, labels } = this.analysis;
    this.table.replaceChildren(
      el('caption', 'Attention weights: each row is a query token, each column a key token; a row sums to 1.'),
      tableHead('query \\ key', labels),
      this.body,
    );
    this.table.setAttribute('aria-rowcount', String(n + 1));
    this.table.setAttribute('aria-colcount', String(n + 1));
    this.table.dataset.full = n <= ALL_ROWS ? '1' : '0';
    put(this.note, 'textContent', n <= ALL_ROWS ? '' : `${n} rows: scroll the table, or focus a token, to bring its row; Download CSV has them all.`);
  }

  update(state, next) {
    if (next.pending) return;
    if (next.error) {
      this.analysis = null;
      this.table.replaceChildren();
      put(this.note, 'textContent', '');
      return;
    }
    this.focus = state.focus;
    if (next !== this.analysis) {
      this.analysis = next;
      this.build();
    }
    this.drawRows();
  }
}
