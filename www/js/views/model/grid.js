// The grid of every head: a row per layer, a column per head, each
// thumbnail that head's heatmap (max-pooled to at most 48 pixels a side).
// One Tab stop for the grid, arrow keys inside; a click or Enter opens a head.

import { el } from '../../dom.js';
import { legend } from '../../legend.js';

/** Thumbnails are at most this many pixels a side (larger heads are max-pooled). */
const THUMB_MAX = 48;

/** `(n, n)` weights max-pooled to `(size, size)`, size ≤ n. */
export function pool(weights, n, size) {
  if (size >= n) return weights;
  const out = new Float32Array(size * size);
  for (let i = 0; i < n; i++) {
    const r = Math.floor((i * size) / n);
    for (let j = 0; j < n; j++) {
      const k = r * size + Math.floor((j * size) / n);
      out[k] = Math.max(out[k], weights[i * n + j]);
    }
  }
  return out;
}

/** Side of a head's thumbnail in pixels for `run`. */
export function thumbSize(run) {
  return Math.max(1, Math.min(run.n, THUMB_MAX));
}

/**
 * Paints head `k` (layer · heads + head) of `run` as a thumbnail on the 2D
 * context `context` (a canvas of thumbSize(run) pixels a side), in the
 * page's colours (`colours`, view.js) on the one scale of every head
 * (run.gridMax). The thumbnails are kept on the run: the grid and the head
 * search paint the same ones.
 */
export function paintThumb(context, run, k, colours) {
  if (run.n === 0) return;
  const size = thumbSize(run);
  run.thumbs ??= new Map();
  const key = `${k}/${colours.palette}`;
  if (!run.thumbs.has(key)) {
    const nn = run.n * run.n;
    const pooled = pool(run.weights.subarray(k * nn, (k + 1) * nn), run.n, size);
    run.thumbs.set(key, colours.canvas(pooled, size, size, run.gridMax));
  }
  context.clearRect(0, 0, size, size);
  context.drawImage(run.thumbs.get(key), 0, 0);
}

/** The buttons now, their thumbnails a layer per task (long sentences stay responsive), and the grid's one legend. */
export function buildGrid(grid, run, colours) {
  const size = thumbSize(run);
  const header = el('div', null, 'model-grid-row model-grid-header');
  header.append(el('span', '', 'model-grid-corner'));
  for (let h = 0; h < run.heads; h++) header.append(el('span', `H${h}`, 'model-grid-label'));
  const rows = [header];
  const canvases = [];
  for (let l = 0; l < run.layers; l++) {
    const row = el('div', null, 'model-grid-row');
    row.append(el('span', `L${l}`, 'model-grid-label'));
    for (let h = 0; h < run.heads; h++) {
      const button = el('button', null, 'model-thumb');
      button.type = 'button';
      button.dataset.layer = String(l);
      button.dataset.head = String(h);
      button.tabIndex = -1;
      const name = `Layer ${l}, head ${h}`;
      const about = run.behaviours?.heads[l * run.heads + h]?.description;
      button.setAttribute('aria-label', about ? `${name}: ${about}` : name);
      button.setAttribute('aria-pressed', 'false');
      button.title = about ? `${name}: ${about}` : name;
      const canvas = Object.assign(el('canvas'), { width: size, height: size });
      canvases.push([l * run.heads + h, canvas]);
      button.append(canvas);
      row.append(button);
    }
    rows.push(row);
  }
  grid.replaceChildren(...rows, legend(colours.table, run.gridMax, `one colour scale for all ${run.layers * run.heads} heads`));
  grid.dataset.heads = String(run.layers * run.heads);
  const paintLayer = (l) => {
    if (grid.dataset.run !== String(run.id) || l >= run.layers || run.n === 0) return;
    for (const [k, canvas] of canvases.slice(l * run.heads, (l + 1) * run.heads)) paintThumb(canvas.getContext('2d'), run, k, colours);
    setTimeout(() => paintLayer(l + 1), 0);
  };
  grid.dataset.run = String(run.id);
  setTimeout(() => paintLayer(0), 0);
}

/**
 * Marks the first `count` heads of a ranking on the grid (`data-rank`, 1 =
 * best, and in their accessible names); `ranking` null clears the marks.
 * `what` says what they are ranked by.
 */
export function markRanked(grid, ranking, count, what) {
  for (const marked of grid.querySelectorAll('.model-thumb[data-rank]')) {
    delete marked.dataset.rank;
    marked.setAttribute('aria-label', marked.title);
  }
  if (!ranking) return;
  for (let r = 0; r < Math.min(count, ranking.layers.length); r++) {
    const button = grid.querySelector(`.model-thumb[data-layer="${ranking.layers[r]}"][data-head="${ranking.heads[r]}"]`);
    if (!button) continue;
    button.dataset.rank = String(r + 1);
    button.setAttribute('aria-label', `${button.title} (rank ${r + 1} by ${what})`);
  }
}

/** Marks head (layer, head) as the open one (and the grid's Tab stop). */
export function markGrid(grid, layer, head) {
  for (const pressed of grid.querySelectorAll('.model-thumb[aria-pressed="true"]')) {
    pressed.setAttribute('aria-pressed', 'false');
    pressed.tabIndex = -1;
  }
  const button = grid.querySelector(`.model-thumb[data-layer="${layer}"][data-head="${head}"]`);
  if (button) {
    button.setAttribute('aria-pressed', 'true');
    button.tabIndex = 0;
  }
}

/** Clicks open a head (`open(layer, head)`); arrow keys move between thumbnails. */
export function wireGrid(grid, { size, open }) {
  grid.addEventListener('click', (event) => {
    const button = event.target.closest('.model-thumb');
    if (button) open(Number(button.dataset.layer), Number(button.dataset.head));
  });
  grid.addEventListener('keydown', (event) => {
    const button = event.target.closest('.model-thumb');
    const dims = size();
    if (!button || !dims) return;
    let layer = Number(button.dataset.layer);
    let head = Number(button.dataset.head);
    switch (event.key) {
      case 'ArrowLeft': head = Math.max(0, head - 1); break;
      case 'ArrowRight': head = Math.min(dims.heads - 1, head + 1); break;
      case 'ArrowUp': layer = Math.max(0, layer - 1); break;
      case 'ArrowDown': layer = Math.min(dims.layers - 1, layer + 1); break;
      case 'Home': head = 0; break;
      case 'End': head = dims.heads - 1; break;
      default: return;
    }
    event.preventDefault();
    const next = grid.querySelector(`.model-thumb[data-layer="${layer}"][data-head="${head}"]`);
    if (next) {
      button.tabIndex = -1;
      next.tabIndex = 0;
      next.focus();
    }
  });
}
