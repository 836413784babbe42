// The open head of the model: its heatmap and arrows (the painters and the
// wasm geometry of the GloVe views, with the same pointer and keyboard) and
// its weights table. While it shows, its table carries the id `weights` (the
// page's accessible numbers follow the head on screen) and the GloVe table
// steps aside as `glove-weights`; `release()` gives the ids back. Besides
// its own pointer hover, the heatmap lights up the model view's shared hover
// (`linked`: a token's row or column, from the queries-and-keys picture) and
// reports its own hover (`onHover`), so that the two stay linked.

import { arrowLabelWidth, arrowLayout, focusAnnouncement, HeatmapView, labelWidth, paintBase, paintFocusArrows, sizeCanvas, wireArrowClicks } from '../../heatmap-view.js';
import { announcer } from '../../dom.js';
import { asArrows, withFocus } from '../../figure.js';
import { WeightsTable } from '../../weights-table.js';
import { paintOverlay } from '../../paint.js';
import { MODEL_NAME } from './skeleton.js';
import { isolate, weight } from '../../text.js';

/** Outlines row `linked.row` or column `linked.col` (-1: none) of the matrix of `layout` on `ctx`. */
export function paintLinked(ctx, layout, n, linked, theme) {
  const [mx, my, mw, mh] = layout.matrix;
  const cell = layout.cell;
  ctx.strokeStyle = theme.fg;
  ctx.lineWidth = 2;
  ctx.setLineDash([4, 3]);
  if (linked.row >= 0 && linked.row < n) ctx.strokeRect(mx, my + linked.row * cell, mw, cell);
  if (linked.col >= 0 && linked.col < n) ctx.strokeRect(mx + linked.col * cell, my, cell, mh);
  ctx.setLineDash([]);
}

export class HeadView {
  /**
   * dom: the skeleton; ctx: the page's view context; focus(): the model token
   * in focus; focusToken(index, how, cell): 'click' (cell: the clicked key
   * column, or null) or 'keys' (heatmap-view.js focusHistory); clear(); onHover(hover): the heatmap's hover changed
   */
  constructor(dom, ctx, { focus, focusToken, clear, onHover, problem = () => null }) {
    this.dom = dom;
    this.ctx = ctx;
    this.focus = focus;
    this.onHover = onHover;
    this.linked = null; // { row, col } lit from elsewhere in the model view (-1: none)
    this.reported = null; // the hover last reported
    this.hv = null; // what the painters read: { n, labels, weights, masked, cells, scaleMax, table, ticks, layout, arrows }
    this.arrowGeometry = null;
    // Its own live region: the page's #announce says GloVe's weights of the same word.
    this.say = announcer(ctx, dom.announce);
    this.cursor = null; // { row, col } of a key cursor moved along the focused row: its cell is said, not the row
    this.said = null; // the focus last said
    this.heatmap = new HeatmapView({
      overlay: dom.overlay,
      tooltip: dom.tooltip,
      size: () => (this.hv ? this.hv.n : null),
      focus,
      onFocus: (index, how, cell) => focusToken(index, how, cell),
      onCursor: (row, col, newRow) => {
        this.cursor = newRow ? null : { row, col };
        if (!newRow) this.announce();
      },
      onEnter: (row, col) => focusToken(row, 'click', col),
      onClear: clear,
      tooltipLines: (row, col) => (this.hv?.layout
        ? [`'${isolate(this.hv.labels[row])}' → '${isolate(this.hv.labels[col])}'`, `weight ${weight(this.hv.weights[row * this.hv.n + col])}`, dom.headName.textContent]
        : null),
      paint: () => this.paintOverlay(),
    });
    wireArrowClicks(dom.arrows, () => this.arrowGeometry, (index) => focusToken(index));
    dom.threshold.addEventListener('input', () => this.paintArrows());
    this.table = new WeightsTable(ctx, dom.table, { note: dom.tableNote });
    this.tableData = null; // the open head's matrix, as the table takes it
    ctx.observe(dom.heatBox, () => this.relayout());
    // The arrows' own box too: unobserved, its width read 0 and the arrows were drawn 320 px wide at any width (past a phone's column).
    ctx.observe(dom.arrowsBox, () => this.relayout());
    ctx.figures.set('model-head', {
      name: 'the trained model’s open head',
      visible: () => this.current() && !dom.heatBox.closest('[hidden]'),
      figure: () => withFocus(this.figure(), this.focus(), 'token'),
      // Why there is no figure, when the model cannot run this sentence (a quiz says it, rather than "loading").
      problem,
    });
    ctx.figures.set('model-arrows', {
      name: 'the trained model’s open head as arrows',
      visible: () => this.current() && !dom.arrows.closest('[hidden]'),
      figure: () => (this.current() ? asArrows(this.figure(), this.focus(), Number(dom.threshold.value)) : null),
    });
  }

  /** Shows head (layer, head) of `run` in the page's `colours` (view.js). */
  show(run, layer, head, colours, special) {
    const nn = run.n * run.n;
    const at = (layer * run.heads + head) * nn;
    const weights = run.weights.slice(at, at + nn);
    const scaleMax = run.headMax[layer * run.heads + head];
    this.hv = {
      n: run.n, labels: run.labels, weights, masked: new Uint8Array(nn), cells: colours.canvas(weights, run.n, run.n, scaleMax),
      scaleMax, table: colours.table, bar: colours.bar, ticks: Array.from(this.ctx.wasm.ticks(scaleMax, 4)),
      layer, head, special, units: run.words ? 'whole words' : 'word pieces', run: { sentence: run.sentence, words: run.words, special: !run.hideSpecial },
      description: run.behaviours?.heads?.[layer * run.heads + head]?.description ?? null,
    };
    this.heatmap.fit(run.n);
    const name = `Layer ${layer}, head ${head}`;
    this.dom.headName.textContent = name;
    this.dom.heatCaption.textContent = `${name}: each row is a query token, each column a key token; colour is the attention weight. Click a row or a cell to focus that query.`;
    this.buildTable(layer, head, special);
    this.relayout();
  }

  /**
   * The open head as a figure to download (figure.js): the model's weights,
   * and which head they are. None while the head shows another sentence or
   * other units than the state's (a run on its way, or one that failed): its
   * numbers would be exported under the new sentence's title.
   */
  figure() {
    const { hv } = this;
    if (!this.current()) return null;
    const state = this.ctx.store.get();
    const special = hv.special ? 'with [CLS] and [SEP]' : 'without [CLS] and [SEP] (rows sum to what they did not send there)';
    return {
      kind: 'model', title: state.sentence, caption: `${MODEL_NAME} · layer ${hv.layer}, head ${hv.head} · ${hv.units} · ${special}`,
      rows: hv.n, cols: hv.n, rowLabels: hv.labels, colLabels: hv.labels, weights: hv.weights, masked: null, scaleMax: hv.scaleMax, palette: state.palette,
      layer: hv.layer, head: hv.head, description: hv.description, file: `MiniLM layer ${hv.layer} head ${hv.head}`,
    };
  }

  /** Whether the head on screen was computed for the state's sentence, units and [CLS]/[SEP] setting. */
  current() {
    const made = this.hv?.run;
    const { sentence, model } = this.ctx.store.get();
    return Boolean(made && model) && made.sentence === sentence && made.words === (model.units === 'words') && made.special === model.special;
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
    this.arrowGeometry = new ctx.wasm.ArrowGeometry(hv.n, arrowsWidth, arrowLabelWidth(measure, hv.labels, theme), theme.fontSize, Math.max(480, hv.layout.height));
    hv.arrows = arrowLayout(this.arrowGeometry);
    paintBase(dom.heatmap, dom.overlay, hv, theme);
    sizeCanvas(dom.arrows, hv.arrows.width, hv.arrows.height);
    dom.overlay.setAttribute('aria-label', `${dom.headName.textContent}: heatmap of ${hv.n} tokens, rows are queries, columns are keys. Arrow keys move the focus, Escape clears it. The same numbers are in the weights table.`);
    this.refocus();
  }

  paintOverlay() {
    const hover = this.heatmap.hover;
    if (this.hv?.layout) {
      const context = this.dom.overlay.getContext('2d');
      paintOverlay(context, { ...this.hv, theme: this.ctx.theme }, this.focus(), hover ?? this.linked);
      if (!hover && this.linked) paintLinked(context, this.hv.layout, this.hv.n, this.linked, this.ctx.theme);
    }
    if (hover !== this.reported) {
      this.reported = hover;
      this.onHover?.(hover);
    }
  }

  /** Lights up a token's row or column from elsewhere ({ row, col }, -1 for none; null: nothing). */
  light(linked) {
    this.linked = linked;
    this.paintOverlay();
  }

  paintArrows() {
    if (this.arrowGeometry && this.hv) paintFocusArrows(this.dom.arrows, this.arrowGeometry, this.hv, this.focus(), Number(this.dom.threshold.value), this.ctx.theme, this.dom.thresholdValue);
  }

  refocus() {
    if (!this.hv) return;
    this.paintOverlay();
    this.paintArrows();
    if (this.tableData) this.table.show(this.tableData, this.focus());
    this.announce();
  }

  /** Says the open head's focused row (its strongest keys), or the cell of the key cursor, when that changed. */
  announce() {
    const { hv } = this;
    const i = this.focus();
    if (i !== this.said) this.cursor = null;
    this.said = i;
    // Only while the keyboard is in the model's view: elsewhere the page's #announce speaks (views/heatmap.js).
    if (!hv || i === null || i >= hv.n || !document.activeElement?.closest('.model-section')) return;
    this.say(`${this.dom.headName.textContent}: ${focusAnnouncement(hv, i, this.cursor, { unit: 'token' })}`);
  }

  buildTable(layer, head, special) {
    const { n, labels, weights } = this.hv;
    const { dom } = this;
    const sums = special ? 'a row sums to 1' : 'a row sums to what the token did not send to [CLS] and [SEP]';
    this.tableData = {
      rows: n, cols: n, rowLabels: labels, colLabels: labels, weights, masked: null,
      caption: `Attention weights of ${MODEL_NAME}, layer ${layer}, head ${head}: each row is a query token, each column a key token; ${sums}.`,
    };
    this.table.show(this.tableData, this.focus());
    Object.assign(dom.table.dataset, { layer: String(layer), head: String(head) });
    dom.tableTitle.textContent = `Weights of layer ${layer}, head ${head}`;
    const glove = document.querySelector('table#weights:not(.model-table)');
    if (glove && glove !== dom.table) glove.id = 'glove-weights';
    dom.table.classList.add('model-table');
    dom.table.id = 'weights';
  }

  /** Shows nothing: the run it showed is not the sentence's any more (view.js hideStale). */
  forget() {
    this.hv = null;
    this.tableData = null;
    this.release();
  }

  /** Gives the page's table its id back (the view closed). */
  release() {
    this.heatmap.hideTooltip();
    this.dom.table.id = 'model-weights';
    const glove = document.getElementById('glove-weights');
    if (glove) glove.id = 'weights';
  }
}
