// The main heatmap: query rows × key columns, one cell bitmap built in wasm
// and scaled up unsmoothed, labels and colorbar on the base canvas, focus and
// hover on an overlay. Pointer and keyboard (heatmap-view.js) move the focus
// through the store; zoom and pan (zoom.js) pick the part on screen. The
// live region #announce says the focused row, or the cell the arrow keys
// moved to along it, whenever that text changes.

import { paintable } from '../analysis.js';
import { analysisFigure, withFocus } from '../figure.js';
import { announcer, el, put } from '../dom.js';
import { focusAnnouncement, focusHistory, HeatmapView, labelWidth, paintBase } from '../heatmap-view.js';
import { paintOverlay } from '../paint.js';
import { counted, grouped, isolate, scoring, weight } from '../text.js';
import { gestureCounter, MIN_SPAN, wireZoom, ZoomWindow } from '../zoom.js';

export function mountHeatmap(ctx) {
  const box = document.getElementById('heatmap-box');
  return box && document.getElementById('heatmap') ? new MainHeatmap(ctx, box) : { update() {} };
}

class MainHeatmap {
  /** A new focus made here, in a long text, is drawn in a frame of its own (page.js). */
  focusFirst = true;

  constructor(ctx, box) {
    this.ctx = ctx;
    this.store = ctx.store;
    this.box = box;
    this.base = document.getElementById('heatmap');
    this.overlay = document.getElementById('heatmap-overlay');
    this.say = announcer(ctx, document.getElementById('announce'));
    this.zoom = new ZoomWindow(0);
    this.gestures = gestureCounter(); // each zoom gesture, or run of button clicks, is a history entry (zoomed)
    this.controls = zoomControls(box, this.overlay, this.zoom, () => this.zoomed(), () => this.zoomAnchor());
    this.analysis = null; // the analysis drawn
    this.view = null; // what the painters read: analysis data + layout + window
    this.drawn = null; // { analysis, width, theme, window } of the base layer
    this.focus = null;
    this.cursor = null; // { row, col } of a key cursor moved along the focused row: its cell is said, not the row
    this.saidRow = null; // the last announcement of the focused row (announce)
    this.palette = 'viridis';
    this.heatmap = new HeatmapView({
      overlay: this.overlay,
      tooltip: document.getElementById('tooltip'),
      size: () => (this.view ? this.analysis.n : null),
      focus: () => this.focus,
      window: () => this.zoom.window,
      onFocus: (row, how, cell) => ctx.focusFromView({ focus: row, cell }, ...focusHistory(how)),
      onCursor: (row, col, newRow) => this.followCursor(row, col, newRow),
      onEnter: (row, col) => ctx.focusFromView({ focus: row, cell: col }, 'push'),
      onClear: () => {
        ctx.focusFromView({ focus: null, cell: null }, 'push');
        // The row's announcement is emptied by the change: a screen reader heard nothing of it.
        this.say('Focus cleared');
      },
      tooltipLines: (row, col) => this.tooltipLines(row, col),
      paint: () => this.paintFocus(),
    });
    wireZoom(this.overlay, this.zoom, {
      at: (event) => this.cellAt(event),
      cellSize: () => this.view?.layout.cell ?? 1,
      changed: (gesture) => this.zoomed(gesture),
      gestures: this.gestures,
      anchor: () => this.zoomAnchor(),
    });
    ctx.observe(box, () => this.redraw());
    ctx.figures.set('main', {
      name: () => (this.analysis?.engine.source ? 'the heatmap (your own vectors)' : 'the heatmap (GloVe)'),
      visible: () => Boolean(this.analysis) && this.ctx.shows('heatmap', this.store.get()),
      // Its picture shows the focus drawn on screen (the data is the same with or without).
      figure: () => withFocus(this.figure(), this.focus),
    });
    // Zoomed in, the part on screen too: its labels and numbers, which a picture of the whole long matrix has no room for.
    ctx.figures.set('main-zoomed', {
      name: () => `the heatmap’s zoomed part (${this.partName()})`,
      visible: () => Boolean(this.analysis) && this.zoom.zoomed && this.ctx.shows('heatmap', this.store.get()),
      figure: () => withFocus(this.zoomedFigure(), this.focus),
    });
    this.views = box.closest('.views');
    if (ctx.embed && this.views) {
      ctx.observe(this.views, () => this.redraw());
      ctx.observe(this.controls.element, () => this.redraw());
    }
  }

  /**
   * The cell the zoom's keys and buttons zoom around: the cursor's (the arrow
   * keys', or the pointer's), else the focused query's (its clicked cell, or
   * its own column), else none (the window's centre).
   */
  zoomAnchor() {
    const n = this.analysis?.n ?? 0;
    const hover = this.heatmap.hover;
    if (hover && hover.row >= 0 && hover.col >= 0 && hover.row < n && hover.col < n) return { row: hover.row, col: hover.col };
    const { focus, cell } = this.store.get();
    if (focus === null || focus >= n) return null;
    return { row: focus, col: cell !== null && cell < n ? cell : focus };
  }

  /** The width to lay the heatmap out in: the box's, or less when a fixed-size iframe leaves less height. */
  width() {
    const width = Math.max(200, this.ctx.widthOf(this.box) || this.box.clientWidth);
    if (!document.documentElement.dataset.fit || !this.views) return width;
    // The layout is about as tall as it is wide (square cells, labels above, colorbar beside),
    // under the zoom's buttons: the height left for it is the views' less theirs.
    const height = this.ctx.heightOf(this.views) - this.ctx.heightOf(this.controls.element);
    return height > 0 ? Math.max(160, Math.min(width, height + 24)) : width;
  }

  /**
   * The zoom changed by a gesture (its number, zoom.js) or a button (a run of
   * clicks counts as one gesture): it goes into the link, one history entry
   * per gesture.
   */
  zoomed(gesture = this.gestures.step(performance.now())) {
    this.redraw();
    this.store.update({ zoom: this.zoom.link }, 'push', `zoom ${gesture}`);
    // From the keyboard (the + and − keys, the zoom buttons), said: only the canvas's label changed, which is not read again.
    if ([this.box, this.controls.element].some((part) => part.contains(document.activeElement))) {
      const win = this.zoom.window;
      this.say(win ? `Zoomed to ${shownPart(win)} of ${grouped(this.zoom.n)}` : `Whole matrix: ${grouped(this.zoom.n)} rows and columns`);
    }
  }

  /** The analysis drawn, as a figure to download (figure.js). */
  figure() {
    return this.analysis ? analysisFigure(this.analysis, this.store.get().palette) : null;
  }

  /** The zoomed window (zoomed in only) in words, rows and columns counted from 1: 'rows 11–22, columns 1–12 of 200'. */
  partName() {
    const { row0, col0, rows, cols } = this.zoom.window;
    return `rows ${row0 + 1}–${row0 + rows}, columns ${col0 + 1}–${col0 + cols} of ${grouped(this.zoom.n)}`;
  }

  /** The part of the figure in the zoomed window, on the whole matrix's colour scale (as on screen). */
  zoomedFigure() {
    const whole = this.figure();
    const part = this.zoom.window;
    if (!whole || !part || whole.rows !== this.zoom.n) return whole;
    const { row0, col0, rows, cols } = part;
    const weights = new Float32Array(rows * cols);
    const masked = whole.masked ? new Uint8Array(rows * cols) : null;
    for (let i = 0; i < rows; i++) {
      const from = (row0 + i) * whole.cols + col0;
      weights.set(whole.weights.subarray(from, from + cols), i * cols);
      masked?.set(whole.masked.subarray(from, from + cols), i * cols);
    }
    return {
      ...whole, rows, cols, weights, masked,
      rowLabels: whole.rowLabels.slice(row0, row0 + rows), colLabels: whole.colLabels.slice(col0, col0 + cols),
      caption: `${whole.caption} · ${this.partName()}`, file: `rows ${row0 + 1}-${row0 + rows} columns ${col0 + 1}-${col0 + cols}`,
      part: { row0, col0, labels: whole.rowLabels },
    };
  }

  /** The matrix row and column (fractional) under a pointer event. */
  cellAt(event) {
    if (!this.view) return null;
    const rect = this.overlay.getBoundingClientRect();
    const [mx, my] = this.view.layout.matrix;
    const cell = this.view.layout.cell;
    return { row: this.zoom.row0 + (event.clientY - rect.top - my) / cell, col: this.zoom.col0 + (event.clientX - rect.left - mx) / cell };
  }

  /**
   * The tooltip of cell (row, col): query → key, then its weight and scores.
   * Each label is isolated (`isolate`): two right-to-left words would
   * otherwise read right to left, the key first.
   */
  tooltipLines(row, col) {
    const { analysis } = this;
    if (!analysis || analysis.pending) return null;
    const { n, labels, weights, masked } = analysis;
    const k = row * n + col;
    const lines = [`'${isolate(labels[row])}' → '${isolate(labels[col])}'`];
    const { dot, scaled } = analysis.cell(row, col);
    if (masked[k]) {
      lines.push(`masked: ${this.maskedBecause(row, col)}`, `score q·k ${dot.toFixed(3)}`);
    } else {
      // What the softmax took: scaled (÷√d, and ÷T), ÷T alone with scaling off, or the score itself.
      const how = scoring(analysis.state);
      const into = how === 'not scaled' ? ' (not scaled)' : ` → ${how} ${scaled.toFixed(3)}`;
      lines.push(`weight ${weight(weights[k])}`, `score q·k ${dot.toFixed(3)}${into}`);
    }
    return lines;
  }

  /** Why cell (row, col) is masked, in words (the key isolated, as in the tooltip). */
  maskedBecause(row, col) {
    return this.store.get().causal && col > row ? `'${isolate(this.analysis.labels[col])}' comes later (causal)` : 'a token may not attend to itself';
  }

  /** Lays out and paints the base layer when the analysis, the width, the theme or the zoom changed. */
  redraw() {
    const { analysis, ctx, zoom } = this;
    if (!analysis) return;
    const width = this.width();
    const key = { analysis, width, theme: ctx.theme, window: JSON.stringify(zoom.window), palette: this.palette };
    if (!this.drawn || Object.keys(key).some((k) => key[k] !== this.drawn[k])) {
      this.drawn = key;
      this.layout(width);
    }
    this.paintFocus();
  }

  layout(width) {
    const { analysis, ctx } = this;
    const win = this.zoom.window;
    const span = win ? win.rows : analysis.n;
    // Row labels go left of the cells and column labels above them: the widest of either sizes both margins.
    const shownLabels = win ? [...analysis.labels.slice(win.row0, win.row0 + span), ...analysis.labels.slice(win.col0, win.col0 + span)] : analysis.labels;
    const widest = labelWidth(this.base.getContext('2d'), shownLabels, ctx.theme);
    // The analysis's own module (a file's vectors read on a module lent by another widget stay on it).
    const layout = this.heatmap.setGeometry(new analysis.wasm.HeatmapGeometry(span, span, width, widest, ctx.theme.fontSize));
    this.view = { ...analysis.data, ...paintable(analysis.wasm, analysis.data, this.palette), n: analysis.n, labels: analysis.labels, layout, window: win, theme: ctx.theme };
    paintBase(this.base, this.overlay, this.view, ctx.theme);
    this.overlay.setAttribute('aria-label', `Attention heatmap of ${counted(analysis.n, 'token')}${win ? `, zoomed to ${shownPart(win)}` : ''}: rows are queries, columns are keys. Arrow keys move the focus, + and − zoom, Escape clears the focus. The same numbers are in the weights table.`);
    // Zoomed, one finger pans the heatmap rather than the page (style.css: touch-action).
    if (this.overlay.hasAttribute('data-zoomed') !== Boolean(win)) this.overlay.toggleAttribute('data-zoomed', Boolean(win));
    this.controls.sync(analysis.n);
    if (!document.documentElement.dataset.ready) {
      performance.mark('first-heatmap');
      document.documentElement.dataset.ready = '1';
      ctx.drewFirst();
    }
  }

  paintFocus() {
    if (this.view) paintOverlay(this.overlay.getContext('2d'), this.view, this.focus, this.heatmap.hover);
  }

  /** What the live region says of `state`: the focused row and its strongest keys, or the cell of a key cursor moved along that row. */
  announcement(state) {
    const { analysis } = this;
    const i = state.focus;
    // A quiz hides the weights until they are guessed: a screen reader must not hear them either.
    if (!analysis || i === null || i >= analysis.n || state.quiz) return '';
    return focusAnnouncement(analysis, i, this.cursor, { why: (row, col) => this.maskedBecause(row, col) });
  }

  /**
   * Says the announcement of `state` when it differs from what was said (a
   * render that changes nothing stays silent), and while typing only once
   * the keys pause: a focused row's new weights at every key were too many.
   */
  announce(state) {
    // A focus moved in the trained model's view is said there, with that head's weights (views/model/head.js).
    if (document.activeElement?.closest('.model-section')) return;
    // Compared with the row last said, not with whatever was said since (a zoom): a
    // render that comes after a zoom's announcement, a frame later, must not say the row again.
    const text = this.announcement(state);
    if (text === this.saidRow) return;
    this.saidRow = text;
    this.say(text);
  }

  /**
   * The arrow keys moved the key cursor to (row, col): a zoomed view pans to
   * keep it on screen (in the link, as a focus that moves it is), and a move
   * along the focused row says its cell; a new row is said by update().
   */
  followCursor(row, col, newRow) {
    this.cursor = newRow ? null : { row, col };
    if (this.zoom.show(row, col)) this.store.update({ zoom: this.zoom.link }, 'replace');
    if (!newRow) this.announce(this.store.get());
  }

  visible(state) {
    return this.ctx.shows('heatmap', state);
  }

  update(state, next) {
    if (next.pending) return;
    if (next.error) {
      this.analysis = null;
      this.announce(state);
      this.view = null;
      this.heatmap.hideTooltip();
      for (const canvas of [this.base, this.overlay]) Object.assign(canvas, { width: 0, height: 0 }).style.height = '0px';
      return;
    }
    const focusChanged = state.focus !== this.focus;
    this.focus = state.focus;
    if (focusChanged) this.cursor = null;
    this.palette = state.palette;
    if (next !== this.analysis) {
      if (next.n !== this.zoom.n) this.zoom.reset(next.n);
      this.heatmap.fit(next.n);
      this.analysis = next;
    }
    // The link's zoom, clamped to this matrix, moved to show a new focus: the link follows.
    this.zoom.setLink(state.zoom);
    const moved = focusChanged && this.zoom.show(state.focus);
    if (moved || JSON.stringify(this.zoom.link) !== JSON.stringify(state.zoom ?? null)) {
      queueMicrotask(() => this.store.update({ zoom: this.zoom.link }, 'replace'));
    }
    this.redraw();
    // Said again whenever it changes: a new focus, or new weights of the focused row (an option, the temperature, an edit).
    this.announce(state);
  }

  relayout() {
    this.redraw();
  }
}

/** `win`'s rows and columns, counted from 1, in words. */
function shownPart(win) {
  const rows = `${win.row0 + 1}–${win.row0 + win.rows}`;
  const cols = `${win.col0 + 1}–${win.col0 + win.cols}`;
  return rows === cols ? `rows and columns ${rows}` : `rows ${rows} and columns ${cols}`;
}

/**
 * The − / + / whole-matrix buttons of the zoom, shown for matrices larger
 * than the smallest zoom. A button that disables itself hands the keyboard
 * focus to `overlay`, which takes the same keys, rather than to the page.
 */
function zoomControls(box, overlay, zoom, changed, anchor) {
  const bar = el('div', null, 'zoom-bar');
  bar.hidden = true; // until a matrix that needs it is drawn: shown while the page loads, it moved the heatmap down and back
  bar.setAttribute('role', 'group');
  bar.setAttribute('aria-label', 'Zoom the heatmap');
  const make = (text, label, id, act) => {
    const button = el('button', text, 'small');
    button.type = 'button';
    button.id = id;
    button.setAttribute('aria-label', label);
    button.title = label;
    button.addEventListener('click', () => {
      if (act()) changed();
    });
    bar.append(button);
    return button;
  };
  const out = make('−', 'Zoom out', 'zoom-out', () => zoom.zoomOn(1 / 1.5, anchor()));
  const into = make('+', 'Zoom in (or Ctrl + wheel, pinch, the + key)', 'zoom-in', () => zoom.zoomOn(1.5, anchor()));
  const all = make('Whole matrix', 'Show the whole matrix', 'zoom-reset', () => {
    zoom.reset();
    return true;
  });
  box.parentElement.insertBefore(bar, box);
  return {
    element: bar,
    sync(n) {
      const held = bar.contains(document.activeElement) ? document.activeElement : null;
      bar.hidden = n <= MIN_SPAN;
      put(out, 'disabled', !zoom.zoomed);
      put(all, 'disabled', !zoom.zoomed);
      put(into, 'disabled', zoom.span <= MIN_SPAN);
      if (held && (held.disabled || bar.hidden)) overlay.focus();
    },
  };
}
