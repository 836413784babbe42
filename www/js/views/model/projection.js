// Queries and keys side by side: the open head's query and key vectors of
// every piece, projected together on their two main directions (PCA, by
// `projectHead` in the worker), in one scatter: queries as circles, keys as
// triangles, in two colour-blind-safe colours (Okabe–Ito), labelled by
// token, each axis with its share of the variance. Hovering a point lights
// up that token's row (a query) or column (a key) in the heatmap, and the
// heatmap's hover lights up the points: through the model view's shared
// hover, never by reaching into the heatmap. The arrow keys walk the points.
//
// Geometry and hit-testing are plain functions of the points; the painter
// takes its 2D context as an argument (paint.js style).

import { attr, el } from '../../dom.js';
import { sizeCanvas } from '../../heatmap-view.js';
import { font } from '../../paint.js';
import { quoted } from '../../text.js';

/** Above this many pieces only the lit and focused points are labelled. */
const LABEL_ALL = 30;
const PAD = { left: 34, right: 14, top: 12, bottom: 30 };
const MARK = 4.5;

/** Queries and keys, colour-blind safe on light and dark backgrounds (Okabe–Ito). */
export function markColors(theme) {
  const hex = /^#([0-9a-f]{6})$/i.exec(theme.bg ?? '');
  const value = hex ? parseInt(hex[1], 16) : 0xffffff;
  const luma = 0.2126 * (value >> 16) + 0.7152 * ((value >> 8) & 255) + 0.0722 * (value & 255);
  return luma < 128 ? { query: '#56B4E9', key: '#E69F00' } : { query: '#0072B2', key: '#D55E00' };
}

/** Where the `count` points of `points` ((count, 2) row-major) go in a width × height picture; one scale for both axes. */
export function projectionLayout(points, count, width, height) {
  let [minX, maxX, minY, maxY] = [Infinity, -Infinity, Infinity, -Infinity];
  for (let p = 0; p < count; p++) {
    minX = Math.min(minX, points[2 * p]);
    maxX = Math.max(maxX, points[2 * p]);
    minY = Math.min(minY, points[2 * p + 1]);
    maxY = Math.max(maxY, points[2 * p + 1]);
  }
  const plotW = Math.max(1, width - PAD.left - PAD.right);
  const plotH = Math.max(1, height - PAD.top - PAD.bottom);
  const spanX = maxX - minX || 1;
  const spanY = maxY - minY || 1;
  // One scale: distances in the picture compare across both axes.
  const scale = Math.min(plotW / spanX, plotH / spanY);
  const x0 = PAD.left + (plotW - spanX * scale) / 2;
  const y0 = PAD.top + (plotH - spanY * scale) / 2;
  const x = new Float32Array(count);
  const y = new Float32Array(count);
  for (let p = 0; p < count; p++) {
    x[p] = x0 + (points[2 * p] - minX) * scale;
    y[p] = y0 + (maxY - points[2 * p + 1]) * scale; // up is positive
  }
  return { x, y, count, width, height, plot: [PAD.left, PAD.top, plotW, plotH] };
}

/** The point nearest (px, py) within `radius` pixels, or -1. */
export function nearestPoint(layout, px, py, radius = 10) {
  let best = -1;
  let bestDistance = radius * radius;
  for (let p = 0; p < layout.count; p++) {
    const d = (layout.x[p] - px) ** 2 + (layout.y[p] - py) ** 2;
    if (d <= bestDistance) {
      best = p;
      bestDistance = d;
    }
  }
  return best;
}

function mark(ctx, x, y, isKey, size) {
  ctx.beginPath();
  if (isKey) {
    ctx.moveTo(x, y - size * 1.2);
    ctx.lineTo(x + size * 1.1, y + size * 0.8);
    ctx.lineTo(x - size * 1.1, y + size * 0.8);
    ctx.closePath();
  } else {
    ctx.arc(x, y, size, 0, 2 * Math.PI);
  }
}

/**
 * Paints the scatter on `ctx`. picture: { layout, n, labels, explained,
 * theme, colors, lit (Set of points), focused (Set of points) }; points 0..n
 * are queries, n..2n keys.
 */
export function paintProjection(ctx, picture) {
  const { layout, n, labels, explained, theme, lit, focused } = picture;
  const [px, py, pw, ph] = layout.plot;
  ctx.clearRect(0, 0, layout.width, layout.height);
  ctx.strokeStyle = theme.muted;
  ctx.lineWidth = 1;
  ctx.strokeRect(px + 0.5, py + 0.5, pw, ph);
  ctx.font = font(theme, { size: 11 });
  ctx.fillStyle = theme.muted;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  ctx.fillText(`axis 1: ${(explained[0] * 100).toFixed(0)}% of the variance`, px + pw / 2, py + ph + 8);
  ctx.save();
  ctx.translate(px - 10, py + ph / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.textBaseline = 'bottom';
  ctx.fillText(`axis 2: ${(explained[1] * 100).toFixed(0)}%`, 0, 0);
  ctx.restore();
  // The lit query and key of one token pair: a dashed line between them.
  const litQueries = [...lit].filter((p) => p < n);
  const litKeys = [...lit].filter((p) => p >= n);
  if (litQueries.length && litKeys.length) {
    ctx.setLineDash([4, 3]);
    ctx.strokeStyle = theme.fg;
    ctx.beginPath();
    ctx.moveTo(layout.x[litQueries[0]], layout.y[litQueries[0]]);
    ctx.lineTo(layout.x[litKeys[0]], layout.y[litKeys[0]]);
    ctx.stroke();
    ctx.setLineDash([]);
  }
  const strong = (p) => lit.has(p) || focused.has(p);
  const order = [...Array(layout.count).keys()].sort((a, b) => Number(strong(a)) - Number(strong(b)));
  for (const p of order) paintPoint(ctx, picture, p, strong(p));
  // The labels over every mark, each where it hides no other label or mark.
  const places = labelPlaces(ctx, picture, [...order].reverse(), strong);
  ctx.fillStyle = theme.fg;
  ctx.textBaseline = 'middle';
  for (const p of order) {
    const place = places[p];
    if (!place) continue;
    ctx.globalAlpha = lit.size && !strong(p) ? 0.45 : 1;
    ctx.font = font(theme, { size: 11, weight: strong(p) ? 'bold' : 'normal' });
    ctx.textAlign = place.align;
    ctx.fillText(labels[p % n], place.x, place.y);
  }
  ctx.globalAlpha = 1;
}

function paintPoint(ctx, { layout, n, theme, colors, lit, focused }, p, strong) {
  const isKey = p >= n;
  const [x, y] = [layout.x[p], layout.y[p]];
  ctx.globalAlpha = lit.size && !strong ? 0.45 : 1;
  ctx.fillStyle = isKey ? colors.key : colors.query;
  mark(ctx, x, y, isKey, strong ? MARK + 1.5 : MARK);
  ctx.fill();
  if (strong) {
    ctx.strokeStyle = focused.has(p) ? theme.accent : theme.fg;
    ctx.lineWidth = 2;
    ctx.stroke();
  }
  ctx.globalAlpha = 1;
}

/** Height of a label's box (11 px text). */
const LABEL_HEIGHT = 13;

/**
 * Where each point's label goes ({ x, y, align } for fillText, or null): to
 * the right of its mark, else the left, above or below, the first place
 * inside the canvas that covers no label placed before it and no other
 * mark. Points are placed in `order` (the lit and focused first): a label
 * with no free place is left out (the coordinates' table and the pointer's
 * status name it), except a lit or focused one, which goes where it fits.
 * Drawn where they fell, words piled up ("th" under the mark of "it").
 */
export function labelPlaces(ctx, { layout, n, labels, theme }, order, strong) {
  const h = LABEL_HEIGHT;
  const hit = (a, b) => a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3];
  const marks = Array.from({ length: layout.count }, (_, p) => [layout.x[p] - MARK, layout.y[p] - MARK, 2 * MARK, 2 * MARK]);
  const boxes = [];
  const places = new Array(layout.count).fill(null);
  for (const p of order) {
    if (!strong(p) && n > LABEL_ALL) continue;
    ctx.font = font(theme, { size: 11, weight: strong(p) ? 'bold' : 'normal' });
    const w = ctx.measureText(labels[p % n]).width;
    const [x, y] = [layout.x[p], layout.y[p]];
    const gap = MARK + 3;
    const candidates = [
      { x: x + gap, y, align: 'left', box: [x + gap, y - h / 2, w, h] },
      { x: x - gap, y, align: 'right', box: [x - gap - w, y - h / 2, w, h] },
      { x, y: y - gap - h / 2, align: 'center', box: [x - w / 2, y - gap - h, w, h] },
      { x, y: y + gap + h / 2, align: 'center', box: [x - w / 2, y + gap, w, h] },
    ].filter(({ box }) => box[0] >= 0 && box[0] + box[2] <= layout.width && box[1] >= 0 && box[1] + box[3] <= layout.height);
    const free = candidates.find(({ box }) => !boxes.some((b) => hit(b, box)) && !marks.some((m, q) => q !== p && hit(m, box)));
    const place = free ?? (strong(p) ? candidates[0] : null);
    if (!place) continue;
    boxes.push(place.box);
    places[p] = place;
  }
  return places;
}

export class ProjectionView {
  /** box: the section to fill; view: the model view (run, state, ctx, currentHead(), focus(), setHover(), client) */
  constructor(box, { view }) {
    this.view = view;
    this.box = box;
    this.picture = null; // the worker's projection, with its layout
    this.lit = null; // { row, col } run tokens lit from the heatmap
    this.cursor = -1; // the point the keyboard or pointer is on
    this.asked = null;
    this.build();
    this.wire();
    view.ctx.observe(this.frame, () => this.paint());
  }

  build() {
    const figure = el('figure', null, 'view model-projection');
    this.caption = el('figcaption', 'Queries and keys of the open head, in one picture.');
    this.legend = el('ul', null, 'model-legend');
    this.legend.id = 'model-projection-legend';
    this.legend.setAttribute('aria-label', 'Legend');
    this.frame = el('div', null, 'canvas-box model-projection-box');
    this.canvas = Object.assign(el('canvas'), { id: 'model-projection', tabIndex: 0 });
    this.canvas.setAttribute('role', 'img');
    this.frame.append(this.canvas);
    this.status = el('p', '', 'model-projection-status');
    this.status.setAttribute('role', 'status');
    const about = el('p', 'Each piece appears twice: its query (what it looks for) and its key (what it offers). The picture keeps the two directions along which these vectors spread most (PCA, centred), so it shows how they lie relative to each other, not their dot products exactly; the axes say how much of the spread they keep. Arrow keys walk the points (left and right: tokens, up and down: query or key).', 'note');
    this.coordinates = el('details', null, 'model-projection-numbers');
    figure.append(this.caption, this.legend, this.frame, this.status, about, this.coordinates);
    this.box.append(figure);
  }

  wire() {
    const at = (event) => {
      if (!this.picture?.layout) return -1;
      const rect = this.canvas.getBoundingClientRect();
      return nearestPoint(this.picture.layout, event.clientX - rect.left, event.clientY - rect.top);
    };
    this.canvas.addEventListener('pointermove', (event) => this.point(at(event)));
    this.canvas.addEventListener('pointerleave', () => this.point(-1));
    this.canvas.addEventListener('blur', () => this.point(-1));
    this.canvas.addEventListener('keydown', (event) => {
      const picture = this.picture;
      if (!picture) return;
      const { n } = picture;
      const p = this.cursor < 0 ? 0 : this.cursor;
      const token = p % n;
      const isKey = p >= n;
      const moves = { ArrowRight: (token + 1) % n + (isKey ? n : 0), ArrowLeft: (token + n - 1) % n + (isKey ? n : 0), ArrowUp: token, ArrowDown: token + n, Escape: -1 };
      if (!(event.key in moves)) return;
      event.preventDefault();
      this.point(this.cursor < 0 && event.key !== 'Escape' ? 0 : moves[event.key]);
    });
  }

  /** Puts the cursor on point `p` (-1: none) and tells the model view, which lights up the heatmap. */
  point(p) {
    if (p === this.cursor) return;
    this.cursor = p;
    const picture = this.picture;
    if (!picture || p < 0) {
      this.status.textContent = '';
      this.view.setHover(null);
    } else {
      const { n, labels, points } = picture;
      const token = this.view.run?.tokenOfPiece[p % n];
      this.status.textContent = `${p < n ? 'Query' : 'Key'} of ${quoted(labels[p % n])}: (${points[2 * p].toFixed(2)}, ${points[2 * p + 1].toFixed(2)})`;
      this.view.setHover(token === undefined ? null : p < n ? { row: token, col: -1 } : { row: -1, col: token });
    }
    this.paint();
  }

  /** Lights up the points of the heatmap's hover ({ row, col } in run tokens, or null). */
  light(hover) {
    const same = (a, b) => (a === null && b === null) || (a && b && a.row === b.row && a.col === b.col);
    if (same(hover, this.lit)) return;
    this.lit = hover ? { ...hover } : null;
    this.paint();
  }

  /** Asks for the projection when the sentence or the head changed. */
  update() {
    const { run } = this.view;
    if (!run) return;
    const { layer, head } = this.view.currentHead();
    const wanted = JSON.stringify([run.sentence, layer, head]);
    if (wanted !== this.asked) {
      this.asked = wanted;
      this.canvas.dataset.state = 'loading';
      this.view.client.ask('project', { sentence: run.sentence, layer, head });
    }
    this.paint();
  }

  receive(message) {
    const { n, tokens, points, explained, layer, head } = message;
    this.picture = { n, labels: tokens.map((t) => t.text), points, explained, layer, head, layout: null };
    this.cursor = -1;
    const colors = markColors(this.view.ctx.theme);
    const entry = (shape, color, text) => {
      const item = el('li');
      const swatch = el('span', shape, 'model-legend-mark');
      swatch.style.color = color;
      swatch.setAttribute('aria-hidden', 'true');
      item.append(swatch, ` ${text}`);
      return item;
    };
    this.legend.replaceChildren(entry('●', colors.query, 'query q of a piece (circle)'), entry('▲', colors.key, 'key k of a piece (triangle)'));
    this.caption.textContent = `Queries and keys of layer ${layer}, head ${head}: ${n} pieces, ${2 * n} points; the two axes keep ${((explained[0] + explained[1]) * 100).toFixed(0)}% of the variance.`;
    Object.assign(this.canvas.dataset, { state: 'ready', points: String(2 * n), explained: explained.map((e) => e.toFixed(4)).join(','), layer: String(layer), head: String(head) });
    this.canvas.setAttribute('aria-label', `${this.caption.textContent} Arrow keys move between the points; the numbers are in the table below.`);
    this.coordinates.replaceChildren(el('summary', 'The coordinates'), coordinateTable(this.picture));
    this.paint();
  }

  paint() {
    const { picture, view } = this;
    const width = view.ctx.widthOf(this.frame);
    if (!picture || !width || this.frame.closest('[hidden]')) return;
    const height = Math.round(Math.min(420, Math.max(240, width * 0.7)));
    const ctx = sizeCanvas(this.canvas, width, height);
    if (!picture.layout || picture.layout.width !== width) picture.layout = projectionLayout(picture.points, 2 * picture.n, width, height);
    const run = view.run;
    const piecesOf = (token) => (run && token >= 0 && token < run.n ? range(...run.tokens[token].pieces) : []);
    const lit = new Set(this.cursor >= 0 ? [this.cursor] : []);
    if (this.lit) {
      for (const p of piecesOf(this.lit.row)) lit.add(p);
      for (const p of piecesOf(this.lit.col)) lit.add(p + picture.n);
    }
    const focus = view.focus();
    const focused = new Set(focus === null ? [] : piecesOf(focus));
    attr(this.canvas, 'data-lit', [...lit].sort((a, b) => a - b).join(',') || null);
    paintProjection(ctx, { ...picture, theme: view.ctx.theme, colors: markColors(view.ctx.theme), lit, focused });
  }

  fail(message) {
    this.asked = null;
    this.picture = null;
    this.canvas.dataset.state = 'error';
    this.status.textContent = `The projection could not be computed: ${message.message}`;
  }
}

function range(start, end) {
  return Array.from({ length: Math.max(0, end - start) }, (_, k) => start + k);
}

function coordinateTable({ n, labels, points }) {
  const table = el('table', null, 'num-table model-projection-table');
  const head = el('tr');
  for (const text of ['piece', 'query axis 1', 'query axis 2', 'key axis 1', 'key axis 2']) head.append(el('th', text));
  const thead = el('thead');
  thead.append(head);
  const tbody = el('tbody');
  for (let i = 0; i < n; i++) {
    const tr = el('tr');
    const th = el('th', labels[i]);
    th.scope = 'row';
    tr.append(th);
    for (const p of [i, i + n]) tr.append(el('td', points[2 * p].toFixed(3)), el('td', points[2 * p + 1].toFixed(3)));
    tbody.append(tr);
  }
  table.append(thead, tbody);
  const scroll = el('div', null, 'steps-scroll');
  scroll.append(table);
  return scroll;
}
