// The painters of the two canvas views. Each takes its 2D context as an
// argument and reads plain objects only (geometry comes from the wasm layout
// as numbers), so a recording fake context can test it without a browser.
//
// The heatmap has two layers: the base (cells, labels, colorbar), painted
// when the sentence, the options, the size or the theme change; and a light
// overlay (focus band, hover outline), repainted on every pointer move or
// click. The cells are one n × n bitmap painted by the wasm painter
// (`paintMatrix`, see analysis.js matrixCanvas) and drawn scaled with
// smoothing off, so 1,024 tokens cost one drawImage.

import { isolate, wrapLines } from './text.js';

/**
 * Colours and fonts of the current theme, read from the CSS variables, and
 * the device's pixel ratio the canvases are drawn at. A
 * colour the style sheet writes by name (forced colours: the system's
 * `Canvas`, `CanvasText`…) is resolved to what the browser paints with it.
 */
export function readTheme(element) {
  const css = getComputedStyle(element);
  const named = [];
  const v = (name, fallback) => {
    const value = css.getPropertyValue(name).trim() || fallback;
    if (/^[a-z]+$/i.test(value)) named.push(value);
    return value;
  };
  const theme = {
    fg: v('--fg', '#1a1a1a'),
    muted: v('--muted', '#5f6368'),
    bg: v('--bg', '#ffffff'),
    accent: v('--accent', '#c2410c'),
    focusBand: v('--focus-band', 'rgba(194, 65, 12, 0.16)'),
    hatch: v('--hatch', '#9aa0a6'),
    link: v('--link-color', '#c2410c'),
  };
  if (named.length) {
    const colors = resolvedColors(element, named);
    for (const key of Object.keys(theme)) theme[key] = colors.get(theme[key]) ?? theme[key];
  }
  // The pixel ratio too: a theme of another ratio is painted again, sharp (heatmap-view.js sizeCanvas).
  return { ...theme, dark: isDark(theme.bg), fontFamily: v('--font', 'system-ui, sans-serif'), fontSize: 12, ratio: window.devicePixelRatio || 1 };
}

/** The colours `names` (CSS colour keywords) as `element`'s document paints them, by name. */
function resolvedColors(element, names) {
  const probe = element.ownerDocument.createElement('i');
  probe.hidden = true;
  element.append(probe);
  const colors = new Map(names.map((name) => {
    probe.style.color = name;
    return [name, getComputedStyle(probe).color];
  }));
  probe.remove();
  return colors;
}

/** Whether a colour written #rgb, #rrggbb or rgb(r, g, b) is dark (relative luminance under a half). */
function isDark(color) {
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color);
  const rgb = /^rgba?\((\d+), (\d+), (\d+)/.exec(color);
  if (!hex && !rgb) return false;
  const digits = rgb ? rgb.slice(1, 4).map(Number) : (hex[1].length === 3 ? [...hex[1]].map((c) => c + c) : hex[1].match(/../g)).map((c) => parseInt(c, 16));
  const [r, g, b] = digits.map((c) => c / 255);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.5;
}

export function font(theme, { size = theme.fontSize, weight = 'normal' } = {}) {
  return `${weight} ${size}px ${theme.fontFamily}`;
}

/** A diagonal-stripe tile for masked cells; `makeCanvas(w, h)` makes a canvas. */
export function hatchTile(makeCanvas, theme) {
  const tile = makeCanvas(6, 6);
  const ctx = tile.getContext('2d');
  ctx.strokeStyle = theme.hatch;
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(0, 6);
  ctx.lineTo(6, 0);
  ctx.moveTo(-1, 1);
  ctx.lineTo(1, -1);
  ctx.moveTo(5, 7);
  ctx.lineTo(7, 5);
  ctx.stroke();
  return tile;
}

/** Luma of an `r, g, b` triple of the colormap table, for text contrast. */
function isLight(table, t) {
  const k = Math.max(0, Math.min(255, Math.round(t * 255))) * 3;
  return 0.2126 * table[k] + 0.7152 * table[k + 1] + 0.0722 * table[k + 2] > 140;
}

/** Formats a tick or weight with as few decimals as its step needs. */
export function formatTick(value, step) {
  const decimals = step > 0 ? Math.max(0, Math.min(4, -Math.floor(Math.log10(step) + 1e-9))) : 2;
  return value.toFixed(decimals);
}

/**
 * The part of the matrix a view shows: rows row0 … row0 + rows − 1 and
 * columns col0 … col0 + cols − 1 of a (allRows, allCols) matrix. Without a
 * `window` (zoom), the whole matrix.
 */
export function windowOf(view) {
  const allRows = view.rows ?? view.n;
  const allCols = view.cols ?? view.n;
  const w = view.window;
  return w ? { ...w, allRows, allCols } : { row0: 0, col0: 0, rows: allRows, cols: allCols, allRows, allCols };
}

/**
 * A weight as a cell prints it: 2 decimals, or 3 without the leading zero
 * (".004", as wide) in a matrix whose largest weight is under 0.1, as a long
 * text's are. One that rounds to 0 but is not 0 prints "<.01" or "<.001": a
 * softmax weight is never 0.
 */
export function cellValue(w, max) {
  const small = max < 0.1;
  if (w > 0 && w < (small ? 0.0005 : 0.005)) return small ? '<.001' : '<.01';
  return small ? w.toFixed(3).replace(/^0/, '') : w.toFixed(2);
}

/**
 * The base layer of the heatmap.
 * view: { layout, labels, n, weights, masked, cells (n × n canvas), hatch
 *         (pattern or colour), scaleMax, ticks, table (colormap rgb bytes), theme,
 *         bar (optional: the colour bar as an image, 1 × 256, max on top) }
 *       and, for a matrix that is not square (cross-attention), rows, cols and
 *       colLabels (key labels; `labels` then names the rows); `window` (see
 *       windowOf) when zoomed in: the layout then fits the window, not the matrix.
 * layout: { cell, matrix: [x, y, w, h], colorbar: [x, y, w, h], labelsShown,
 *           valuesShown, width, height }
 */
export function paintHeatmap(ctx, view) {
  const { layout, labels, theme } = view;
  const { row0, col0, rows, cols, allCols } = windowOf(view);
  const colLabels = view.colLabels ?? labels;
  const [mx, my, mw, mh] = layout.matrix;
  const cell = layout.cell;
  ctx.clearRect(0, 0, layout.width, layout.height);

  // Masked cells are transparent in the bitmap: the stripes show through.
  ctx.fillStyle = view.hatch;
  ctx.fillRect(mx, my, mw, mh);
  ctx.imageSmoothingEnabled = false;
  if (view.window) ctx.drawImage(view.cells, col0, row0, cols, rows, mx, my, mw, mh);
  else ctx.drawImage(view.cells, mx, my, mw, mh);
  // A frame just outside the cells, as the colour bar has: a palette's end can be the page's own colour
  // (greys: a weight of 1 is white on the light page, and 0 black on the dark one).
  ctx.strokeStyle = theme.muted;
  ctx.lineWidth = 1;
  ctx.strokeRect(mx - 0.5, my - 0.5, mw + 1, mh + 1);

  if (layout.valuesShown) {
    ctx.font = font(theme, { size: Math.min(13, Math.floor(cell / 3.6)) });
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        const k = (row0 + i) * allCols + col0 + j;
        if (view.masked[k]) continue;
        const w = view.weights[k];
        ctx.fillStyle = isLight(view.table, w / view.scaleMax) ? '#000000' : '#ffffff';
        ctx.fillText(cellValue(w, view.scaleMax), mx + (j + 0.5) * cell, my + (i + 0.5) * cell);
      }
    }
  }

  if (layout.labelsShown) {
    ctx.fillStyle = theme.fg;
    ctx.font = font(theme);
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'right';
    for (let i = 0; i < rows; i++) ctx.fillText(fitted(ctx, labels[row0 + i], mx - 8), mx - 6, my + (i + 0.5) * cell);
    // Key labels read upwards, their ends against the matrix.
    ctx.textAlign = 'left';
    for (let j = 0; j < cols; j++) {
      ctx.save();
      ctx.translate(mx + (j + 0.5) * cell, my - 6);
      ctx.rotate(-Math.PI / 2);
      ctx.fillText(fitted(ctx, colLabels[col0 + j], my - 8), 0, 0);
      ctx.restore();
    }
  }
  paintColorbar(ctx, view);
}

function paintColorbar(ctx, view) {
  const { layout, theme, table, scaleMax, ticks } = view;
  const [x, y, w, h] = layout.colorbar;
  if (view.bar) {
    // The bar as one image (analysis.js's colorbarOf), stretched without smoothing.
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(view.bar, x, y, w, h);
  } else {
    // One band per table entry, from the top (max) down to 0.
    const bands = table.length / 3;
    for (let b = 0; b < bands; b++) {
      const k = (bands - 1 - b) * 3;
      ctx.fillStyle = `rgb(${table[k]}, ${table[k + 1]}, ${table[k + 2]})`;
      ctx.fillRect(x, y + (b * h) / bands, w, h / bands + 0.5);
    }
  }
  ctx.strokeStyle = theme.muted;
  ctx.lineWidth = 1;
  ctx.strokeRect(x, y, w, h);
  ctx.fillStyle = theme.fg;
  ctx.font = font(theme, { size: 11 });
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  const step = ticks.length > 1 ? ticks[1] - ticks[0] : scaleMax;
  for (const t of ticks) {
    const ty = y + h - (scaleMax > 0 ? (t / scaleMax) * h : 0);
    ctx.fillRect(x + w, ty - 0.5, 4, 1);
    ctx.fillText(formatTick(t, step), x + w + 6, ty);
  }
  ctx.textBaseline = 'bottom';
  ctx.fillStyle = theme.muted;
  ctx.fillText('weight', x - 2, y - 4);
}

/**
 * The overlay: the focused row as a band with an outline, the hovered cell
 * outlined with its row and column lightly marked. When labels do not fit,
 * the focused and hovered tokens are named here instead.
 */
export function paintOverlay(ctx, view, focus, hover) {
  const { layout, labels, theme } = view;
  const [mx, my, mw] = layout.matrix;
  const cell = layout.cell;
  const { row0, col0, rows, cols } = windowOf(view);
  // Rows and columns in the window, or -1.
  const r = (i) => (i !== null && i >= row0 && i < row0 + rows ? i - row0 : -1);
  const c = (j) => (j !== null && j >= col0 && j < col0 + cols ? j - col0 : -1);
  ctx.clearRect(0, 0, layout.width, layout.height);
  if (hover) {
    ctx.fillStyle = theme.focusBand;
    if (c(hover.col) >= 0) ctx.fillRect(mx + c(hover.col) * cell, 0, cell, my);
    if (r(hover.row) >= 0) ctx.fillRect(0, my + r(hover.row) * cell, mx, cell);
  }
  if (focus !== null && r(focus) >= 0) {
    ctx.fillStyle = theme.focusBand;
    ctx.fillRect(0, my + r(focus) * cell, mx, cell);
    ctx.strokeStyle = theme.accent;
    ctx.lineWidth = Math.max(1.5, Math.min(3, cell / 8));
    ctx.strokeRect(mx - 1, my + r(focus) * cell - 1, mw + 2, cell + 2);
  }
  if (hover && r(hover.row) >= 0 && c(hover.col) >= 0) {
    ctx.strokeStyle = theme.fg;
    ctx.lineWidth = 2;
    ctx.strokeRect(mx + c(hover.col) * cell, my + r(hover.row) * cell, cell, cell);
  }
  if (!layout.labelsShown) {
    ctx.font = font(theme, { weight: 'bold' });
    ctx.fillStyle = theme.fg;
    ctx.textBaseline = 'bottom';
    ctx.textAlign = 'left';
    const names = [];
    // Labels isolated: a right-to-left query and key would otherwise swap places.
    // Counted from 1, as the chips and the tooltips count words.
    if (focus !== null && focus >= 0) names.push(`query ${focus + 1}: ${isolate(labels[focus])}`);
    if (hover && hover.col >= 0) names.push(`key ${hover.col + 1}: ${isolate((view.colLabels ?? labels)[hover.col])}`);
    if (names.length) ctx.fillText(names.join('  ·  '), mx, Math.max(14, my - 2));
  }
}

/**
 * The arrows view: queries on the left, keys on the right, one curve per
 * link. `links` is the flat Float32Array of ArrowGeometry.links (9 numbers a
 * link: query, key, weight, x0, y0, x1, y1, lineWidth, opacity).
 * arrows: { rowHeight, top, queryX, keyX, keyLabelX, labelsShown, width, height }
 * options: { keyLabels (cross-attention: the other sentence; default labels),
 *            colors (one CSS colour per link, e.g. per head; default theme.link) }
 */
export function paintArrows(ctx, arrows, labels, links, focus, focusRow, theme, options = {}) {
  const keyLabels = options.keyLabels ?? labels;
  const colors = options.colors ?? null;
  ctx.clearRect(0, 0, arrows.width, arrows.height);
  ctx.font = font(theme, { size: 11 });
  ctx.fillStyle = theme.muted;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'right';
  ctx.fillText('query', arrows.queryX - 6, arrows.top / 2);
  ctx.textAlign = 'left';
  ctx.fillText('key', arrows.keyLabelX, arrows.top / 2);

  ctx.lineCap = 'round';
  const bend = (arrows.keyX - arrows.queryX) / 2;
  // Links of one colour, width (to ¼ px) and opacity (to 1/32) are one path:
  // the thousand curves of a row at 1,024 tokens are a few dozen strokes.
  // Links come weakest first, and so do the groups, so strong ones end on top.
  const groups = new Map();
  for (let k = 0; k + 8 < links.length; k += 9) {
    const color = colors ? colors[k / 9] : theme.link;
    const width = Math.round(links[k + 7] * 4) / 4;
    const alpha = Math.round(links[k + 8] * 32) / 32;
    const key = `${color} ${width} ${alpha}`;
    if (!groups.has(key)) groups.set(key, { color, width, alpha, links: [] });
    groups.get(key).links.push(k);
  }
  for (const { color, width, alpha, links: group } of groups.values()) {
    ctx.strokeStyle = color;
    ctx.globalAlpha = alpha;
    ctx.lineWidth = width;
    ctx.beginPath();
    for (const k of group) curve(ctx, links, k, bend);
    ctx.stroke();
  }
  ctx.globalAlpha = 1;

  const n = labels.length;
  // Each side's labels within the canvas, a 2 px margin at its edge.
  const queryRoom = arrows.queryX - 8;
  const keyRoom = arrows.width - arrows.keyLabelX - 2;
  if (!arrows.labelsShown) {
    // Rows too thin for every label: name the focused query and its strongest keys.
    if (focus === null || !focusRow) return;
    ctx.font = font(theme, { weight: 'bold' });
    ctx.fillStyle = theme.accent;
    ctx.textAlign = 'right';
    const y = rowY(arrows, focus);
    ctx.fillText(fitted(ctx, labels[focus], queryRoom), arrows.queryX - 6, y);
    // Its place in the text on a line of its own, below it (above it at the bottom): after
    // the word, in a column sized for words, it cut most of them ("t… (word 6)").
    const line = theme.fontSize + 2;
    ctx.font = font(theme, { size: 11 });
    ctx.fillStyle = theme.muted;
    ctx.fillText(fitted(ctx, `word ${focus + 1}`, queryRoom), arrows.queryX - 6, y + line + line / 2 > arrows.height ? y - line : y + line);
    nameStrongestKeys(ctx, arrows, keyLabels, links, focus, focusRow, theme, keyRoom, bend);
    return;
  }
  for (let i = 0; i < n; i++) {
    const y = rowY(arrows, i);
    const focused = i === focus;
    ctx.font = font(theme, { weight: focused ? 'bold' : 'normal' });
    ctx.fillStyle = focused ? theme.accent : theme.fg;
    ctx.textAlign = 'right';
    ctx.fillText(fitted(ctx, labels[i], queryRoom), arrows.queryX - 6, y);
  }
  ctx.font = font(theme);
  ctx.fillStyle = theme.fg;
  ctx.textAlign = 'left';
  const largest = focusRow ? Math.max(...focusRow) : 0;
  for (let j = 0; j < keyLabels.length; j++) {
    const y = rowY(arrows, j);
    ctx.fillText(fitted(ctx, keyLabels[j], keyRoom, focusRow ? ` ${cellValue(focusRow[j], largest)}` : ''), arrows.keyLabelX, y);
  }
}

/** The middle of token row `i` of an arrows layout. */
const rowY = (arrows, i) => arrows.top + (i + 0.5) * arrows.rowHeight;

/** The curve of link `k` of a flat links array (9 numbers a link: …, x0, y0, x1, y1, …), bent by `bend` at each end. */
function curve(ctx, links, k, bend) {
  const [x0, y0, x1, y1] = [links[k + 3], links[k + 4], links[k + 5], links[k + 6]];
  ctx.moveTo(x0, y0);
  ctx.bezierCurveTo(x0 + bend, y0, x1 - bend, y1, x1, y1);
}

/** How many keys the arrows name when rows are too thin for every label. */
const NAMED_KEYS = 6;

/**
 * Rows too thin for every label: the focused query's strongest keys, named
 * in the order of the text, apart from each other and inside the canvas even
 * when the keys are neighbours. Their curves are drawn again in the accent
 * colour over the thousand others, and a leader joins each curve's end to
 * its name.
 */
function nameStrongestKeys(ctx, arrows, keyLabels, links, focus, focusRow, theme, keyRoom, bend) {
  // Of the keys whose curves are drawn (the threshold hides some): each one's link.
  const linkOf = new Map();
  for (let k = 0; k + 8 < links.length; k += 9) if (links[k] === focus) linkOf.set(links[k + 1], k);
  const hidden = Uint8Array.from(focusRow, (_, j) => (linkOf.has(j) ? 0 : 1));
  const named = strongestKeys(focusRow, NAMED_KEYS, hidden).sort((a, b) => a - b);
  const line = theme.fontSize + 2;
  const ys = named.map((j) => rowY(arrows, j));
  // Down from the top, then up from the bottom: apart, and none below the canvas.
  for (let k = 1; k < ys.length; k++) ys[k] = Math.max(ys[k], ys[k - 1] + line);
  for (let k = ys.length - 1; k >= 0; k--) ys[k] = Math.min(ys[k], k + 1 < ys.length ? ys[k + 1] - line : arrows.height - line / 2);
  ctx.strokeStyle = theme.accent;
  ctx.globalAlpha = 1;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  for (const j of named) curve(ctx, links, linkOf.get(j), bend);
  ctx.stroke();
  ctx.strokeStyle = theme.muted;
  ctx.lineWidth = 1;
  ctx.beginPath();
  named.forEach((j, k) => {
    ctx.moveTo(arrows.keyX, rowY(arrows, j));
    ctx.lineTo(arrows.keyLabelX - 3, ys[k]);
  });
  ctx.stroke();
  ctx.font = font(theme);
  ctx.fillStyle = theme.fg;
  ctx.textAlign = 'left';
  named.forEach((j, k) => ctx.fillText(fitted(ctx, keyLabels[j], keyRoom, ` ${focusRow[j].toFixed(3)}`), arrows.keyLabelX, ys[k]));
}

/**
 * `text` as drawn in the context's font within `room` pixels: whole, or cut
 * after whole characters with "…". A label wider than the room the layout
 * gives labels (a third of the width) ran off the canvas's edge. With a
 * `suffix` (a number, a word count), the text is isolated (a right-to-left
 * word would otherwise take the number into its run), fits in what the
 * suffix leaves, and the suffix follows.
 */
function fitted(ctx, text, room, suffix = '') {
  const left = room - (suffix ? ctx.measureText(suffix).width : 0);
  const kept = ctx.measureText(text).width <= left ? text : wrapLines(text, (line) => ctx.measureText(line).width <= left, 1)[0] || '…';
  return suffix ? `${isolate(kept)}${suffix}` : kept;
}

/**
 * The indices of the `count` largest of `weights` (leaving out those where
 * `masked` is set), largest first, the earlier on a tie: one pass, where a
 * sort of a 1,024-key row ran at every click.
 */
export function strongestKeys(weights, count, masked = null) {
  const best = [];
  for (let j = 0; j < weights.length; j++) {
    if (masked?.[j]) continue;
    let at = best.length;
    while (at > 0 && weights[j] > weights[best[at - 1]]) at--;
    if (at < count) {
      best.splice(at, 0, j);
      if (best.length > count) best.pop();
    }
  }
  return best;
}
