// The grid of every head: a row per layer, a column per head, each
// thumbnail that head's heatmap (max-pooled to at most 48 pixels a side).
// One Tab stop for the grid, arrow keys inside; a click or Enter opens a head.

import { el } from '../../dom.js';
import { colorize } from '../../paint.js';

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

/** The buttons now, their thumbnails a layer per task (long sentences stay responsive). */
export function buildGrid(grid, run, table) {
  const size = Math.min(run.n, THUMB_MAX);
  const nn = run.n * run.n;
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
      button.setAttribute('aria-label', `Layer ${l}, head ${h}`);
      button.setAttribute('aria-pressed', 'false');
      button.title = `Layer ${l}, head ${h}`;
      const canvas = Object.assign(el('canvas'), { width: Math.max(1, size), height: Math.max(1, size) });
      canvases.push([l * run.heads + h, canvas]);
      button.append(canvas);
      row.append(button);
    }
    rows.push(row);
  }
  grid.replaceChildren(...rows);
  grid.dataset.heads = String(run.layers * run.heads);
  const paintLayer = (l) => {
    if (grid.dataset.run !== String(run.id) || l >= run.layers || run.n === 0) return;
    for (const [k, canvas] of canvases.slice(l * run.heads, (l + 1) * run.heads)) {
      const pooled = pool(run.weights.subarray(k * nn, (k + 1) * nn), run.n, size);
      canvas.getContext('2d').putImageData(new ImageData(colorize(pooled, size, size, run.headMax[k], table), size, size), 0, 0);
    }
    setTimeout(() => paintLayer(l + 1), 0);
  };
  grid.dataset.run = String(run.id);
  setTimeout(() => paintLayer(0), 0);
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
