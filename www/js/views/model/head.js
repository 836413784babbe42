// The open head of the model: its heatmap and arrows (the painters and the
// wasm geometry of the GloVe views, with the same pointer and keyboard) and
// its weights table. While it shows, its table carries the id `weights` (the
// page's accessible numbers follow the head on screen) and the GloVe table
// steps aside as `glove-weights`; `release()` gives the ids back.

import { el } from '../../dom.js';
import { arrowLayout, HeatmapView, labelWidth, markTableFocus, paintBase, paintFocusArrows, sizeCanvas, tableHead, wireArrowClicks } from '../../heatmap-view.js';
import { colorize, paintOverlay } from '../../paint.js';
import { MODEL_NAME } from './skeleton.js';

/** Above this many tokens the table lists only the focused row. */
const FULL_TABLE_LIMIT = 128;

export class HeadView {
  /** dom: the skeleton; ctx: the page's view context; focus(): the model token in focus; focusToken(index, how); clear() */
  constructor(dom, ctx, { focus, focusToken, clear }) {
    this.dom = dom;
    this.ctx = ctx;
    this.focus = focus;
    this.hv = null; // what the painters read: { n, labels, weights, masked, cells, scaleMax, table, ticks, layout, arrows }
    this.arrowGeometry = null;
    this.heatmap = new HeatmapView({
      overlay: dom.overlay,
      tooltip: dom.tooltip,
      size: () => (this.hv ? this.hv.n : null),
      focus,
      onFocus: (index, how) => focusToken(index, how),
      onClear: clear,
      tooltipLines: (row, col) => (this.hv?.layout
        ? [`'${this.hv.labels[row]}' → '${this.hv.labels[col]}'`, `weight ${this.hv.weights[row * this.hv.n + col].toFixed(4)}`, dom.headName.textContent]
        : null),
      paint: () => this.paintOverlay(),
    });
    wireArrowClicks(dom.arrows, () => this.arrowGeometry, (index) => focusToken(index));
    dom.threshold.addEventListener('input', () => this.paintArrows());
    ctx.observe(dom.heatBox, () => this.relayout());
  }

  /** Shows head (layer, head) of `run`; `colormap` is the page's colour table. */
  show(run, layer, head, colormap, special) {
    const nn = run.n * run.n;
    const at = (layer * run.heads + head) * nn;
    const weights = run.weights.slice(at, at + nn);
    const scaleMax = run.headMax[layer * run.heads + head];
    const cells = Object.assign(document.createElement('canvas'), { width: run.n, height: run.n });
    if (run.n > 0) cells.getContext('2d').putImageData(new ImageData(colorize(weights, run.n, run.n, scaleMax, colormap), run.n, run.n), 0, 0);
    this.hv = {
      n: run.n, labels: run.labels, weights, masked: new Uint8Array(nn), cells, scaleMax, table: colormap,
      ticks: Array.from(this.ctx.wasm.ticks(scaleMax, 4)),
    };
    this.heatmap.fit(run.n);
    const name = `Layer ${layer}, head ${head}`;
    this.dom.headName.textContent = name;
    this.dom.heatCaption.textContent = `${name}: each row is a query token, each column a key token; colour is the attention weight. Click a row or a cell to focus that query.`;
    this.relayout();
    this.buildTable(layer, head, special);
  }

  relayout() {
    const { hv, dom, ctx } = this;
    if (!hv || dom.heatBox.closest('[hidden]')) return;
    const theme = ctx.theme;
    this.arrowGeometry?.free();
    const width = Math.max(200, ctx.widthOf(dom.heatBox) || 320);
    const measure = dom.heatmap.getContext('2d');
    hv.layout = this.heatmap.setGeometry(new ctx.wasm.HeatmapGeometry(hv.n, hv.n, width, labelWidth(measure, hv.labels, theme), theme.fontSize));
    const arrowsWidth = Math.max(200, ctx.widthOf(dom.arrowsBox) || 320);
    this.arrowGeometry = new ctx.wasm.ArrowGeometry(hv.n, arrowsWidth, labelWidth(measure, hv.labels, theme, ' 0.00'), theme.fontSize, Math.max(480, hv.layout.height));
    hv.arrows = arrowLayout(this.arrowGeometry);
    paintBase(dom.heatmap, dom.overlay, hv, theme);
    sizeCanvas(dom.arrows, hv.arrows.width, hv.arrows.height);
    dom.overlay.setAttribute('aria-label', `${dom.headName.textContent}: heatmap of ${hv.n} tokens, rows are queries, columns are keys. Arrow keys move the focus, Escape clears it. The same numbers are in the weights table.`);
    this.refocus();
  }

  paintOverlay() {
    if (this.hv?.layout) paintOverlay(this.dom.overlay.getContext('2d'), { ...this.hv, theme: this.ctx.theme }, this.focus(), this.heatmap.hover);
  }

  paintArrows() {
    if (this.arrowGeometry && this.hv) paintFocusArrows(this.dom.arrows, this.arrowGeometry, this.hv, this.focus(), Number(this.dom.threshold.value), this.ctx.theme, this.dom.thresholdValue);
  }

  refocus() {
    if (!this.hv) return;
    this.paintOverlay();
    this.paintArrows();
    markTableFocus(this.dom.table, this.focus(), (i) => this.tableRow(i));
  }

  buildTable(layer, head, special) {
    const { n, labels } = this.hv;
    const { dom } = this;
    const full = n <= FULL_TABLE_LIMIT;
    const body = el('tbody');
    for (const i of full ? [...Array(n).keys()] : [this.focus() ?? 0]) body.append(this.tableRow(i));
    const sums = special ? 'a row sums to 1' : 'a row sums to what the token did not send to [CLS] and [SEP]';
    dom.table.replaceChildren(el('caption', `Attention weights of ${MODEL_NAME}, layer ${layer}, head ${head}: each row is a query token, each column a key token; ${sums}.`), tableHead('query \\ key', labels), body);
    Object.assign(dom.table.dataset, { full: full ? '1' : '0', layer: String(layer), head: String(head) });
    dom.tableTitle.textContent = `Weights of layer ${layer}, head ${head}`;
    dom.tableNote.textContent = full ? '' : `With ${n} tokens the table lists the focused row only.`;
    const glove = document.querySelector('table#weights:not(.model-table)');
    if (glove && glove !== dom.table) glove.id = 'glove-weights';
    dom.table.classList.add('model-table');
    dom.table.id = 'weights';
  }

  tableRow(i) {
    const { n, labels, weights } = this.hv;
    const tr = el('tr');
    tr.dataset.row = String(i);
    const th = el('th', labels[i]);
    th.scope = 'row';
    tr.append(th);
    for (let j = 0; j < n; j++) tr.append(el('td', weights[i * n + j].toFixed(4)));
    return tr;
  }

  /** Gives the page's table its id back (the view closed). */
  release() {
    this.heatmap.hideTooltip();
    this.dom.table.id = 'model-weights';
    const glove = document.getElementById('glove-weights');
    if (glove) glove.id = 'weights';
  }
}
