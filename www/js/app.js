// The page controller: loads the wasm module and the word vectors, keeps the
// state (sentence, options, focus) in sync with the URL hash, and drives the
// views. Data flows one way:
//
//   state → analysis (wasm) → layout (wasm) → paint (canvas) / DOM
//   pointer or keyboard → hit-test (wasm) → focus → hash → overlay + arrows
//
// Text that comes from the user or the URL only ever reaches the page as
// `textContent`, form values or canvas text, never as HTML.

import {
  defaultState,
  formatHash,
  formatTemperature,
  parseHash,
  sameState,
  settingsOf,
  MAX_SENTENCE_LENGTH,
} from './state.js';
import { defaultModel } from './model-state.js';
import { el } from './dom.js';
import { arrowLayout, HeatmapView, labelWidth, markTableFocus, paintBase as paintHeatmapBase, paintFocusArrows, sizeCanvas, tableHead, wireArrowClicks } from './heatmap-view.js';
import { font, paintOverlay, readTheme } from './paint.js';
import { createTeach, explainFocused } from './teach.js';
import { analysisData } from './teach-panel.js';

const PKG_URL = new URL('../pkg/attention_wasm.js', import.meta.url);
const WASM_URL = new URL('../pkg/attention_wasm_bg.wasm', import.meta.url);
export const DATA_URL = new URL('../data/glove-6b-50d.aewv', import.meta.url);
const EXAMPLES_URL = new URL('../examples.txt', import.meta.url);

/** Above this many tokens the weights table lists only the focused row. */
const FULL_TABLE_LIMIT = 128;

const $ = (id) => document.getElementById(id);

/** Defines `object[key]` as computed once, on first read. */
function lazy(object, key, compute) {
  Object.defineProperty(object, key, {
    configurable: true,
    enumerable: false,
    get() {
      const value = compute();
      Object.defineProperty(object, key, { value, enumerable: false });
      return value;
    },
  });
}

function formatBytes(n) {
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : `${Math.round(n / 1e3)} kB`;
}

/** Downloads the word vectors, reporting progress; errors say what failed. */
async function fetchVectors(url, onProgress) {
  const name = url.pathname.split('/').pop();
  let response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new Error(`The word vectors (${name}) could not be downloaded: ${error.message}. Check the connection and reload.`);
  }
  if (!response.ok) {
    throw new Error(`The word vectors (${name}) could not be loaded: the server answered HTTP ${response.status}${response.statusText ? ' ' + response.statusText : ''}.`);
  }
  const total = Number(response.headers.get('content-length')) || 0;
  if (!response.body || !total) return new Uint8Array(await response.arrayBuffer());
  const bytes = new Uint8Array(total);
  const reader = response.body.getReader();
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (received + value.length > bytes.length) throw new Error(`The word vectors (${name}) are longer than announced.`);
    bytes.set(value, received);
    received += value.length;
    onProgress(received, total);
  }
  if (received !== total) throw new Error(`The word vectors (${name}) were cut off: ${received} of ${total} bytes arrived.`);
  return bytes;
}

async function loadWasm() {
  try {
    const wasm = await import(PKG_URL.href);
    await wasm.default({ module_or_path: WASM_URL });
    return wasm;
  } catch (error) {
    throw new Error(`The WebAssembly module could not be loaded (${error.message}). Reload the page; if this persists, the browser may block WebAssembly.`);
  }
}

async function loadExamples() {
  try {
    const response = await fetch(EXAMPLES_URL);
    if (!response.ok) return [];
    return (await response.text()).split('\n').map((line) => line.trim()).filter(Boolean);
  } catch {
    return [];
  }
}

/** Copies text, with a fallback where the async clipboard is unavailable. */
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = el('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'offscreen';
    document.body.append(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    area.remove();
    return ok;
  }
}

function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = el('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

function slug(text) {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'sentence';
}

/** Escapes text for an HTML attribute value in a snippet the user copies. */
function attribute(text) {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The custom-element and iframe snippets that reproduce `state`. */
export function embedSnippet(state, base) {
  const attrs = [`sentence="${attribute(state.sentence)}"`];
  if (!state.self) attrs.push('no-self');
  if (state.causal) attrs.push('causal');
  if (!state.scale) attrs.push('no-scale');
  if (state.temperature !== 1) attrs.push(`temperature="${formatTemperature(state.temperature)}"`);
  if (state.focus !== null) attrs.push(`focus="${state.focus}"`);
  const iframe = new URL('embed.html', base).href + formatHash(state);
  return [
    `<script type="module" src="${new URL('attention-viz.js', base).href}"></script>`,
    `<attention-viz ${attrs.join(' ')}></attention-viz>`,
    '',
    '<!-- or, without a script: -->',
    `<iframe src="${attribute(iframe)}" title="Attention Explorer" width="100%" height="640" style="border:0" loading="lazy"></iframe>`,
  ].join('\n');
}

export async function start({ mode = 'full' } = {}) {
  const embed = mode === 'embed';
  const dom = {
    sentence: $('sentence'),
    examples: $('examples'),
    tokens: $('tokens'),
    unknown: $('unknown-note'),
    scale: $('opt-scale'),
    self: $('opt-self'),
    causal: $('opt-causal'),
    temperature: $('opt-temperature'),
    temperatureValue: $('temperature-value'),
    status: $('status'),
    error: $('error'),
    views: $('views'),
    heatmapBox: $('heatmap-box'),
    heatmap: $('heatmap'),
    overlay: $('heatmap-overlay'),
    tooltip: $('tooltip'),
    arrowsBox: $('arrows-box'),
    arrows: $('arrows'),
    threshold: $('threshold'),
    thresholdValue: $('threshold-value'),
    explain: $('explain'),
    announce: $('announce'),
    table: $('weights'),
    tableNote: $('weights-note'),
    copyLink: $('copy-link'),
    copyEmbed: $('copy-embed'),
    embedCode: $('embed-code'),
    exportPng: $('export-png'),
    exportCsv: $('export-csv'),
    shareStatus: $('share-status'),
    openFull: $('open-full'),
    modelOpen: $('model-open'),
    modelRoot: $('model-view'),
  };

  let state = parseHash(location.hash);
  let wasm = null;
  let explorer = null;
  let view = null; // everything derived from one analysis
  let arrowGeometry = null; // wasm ArrowGeometry of the current size
  let theme = readTheme(document.documentElement);
  let historySession = null; // 'typing' or 'temperature' while a gesture lasts
  let firstHeatmap = true;
  let teach = null; // the teaching views (teach.js), once the vectors are loaded
  const teachRoot = $('teach');

  const setStatus = (text) => {
    if (dom.status) dom.status.textContent = text;
  };
  const showError = (text) => {
    if (!dom.error) return;
    dom.error.textContent = text || '';
    dom.error.hidden = !text;
  };

  // ---- URL and history -------------------------------------------------

  function writeHash(how) {
    const hash = formatHash(state);
    if (location.hash === hash) return;
    // Inside an iframe a pushed entry would hijack the host page's Back button.
    if (how === 'push' && !embed) history.pushState(null, '', hash);
    else history.replaceState(null, '', hash);
    if (dom.openFull) dom.openFull.href = new URL('index.html', location.href).href + hash;
  }

  /** Applies a new state; `how` is 'push', 'replace' or 'none' (from the URL). */
  function update(next, how, session = null) {
    const recompute = !view || next.sentence !== state.sentence || next.scale !== state.scale ||
      next.self !== state.self || next.causal !== state.causal || next.temperature !== state.temperature;
    // A continuous gesture (typing, dragging) makes one history entry.
    if (how === 'push' && session && session === historySession) how = 'replace';
    historySession = session;
    state = next.focus === null && next.cell !== null ? { ...next, cell: null } : next;
    if (recompute) {
      performance.mark('analyze-start');
      analyzeNow();
      performance.measure('analyze', 'analyze-start');
    } else {
      refocus();
    }
    if (how !== 'none') writeHash(how);
    syncModel();
    scheduleTeach();
  }

  // The teaching views sit below the main ones and redraw several heatmaps of
  // their own: their controls follow the state at once, their content renders
  // after the main views' frame has been painted, at most once per frame, so a
  // click or a keystroke never waits for it.
  let teachFrame = 0;
  function scheduleTeach() {
    if (!teach) return;
    teach.syncControls(state);
    if (teachFrame) return;
    teachFrame = requestAnimationFrame(() => setTimeout(() => {
      teachFrame = 0;
      teach.render(state, view);
    }, 0));
  }

  function syncControls() {
    if (dom.sentence && dom.sentence.value !== state.sentence) dom.sentence.value = state.sentence;
    if (dom.scale) dom.scale.checked = state.scale;
    if (dom.self) dom.self.checked = state.self;
    if (dom.causal) dom.causal.checked = state.causal;
    if (dom.temperature) {
      const position = Math.log10(state.temperature);
      if (Math.abs(Number(dom.temperature.value) - position) > 1e-9) dom.temperature.value = String(position);
    }
    if (dom.temperatureValue) dom.temperatureValue.textContent = formatTemperature(state.temperature);
    if (dom.examples) {
      const match = [...dom.examples.options].find((o) => o.value === state.sentence);
      dom.examples.value = match ? match.value : '';
    }
  }

  // ---- Analysis ----------------------------------------------------------

  function releaseView() {
    if (view) view.analysis.free();
    view = null;
  }

  function analyzeNow() {
    syncControls();
    if (!explorer) return;
    let analysis;
    try {
      analysis = explorer.analyze(state.sentence, settingsOf(state));
    } catch (error) {
      releaseView();
      showError(error.message.charAt(0).toUpperCase() + error.message.slice(1) + '.');
      renderTokens(safeTokens(), null);
      showEmpty(error.message);
      return;
    }
    showError('');
    releaseView();
    // The copies out of wasm, in the shape the teaching panels take too (the What-if tab shows this analysis).
    const data = analysisData(wasm, analysis);
    const n = data.rows;
    view = {
      analysis,
      data,
      n,
      tokens: analysis.tokens(),
      labels: data.rowLabels,
      weights: data.weights,
      masked: data.masked,
      fullyMasked: data.fullyMasked,
      factor: data.factor,
      dim: analysis.dim,
      scaleMax: data.scaleMax,
      cells: data.cells,
      table: data.table,
      ticks: data.ticks,
    };
    // Copied out of wasm on first use: a click or a hover needs them, a keystroke does not.
    lazy(view, 'scores', () => analysis.scores());
    lazy(view, 'scaled', () => analysis.scaled());
    lazy(view, 'context', () => analysis.context());
    lazy(view, 'vectors', () => explorer.inputVectors(analysis));
    if (state.focus !== null && state.focus >= n) {
      state = { ...state, focus: null, cell: null };
      writeHash('replace');
    }
    if (state.cell !== null && (state.focus === null || state.cell >= n)) {
      state = { ...state, cell: null };
      writeHash('replace');
    }
    heatmap.fit(n);
    dom.views?.classList.remove('empty');
    renderTokens(view.tokens, view);
    relayout({ focusLayer: false });
    buildTable();
    refocus();
    const unknown = view.tokens.filter((t) => !t.known).length;
    setStatus(`${n} token${n === 1 ? '' : 's'} in the attention${unknown ? `, ${unknown} unknown left out` : ''} · d = ${view.dim} · ${state.scale ? `scores × 1/√${view.dim}` : 'unscaled scores'}${state.temperature !== 1 ? ` ÷ ${formatTemperature(state.temperature)}` : ''}`);
  }

  function safeTokens() {
    try {
      return explorer.tokenize(state.sentence);
    } catch {
      return [];
    }
  }

  function showEmpty(message) {
    dom.views?.classList.add('empty');
    for (const canvas of [dom.heatmap, dom.overlay, dom.arrows]) {
      if (!canvas) continue;
      canvas.width = 0;
      canvas.height = 0;
      canvas.style.height = '0px';
    }
    heatmap.hideTooltip();
    if (dom.views) dom.views.dataset.message = `Nothing to draw: ${message}.`;
    if (dom.table) dom.table.replaceChildren();
    if (dom.explain) dom.explain.replaceChildren(el('p', 'Type a sentence with a few common English words.', 'hint'));
    setStatus('');
  }

  // ---- Sentence and unknown words ------------------------------------------

  function renderTokens(tokens, current) {
    if (!dom.tokens) return;
    const chips = tokens.map((t, index) => {
      const original = state.sentence.slice(t.start, t.end);
      if (!t.known) {
        const chip = el('span', original, 'token unknown');
        chip.title = `'${t.text}' is not in the vocabulary, so it has no vector and is left out of the attention.`;
        return chip;
      }
      const chip = el('button', original, 'token');
      chip.type = 'button';
      chip.dataset.row = String(t.row);
      chip.dataset.index = String(index);
      chip.title = `Focus '${t.text}' (row ${t.row})`;
      if (current && t.row === state.focus) chip.classList.add('focused');
      return chip;
    });
    dom.tokens.replaceChildren(...chips);
    if (dom.unknown) {
      const unknown = [...new Set(tokens.filter((t) => !t.known).map((t) => t.text))];
      dom.unknown.hidden = unknown.length === 0;
      const size = explorer ? explorer.vocabularySize.toLocaleString('en-US') : '';
      const list = unknown.slice(0, 8).map((w) => `'${w}'`).join(', ') + (unknown.length > 8 ? ', …' : '');
      dom.unknown.textContent = unknown.length === 0 ? '' :
        `Not in the ${size}-word vocabulary: ${list}. ${unknown.length === 1 ? 'It has' : 'They have'} no vector, so ${unknown.length === 1 ? 'it is' : 'they are'} left out of the attention (struck through above). Check the spelling or try a more common word.`;
    }
  }

  // ---- Layout and painting ---------------------------------------------------

  // The widths of the views' boxes, kept by the ResizeObserver below: reading
  // clientWidth in a recompute would force a layout of the tokens just rendered.
  const boxWidths = new Map();
  const widthOf = (box) => boxWidths.get(box) ?? box.clientWidth;

  function relayout({ focusLayer = true } = {}) {
    if (!view || !dom.heatmap) return;
    arrowGeometry?.free();
    const width = Math.max(200, widthOf(dom.heatmapBox));
    const measure = dom.heatmap.getContext('2d');
    const widest = labelWidth(measure, view.labels, theme);
    view.layout = heatmap.setGeometry(new wasm.HeatmapGeometry(view.n, view.n, width, widest, theme.fontSize));
    if (dom.arrows) {
      const arrowsWidth = Math.max(200, widthOf(dom.arrowsBox));
      const widestKey = labelWidth(measure, view.labels, theme, ' 0.00');
      const maxHeight = Math.max(480, view.layout.height);
      arrowGeometry = new wasm.ArrowGeometry(view.n, arrowsWidth, widestKey, theme.fontSize, maxHeight);
      view.arrows = arrowLayout(arrowGeometry);
    }
    paintBase();
    if (focusLayer) paintFocus();
  }

  function paintBase() {
    if (!view) return;
    paintHeatmapBase(dom.heatmap, dom.overlay, view, theme);
    if (dom.arrows) sizeCanvas(dom.arrows, view.arrows.width, view.arrows.height);
    dom.overlay.setAttribute('aria-label', `Attention heatmap of ${view.n} tokens: rows are queries, columns are keys. Arrow keys move the focus, Escape clears it. The same numbers are in the weights table.`);
    if (firstHeatmap) {
      firstHeatmap = false;
      performance.mark('first-heatmap');
      document.documentElement.dataset.ready = '1';
    }
  }

  /** The cheap part of a repaint: overlay, arrows, focus-dependent DOM. */
  function paintFocus() {
    if (!view) return;
    paintHover();
    if (dom.arrows && arrowGeometry) paintFocusArrows(dom.arrows, arrowGeometry, view, state.focus, thresholdShare(), theme, dom.thresholdValue);
  }

  /** The overlay alone: focus and hover. */
  function paintHover() {
    if (view) paintOverlay(dom.overlay.getContext('2d'), { ...view, theme }, state.focus, heatmap.hover);
  }

  function thresholdShare() {
    return dom.threshold ? Number(dom.threshold.value) : 0.1;
  }

  function refocus() {
    if (!view) return;
    performance.mark('repaint-start');
    paintFocus();
    markFocusInDom();
    explain();
    if (dom.tokens) {
      dom.tokens.querySelector('button.token.focused')?.classList.remove('focused');
      if (state.focus !== null) dom.tokens.querySelector(`button.token[data-row="${state.focus}"]`)?.classList.add('focused');
    }
    performance.measure('repaint', 'repaint-start');
  }

  // ---- Weights table -------------------------------------------------------

  function buildTable() {
    if (!dom.table || !view) return;
    const { n, labels } = view;
    const full = n <= FULL_TABLE_LIMIT;
    const head = tableHead('query \\ key', labels);
    const body = el('tbody');
    const rows = full ? [...Array(n).keys()] : [state.focus ?? 0];
    for (const i of rows) body.append(tableRow(i));
    const caption = el('caption', 'Attention weights: each row is a query token, each column a key token; a row sums to 1.');
    dom.table.replaceChildren(caption, head, body);
    dom.table.dataset.full = full ? '1' : '0';
    if (dom.tableNote) {
      dom.tableNote.textContent = full ? '' : `With ${n} tokens the table lists the focused row only; Download CSV has the whole matrix.`;
    }
  }

  function tableRow(i) {
    const { n, labels, weights, masked } = view;
    const tr = el('tr');
    tr.dataset.row = String(i);
    const th = el('th', labels[i]);
    th.scope = 'row';
    tr.append(th);
    for (let j = 0; j < n; j++) {
      const k = i * n + j;
      const td = el('td', weights[k].toFixed(4));
      if (masked[k]) {
        td.className = 'masked';
        td.title = 'masked';
      }
      tr.append(td);
    }
    return tr;
  }

  function markFocusInDom() {
    if (!dom.table || !view) return;
    markTableFocus(dom.table, state.focus, tableRow);
  }

  // ---- Step-by-step explanation ---------------------------------------------

  function explain() {
    if (!dom.explain || !view) return;
    const i = state.focus;
    const { n, labels, weights, masked } = view;
    if (i === null) {
      dom.explain.replaceChildren(el('p', 'Click a row, a label, a curve end or a word above (or Tab to the heatmap and use the arrow keys) to see how that word’s attention is computed, step by step.', 'hint'));
      if (dom.announce) dom.announce.textContent = '';
      return;
    }
    const word = labels[i];
    explainFocused(dom.explain, {
      explorer,
      view,
      state,
      onClear: () => update({ ...state, focus: null }, 'push'),
      onCell: (j) => update({ ...state, cell: j === state.cell ? null : j }, 'push'),
    });
    if (dom.announce) {
      if (view.fullyMasked[i]) {
        dom.announce.textContent = `${word}: every key is masked.`;
      } else {
        const top = [...Array(n).keys()].sort((a, b) => weights[i * n + b] - weights[i * n + a]).slice(0, 3)
          .filter((j) => !masked[i * n + j]).map((j) => `${labels[j]} ${weights[i * n + j].toFixed(4)}`);
        dom.announce.textContent = `Focus on ${word}, row ${i}. Strongest keys: ${top.join(', ')}.`;
      }
    }
  }

  // ---- Tooltip, pointer and keyboard (heatmap-view.js) ----------------------

  const heatmap = new HeatmapView({
    overlay: dom.overlay,
    tooltip: dom.tooltip,
    size: () => (view ? view.n : null),
    focus: () => state.focus,
    // A cell also opens its dot product term by term in the step panel.
    onFocus: (row, how, cell) => focusRow(row, how, cell),
    onEnter: (row, col) => focusRow(row, 'push', col),
    onClear: () => update({ ...state, focus: null }, 'push'),
    tooltipLines,
    paint: paintHover,
  });

  function tooltipLines(row, col) {
    if (!view) return null;
    const { n, labels, weights, scores, scaled, masked } = view;
    const k = row * n + col;
    const lines = [`'${labels[row]}' → '${labels[col]}'`];
    if (masked[k]) {
      const why = state.causal && col > row ? `'${labels[col]}' comes later (causal)` : 'a token may not attend to itself';
      lines.push(`masked: ${why}`, `score q·k ${scores[k].toFixed(3)}`);
    } else {
      lines.push(`weight ${weights[k].toFixed(4)}`, `score q·k ${scores[k].toFixed(3)} → scaled ${scaled[k].toFixed(3)}`);
    }
    return lines;
  }

  function focusRow(row, how = 'push', cell = null) {
    if (!view || row < 0 || row >= view.n) return;
    update({ ...state, focus: row, cell }, how);
  }

  function wireArrows() {
    if (!dom.arrows) return;
    wireArrowClicks(dom.arrows, () => arrowGeometry, (row) => focusRow(row));
    dom.threshold?.addEventListener('input', () => paintFocus());
  }

  // ---- Controls ----------------------------------------------------------

  function wireControls() {
    let typingFrame = 0;
    dom.sentence?.addEventListener('input', () => {
      // Recompute once per frame however fast the typing.
      if (typingFrame) return;
      typingFrame = requestAnimationFrame(() => {
        typingFrame = 0;
        const sentence = dom.sentence.value.slice(0, MAX_SENTENCE_LENGTH);
        if (sentence !== state.sentence) update({ ...state, sentence, focus: null }, 'push', 'typing');
      });
    });
    dom.examples?.addEventListener('change', () => {
      if (!dom.examples.value) return;
      update({ ...state, sentence: dom.examples.value, focus: null }, 'push');
    });
    for (const [key, input] of [['scale', dom.scale], ['self', dom.self], ['causal', dom.causal]]) {
      input?.addEventListener('change', () => update({ ...state, [key]: input.checked }, 'push'));
    }
    dom.temperature?.addEventListener('input', () => {
      const temperature = Number((10 ** Number(dom.temperature.value)).toPrecision(3));
      update({ ...state, temperature }, 'push', 'temperature');
    });
    dom.tokens?.addEventListener('click', (event) => {
      const chip = event.target.closest('button.token');
      if (chip) focusRow(Number(chip.dataset.row));
    });
    dom.copyLink?.addEventListener('click', async () => {
      const ok = await copyText(location.href);
      flash(ok ? 'Link copied: it opens this sentence, these options and this focus.' : `Copy this link: ${location.href}`);
    });
    dom.copyEmbed?.addEventListener('click', async () => {
      const snippet = embedSnippet(state, new URL('.', location.href));
      if (dom.embedCode) {
        dom.embedCode.value = snippet;
        dom.embedCode.hidden = false;
      }
      const ok = await copyText(snippet);
      flash(ok ? 'Embed code copied.' : 'Copy the embed code below.');
    });
    dom.exportCsv?.addEventListener('click', () => {
      if (!view) return;
      download(new Blob([view.analysis.csv()], { type: 'text/csv' }), `attention-${slug(state.sentence)}.csv`);
      flash('CSV downloaded.');
    });
    dom.exportPng?.addEventListener('click', () => {
      if (!view) return;
      exportPng().toBlob((blob) => {
        if (blob) download(blob, `attention-${slug(state.sentence)}.png`);
        flash(blob ? 'PNG downloaded.' : 'The PNG could not be made.');
      }, 'image/png');
    });
  }

  function flash(text) {
    if (dom.shareStatus) dom.shareStatus.textContent = text;
  }

  /** Heatmap (base + overlay) and arrows side by side, titled, on the page colour. */
  function exportPng() {
    const ratio = window.devicePixelRatio || 1;
    const pad = 16;
    const title = 28;
    const heat = view.layout;
    const arrows = dom.arrows ? view.arrows : { width: 0, height: 0 };
    const width = pad * 3 + heat.width + arrows.width;
    const height = pad * 2 + title + Math.max(heat.height, arrows.height);
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    const ctx = canvas.getContext('2d');
    ctx.scale(ratio, ratio);
    ctx.fillStyle = theme.bg;
    ctx.fillRect(0, 0, width, height);
    ctx.fillStyle = theme.fg;
    ctx.font = font(theme, { size: 15, weight: 'bold' });
    ctx.textBaseline = 'top';
    ctx.fillText(state.sentence.slice(0, 120), pad, pad);
    ctx.drawImage(dom.heatmap, pad, pad + title, heat.width, heat.height);
    ctx.drawImage(dom.overlay, pad, pad + title, heat.width, heat.height);
    if (dom.arrows) ctx.drawImage(dom.arrows, pad * 2 + heat.width, pad + title, arrows.width, arrows.height);
    return canvas;
  }

  // ---- The trained-model view (www/js/model-view.js) ------------------------
  // Loaded on demand: neither its code nor the model files are fetched until
  // the view is opened (the button, or a link with model=1).

  let modelView = null;
  let modelLoading = null;

  function syncModel() {
    if (!dom.modelRoot) return;
    dom.modelOpen?.setAttribute('aria-expanded', state.model ? 'true' : 'false');
    if (modelView) {
      modelView.update(state, view);
      return;
    }
    if (!state.model || modelLoading) return;
    modelLoading = import('./model-view.js')
      .then(({ mountModelView }) => {
        modelView = mountModelView({
          root: dom.modelRoot,
          wasm,
          theme: () => theme,
          update: (next, how) => update(next, how),
        });
        modelView.update(state, view);
      })
      .catch((error) => {
        modelLoading = null;
        showError(`The trained-model view could not be loaded: ${error.message}. Reload the page.`);
      });
  }

  function wireModel() {
    dom.modelOpen?.addEventListener('click', () => update({ ...state, model: state.model ? undefined : defaultModel() }, 'push'));
  }

  // ---- Start -------------------------------------------------------------

  syncControls();
  if (dom.openFull) dom.openFull.href = new URL('index.html', location.href).href + formatHash(state);
  setStatus('Loading the word vectors…');
  const examples = embed ? Promise.resolve([]) : loadExamples();
  try {
    const [module, bytes] = await Promise.all([
      loadWasm(),
      fetchVectors(DATA_URL, (received, total) => setStatus(`Loading the word vectors… ${formatBytes(received)} of ${formatBytes(total)}`)),
    ]);
    wasm = module;
    performance.mark('downloaded');
    try {
      explorer = new wasm.Explorer(bytes);
      performance.mark('vectors-read');
    } catch (error) {
      throw new Error(`The word-vector file could not be read: ${error.message}.`);
    }
  } catch (error) {
    setStatus('');
    showError(error.message);
    dom.views?.classList.add('empty');
    if (dom.views) dom.views.dataset.message = 'Nothing to draw: the page could not load what it needs (see the message above).';
    document.documentElement.dataset.failed = '1';
    return;
  }

  wireArrows();
  wireControls();
  wireModel();
  analyzeNow();
  // The first state may have been corrected (a focus out of range).
  if (location.hash) writeHash('replace');
  syncModel();
  // The teaching views (teach.js): tabs below the main views.
  if (teachRoot) {
    teach = createTeach({ root: teachRoot, wasm, explorer, theme: () => theme, getState: () => state, setState: (next, how, session) => update(next, how, session) });
    scheduleTeach();
  }

  // The examples menu fills in after the first heatmap, never before it.
  examples.then((sentences) => {
    if (!dom.examples || sentences.length === 0) return;
    const options = [el('option', 'Examples…')];
    options[0].value = '';
    for (const sentence of sentences) {
      const option = el('option', sentence);
      option.value = sentence;
      options.push(option);
    }
    dom.examples.replaceChildren(...options);
    syncControls();
  });

  const onUrl = () => {
    const next = parseHash(location.hash);
    if (!sameState(next, state)) update(next, 'none');
  };
  window.addEventListener('popstate', onUrl);
  window.addEventListener('hashchange', onUrl);

  let resizeFrame = 0;
  const resized = new ResizeObserver((entries) => {
    // Layout is up to date while observers run: these reads cost nothing.
    for (const { target } of entries) boxWidths.set(target, target.clientWidth);
    if (resizeFrame) return;
    resizeFrame = requestAnimationFrame(() => {
      resizeFrame = 0;
      relayout();
      teach?.relayout();
    });
  });
  for (const box of [dom.heatmapBox, dom.arrowsBox]) if (box) resized.observe(box);
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
    theme = readTheme(document.documentElement);
    relayout();
    teach?.relayout();
  });

  if (embed && window.parent !== window) {
    // Tell the host page our height, so that the iframe fits its content.
    let last = 0;
    new ResizeObserver(() => {
      const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
      if (height !== last) {
        last = height;
        window.parent.postMessage({ type: 'attention-explorer:height', height }, '*');
      }
    }).observe(document.documentElement);
  }
}
