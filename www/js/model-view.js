// The trained-model view: all-MiniLM-L6-v2's attention for the page's
// sentence, beside the GloVe attention. Loaded by app.js only when the view
// opens; the model itself runs in a Web Worker (model-worker.js through
// model-client.js), so the page never waits for it.
//
// It owns: the layer × head grid of thumbnails (one n × n bitmap each), the
// open head in the heatmap and arrows views (the painters and the wasm
// geometry of the GloVe views, with the same interactions), the side-by-side
// comparison of the focused word, and the weights table of the open head.
//
// The page state is app.js's (`state.model` holds this view's part, see
// model-state.js); this module reads it in `update(state, glove)` and changes
// it only through `api.update(next, how)`, like every other control.
//
// Focus across the two tokenizations: the GloVe view's focus is a row of its
// known tokens, with UTF-16 spans; the model's tokens carry UTF-8 byte spans,
// converted to UTF-16 (model-spans.js) and matched by overlap. A focus chosen
// in the model view is kept in `state.model.focus` (it may be a piece or
// [CLS], which GloVe lacks) and moves the GloVe focus to the overlapping word.
//
// The weights table: while this view is open and shows a head, its table
// has the id `weights` (the page's accessible numbers follow the head you
// look at) and the GloVe table is renamed `glove-weights`; closing the view
// gives the ids back. There is never more than one `#weights`.

import { el } from './dom.js';
import { arrowLayout, HeatmapView, labelWidth, markTableFocus, paintBase, paintFocusArrows, sizeCanvas, tableHead, wireArrowClicks } from './heatmap-view.js';
import { colorize, paintOverlay } from './paint.js';
import { ModelClient } from './model-client.js';
import { bestMatch, withUtf16Spans } from './model-spans.js';
import { DEFAULT_HEAD, DEFAULT_LAYER } from './model-state.js';

const CSS_URL = new URL('../model.css', import.meta.url);
const MODEL_NAME = 'all-MiniLM-L6-v2';
/** Above this many tokens the table lists only the focused row. */
const FULL_TABLE_LIMIT = 128;
/** Thumbnails are at most this many pixels a side (larger heads are max-pooled). */
const THUMB_MAX = 48;
const GRADIENT = 'viridis';
const COMPARE_LIMIT = 40;

function formatMB(bytes) {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

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

function maxOf(values) {
  let max = 0;
  for (const v of values) if (v > max) max = v;
  return max > 0 ? max : 1;
}

/**
 * Mounts the view in `root`. api: { wasm (the page's attention_wasm module:
 * geometry and colormap), theme() (current colours), update(next, how) }.
 */
export function mountModelView({ root, wasm, theme, update }) {
  if (!document.querySelector(`link[href="${CSS_URL.href}"]`)) {
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = CSS_URL.href;
    document.head.append(link);
  }
  const gloveTable = document.getElementById('weights');
  const table = wasm.colormapTable(GRADIENT);

  // ---- DOM -----------------------------------------------------------------
  const dom = {};
  const head = el('div', null, 'model-head');
  const title = el('h2', `A trained transformer: ${MODEL_NAME}`);
  dom.close = el('button', 'Close', 'small');
  dom.close.type = 'button';
  head.append(title, dom.close);
  const intro = el('p', 'The same sentence through MiniLM (6 layers × 12 heads, trained on a billion sentence pairs), computed on this page. Each head has learned its own query and key projections, so it can look at words that are not merely similar: layer 5, head 11 sends “it” to “cat”, which raw GloVe vectors cannot.', 'model-intro');

  dom.loading = el('div', null, 'model-loading');
  dom.progress = el('progress');
  dom.progress.max = 1;
  dom.progress.value = 0;
  dom.progress.setAttribute('aria-label', 'Model download');
  dom.status = el('span', 'Starting…', 'model-status');
  dom.status.setAttribute('role', 'status');
  dom.loading.append(dom.progress, dom.status);
  dom.error = el('p', null, 'error model-error');
  dom.error.setAttribute('role', 'alert');
  dom.error.hidden = true;
  dom.retry = el('button', 'Try again', 'small');
  dom.retry.type = 'button';
  dom.retry.hidden = true;

  const controls = el('div', null, 'controls compact model-controls');
  const unitsGroup = el('fieldset', null, 'model-units');
  unitsGroup.append(el('legend', 'Tokens'));
  dom.units = {};
  for (const [value, text] of [['pieces', 'Word pieces'], ['words', 'Whole words']]) {
    const label = el('label');
    const input = el('input');
    input.type = 'radio';
    input.name = 'model-units';
    input.value = value;
    dom.units[value] = input;
    label.append(input, ` ${text}`);
    unitsGroup.append(label);
  }
  const specialLabel = el('label');
  dom.special = el('input');
  dom.special.type = 'checkbox';
  dom.special.id = 'model-special';
  specialLabel.append(dom.special, ' Show [CLS] and [SEP]');
  dom.headName = el('span', '', 'model-head-name');
  controls.append(unitsGroup, specialLabel, dom.headName);

  const top = el('div', null, 'model-top');
  const gridFigure = el('figure', null, 'view model-grid-figure');
  gridFigure.append(el('figcaption', 'Every head: a row per layer (0 is the first), a column per head. Each thumbnail is that head’s heatmap; click one to open it below.'));
  dom.grid = el('div', null, 'model-grid');
  dom.grid.id = 'model-grid';
  dom.grid.setAttribute('role', 'group');
  dom.grid.setAttribute('aria-label', 'Attention heads by layer and head');
  gridFigure.append(dom.grid);
  const compareFigure = el('figure', null, 'view model-compare-figure');
  compareFigure.append(el('figcaption', 'The focused word, side by side: where it looks with raw GloVe vectors, and in the open head of the trained model.'));
  dom.compare = el('div', null, 'model-compare');
  dom.compare.id = 'model-compare';
  compareFigure.append(dom.compare);
  top.append(gridFigure, compareFigure);

  const views = el('div', null, 'views model-views');
  const heatFigure = el('figure', null, 'view');
  dom.heatCaption = el('figcaption', 'Heatmap of the open head: each row is a query token, each column a key token. Click a row or a cell to focus that query.');
  dom.heatBox = el('div', null, 'canvas-stack');
  dom.heatmap = el('canvas');
  dom.heatmap.id = 'model-heatmap';
  dom.heatmap.setAttribute('aria-hidden', 'true');
  dom.overlay = el('canvas');
  dom.overlay.id = 'model-heatmap-overlay';
  dom.overlay.tabIndex = 0;
  dom.overlay.setAttribute('role', 'img');
  dom.overlay.setAttribute('aria-label', 'Heatmap of the open head');
  dom.tooltip = el('div', null, 'tooltip');
  dom.tooltip.id = 'model-tooltip';
  dom.tooltip.setAttribute('role', 'tooltip');
  dom.tooltip.hidden = true;
  dom.heatBox.append(dom.heatmap, dom.overlay, dom.tooltip);
  heatFigure.append(dom.heatCaption, dom.heatBox);
  const arrowsFigure = el('figure', null, 'view');
  arrowsFigure.append(el('figcaption', 'Arrows of the open head: curves from the focused query to every key, thicker and darker for larger weights.'));
  const threshold = el('label', null, 'threshold');
  dom.threshold = el('input');
  dom.threshold.type = 'range';
  dom.threshold.id = 'model-threshold';
  Object.assign(dom.threshold, { min: '0', max: '0.9', step: '0.01', value: '0.1' });
  dom.thresholdValue = el('output', '10 %');
  threshold.append('Hide links weaker than ', dom.threshold, ' ', dom.thresholdValue, ' of the strongest');
  dom.arrowsBox = el('div', null, 'canvas-box');
  dom.arrows = el('canvas');
  dom.arrows.id = 'model-arrows';
  dom.arrows.setAttribute('aria-hidden', 'true');
  dom.arrowsBox.append(dom.arrows);
  arrowsFigure.append(threshold, dom.arrowsBox);
  views.append(heatFigure, arrowsFigure);

  const tableSection = el('section', null, 'weights-section model-weights-section');
  dom.tableTitle = el('h3', 'Weights of the open head');
  dom.tableNote = el('p', null, 'note');
  const scroll = el('div', null, 'table-scroll');
  scroll.tabIndex = 0;
  scroll.setAttribute('aria-label', 'Weights of the open head, scrollable');
  dom.table = el('table');
  dom.table.id = 'model-weights';
  scroll.append(dom.table);
  tableSection.append(dom.tableTitle, dom.tableNote, scroll);
  const footer = el('p', null, 'model-footer');
  footer.append('Model: all-MiniLM-L6-v2 (Apache-2.0; ', Object.assign(el('a', 'model card'), { href: new URL('../model/MODEL-CARD.md', import.meta.url).href }), '), weights stored as 16-bit floats, kept by your browser after the first visit. Nothing is sent anywhere.');

  dom.body = el('div', null, 'model-body');
  dom.body.append(controls, top, views, tableSection);
  root.replaceChildren(head, intro, dom.loading, dom.error, dom.retry, dom.body, footer);
  root.dataset.state = 'loading';

  // ---- State -----------------------------------------------------------------
  let state = null; // the page state last seen
  let glove = null; // the GloVe view last seen (app.js's analysis view), or null
  let run = null; // the result shown: { key, sentence, tokens, weights, n, layers, heads, … }
  let requested = null; // key of the last run asked for
  let shown = null; // { run, layer, head }: what the heatmap holds
  let hv = null; // heatmap view for the painters: { n, labels, weights, … }
  let arrowGeometry = null;
  let firstHead = true;
  let loadedOnce = false;
  let downloaded = 0;

  const client = new ModelClient({
    progress({ received, total }) {
      dom.progress.max = total;
      dom.progress.value = received;
      dom.status.textContent = `Downloading the model… ${formatMB(received)} of ${formatMB(total)}`;
    },
    ready({ coreBytes, cached }) {
      loadedOnce = true;
      if (!cached) downloaded += coreBytes;
      dom.progress.max = 1;
      dom.progress.value = 1;
      dom.status.textContent = cached ? 'Model loaded from your browser’s cache. Running…' : 'Model downloaded. Running…';
    },
    result(message) {
      downloaded += message.fetched.bytes;
      showError('');
      receive(message);
    },
    error(message) {
      root.dataset.state = 'error';
      dom.loading.hidden = true;
      dom.retry.hidden = loadedOnce;
      showError(message.message);
    },
  });

  function showError(text) {
    dom.error.textContent = text;
    dom.error.hidden = !text;
  }

  const runKey = (s) => JSON.stringify([s.sentence, s.model.units, s.model.special]);

  // ---- From the page -----------------------------------------------------------

  /** Called by app.js after every state change. */
  function updateView(nextState, nextGlove) {
    state = nextState;
    glove = nextGlove;
    if (!state.model) {
      hide();
      return;
    }
    root.hidden = false;
    dom.units[state.model.units].checked = true;
    dom.special.checked = state.model.special;
    const key = runKey(state);
    if (key !== requested) {
      requested = key;
      client.run(state.sentence, { words: state.model.units === 'words', hideSpecial: !state.model.special });
      if (root.dataset.state !== 'error' || loadedOnce) root.dataset.state = run ? 'running' : 'loading';
      if (run) dom.status.textContent = 'Running…';
    }
    if (run) showHead();
    else renderCompare();
  }

  function hide() {
    root.hidden = true;
    heatmap.hideTooltip();
    // Give the page's table its id back.
    dom.table.id = 'model-weights';
    if (gloveTable) gloveTable.id = 'weights';
  }

  // ---- A result ---------------------------------------------------------------

  function receive(message) {
    const key = JSON.stringify([message.sentence, message.words ? 'words' : 'pieces', !message.hideSpecial]);
    if (key !== requested) return;
    const tokens = withUtf16Spans(message.sentence, message.tokens);
    run = { ...message, key, tokens, labels: tokens.map((t) => t.text) };
    run.headMax = [];
    const nn = run.n * run.n;
    for (let k = 0; k < run.layers * run.heads; k++) run.headMax.push(maxOf(run.weights.subarray(k * nn, (k + 1) * nn)));
    root.dataset.state = 'ready';
    dom.loading.hidden = false;
    dom.retry.hidden = true;
    root.dataset.n = String(run.n);
    root.dataset.runMs = run.runMs.toFixed(2);
    dom.status.textContent = `${run.n} ${message.words ? 'words' : 'pieces'} · all ${run.layers * run.heads} heads computed in ${run.runMs.toFixed(0)} ms in a Web Worker · ${formatMB(downloaded)} downloaded this visit`;
    performance.mark('model-result');
    buildGrid();
    shown = null;
    if (state?.model) showHead();
  }

  /** The open head, falling back to the default when the model lacks it. */
  function openHead() {
    let { layer, head } = state.model;
    if (layer >= run.layers || head >= run.heads) {
      layer = Math.min(DEFAULT_LAYER, run.layers - 1);
      head = Math.min(DEFAULT_HEAD, run.heads - 1);
    }
    return { layer, head };
  }

  function showHead() {
    if (!run || !state?.model) return;
    const { layer, head } = openHead();
    if (layer !== state.model.layer || head !== state.model.head) {
      update({ ...state, model: { ...state.model, layer, head } }, 'replace');
      return; // update() calls back with the corrected state
    }
    if (!shown || shown.run !== run || shown.layer !== layer || shown.head !== head) {
      shown = { run, layer, head };
      const nn = run.n * run.n;
      const at = (layer * run.heads + head) * nn;
      const weights = run.weights.slice(at, at + nn);
      const scaleMax = run.headMax[layer * run.heads + head];
      const cells = document.createElement('canvas');
      cells.width = run.n;
      cells.height = run.n;
      if (run.n > 0) cells.getContext('2d').putImageData(new ImageData(colorize(weights, run.n, run.n, scaleMax, table), run.n, run.n), 0, 0);
      hv = {
        n: run.n,
        labels: run.labels,
        weights,
        masked: new Uint8Array(nn),
        cells,
        scaleMax,
        table,
        ticks: Array.from(wasm.ticks(scaleMax, 4)),
      };
      heatmap.fit(run.n);
      const name = `Layer ${layer}, head ${head}`;
      dom.headName.textContent = name;
      dom.heatCaption.textContent = `${name}: each row is a query token, each column a key token; colour is the attention weight. Click a row or a cell to focus that query.`;
      markGrid(layer, head);
      relayout();
      buildTable(layer, head);
      root.dataset.head = `${layer}:${head}`;
      if (firstHead) {
        firstHead = false;
        performance.mark('model-first-head');
      }
    }
    refocus();
  }

  // ---- Focus -------------------------------------------------------------------

  /** The GloVe token of row `row`, with its UTF-16 span, or null. */
  function gloveToken(row) {
    if (!glove || row === null || row === undefined) return null;
    return glove.tokens.find((t) => t.known && t.row === row) ?? null;
  }

  function gloveRowOf(index) {
    const token = run?.tokens[index];
    if (!glove || !token || token.special) return null;
    const known = glove.tokens.filter((t) => t.known);
    const k = bestMatch(token, known);
    return k === null ? null : known[k].row;
  }

  /** The model token in focus: the view's own choice when it agrees with the GloVe focus, else the GloVe focus mapped. */
  function modelFocus() {
    if (!run) return null;
    const own = state.model.focus;
    const gloveFocus = gloveToken(state.focus);
    const valid = own !== null && own < run.n;
    if (!gloveFocus) return valid && (state.focus === null || gloveRowOf(own) === null) ? own : null;
    if (valid && gloveRowOf(own) === state.focus) return own;
    const k = bestMatch(gloveFocus, run.tokens.map((t) => (t.special ? { start: 0, end: 0 } : t)));
    return k;
  }

  function focusToken(index, how = 'push') {
    if (!run || index < 0 || index >= run.n) return;
    const row = gloveRowOf(index);
    update({ ...state, focus: row, model: { ...state.model, focus: index } }, how);
  }

  function clearFocus() {
    update({ ...state, focus: null, model: { ...state.model, focus: null } }, 'push');
  }

  function refocus() {
    if (!hv || !state?.model) return;
    const focus = modelFocus();
    paintOverlay(dom.overlay.getContext('2d'), { ...hv, theme: theme() }, focus, heatmap.hover);
    paintArrowsNow(focus);
    markTableFocus(dom.table, focus, tableRow);
    renderCompare(focus);
  }

  // ---- Grid of heads -------------------------------------------------------------

  /** The grid's buttons now, their thumbnails a layer per task (long sentences stay responsive). */
  function buildGrid() {
    const size = Math.min(run.n, THUMB_MAX);
    const nn = run.n * run.n;
    const rows = [];
    const canvases = [];
    const corner = el('span', '', 'model-grid-corner');
    const headerRow = el('div', null, 'model-grid-row model-grid-header');
    headerRow.append(corner);
    for (let h = 0; h < run.heads; h++) headerRow.append(el('span', `H${h}`, 'model-grid-label'));
    rows.push(headerRow);
    for (let l = 0; l < run.layers; l++) {
      const row = el('div', null, 'model-grid-row');
      row.append(el('span', `L${l}`, 'model-grid-label'));
      for (let h = 0; h < run.heads; h++) {
        const k = l * run.heads + h;
        const button = el('button', null, 'model-thumb');
        button.type = 'button';
        button.dataset.layer = String(l);
        button.dataset.head = String(h);
        button.tabIndex = -1;
        button.setAttribute('aria-label', `Layer ${l}, head ${h}`);
        button.setAttribute('aria-pressed', 'false');
        button.title = `Layer ${l}, head ${h}`;
        const canvas = el('canvas');
        canvas.width = Math.max(1, size);
        canvas.height = Math.max(1, size);
        canvases.push([k, canvas]);
        button.append(canvas);
        row.append(button);
      }
      rows.push(row);
    }
    dom.grid.replaceChildren(...rows);
    dom.grid.dataset.heads = String(run.layers * run.heads);
    const drawn = run;
    const paintLayer = (l) => {
      if (run !== drawn || l >= run.layers || run.n === 0) return;
      for (const [k, canvas] of canvases.slice(l * run.heads, (l + 1) * run.heads)) {
        const pooled = pool(run.weights.subarray(k * nn, (k + 1) * nn), run.n, size);
        canvas.getContext('2d').putImageData(new ImageData(colorize(pooled, size, size, run.headMax[k], table), size, size), 0, 0);
      }
      setTimeout(() => paintLayer(l + 1), 0);
    };
    setTimeout(() => paintLayer(0), 0);
  }

  function markGrid(layer, head) {
    for (const pressed of dom.grid.querySelectorAll('.model-thumb[aria-pressed="true"]')) {
      pressed.setAttribute('aria-pressed', 'false');
      pressed.tabIndex = -1;
    }
    const button = dom.grid.querySelector(`.model-thumb[data-layer="${layer}"][data-head="${head}"]`);
    if (button) {
      button.setAttribute('aria-pressed', 'true');
      button.tabIndex = 0;
    }
  }

  function openThumb(button, how = 'push') {
    const layer = Number(button.dataset.layer);
    const head = Number(button.dataset.head);
    if (layer === state.model.layer && head === state.model.head) return;
    update({ ...state, model: { ...state.model, layer, head } }, how);
  }

  dom.grid.addEventListener('click', (event) => {
    const button = event.target.closest('.model-thumb');
    if (button) openThumb(button);
  });
  // Arrow keys move between thumbnails (one tab stop for the grid); Enter or Space opens.
  dom.grid.addEventListener('keydown', (event) => {
    const button = event.target.closest('.model-thumb');
    if (!button || !run) return;
    let layer = Number(button.dataset.layer);
    let head = Number(button.dataset.head);
    switch (event.key) {
      case 'ArrowLeft': head = Math.max(0, head - 1); break;
      case 'ArrowRight': head = Math.min(run.heads - 1, head + 1); break;
      case 'ArrowUp': layer = Math.max(0, layer - 1); break;
      case 'ArrowDown': layer = Math.min(run.layers - 1, layer + 1); break;
      case 'Home': head = 0; break;
      case 'End': head = run.heads - 1; break;
      default: return;
    }
    event.preventDefault();
    const next = dom.grid.querySelector(`.model-thumb[data-layer="${layer}"][data-head="${head}"]`);
    if (next) {
      button.tabIndex = -1;
      next.tabIndex = 0;
      next.focus();
    }
  });

  // ---- Heatmap and arrows -----------------------------------------------------------

  const heatmap = new HeatmapView({
    overlay: dom.overlay,
    tooltip: dom.tooltip,
    size: () => (hv ? hv.n : null),
    focus: () => modelFocus(),
    onFocus: (index, how) => focusToken(index, how),
    onClear: clearFocus,
    tooltipLines(row, col) {
      if (!hv?.layout) return null;
      return [`'${hv.labels[row]}' → '${hv.labels[col]}'`, `weight ${hv.weights[row * hv.n + col].toFixed(4)}`, dom.headName.textContent];
    },
    paint() {
      if (hv) paintOverlay(dom.overlay.getContext('2d'), { ...hv, theme: theme() }, modelFocus(), heatmap.hover);
    },
  });

  function relayout() {
    if (!hv || root.hidden) return;
    const colours = theme();
    arrowGeometry?.free();
    const width = Math.max(200, dom.heatBox.clientWidth);
    const measure = dom.heatmap.getContext('2d');
    hv.layout = heatmap.setGeometry(new wasm.HeatmapGeometry(hv.n, hv.n, width, labelWidth(measure, hv.labels, colours), colours.fontSize));
    const arrowsWidth = Math.max(200, dom.arrowsBox.clientWidth);
    arrowGeometry = new wasm.ArrowGeometry(hv.n, arrowsWidth, labelWidth(measure, hv.labels, colours, ' 0.00'), colours.fontSize, Math.max(480, hv.layout.height));
    hv.arrows = arrowLayout(arrowGeometry);
    paintBase(dom.heatmap, dom.overlay, hv, colours);
    sizeCanvas(dom.arrows, hv.arrows.width, hv.arrows.height);
    dom.overlay.setAttribute('aria-label', `${dom.headName.textContent}: heatmap of ${hv.n} tokens, rows are queries, columns are keys. Arrow keys move the focus, Escape clears it. The same numbers are in the weights table.`);
  }

  function paintArrowsNow(focus) {
    if (arrowGeometry) paintFocusArrows(dom.arrows, arrowGeometry, hv, focus, Number(dom.threshold.value), theme(), dom.thresholdValue);
  }

  wireArrowClicks(dom.arrows, () => arrowGeometry, (index) => focusToken(index));
  dom.threshold.addEventListener('input', () => {
    if (hv) paintArrowsNow(modelFocus());
  });

  // ---- Controls --------------------------------------------------------------

  for (const input of Object.values(dom.units)) {
    input.addEventListener('change', () => {
      if (!input.checked) return;
      // Token indices change with the units: the focus carries over through the GloVe word.
      const own = modelFocus();
      const row = own === null ? state.focus : gloveRowOf(own) ?? state.focus;
      update({ ...state, focus: row, model: { ...state.model, units: input.value, focus: null } }, 'push');
    });
  }
  dom.special.addEventListener('change', () => {
    const own = modelFocus();
    const row = own === null ? state.focus : gloveRowOf(own) ?? state.focus;
    update({ ...state, focus: row, model: { ...state.model, special: dom.special.checked, focus: null } }, 'push');
  });
  dom.close.addEventListener('click', () => update({ ...state, model: undefined }, 'push'));
  dom.retry.addEventListener('click', () => {
    showError('');
    dom.retry.hidden = true;
    dom.loading.hidden = false;
    root.dataset.state = 'loading';
    requested = null;
    client.retry();
    updateView(state, glove);
  });

  // ---- Weights table ------------------------------------------------------------

  function buildTable(layer, head) {
    const { n, labels } = hv;
    const full = n <= FULL_TABLE_LIMIT;
    const thead = tableHead('query \\ key', labels);
    const body = el('tbody');
    const focus = modelFocus();
    for (const i of full ? [...Array(n).keys()] : [focus ?? 0]) body.append(tableRow(i));
    const sums = state.model.special ? 'a row sums to 1' : 'a row sums to what the token did not send to [CLS] and [SEP]';
    dom.table.replaceChildren(el('caption', `Attention weights of ${MODEL_NAME}, layer ${layer}, head ${head}: each row is a query token, each column a key token; ${sums}.`), thead, body);
    dom.table.dataset.full = full ? '1' : '0';
    dom.table.dataset.layer = String(layer);
    dom.table.dataset.head = String(head);
    dom.tableTitle.textContent = `Weights of layer ${layer}, head ${head}`;
    dom.tableNote.textContent = full ? '' : `With ${n} tokens the table lists the focused row only.`;
    // This table now carries the page's numbers (see the top of this module).
    if (gloveTable) gloveTable.id = 'glove-weights';
    dom.table.id = 'weights';
  }

  function tableRow(i) {
    const { n, labels, weights } = hv;
    const tr = el('tr');
    tr.dataset.row = String(i);
    const th = el('th', labels[i]);
    th.scope = 'row';
    tr.append(th);
    for (let j = 0; j < n; j++) tr.append(el('td', weights[i * n + j].toFixed(4)));
    return tr;
  }

  // ---- Side by side -------------------------------------------------------------

  /** One column of the comparison: the keys of a focused query, as bars. */
  function compareColumn(heading, labels, row, focusIndex, note) {
    const column = el('div', null, 'compare-column');
    column.append(el('h3', heading));
    if (!row) {
      column.append(el('p', note, 'hint'));
      return column;
    }
    const list = el('ol', null, 'compare-list');
    const max = maxOf(row);
    let order = [...labels.keys()];
    if (order.length > COMPARE_LIMIT) {
      order = order.sort((a, b) => row[b] - row[a]).slice(0, COMPARE_LIMIT).sort((a, b) => a - b);
    }
    for (const j of order) {
      const item = el('li', null, j === focusIndex ? 'self' : '');
      const bar = el('span', null, 'bar');
      bar.style.width = `${((row[j] / max) * 100).toFixed(1)}%`;
      const barCell = el('span', null, 'bar-cell');
      barCell.append(bar);
      item.append(el('span', labels[j], 'compare-key'), barCell, el('span', row[j].toFixed(4), 'compare-value'));
      list.append(item);
    }
    column.append(list);
    return column;
  }

  function renderCompare(focus = run ? modelFocus() : null) {
    if (!state?.model) return;
    const gloveFocus = state.focus;
    const gloveWord = gloveFocus !== null && glove ? glove.labels[gloveFocus] : null;
    const modelWord = focus !== null && run ? run.labels[focus] : null;
    const title = el('p', null, 'compare-title');
    if (gloveWord === null && modelWord === null) {
      title.textContent = 'Click a word (above, or in either heatmap) to compare where it looks.';
    } else {
      title.append('Where ', el('q', modelWord ?? gloveWord), ' looks');
    }
    dom.compare.dataset.gloveWord = gloveWord ?? '';
    dom.compare.dataset.modelWord = modelWord ?? '';
    const gloveRow = gloveWord !== null ? glove.weights.subarray(gloveFocus * glove.n, (gloveFocus + 1) * glove.n) : null;
    const gloveNote = !glove ? 'No GloVe attention for this sentence (no word in its vocabulary).'
      : modelWord !== null ? `'${modelWord}' is not a GloVe word here (unknown, or [CLS]/[SEP]).` : 'Nothing focused.';
    const columns = el('div', null, 'compare-columns');
    const shownHead = shown ? `layer ${shown.layer}, head ${shown.head}` : 'the open head';
    columns.append(
      compareColumn('GloVe: raw vectors', glove ? glove.labels : [], gloveRow, gloveFocus, gloveNote),
      compareColumn(`MiniLM: ${shownHead}`, run ? run.labels : [], modelWord !== null ? hv?.weights.subarray(focus * hv.n, (focus + 1) * hv.n) : null, focus,
        run ? 'Nothing focused.' : 'Waiting for the model…'),
    );
    dom.compare.replaceChildren(title, columns);
  }

  // ---- Resizes and theme ------------------------------------------------------------

  let resizeFrame = 0;
  new ResizeObserver(() => {
    if (resizeFrame) return;
    resizeFrame = requestAnimationFrame(() => {
      resizeFrame = 0;
      relayout();
      refocus();
    });
  }).observe(dom.heatBox);
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
    relayout();
    refocus();
  });

  return { update: updateView, terminate: () => client.terminate() };
}
