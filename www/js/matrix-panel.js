// A heatmap, an arrows view and a weights table for any attention matrix
// of the teaching views (cross-attention has rows ≠ cols, the padding demo
// hatched pad keys, multi-head one colour per head), from the plain data of
// analysis.js's panelData. It paints with the
// page's painters (paint.js) and the wasm geometry, so it looks and
// hit-tests like the main views; it owns no state: a click or a key calls
// `onFocus(row)` or `onCell(row, col)` and the owner re-renders.

import { ALL_ROWS_LINKS, arrowLayout, heatmapLayout, hitAt, labelWidth, paintBase, placeTooltip, sizeCanvas } from './heatmap-view.js';
import { paintable } from './analysis.js';
import { settingsCaption, withFocus } from './figure.js';
import { paintArrows, paintOverlay } from './paint.js';
import { scrolling } from './dom.js';
import { el } from './teach-steps.js';
import { WeightsTable } from './weights-table.js';
import { isolate, weight } from './text.js';

export class MatrixPanel {
  #laidOut = null; // { theme, width } of the last layout
  #tooltipAt = null; // { row, col } whose tooltip was placed, for the current layout
  #soon = null; // the timer of a layout put off to a task of its own (show's `later`)
  /**
   * root: an element to fill. options: { ctx (the page's view context: wasm,
   * theme, widths), name (for labels), onFocus(row), onCell(row, col), arrows
   * (default true), table (default true), tableId, and for its exported
   * figure title(state) (default: the sentence), inputs(state) (what it
   * was computed from, when not the sentence) and unit (what its focused
   * row's caption counts it in; default 'word') }
   */
  constructor(root, options) {
    this.options = { ...options, theme: () => options.ctx.theme };
    this.ctx = options.ctx;
    this.root = root;
    this.data = null;
    this.focus = null;
    this.hover = null;
    this.heat = null;
    this.arrowGeometry = null;
    root.classList.add('teach-panel');
    const views = el('div', null, 'teach-views');
    const heatFigure = el('figure', null, 'view');
    this.caption = el('figcaption');
    this.stack = el('div', null, 'canvas-stack');
    this.base = el('canvas');
    this.base.setAttribute('aria-hidden', 'true');
    this.overlay = el('canvas', null, 'overlay');
    this.overlay.tabIndex = 0;
    this.overlay.setAttribute('role', 'img');
    this.overlay.setAttribute('aria-label', `${options.name ?? 'Attention'} heatmap`);
    this.tooltip = el('div', null, 'tooltip');
    this.tooltip.setAttribute('role', 'tooltip');
    this.tooltip.hidden = true;
    this.stack.append(this.base, this.overlay, this.tooltip);
    heatFigure.append(this.caption, this.stack);
    views.append(heatFigure);
    if (options.arrows !== false) {
      const arrowsFigure = el('figure', null, 'view');
      arrowsFigure.append(el('figcaption', options.arrowsCaption ?? 'Arrows: from the focused query (left) to each key (right), thicker for larger weights.'));
      this.arrows = el('canvas');
      this.arrows.setAttribute('aria-hidden', 'true');
      this.arrowsBox = el('div', null, 'canvas-box');
      this.arrowsBox.append(this.arrows);
      arrowsFigure.append(this.arrowsBox);
      views.append(arrowsFigure);
    }
    root.append(views);
    if (options.table !== false) {
      this.table = el('table', null, 'weights-table');
      if (options.tableId) this.table.id = options.tableId;
      root.append(scrolling(this.table, 'table-scroll', `${options.name ?? 'Attention'} weights table, scrollable`));
      this.weights = new WeightsTable(this.ctx, this.table);
    }
    this.#wire();
    this.ctx.figures.set(`panel-${options.tableId ?? options.name}`, {
      name: `${options.name}: ${options.figureName ?? 'the matrix of this tab'}`,
      visible: () => Boolean(this.data) && this.root.isConnected && !this.root.closest('[hidden]'),
      figure: () => withFocus(this.figure(), this.focus, options.unit),
    });
    // Widths come from the page's ResizeObserver: reading them here would force a layout.
    this.ctx.observe(this.stack, () => this.data && this.layout());
    if (this.arrowsBox) this.ctx.observe(this.arrowsBox, () => this.data && this.layout());
    // A tab's lower panels (What-if's padded pair, say) are drawn when they
    // come near the screen, not on every change.
    this.lazy = this.ctx.drawWhenNear(views, () => this.layout());
  }

  /**
   * Shows `data` (analysis.js panelData) with `focus` (row or null);
   * `arrowSets` overrides the arrows (multi-head); `scaleMax` puts another
   * top on the colour scale (panels compared side by side share one);
   * `settings` says what this panel computed, for its exported figure (see
   * figure.js settingsCaption's options: its own scaling, its masks, its vectors);
   * `file`, what its downloads' names add (default: the panel's name);
   * `later`, that new cells are painted in a task of their own, the panel
   * transparent until then (the second of two heatmaps of a long text: one
   * task painting both took over 50 ms).
   */
  show(data, { focus = null, caption = '', arrowSets = null, scaleMax = data.scaleMax, settings = {}, file = this.options.name, later = false } = {}) {
    this.settings = settings;
    this.file = file;
    const palette = this.ctx.store.get().palette;
    const fresh = data !== this.data || scaleMax !== this.scaleMax || palette !== this.palette;
    this.data = data;
    this.scaleMax = scaleMax;
    this.palette = palette;
    this.focus = focus !== null && focus < data.rows ? focus : null;
    this.arrowSets = arrowSets;
    if (this.hover && (this.hover.row >= data.rows || this.hover.col >= data.cols)) this.hover = null;
    this.caption.textContent = caption;
    if (fresh) {
      this.overlay.setAttribute('aria-label', `${this.options.name ?? 'Attention'} heatmap: ${data.rows} query rows by ${data.cols} key columns. Arrow keys move, Enter shows a cell's dot product, Escape clears. The same numbers are in the table below.`);
    }
    this.weights?.show(data, this.focus);
    // A render that changes only the focus (a click anywhere on the page)
    // repaints the focus layer; the cells, labels and geometry stay.
    if (fresh || this.#laidOut?.theme !== this.options.theme() || this.#laidOut?.width !== this.#width()) {
      if (later) this.#layoutSoon();
      else this.layout();
    } else {
      this.paintFocus();
    }
  }

  #layoutSoon() {
    this.lazy.hold();
    clearTimeout(this.#soon);
    this.#soon = setTimeout(() => this.layout(), 0);
  }

  /** What the panel shows, as a figure to download (figure.js), on the scale it is drawn with. */
  figure() {
    const { data } = this;
    if (!data) return null;
    const state = this.ctx.store.get();
    const { engine } = this.ctx;
    const { name } = this.options;
    const text = this.caption.textContent;
    // A caption that starts with the panel's name ("Unscaled: …") is not prefixed with it again.
    const named = text.startsWith(`${name}:`) ? text : `${name}: ${text}`;
    const settings = settingsCaption(state, engine?.explorer.dim ?? 50, engine?.source ?? null, this.settings);
    return {
      kind: name, title: this.options.title?.(state) ?? state.sentence, file: this.file,
      vectors: this.settings.vectors === false ? null : engine?.source?.name ?? null,
      caption: `${named} · ${settings}`, inputs: this.options.inputs?.(state),
      rows: data.rows, cols: data.cols, rowLabels: data.rowLabels, colLabels: data.colLabels, weights: data.weights,
      masked: data.masked, scaleMax: this.scaleMax, palette: this.palette,
    };
  }

  /** The heatmap's width in CSS pixels, as last observed (320 before that). */
  #width() {
    return Math.max(200, this.ctx.widthOf(this.stack) || 320);
  }

  layout() {
    clearTimeout(this.#soon);
    const data = this.data;
    if (!data || !this.root.isConnected) return;
    const waits = this.lazy.waits();
    const theme = this.options.theme();
    const measure = this.base.getContext('2d');
    const widest = (labels, extra = '') => labelWidth(measure, labels, theme, extra);
    this.heat?.free();
    const width = this.#width();
    this.#laidOut = { theme, width };
    this.#tooltipAt = null;
    this.heat = new this.ctx.wasm.HeatmapGeometry(data.rows, data.cols, width, Math.max(widest(data.rowLabels), widest(data.colLabels)), theme.fontSize);
    const layout = heatmapLayout(this.heat, this.overlay);
    if (this.arrows) {
      this.arrowGeometry?.free();
      const arrowsWidth = Math.max(200, this.ctx.widthOf(this.arrowsBox) || 320);
      const keyWidth = Math.max(widest(data.rowLabels), widest(data.colLabels, ' 0.00'));
      this.arrowGeometry = this.ctx.wasm.ArrowGeometry.cross(data.rows, data.cols, arrowsWidth, keyWidth, theme.fontSize, Math.max(360, layout.height));
      this.arrowLayout = arrowLayout(this.arrowGeometry);
      sizeCanvas(this.arrows, this.arrowLayout.width, this.arrowLayout.height);
    }
    if (waits) {
      // Far from the screen it is not painted, but it takes the size it will
      // be painted at: painting it as it comes near moves nothing below it
      // (a scroll to the Share button, say, and the click that follows).
      sizeCanvas(this.base, layout.width, layout.height);
      sizeCanvas(this.overlay, layout.width, layout.height);
      return;
    }
    this.lazy.drawn();
    this.view = { ...data, ...paintable(this.ctx.wasm, data, this.palette, this.scaleMax), n: data.rows, labels: data.rowLabels, theme, layout };
    paintBase(this.base, this.overlay, this.view, theme);
    this.paintFocus();
  }

  paintFocus() {
    if (!this.view || this.lazy.stale || this.lazy.waits()) return;
    this.#paintHover();
    if (!this.arrows || !this.arrowGeometry) return;
    const theme = this.options.theme();
    const { cols, weights } = this.data;
    const focus = this.focus;
    const row = focus === null ? null : weights.subarray(focus * cols, (focus + 1) * cols);
    const sets = this.arrowSets ?? [{ weights, color: theme.link }];
    let links = new Float32Array(0);
    const colors = [];
    for (const set of sets) {
      const shown = focus === null ? set.weights : set.weights.subarray(focus * cols, (focus + 1) * cols);
      const threshold = 0.1 * shown.reduce((a, b) => Math.max(a, b), 0);
      const found = focus === null ? this.arrowGeometry.links(shown, threshold, ALL_ROWS_LINKS)
        : this.arrowGeometry.rowLinks(focus, shown, threshold, shown.length);
      const joined = new Float32Array(links.length + found.length);
      joined.set(links);
      joined.set(found, links.length);
      links = joined;
      for (let k = 0; k < found.length / 9; k++) colors.push(set.color);
    }
    paintArrows(this.arrows.getContext('2d'), this.arrowLayout, this.data.rowLabels, links, focus, row, theme, { keyLabels: this.data.colLabels, colors });
  }

  /** The overlay alone (focus band and hover): the arrows do not depend on the hover. */
  #paintHover() {
    if (this.view) paintOverlay(this.overlay.getContext('2d'), { ...this.view, theme: this.options.theme() }, this.focus, this.hover);
  }

  #hit(event) {
    // Waiting to be drawn, its geometry is the last text's.
    return this.heat && !this.lazy.stale ? hitAt(this.heat, this.overlay, event) : null;
  }

  #tooltip(row, col) {
    const { data } = this;
    const k = row * data.cols + col;
    const lines = [`'${isolate(data.rowLabels[row])}' → '${isolate(data.colLabels[col])}'`,
      data.masked[k] ? (data.padding[col] ? 'masked: padding' : 'masked') : `weight ${weight(data.weights[k])}`];
    placeTooltip(this.tooltip, this.view.layout, row, col, lines);
    this.#tooltipAt = { row, col };
  }

  /** The tooltip of cell (row, col), unless it is shown already (nor the page laid out again for it). */
  #tooltipOn(row, col) {
    if (this.tooltip.hidden || this.#tooltipAt?.row !== row || this.#tooltipAt?.col !== col) this.#tooltip(row, col);
  }

  #wire() {
    const target = this.overlay;
    target.addEventListener('pointermove', (event) => {
      const hit = this.#hit(event);
      const hover = hit && hit.kind !== 0 ? { row: hit.row, col: hit.col } : null;
      target.style.cursor = hover ? 'pointer' : 'default';
      // Most pointer moves stay inside one cell: its tooltip is not rebuilt, nor the overlay repainted.
      if (hit?.kind !== 1) this.tooltip.hidden = true;
      else this.#tooltipOn(hit.row, hit.col);
      if (hover?.row === this.hover?.row && hover?.col === this.hover?.col) return;
      this.hover = hover;
      this.#paintHover();
    });
    target.addEventListener('pointerleave', () => {
      this.hover = null;
      this.tooltip.hidden = true;
      this.#paintHover();
    });
    target.addEventListener('click', (event) => {
      const hit = this.#hit(event);
      if (!hit || hit.kind === 0) return;
      if (hit.kind === 1) {
        // A tap has no hover first: its tooltip gives the weight, which a phone's small cells do not print.
        this.hover = { row: hit.row, col: hit.col };
        this.#tooltipOn(hit.row, hit.col);
        this.options.onCell?.(hit.row, hit.col);
      }
      else if (hit.kind === 2) this.options.onFocus?.(hit.row);
    });
    target.addEventListener('keydown', (event) => {
      // Not drawn yet (it waited far from the screen, and focusing it has
      // just scrolled it near): the keys work from its first frame on.
      if (!this.data || !this.view) return;
      const { rows, cols } = this.data;
      let row = this.hover?.row ?? this.focus ?? 0;
      let col = this.hover?.col ?? 0;
      switch (event.key) {
        case 'ArrowUp': row = Math.max(0, row - 1); break;
        case 'ArrowDown': row = Math.min(rows - 1, row + 1); break;
        case 'ArrowLeft': col = Math.max(0, col - 1); break;
        case 'ArrowRight': col = Math.min(cols - 1, col + 1); break;
        case 'Enter':
        case ' ':
          event.preventDefault();
          this.options.onCell?.(row, col);
          return;
        case 'Escape':
          this.hover = null;
          this.tooltip.hidden = true;
          this.options.onFocus?.(null);
          return;
        default:
          return;
      }
      event.preventDefault();
      this.hover = { row, col };
      this.#tooltip(row, col);
      if (row !== this.focus) this.options.onFocus?.(row);
      else this.#paintHover();
    });
    target.addEventListener('blur', () => {
      this.tooltip.hidden = true;
    });
    this.arrows?.addEventListener('click', (event) => {
      if (!this.arrowGeometry) return;
      const rect = this.arrows.getBoundingClientRect();
      const x = event.clientX - rect.left;
      const row = this.arrowGeometry.hit(x, event.clientY - rect.top);
      if (row >= 0 && !this.arrowGeometry.isKeySide(x)) this.options.onFocus?.(row);
    });
  }
}
