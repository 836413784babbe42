// The interactive heatmap shared by the GloVe view (views/heatmap.js), the trained-model
// view (views/model/head.js) and the teaching tabs (matrix-panel.js): canvases
// sized for the device's pixels, the plain layouts of the wasm geometry,
// the tooltip, hit-testing, and the pointer and keyboard of the overlay.
//
// It owns no page state. `HeatmapView` keeps only what is under the pointer
// or the keyboard cursor (`hover`); a focus change goes to its owner through
// callbacks, and the owner repaints. Drawing stays in paint.js, which takes
// its context as an argument.

import { el, newCanvas, put } from './dom.js';
import { font, hatchTile, paintArrows, paintHeatmap, strongestKeys } from './paint.js';
import { isolate, weight } from './text.js';

/**
 * With nothing focused, the arrows view draws the strongest thousand links of
 * all rows. Past that it is a uniform tangle that shows nothing more (at 64
 * tokens the thousand strongest of 4,000 look the same), and every curve
 * costs raster time: 4,000 took 20-30 ms a redraw on a 2-core machine with
 * no GPU, where a keystroke at 256 tokens (which clears the focus) took
 * 65-80 ms to its frame, and 38-49 ms with a thousand. A focused row draws
 * every key above the threshold.
 */
export const ALL_ROWS_LINKS = 1000;

/**
 * How a heatmap's new focus enters the history (store.js), as [how,
 * gesture]: a click is an entry of its own; a run of arrow keys is one
 * entry, its later steps replacing the first (Back returns to before it).
 */
export function focusHistory(how) {
  return how === 'keys' ? ['push', 'heatmap-keys'] : ['push', null];
}

/** What `HeatmapGeometry.hit` found: nothing, a cell, a row label, a column label. */
const NONE = 0;
const CELL = 1;
const COLUMN_LABEL = 3;

/**
 * What a heatmap's live region says of focused row `i` of `data` ({ n,
 * labels, weights, masked?, fullyMasked? }): its three strongest keys, or
 * the cell the arrow keys moved to along it (`cursor`, { row, col }). Tokens
 * are named with their place in the text, since a text may hold the same
 * word many times, counted from 1 as the weights table counts its rows and
 * columns after the header; `unit` names a place ('word'). `why(row, col)`
 * says why a masked cell is masked.
 */
export function focusAnnouncement({ n, labels, weights, masked, fullyMasked }, i, cursor, { unit = 'word', why } = {}) {
  // Isolated, so that a right-to-left word does not take its place number, or the next word, into its run.
  const word = (j) => `${isolate(labels[j])} (${unit} ${j + 1})`;
  if (cursor?.row === i && cursor.col < n) {
    const k = i * n + cursor.col;
    const value = masked?.[k] ? `masked, because ${why(i, cursor.col)}` : `weight ${weight(weights[k])}`;
    return `Query ${word(i)}, key ${word(cursor.col)}: ${value}.`;
  }
  if (fullyMasked?.[i]) return `Focus on ${word(i)}: every key is masked.`;
  const row = weights.subarray(i * n, (i + 1) * n);
  const top = strongestKeys(row, 3, masked?.subarray(i * n, (i + 1) * n)).map((j) => `${word(j)} ${weight(row[j])}`);
  return `Focus on ${word(i)}. Strongest key${top.length === 1 ? '' : 's'}: ${top.join(', ')}.`;
}

/**
 * Sizes `canvas` to `width` × `height` CSS pixels at the device's pixel
 * ratio and clears it; returns its context, in CSS pixels. A canvas of the
 * same size keeps its bitmap (cleared and its state reset), so a repaint
 * allocates nothing.
 */
export function sizeCanvas(canvas, width, height) {
  const ratio = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(width * ratio));
  const h = Math.max(1, Math.round(height * ratio));
  const ctx = canvas.getContext('2d');
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w;
    canvas.height = h;
  } else if (typeof ctx.reset === 'function') {
    ctx.reset();
  } else {
    canvas.width = w; // resets and clears, as a new size does
  }
  put(canvas.style, 'width', `${width}px`);
  put(canvas.style, 'height', `${height}px`);
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  return ctx;
}

const widths = new Map(); // font → label → width in CSS pixels

/** The widest of `labels` (each followed by `extra`) in the theme's font, in whole CSS pixels. */
export function labelWidth(ctx, labels, theme, extra = '') {
  const shape = font(theme);
  if (!widths.has(shape)) widths.set(shape, new Map());
  const known = widths.get(shape);
  // Each label is measured once per font (a sentence change re-measures only new words).
  if (known.size > 20000) known.clear();
  // Setting the canvas's font parses it: only done when a label is new.
  let fontSet = false;
  let widest = 0;
  for (const label of labels) {
    const text = label + extra;
    let width = known.get(text);
    if (width === undefined) {
      if (!fontSet) {
        ctx.font = shape;
        fontSet = true;
      }
      width = ctx.measureText(text).width;
      known.set(text, width);
    }
    widest = Math.max(widest, width);
  }
  return Math.ceil(widest);
}

/**
 * The width the arrows' labels need: each label with the widest value a key
 * label carries after it (paint.js cellValue). Measured with ' 0.00', a key
 * whose weight printed '<.01' or '<.001' was cut: 'beca… <.01'.
 */
export function arrowLabelWidth(ctx, labels, theme) {
  return labelWidth(ctx, labels, theme, ' <.001');
}

/**
 * The painters' layout of a wasm HeatmapGeometry, copied out of wasm. Where
 * the cells and the colour bar are is also written on `overlay` (if given),
 * for anyone who needs to aim at them (browser tests, benchmarks).
 */
export function heatmapLayout(geometry, overlay = null) {
  const layout = {
    cell: geometry.cell,
    matrix: Array.from(geometry.matrix),
    colorbar: Array.from(geometry.colorbar),
    labelsShown: geometry.labelsShown,
    valuesShown: geometry.valuesShown,
    width: geometry.width,
    height: geometry.height,
  };
  if (overlay) {
    overlay.dataset.matrix = layout.matrix.map((v) => v.toFixed(2)).join(',');
    overlay.dataset.colorbar = layout.colorbar.map((v) => v.toFixed(2)).join(',');
    overlay.dataset.cell = layout.cell.toFixed(4);
  }
  return layout;
}

/** The painters' layout of a wasm ArrowGeometry, copied out of wasm. */
export function arrowLayout(geometry) {
  return {
    rowHeight: geometry.rowHeight,
    top: geometry.top,
    queryX: geometry.queryX,
    keyX: geometry.keyX,
    keyLabelX: geometry.keyLabelX,
    labelsShown: geometry.labelsShown,
    width: geometry.width,
    height: geometry.height,
  };
}

const tiles = new WeakMap(); // theme → its hatch tile

/** The tile of masked cells in `theme`, made once (a canvas and a stroke for each panel cost a What-if change 1.6 ms). */
export function hatchOf(theme) {
  if (!tiles.has(theme)) tiles.set(theme, hatchTile(newCanvas, theme));
  return tiles.get(theme);
}

/** Paints the cells, labels and colour bar of `view` (with its `layout`) on `heatmap`, and sizes `overlay` to match. */
export function paintBase(heatmap, overlay, view, theme) {
  const ctx = sizeCanvas(heatmap, view.layout.width, view.layout.height);
  paintHeatmap(ctx, { ...view, theme, hatch: ctx.createPattern(hatchOf(theme), 'repeat') ?? theme.hatch });
  sizeCanvas(overlay, view.layout.width, view.layout.height);
}

/**
 * The links of query row `focus` (every row when null) of `view` ({ n,
 * weights, scaleMax, source?, row? }: `row`, the focused query's weights when
 * `weights` holds only them), hiding those weaker than `share` of the
 * strongest weight shown: { focus (null for a focus past the end), row (its
 * weights, or null), threshold, links (ArrowGeometry's nine numbers a link) }.
 */
export function arrowLinks(geometry, view, focused, share) {
  // A link's focus past the end is dropped by the page a moment later: until then, no row.
  const focus = focused !== null && focused < view.n ? focused : null;
  const row = focus === null ? null : view.row ?? view.weights.subarray(focus * view.n, (focus + 1) * view.n);
  // The threshold is a share of the strongest weight shown, so that it
  // means the same for 7 tokens (weights near 0.4) and 700 (near 0.004).
  const strongest = row ? row.reduce((a, b) => Math.max(a, b), 0) : view.scaleMax;
  const threshold = share * strongest;
  // Every row's links from the wasm analysis while it lives (`source`, analysis.js), else from the copy of its weights.
  const raw = row ? null : view.source?.();
  const links = row ? geometry.rowLinks(focus, row, threshold, row.length) :
    raw ? geometry.analysisLinks(raw, threshold, ALL_ROWS_LINKS) : geometry.links(view.weights, threshold, ALL_ROWS_LINKS);
  return { focus, row, threshold, links };
}

/**
 * Paints the arrows of query row `focus` (every row when null) of `view`
 * ({ n, weights, labels, scaleMax, arrows: its arrowLayout, source? }), hiding links
 * weaker than `share` of the strongest weight shown; `output`, if given, says
 * the share and the weight it cuts at.
 */
export function paintFocusArrows(canvas, geometry, view, focused, share, theme, output) {
  const { focus, row, threshold, links } = arrowLinks(geometry, view, focused, share);
  if (output) {
    put(output, 'textContent', `${Math.round(share * 100)} %`);
    put(output, 'title', `weights below ${weight(threshold)} are hidden`);
  }
  paintArrows(canvas.getContext('2d'), view.arrows, view.labels, links, focus, row, theme);
}

/** A click on the arrows view focuses the query row under it (`geometry()`: the current ArrowGeometry or null). */
export function wireArrowClicks(canvas, geometry, onFocus) {
  const pick = (event) => {
    const arrows = geometry();
    if (!arrows) return -1;
    const rect = canvas.getBoundingClientRect();
    return arrows.hit(event.clientX - rect.left, event.clientY - rect.top);
  };
  canvas.addEventListener('click', (event) => {
    const row = pick(event);
    if (row >= 0) onFocus(row);
  });
  canvas.addEventListener('pointermove', (event) => {
    canvas.style.cursor = pick(event) >= 0 ? 'pointer' : 'default';
  });
}

/**
 * What a HeatmapGeometry finds under a pointer event on `canvas`: { kind, row, col },
 * in matrix rows and columns (a zoomed view's `window` offsets added).
 */
export function hitAt(geometry, canvas, event, window = null) {
  const rect = canvas.getBoundingClientRect();
  const [kind, row, col] = geometry.hit(event.clientX - rect.left, event.clientY - rect.top);
  return { kind, row: row < 0 ? row : row + (window?.row0 ?? 0), col: col < 0 ? col : col + (window?.col0 ?? 0) };
}

/** Space kept between the tooltip and the edges of the viewport, and between it and its cell, in CSS pixels. */
const TOOLTIP_MARGIN = 4;
const TOOLTIP_GAP = 10;

/**
 * Shows `lines` (the second one stressed) in `tooltip` beside cell (row, col)
 * of `layout` (rows and columns of the layout, not of the matrix): on the
 * side of the cell away from the matrix's nearer edge when it fits there,
 * else on the other side, its middle level with the cell, moved up or down
 * to stay inside the viewport (an embed's frame is its viewport); when it
 * fits on neither side (a phone), above the cell or below it. A side chosen
 * by the matrix's halves alone left it cut off beside a small matrix on a
 * narrow screen.
 */
export function placeTooltip(tooltip, layout, row, col, lines) {
  tooltip.replaceChildren(...lines.map((line, index) => el('div', line, index === 1 ? 'strong' : '')));
  tooltip.hidden = false;
  const cell = layout.cell;
  const [mx, my, mw] = layout.matrix;
  // Where the viewport is, in the coordinates of the tooltip's `left` and `top` (its positioned parent's padding box).
  const parent = tooltip.offsetParent ?? document.documentElement;
  const box = parent.getBoundingClientRect();
  const x0 = -box.left - parent.clientLeft;
  const y0 = -box.top - parent.clientTop;
  const page = document.documentElement;
  const [width, height] = [tooltip.offsetWidth, tooltip.offsetHeight];
  const [minX, maxX] = [x0 + TOOLTIP_MARGIN, x0 + page.clientWidth - TOOLTIP_MARGIN - width];
  const [minY, maxY] = [y0 + TOOLTIP_MARGIN, y0 + page.clientHeight - TOOLTIP_MARGIN - height];
  const right = mx + (col + 1) * cell + TOOLTIP_GAP;
  const left = mx + col * cell - TOOLTIP_GAP - width;
  const clamp = (at, min, max) => Math.max(min, Math.min(max, at));
  // Right of the cell in the left half of the matrix, left of it in the right half, when it fits.
  const sides = (col + 0.5) * cell > mw / 2 ? [left, right] : [right, left];
  let x = sides.find((at) => at >= minX && at <= maxX);
  let y = clamp(my + (row + 0.5) * cell - height / 2, minY, maxY);
  if (x === undefined) {
    // Beside the cell fits on neither side (a phone: the tooltip put there covered the
    // cell just tapped, and its row's label): above the cell, else below it, else beside.
    const above = my + row * cell - TOOLTIP_GAP - height;
    const below = my + (row + 1) * cell + TOOLTIP_GAP;
    x = clamp(mx + (col + 0.5) * cell - width / 2, minX, maxX);
    if (above >= minY) y = above;
    else if (below <= maxY) y = below;
    else x = clamp(sides[0], minX, maxX);
  }
  tooltip.style.left = `${x}px`;
  tooltip.style.top = `${y}px`;
}

/**
 * The pointer and keyboard of a square heatmap whose rows are focused
 * queries. The overlay canvas sits on top, so it takes both.
 *
 * options:
 * - overlay, tooltip: the elements;
 * - size(): tokens a side of what is shown, or null when nothing is;
 * - focus(): the focused query row, or null;
 * - onFocus(row, how, cell): focus a row; `how` is 'click' (with `cell`
 *   the clicked column or null) or 'keys' (the arrow keys: a run of them
 *   is one history entry, focusHistory);
 * - onCursor(row, col, newRow), optional: the arrow keys moved the cursor to
 *   cell (row, col), to a new row or along the focused one; called before
 *   onFocus, so that the owner can pan a zoomed view to it first;
 * - onClear(): Escape;
 * - onEnter(row, col), optional: Enter on the cell under the keyboard cursor;
 * - tooltipLines(row, col): the tooltip of a cell, or null for none;
 * - paint(): repaints the overlay with the focus and `hover`;
 * - window(), optional: the zoomed part shown, { row0, col0, rows, cols }, or
 *   null for the whole matrix; `hover` and every callback use matrix rows
 *   and columns whatever the zoom.
 */
export class HeatmapView {
  hover = null; // { row, col } under the pointer or keyboard cursor
  geometry = null; // the wasm HeatmapGeometry of the current size
  layout = null; // its heatmapLayout
  #frame = 0;
  #tooltipAt = null; // { row, col } whose tooltip is shown, until a new geometry or analysis

  constructor(options) {
    this.options = options;
    this.#wire();
  }

  /** Takes `geometry` (freeing the previous one) and returns its layout. */
  setGeometry(geometry) {
    this.geometry?.free();
    this.geometry = geometry;
    this.#tooltipAt = null;
    this.layout = heatmapLayout(geometry, this.options.overlay);
    return this.layout;
  }

  /** Forgets a hover outside a matrix of `n` tokens a side. */
  fit(n) {
    if (this.hover && (this.hover.row >= n || this.hover.col >= n)) this.hover = null;
  }

  hideTooltip() {
    if (this.options.tooltip) this.options.tooltip.hidden = true;
    this.#tooltipAt = null;
  }

  showTooltip(row, col) {
    const lines = this.options.tooltip ? this.options.tooltipLines(row, col) : null;
    const w = this.options.window?.() ?? null;
    const inside = !w || (row >= w.row0 && row < w.row0 + w.rows && col >= w.col0 && col < w.col0 + w.cols);
    if (!lines || !inside) {
      this.hideTooltip();
      return;
    }
    placeTooltip(this.options.tooltip, this.layout, row - (w?.row0 ?? 0), col - (w?.col0 ?? 0), lines);
    this.#tooltipAt = { row, col };
  }

  #hit(event) {
    return this.geometry ? hitAt(this.geometry, this.options.overlay, event, this.options.window?.()) : null;
  }

  /** Hovers (row, col) or nothing, repainting once per frame however fast the pointer. */
  #setHover(next) {
    const hover = this.hover;
    const same = (hover === null && next === null) || (hover && next && hover.row === next.row && hover.col === next.col);
    if (same) return;
    this.hover = next;
    if (!this.#frame) {
      this.#frame = requestAnimationFrame(() => {
        this.#frame = 0;
        this.options.paint();
      });
    }
  }

  /**
   * The cell the keyboard cursor goes to on `key` in a matrix of `n` tokens a
   * side, or null for a key it ignores. A cursor not placed yet starts at the
   * first row shown, and its column inside the columns shown: a zoomed view's
   * cursor must not start off screen.
   */
  #step(key, n) {
    const w = this.options.window?.() ?? null;
    const focused = this.options.focus();
    const row = focused ?? w?.row0 ?? 0;
    const col = this.hover?.col ?? (w ? Math.min(w.col0 + w.cols - 1, Math.max(w.col0, row)) : row);
    const last = n - 1;
    switch (key) {
      case 'ArrowUp': return { row: focused === null ? row : Math.max(0, row - 1), col };
      case 'ArrowDown': return { row: focused === null ? row : Math.min(last, row + 1), col };
      case 'ArrowLeft': return { row, col: Math.max(0, col - 1) };
      case 'ArrowRight': return { row, col: Math.min(last, col + 1) };
      case 'Home': return { row: 0, col };
      case 'End': return { row: last, col };
      default: return null;
    }
  }

  /** Puts the keyboard cursor on (row, col): the owner hears of it first (to pan a zoomed view there), then of a new focus. */
  #moveCursor(row, col) {
    const { focus, onFocus, onCursor, paint } = this.options;
    const focused = focus();
    this.hover = { row, col };
    onCursor?.(row, col, row !== focused);
    if (row !== focused) onFocus(row, 'keys', null);
    else paint();
    this.showTooltip(row, col);
  }

  #wire() {
    const { overlay: target, size, focus, onFocus, onClear, onEnter, paint } = this.options;
    target.addEventListener('pointermove', (event) => {
      const hit = this.#hit(event);
      if (!hit || hit.kind === NONE) {
        this.#setHover(null);
        this.hideTooltip();
        target.style.cursor = 'default';
        return;
      }
      target.style.cursor = 'pointer';
      this.#setHover({ row: hit.row, col: hit.col });
      // Most pointer moves stay inside one cell: its tooltip is not rebuilt (nor the page laid out again).
      if (hit.kind !== CELL) this.hideTooltip();
      else if (this.#tooltipAt?.row !== hit.row || this.#tooltipAt?.col !== hit.col) this.showTooltip(hit.row, hit.col);
    });
    target.addEventListener('pointerleave', () => {
      this.#setHover(null);
      this.hideTooltip();
    });
    target.addEventListener('click', (event) => {
      const hit = this.#hit(event);
      if (!hit || hit.kind === NONE) return;
      // A row label or a cell focuses its query; a column label focuses that token.
      const row = hit.kind === COLUMN_LABEL ? hit.col : hit.row;
      const focused = focus();
      if (hit.kind === CELL) this.hover = { row: hit.row, col: hit.col };
      onFocus(row, 'click', hit.kind === CELL ? hit.col : null);
      if (hit.kind === CELL) {
        // A new focus has repainted the overlay, with this hover already (as a key does).
        if (row === focused) paint();
        this.showTooltip(hit.row, hit.col);
      }
    });
    target.addEventListener('keydown', (event) => {
      const n = size();
      if (n === null) return;
      if (event.key === 'Enter') {
        const hover = this.hover;
        if (!onEnter || !hover || hover.row < 0 || hover.col < 0) return;
        event.preventDefault();
        onEnter(hover.row, hover.col);
      } else if (event.key === 'Escape') {
        if (focus() === null && !this.hover) return;
        event.preventDefault();
        this.hover = null;
        this.hideTooltip();
        onClear();
      } else {
        const next = this.#step(event.key, n);
        if (!next) return;
        event.preventDefault();
        this.#moveCursor(next.row, Math.min(n - 1, Math.max(0, next.col)));
      }
    });
    target.addEventListener('blur', () => {
      this.hideTooltip();
      this.#setHover(null);
    });
  }
}

/** The head of a weights table: `corner`, then one column header per key label. */
export function tableHead(corner, labels) {
  const head = el('thead');
  const headRow = el('tr');
  // An empty corner is a cell, not a header: a header with no text names nothing to a screen reader.
  headRow.append(corner ? el('th', corner) : el('td'));
  for (const label of labels) {
    const th = el('th', label);
    th.scope = 'col';
    headRow.append(th);
  }
  head.append(headRow);
  return head;
}
