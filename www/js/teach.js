// The teaching views below the main ones, one tab each: what-if switches
// (scaling on beside off, padding mask), the matrix playground, multi-head
// attention, cross-attention and what context vectors mean. Also the
// step-by-step panel of the page's focused token.
//
// Every number comes from the wasm boundary (attention-core); this module
// only lays them out. State lives in the URL (state.teach, see
// teach-state.js): a control calls `setState`, the page calls `render`.
// Results are cached by the inputs they depend on, so a render that changes
// nothing computes nothing.

import { colorize } from './paint.js';
import { settingsOf } from './state.js';
import { DEFAULT_SENTENCE_B, HEAD_MODES, LABS, MAX_PAD, PRESETS } from './teach-state.js';
import { analysisData, dataOf, MatrixPanel } from './teach-panel.js';
import { tableHead } from './heatmap-view.js';
import { el, num, renderSteps, weight } from './teach-steps.js';

const TAB_NAMES = {
  whatif: 'What if…',
  play: 'Matrix playground',
  heads: 'Multi-head',
  cross: 'Cross-attention',
  meaning: 'Context vectors',
};
const CROSS_EXAMPLE = { a: 'Where is the Eiffel Tower?', b: DEFAULT_SENTENCE_B };
const NEAREST_COUNT = 5;

/** A distinct colour per head: hues a golden angle apart, readable on light and dark. */
export function headColor(h, dark = false) {
  const hue = Math.round((h * 137.508 + 25) % 360);
  return `hsl(${hue} 75% ${dark ? 62 : 42}%)`;
}

function control(labelText, input, hint) {
  const label = el('label', null, 'teach-control');
  label.append(el('span', labelText), input);
  if (hint) label.append(el('small', hint, 'muted'));
  return label;
}

function input(type, id, attrs = {}) {
  const node = el(type === 'textarea' ? 'textarea' : 'input');
  if (type !== 'textarea') node.type = type;
  node.id = id;
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

/** Keeps a wasm object for one key, freeing the previous one. */
class Slot {
  constructor() {
    this.key = null;
    this.value = null;
    this.error = null;
  }

  get(key, make) {
    if (key === this.key) return this.value;
    this.value?.free?.();
    this.value = null;
    this.error = null;
    this.key = key;
    try {
      this.value = make();
    } catch (error) {
      this.error = error;
    }
    return this.value;
  }
}

export function createTeach({ root, wasm, explorer, theme, getState, setState }) {
  const dark = () => matchMedia('(prefers-color-scheme: dark)').matches;
  const slots = { flipped: new Slot(), pad: new Slot(), play: new Slot(), playOff: new Slot(), playOn: new Slot(), heads: new Slot(), head: new Slot(), cross: new Slot() };
  const datas = new Map(); // slot key → panel data, so repaints do not copy again
  const dataFor = (slot, convert = dataOf) => {
    if (!slot.value) return null;
    const key = slot.key;
    if (!datas.has(key)) {
      if (datas.size > 16) datas.clear();
      datas.set(key, convert(wasm, slot.value));
    }
    return datas.get(key);
  };
  const teachOf = () => getState().teach;
  const setTeach = (changes, how = 'push', session = null) => {
    const state = getState();
    setState({ ...state, teach: { ...state.teach, ...changes } }, how, session);
  };
  const setLabFocus = (row, col = null) => setTeach({ lf: row ?? 0, lc: col });
  const panelOptions = (name, tableId, extra = {}) => ({
    wasm, theme, name, tableId,
    onFocus: (row) => setLabFocus(row),
    onCell: (row, col) => setLabFocus(row, col),
    ...extra,
  });

  // ---- Skeleton: tabs and panels ------------------------------------------
  root.replaceChildren();
  root.append(el('h2', 'Learn the maths', 'teach-title'));
  const tablist = el('div', null, 'tabs');
  tablist.setAttribute('role', 'tablist');
  tablist.setAttribute('aria-label', 'Teaching views');
  const tabs = {};
  const panels = {};
  for (const lab of LABS) {
    const tab = el('button', TAB_NAMES[lab], 'tab');
    tab.type = 'button';
    tab.id = `tab-${lab}`;
    tab.setAttribute('role', 'tab');
    tab.setAttribute('aria-controls', `lab-${lab}`);
    tab.addEventListener('click', () => setTeach({ lab, lf: 0, lc: null }));
    tabs[lab] = tab;
    tablist.append(tab);
    const panel = el('section', null, 'lab');
    panel.id = `lab-${lab}`;
    panel.setAttribute('role', 'tabpanel');
    panel.setAttribute('aria-labelledby', tab.id);
    panel.tabIndex = -1;
    panels[lab] = panel;
  }
  tablist.addEventListener('keydown', (event) => {
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (!step) return;
    event.preventDefault();
    const next = LABS[(LABS.indexOf(teachOf().lab) + step + LABS.length) % LABS.length];
    setTeach({ lab: next, lf: 0, lc: null });
    tabs[next].focus();
  });
  root.append(tablist, ...Object.values(panels));

  // ---- What if -----------------------------------------------------------
  const whatif = panels.whatif;
  whatif.append(
    el('h3', 'Scaling on beside scaling off'),
    el('p', 'Dot products of 50-dimensional vectors are large. Without the division by √d the softmax saturates: each row puts almost all its weight on one key (here, mostly the word itself). The focused row of the sentence is compared below the two heatmaps.', 'note'),
  );
  const compareBox = el('div', null, 'compare');
  const scaledPanel = new MatrixPanel(el('div'), { wasm, theme, name: 'Scaled', arrows: false, table: false, onFocus: (row) => setState({ ...getState(), focus: row, cell: null }), onCell: (row, col) => setState({ ...getState(), focus: row, cell: col }) });
  const unscaledPanel = new MatrixPanel(el('div'), { wasm, theme, name: 'Unscaled', arrows: false, table: false, onFocus: (row) => setState({ ...getState(), focus: row, cell: null }), onCell: (row, col) => setState({ ...getState(), focus: row, cell: col }) });
  compareBox.append(scaledPanel.root, unscaledPanel.root);
  const compareTable = el('table', null, 'steps-table compare-table');
  compareTable.id = 'whatif-compare';
  whatif.append(compareBox, scrolling(compareTable));
  whatif.append(
    el('h3', 'Temperature and the causal mask'),
    el('p', 'The temperature slider and the causal switch above change every view on the page: a temperature below 1 sharpens the softmax, above 1 flattens it; the causal mask hides later words, as in a decoder that writes one word at a time.', 'note'),
    el('h3', 'Padding mask'),
    el('p', 'Batches of sentences are padded to one length. The pad positions get zero vectors, and a padding mask hides them as keys, so that no word attends to them (their columns are hatched). The rows of the pads themselves still get computed and are simply ignored later.', 'note'),
  );
  const padInput = input('number', 'pad-length', { min: '1', max: String(MAX_PAD), step: '1' });
  padInput.addEventListener('change', () => {
    const value = Math.round(Number(padInput.value));
    if (Number.isFinite(value) && value >= 1 && value <= MAX_PAD) setTeach({ pad: value });
  });
  whatif.append(control('Pad the sentence to', padInput, 'positions'));
  const padPanel = new MatrixPanel(el('div'), panelOptions('Padded', 'pad-weights'));
  const padSteps = el('div', null, 'explain lab-steps');
  whatif.append(padPanel.root, padSteps);

  // ---- Playground ----------------------------------------------------------
  const play = panels.play;
  play.append(el('p', 'Type small matrices, rows separated by ";" or new lines, numbers by spaces or commas. Queries are Q·W_q, keys K·W_k, values V·W_v; leave K empty to use Q, V empty to use K, and any W empty for no projection. The options above (scaling, temperature, masks) apply here too.', 'note'));
  const preset = el('select');
  preset.id = 'play-preset';
  preset.append(el('option', 'Worked examples…'));
  preset.options[0].value = '';
  for (const [key, p] of Object.entries(PRESETS)) {
    const option = el('option', p.label);
    option.value = key;
    preset.append(option);
  }
  preset.addEventListener('change', () => {
    const p = PRESETS[preset.value];
    if (!p) return;
    const { label, ...values } = p;
    setTeach({ play: values, lf: 0, lc: null });
  });
  play.append(control('Load', preset));
  const fields = {};
  const grid = el('div', null, 'play-grid');
  for (const [key, name, hint] of [
    ['q', 'Q', 'one row per query'], ['k', 'K', 'empty: same as Q'], ['v', 'V', 'empty: same as K'],
    ['wq', 'W_q', 'optional'], ['wk', 'W_k', 'optional'], ['wv', 'W_v', 'optional'],
  ]) {
    const area = input('textarea', `play-${key}`, { rows: '3', spellcheck: 'false', autocomplete: 'off', maxlength: '4000' });
    fields[key] = area;
    grid.append(control(name, area, hint));
  }
  play.append(grid);
  fields.names = input('text', 'play-names', { maxlength: '400', autocomplete: 'off', spellcheck: 'false' });
  fields.dk = input('number', 'play-dk', { min: '0', max: '100000', step: '1' });
  const row2 = el('div', null, 'play-row');
  row2.append(control('Token names', fields.names, 'space-separated'), control('Scale by 1/√', fields.dk, 'd_k; 0 = the number of columns of Q·W_q'));
  play.append(row2);
  let playFrame = 0;
  const readPlay = () => {
    playFrame = 0;
    const next = {};
    for (const key of ['q', 'k', 'v', 'wq', 'wk', 'wv', 'names']) next[key] = fields[key].value;
    const dk = Math.round(Number(fields.dk.value));
    next.dk = Number.isFinite(dk) && dk >= 0 && dk <= 100000 ? dk : 0;
    setTeach({ play: next }, 'push', 'playground');
  };
  for (const field of Object.values(fields)) {
    field.addEventListener('input', () => {
      if (!playFrame) playFrame = requestAnimationFrame(readPlay);
    });
  }
  const playError = el('p', null, 'error');
  playError.id = 'play-error';
  playError.setAttribute('role', 'alert');
  playError.hidden = true;
  play.append(playError);
  const playPanel = new MatrixPanel(el('div'), panelOptions('Playground', 'play-weights'));
  const playCompare = el('table', null, 'steps-table compare-table');
  playCompare.id = 'play-compare';
  const playInputs = el('div', null, 'play-inputs');
  const playSteps = el('div', null, 'explain lab-steps');
  playSteps.id = 'play-steps';
  play.append(playPanel.root, el('h3', 'Scaling off beside scaling on, for the focused query'), scrolling(playCompare), playInputs, playSteps);

  // ---- Multi-head ------------------------------------------------------------
  const heads = panels.heads;
  heads.append(el('p', `Each of h heads attends in its own d_k = ${explorer.dim} / h dimensions. "Projected": every head multiplies the vectors by its own W_q, W_k, W_v (random here, drawn from the seed, as at the start of training). "Split": head k reads only its slice of the dimensions, with no weights. Heads are averaged for the overview; click a small heatmap to enlarge it.`, 'note'));
  const headsRow = el('div', null, 'play-row');
  const headCount = el('select');
  headCount.id = 'heads-count';
  const headChoices = Array.from(wasm.headCounts(explorer.dim));
  for (const h of headChoices) {
    const option = el('option', `${h} × d_k = ${explorer.dim / h}`);
    option.value = String(h);
    headCount.append(option);
  }
  headCount.addEventListener('change', () => setTeach({ heads: Number(headCount.value), head: null, hide: [], lf: 0, lc: null }));
  headsRow.append(control('Heads', headCount));
  const modeGroup = el('fieldset', null, 'radio-group');
  modeGroup.append(el('legend', 'Mode'));
  const modeInputs = {};
  for (const mode of HEAD_MODES) {
    const radio = input('radio', `heads-mode-${mode}`, { name: 'heads-mode', value: mode });
    radio.addEventListener('change', () => radio.checked && setTeach({ headMode: mode, lf: 0, lc: null }));
    modeInputs[mode] = radio;
    const label = el('label');
    label.append(radio, ` ${mode}`);
    modeGroup.append(label);
  }
  headsRow.append(modeGroup);
  const seedInput = input('number', 'heads-seed', { min: '0', max: '4294967295', step: '1' });
  seedInput.addEventListener('change', () => {
    const seed = Number(seedInput.value);
    if (Number.isInteger(seed) && seed >= 0 && seed <= 4294967295) setTeach({ seed });
  });
  const reseed = el('button', 'New seed', 'small');
  reseed.type = 'button';
  reseed.addEventListener('click', () => setTeach({ seed: Math.floor(Math.random() * 1e6) }));
  headsRow.append(control('Seed', seedInput), reseed);
  heads.append(headsRow);
  const toggles = el('fieldset', null, 'head-toggles');
  toggles.id = 'head-toggles';
  const headGrid = el('div', null, 'head-grid');
  headGrid.id = 'head-grid';
  headGrid.setAttribute('role', 'group');
  headGrid.setAttribute('aria-label', 'Heads: choose one to enlarge');
  const headTitle = el('h3');
  headTitle.id = 'heads-title';
  const headPanel = new MatrixPanel(el('div'), panelOptions('Multi-head', 'heads-weights', { arrowsCaption: 'Arrows: one colour per head (untick a head to hide it); the enlarged head alone when one is chosen.' }));
  const headSteps = el('div', null, 'explain lab-steps');
  heads.append(toggles, headGrid, headTitle, headPanel.root, headSteps);

  // ---- Cross-attention -----------------------------------------------------------
  const cross = panels.cross;
  cross.append(el('p', 'In cross-attention the queries come from one sentence (A, the sentence above) and the keys and values from another (B): a translation model’s decoder looks at the source sentence this way. Rows are A’s words, columns B’s. Self and causal masks do not apply across sentences.', 'note'));
  const crossB = input('textarea', 'cross-b', { rows: '2', maxlength: '2000', spellcheck: 'false' });
  let crossFrame = 0;
  crossB.addEventListener('input', () => {
    if (crossFrame) return;
    crossFrame = requestAnimationFrame(() => {
      crossFrame = 0;
      setTeach({ b: crossB.value, lf: 0, lc: null }, 'push', 'cross');
    });
  });
  const crossExample = el('button', `Example: "${CROSS_EXAMPLE.a}" over "${CROSS_EXAMPLE.b}"`, 'small');
  crossExample.type = 'button';
  crossExample.id = 'cross-example';
  crossExample.addEventListener('click', () => {
    const state = getState();
    setState({ ...state, sentence: CROSS_EXAMPLE.a, focus: null, cell: null, teach: { ...state.teach, b: CROSS_EXAMPLE.b, lf: 0, lc: null } }, 'push');
  });
  const crossError = el('p', null, 'error');
  crossError.setAttribute('role', 'alert');
  crossError.hidden = true;
  cross.append(control('Sentence B (keys and values)', crossB), crossExample, crossError);
  const crossPanel = new MatrixPanel(el('div'), panelOptions('Cross-attention', 'cross-weights'));
  const crossSteps = el('div', null, 'explain lab-steps');
  cross.append(crossPanel.root, crossSteps);

  // ---- Context vectors -------------------------------------------------------------
  const meaning = panels.meaning;
  meaning.append(el('p', 'A context vector is a weighted mix of the sentence’s vectors. Its nearest vocabulary words (by cosine similarity) show what attention mixed into each word, beside the nearest words of the word’s own vector. The step table above lists the raw cosine similarity of the focused word with each key beside its weight.', 'note'));
  const meaningTable = el('table', null, 'steps-table meaning');
  meaningTable.id = 'meaning-table';
  const meaningScroll = el('div', null, 'table-scroll');
  meaningScroll.tabIndex = 0;
  meaningScroll.setAttribute('aria-label', 'Nearest words, scrollable');
  meaningScroll.append(meaningTable);
  meaning.append(meaningScroll);

  // ---- Rendering -------------------------------------------------------------------

  const optionsKey = (state) => JSON.stringify(settingsOf(state));
  let mainView = null;
  let meaningKey = null;
  let headWeights = { key: null, perHead: [], average: null }; // copied out of slots.heads once per result
  let headsDrawn = null; // what the head toggles and the grid of small heatmaps show

  /**
   * The tabs and every control of the teaching views, from the state. Cheap, so
   * it runs on every change, at once; the views' content renders after the main frame.
   */
  function syncControls(state) {
    const teach = state.teach;
    for (const lab of LABS) {
      const selected = lab === teach.lab;
      if (tabs[lab].getAttribute('aria-selected') !== String(selected)) tabs[lab].setAttribute('aria-selected', String(selected));
      put(tabs[lab], 'tabIndex', selected ? 0 : -1);
      put(panels[lab], 'hidden', !selected);
    }
    put(padInput, 'value', String(teach.pad));
    const p = teach.play;
    // A field being typed in keeps what is typed.
    for (const key of ['q', 'k', 'v', 'wq', 'wk', 'wv', 'names']) {
      if (document.activeElement !== fields[key]) put(fields[key], 'value', p[key]);
    }
    if (document.activeElement !== fields.dk) put(fields.dk, 'value', String(p.dk));
    const match = Object.entries(PRESETS).find(([, v]) => ['q', 'k', 'v', 'wq', 'wk', 'wv', 'names', 'dk'].every((k) => v[k] === p[k]));
    put(preset, 'value', match ? match[0] : '');
    put(headCount, 'value', String(headsOf(teach)));
    for (const mode of HEAD_MODES) put(modeInputs[mode], 'checked', mode === teach.headMode);
    put(seedInput, 'value', String(teach.seed));
    // Split heads take slices of the vectors: they have no projections, so no seed.
    put(seedInput, 'disabled', teach.headMode === 'split');
    put(reseed, 'disabled', teach.headMode === 'split');
    if (document.activeElement !== crossB) put(crossB, 'value', teach.b);
  }

  /** The head count shown: the one asked for when it divides the dimension, else 5. */
  const headsOf = (teach) => (headChoices.includes(teach.heads) ? teach.heads : 5);

  function render(state, view) {
    mainView = view;
    const draw = { whatif: renderWhatif, play: renderPlay, heads: renderHeads, cross: renderCross, meaning: renderMeaning }[state.teach.lab];
    try {
      draw(state);
    } catch (error) {
      // A bug here must not take the main views down with it; say what failed.
      console.warn(error);
    }
  }

  /** Shows the error of `slot` in `line` and marks `panel` failed, or clears both; true on failure. */
  function showFailure(panel, line, slot, fallback) {
    const failed = !slot.value;
    if (failed) line.textContent = upper(slot.error?.message ?? fallback);
    line.hidden = !failed;
    panel.classList.toggle('failed', failed);
    return failed;
  }

  function sentenceSettings(state, changes = {}) {
    return { ...settingsOf(state), ...changes };
  }

  function renderWhatif(state) {
    const teach = state.teach;
    const base = `${state.sentence}\u0000${optionsKey(state)}`;
    // One side is the page's own analysis; only the other is computed here.
    const other = slots.flipped.get(base, () => explorer.analyze(state.sentence, sentenceSettings(state, { scale: !state.scale })));
    if (mainView && other) {
      const dataOther = dataFor(slots.flipped, analysisData);
      const [dataOn, dataOff] = state.scale ? [mainView.data, dataOther] : [dataOther, mainView.data];
      const focus = state.focus ?? 0;
      scaledPanel.show(dataOn, { focus, caption: `÷ √${mainView.dim}: the largest weight of a row is ${meanMax(dataOn).toFixed(2)} on average` });
      unscaledPanel.show(dataOff, { focus, caption: `Unscaled: the largest weight of a row is ${meanMax(dataOff).toFixed(2)} on average` });
      compareRows(compareTable, dataOn.colLabels, [
        [`weight ÷ √${mainView.dim}`, dataOn.weights.subarray(focus * dataOn.cols, (focus + 1) * dataOn.cols)],
        ['weight unscaled', dataOff.weights.subarray(focus * dataOff.cols, (focus + 1) * dataOff.cols)],
      ], `Row of '${dataOn.rowLabels[focus]}'`);
    }
    const pad = slots.pad.get(`${base}\u0000${teach.pad}`, () => explorer.analyzePadded(state.sentence, settingsOf(state), teach.pad));
    if (!pad) {
      padSteps.replaceChildren(el('p', slots.pad.error?.message ?? '', 'note'));
      return;
    }
    const data = dataFor(slots.pad);
    const focus = Math.min(teach.lf, data.rows - 1);
    const real = data.padding.filter((p) => !p).length;
    padPanel.show(data, { focus, caption: `${real} words padded to ${data.cols} positions: the hatched pad columns are masked (weight 0).` });
    labSteps(padSteps, pad, data, focus, teach.lc, state);
  }

  function renderPlay(state) {
    const teach = state.teach;
    const p = teach.play;
    const spec = (settings) => ({ q: p.q, k: p.k, v: p.v, wq: p.wq, wk: p.wk, wv: p.wv, names: p.names, scaleDim: p.dk, settings });
    const key = JSON.stringify(p) + optionsKey(state);
    const view = slots.play.get(key, () => wasm.playground(spec(settingsOf(state))));
    if (showFailure(play, playError, slots.play, 'The playground could not compute.')) return;
    const data = dataFor(slots.play);
    const focus = Math.min(teach.lf, data.rows - 1);
    playPanel.show(data, { focus, caption: `${data.rows} ${data.rows === 1 ? 'query' : 'queries'} × ${data.cols} keys, d_k = ${view.dim}, d_v = ${view.valueDim}` });
    const off = slots.playOff.get(key, () => wasm.playground(spec({ ...settingsOf(state), scale: false })));
    const on = slots.playOn.get(key, () => wasm.playground(spec({ ...settingsOf(state), scale: true })));
    if (off && on) {
      const n = data.cols;
      const offSteps = off.explainRow(focus);
      const onSteps = on.explainRow(focus);
      compareRows(playCompare, data.colLabels, [
        ['q·k', offSteps.dots, (x) => num(x)],
        ['weight, scaling off', offSteps.weights],
        [`s = q·k ÷ √${p.dk || view.dim}`, onSteps.scaled, (x) => num(x)],
        [`weight, scaling on`, onSteps.weights],
      ].map(([label, values, format]) => [label, Array.from(values).slice(0, n), format]), `Query '${data.rowLabels[focus]}'`);
    }
    // The matrices actually used, after the projections.
    const projected = p.wq.trim() || p.wk.trim() || p.wv.trim();
    playInputs.replaceChildren();
    if (projected) {
      playInputs.append(el('h3', 'After the projections'));
      const row = el('div', null, 'matrices');
      for (const [which, name, labels] of [['q', 'Q·W_q', data.rowLabels], ['k', 'K·W_k', data.colLabels], ['v', 'V·W_v', data.colLabels]]) {
        row.append(matrixTable(name, view.input(which), view.shape(which), labels, `play-${which}-used`));
      }
      playInputs.append(row);
    }
    labSteps(playSteps, view, data, focus, teach.lc, state, { scaleDim: p.dk || view.dim });
  }

  function renderHeads(state) {
    const teach = state.teach;
    const h = headsOf(teach);
    const base = `${state.sentence}\u0000${optionsKey(state)}\u0000${h}\u0000${teach.headMode}\u0000${teach.headMode === 'split' ? 0 : teach.seed}`;
    const mh = slots.heads.get(base, () => explorer.multiHead(state.sentence, settingsOf(state), h, teach.headMode, teach.seed));
    if (!mh) {
      headSteps.replaceChildren(el('p', upper(slots.heads.error?.message ?? ''), 'note'));
      headGrid.replaceChildren();
      headsDrawn = null;
      return;
    }
    const shown = teach.head !== null && teach.head < h ? teach.head : null;
    const hidden = new Set(teach.hide.filter((x) => x < h));
    const n = mh.size;
    if (headWeights.key !== base) {
      headWeights = { key: base, perHead: [...Array(h).keys()].map((k) => mh.weights(k)), average: mh.weights(-1) };
    }
    const weightsOf = headWeights.perHead;
    // A focus change leaves the toggles and the small heatmaps as they are.
    const drawn = `${base}\u0000${shown}\u0000${[...hidden]}\u0000${dark()}`;
    if (drawn !== headsDrawn) {
      headsDrawn = drawn;
      drawHeadPicker(h, n, shown, hidden, weightsOf, headWeights.average);
    }

    const view = slots.head.get(`${base}\u0000${shown}`, () => mh.head(shown ?? -1));
    if (!view) return;
    const data = dataFor(slots.head);
    const focus = Math.min(teach.lf, data.rows - 1);
    const sets = shown === null
      ? [...Array(h).keys()].filter((k) => !hidden.has(k)).map((k) => ({ weights: weightsOf[k], color: headColor(k, dark()) }))
      : [{ weights: data.weights, color: headColor(shown, dark()) }];
    headTitle.textContent = shown === null ? `The average of ${h} heads` : `Head ${shown + 1} of ${h}`;
    headPanel.show(data, {
      focus,
      arrowSets: sets,
      caption: `${shown === null ? 'Average of the heads' : `Head ${shown + 1}`}: ${n} tokens, d_k = ${mh.headDim}, ${teach.headMode === 'split' ? `dimensions ${(shown ?? 0) * mh.headDim}–${((shown ?? 0) + 1) * mh.headDim - 1}` : `projections from seed ${teach.seed}`}`,
    });
    if (shown === null) {
      headSteps.replaceChildren(el('p', 'The average has no single query and key: enlarge one head to see its steps. Each head has its own queries and keys, so each finds its own pattern.', 'hint'));
    } else {
      labSteps(headSteps, view, data, focus, teach.lc, state, { scaleDim: mh.headDim });
    }
  }

  /** The head toggles (which heads the arrows draw) and the grid of small heatmaps (which head is enlarged). */
  function drawHeadPicker(h, n, shown, hidden, weightsOf, average) {
    toggles.replaceChildren(el('legend', 'Heads in the arrows view'));
    for (let k = 0; k < h; k++) {
      const box = input('checkbox', `head-toggle-${k}`);
      box.checked = !hidden.has(k);
      box.addEventListener('change', () => {
        const next = new Set(teachOf().hide);
        if (box.checked) next.delete(k);
        else next.add(k);
        setTeach({ hide: [...next].sort((a, b) => a - b) });
      });
      const label = el('label', null, 'head-toggle');
      const swatch = el('span', null, 'swatch');
      swatch.style.background = headColor(k, dark());
      label.append(box, swatch, ` ${k + 1}`);
      label.title = `Head ${k + 1}`;
      box.setAttribute('aria-label', `Show head ${k + 1} in the arrows`);
      toggles.append(label);
    }

    // The grid of small heatmaps: the average first, then each head.
    const tiles = [];
    const colormap = wasm.colormapTable('viridis');
    const tile = (index, name, weights) => {
      const button = el('button', null, 'head-tile');
      button.type = 'button';
      button.dataset.head = String(index);
      button.setAttribute('aria-pressed', String(index === (shown ?? -1)));
      button.setAttribute('aria-label', `Enlarge ${name}`);
      const canvas = el('canvas');
      canvas.width = n;
      canvas.height = n;
      canvas.setAttribute('aria-hidden', 'true');
      paintTile(canvas, weights, n, colormap);
      const caption = el('span', name);
      if (index >= 0) caption.style.borderBottomColor = headColor(index, dark());
      button.append(canvas, caption);
      button.addEventListener('click', () => setTeach({ head: index < 0 ? null : index, lf: 0, lc: null }));
      tiles.push(button);
    };
    tile(-1, 'Average', average);
    for (let k = 0; k < h; k++) tile(k, `Head ${k + 1}`, weightsOf[k]);
    headGrid.replaceChildren(...tiles);
  }

  function renderCross(state) {
    const teach = state.teach;
    const view = slots.cross.get(`${state.sentence}\u0000${teach.b}\u0000${optionsKey(state)}`, () => explorer.analyzeCross(state.sentence, teach.b, settingsOf(state)));
    if (showFailure(cross, crossError, slots.cross, 'Cross-attention could not compute.')) return;
    const data = dataFor(slots.cross);
    const focus = Math.min(teach.lf, data.rows - 1);
    crossPanel.show(data, { focus, caption: `Rows: the ${data.rows} words of A (queries). Columns: the ${data.cols} words of B (keys and values).` });
    labSteps(crossSteps, view, data, focus, teach.lc, state);
  }

  function renderMeaning(state) {
    if (!mainView) {
      meaningTable.replaceChildren();
      return;
    }
    const key = `${state.sentence}\u0000${optionsKey(state)}`;
    if (key === meaningKey) return;
    meaningKey = key;
    const { n, labels } = mainView;
    const d = mainView.dim;
    const { vectors, context } = mainView;
    const head = el('thead');
    const hr = el('tr');
    for (const text of ['word', 'nearest to its own vector', 'nearest to its context vector']) {
      const th = el('th', text);
      th.scope = 'col';
      hr.append(th);
    }
    head.append(hr);
    const body = el('tbody');
    const list = (vector) => explorer.nearest(vector, NEAREST_COUNT).map((w) => `${w.word} ${w.similarity.toFixed(2)}`).join(' · ');
    for (let i = 0; i < n; i++) {
      const tr = el('tr');
      const th = el('th', labels[i]);
      th.scope = 'row';
      tr.append(th, el('td', list(vectors.subarray(i * d, (i + 1) * d)), 'words own'), el('td', list(context.subarray(i * d, (i + 1) * d)), 'words mixed'));
      body.append(tr);
    }
    meaningTable.replaceChildren(el('caption', `Nearest of ${explorer.vocabularySize.toLocaleString('en-US')} vocabulary words by cosine similarity, with the similarity`), head, body);
  }

  /** Steps of row `focus` of a teaching view (and of cell `col` if set). */
  function labSteps(target, view, data, focus, col, state, { scaleDim } = {}) {
    if (!view.hasSteps) return;
    const steps = view.explainRow(focus);
    const cell = col !== null && col < data.cols ? view.explainCell(focus, col) : null;
    renderSteps(target, {
      word: data.rowLabels[focus],
      rowLabels: data.rowLabels,
      keyLabels: data.colLabels,
      steps,
      cell,
      settings: { scale: state.scale, temperature: state.temperature },
      scaleDim: scaleDim ?? view.dim,
      values: view.input('v'),
      valueDim: view.valueDim,
      fullyMasked: data.fullyMasked[focus] === 1,
      onCell: (j) => setLabFocus(focus, j),
    });
  }


  function relayout() {
    for (const panel of [scaledPanel, unscaledPanel, padPanel, playPanel, headPanel, crossPanel]) {
      if (panel.data && !panel.root.closest('[hidden]')) panel.layout();
    }
  }

  return { syncControls, render, relayout };
}

/** Sets `element[property]` only when it differs: a write of the same value would still invalidate style or layout. */
function put(element, property, value) {
  if (element[property] !== value) element[property] = value;
}

/** Mean over rows of the largest weight: 1 means every row is one-hot (saturated). */
function meanMax(data) {
  let total = 0;
  let rows = 0;
  for (let i = 0; i < data.rows; i++) {
    if (data.fullyMasked[i]) continue;
    let max = 0;
    for (let j = 0; j < data.cols; j++) max = Math.max(max, data.weights[i * data.cols + j]);
    total += max;
    rows++;
  }
  return rows ? total / rows : 0;
}

/** A table of a few named rows over the keys. */
function compareRows(table, keys, rows, caption) {
  const head = tableHead('', keys);
  const body = el('tbody');
  for (const [label, values, format] of rows) {
    const tr = el('tr');
    const th = el('th', label);
    th.scope = 'row';
    tr.append(th);
    for (const value of values) tr.append(el('td', value === null ? 'masked' : (format ?? weight)(value)));
    body.append(tr);
  }
  table.replaceChildren(el('caption', caption), head, body);
}

function matrixTable(name, flat, shape, labels, id) {
  const [rows, cols] = shape;
  const table = el('table', null, 'steps-table matrix');
  table.id = id;
  table.append(el('caption', `${name} (${rows} × ${cols})`));
  const body = el('tbody');
  for (let i = 0; i < rows; i++) {
    const tr = el('tr');
    const th = el('th', labels[i] ?? String(i + 1));
    th.scope = 'row';
    tr.append(th);
    for (let c = 0; c < cols; c++) tr.append(el('td', num(flat[i * cols + c], 3)));
    body.append(tr);
  }
  table.append(body);
  return table;
}

/** A small heatmap: one pixel per cell, coloured like the big one (weight ÷ the largest weight). */
function paintTile(canvas, weights, n, table) {
  let max = 0;
  for (const w of weights) max = Math.max(max, w);
  canvas.getContext('2d').putImageData(new ImageData(colorize(weights, n, n, max, table), n, n), 0, 0);
}

/**
 * The step-by-step panel of the page's focused token (state.focus), and of
 * the clicked cell (state.cell): numbers from explorer.explainRow/Cell.
 * view: the page's analysis view ({ analysis, labels, n, dim, fullyMasked, context,
 * vectors: the input vectors, (n, dim) }).
 */
export function explainFocused(target, { explorer, view, state, onClear, onCell }) {
  const i = state.focus;
  const steps = explorer.explainRow(view.analysis, i);
  const cell = state.cell !== null && state.cell < view.n ? explorer.explainCell(view.analysis, i, state.cell) : null;
  const word = view.labels[i];
  const nearest = el('p', null, 'nearest');
  const words = el('span', '…', 'nearest-words');
  nearest.append(`Words nearest to the context vector of '${word}' (cosine): `, words);
  const own = el('p', null, 'nearest');
  const ownWords = el('span', '…', 'nearest-words own');
  own.append(`…and to its own vector: `, ownWords);
  renderSteps(target, {
    word,
    rowLabels: view.labels,
    keyLabels: view.labels,
    steps,
    cell,
    settings: { scale: state.scale, temperature: state.temperature },
    scaleDim: view.dim,
    values: null,
    fullyMasked: view.fullyMasked[i] === 1,
    onClear,
    onCell,
    extra: view.fullyMasked[i] === 1 ? [] : [contextSummary(word, view.labels, steps), nearest, own],
  });
  // Nearest words after the paint: the first search builds the index.
  const d = view.dim;
  requestAnimationFrame(() => setTimeout(() => {
    if (!words.isConnected) return;
    try {
      const show = (list) => list.map((w) => `${w.word} ${w.similarity.toFixed(2)}`).join(' · ');
      words.textContent = show(explorer.nearest(view.context.subarray(i * d, (i + 1) * d), 6));
      ownWords.textContent = show(explorer.nearest(view.vectors.subarray(i * d, (i + 1) * d), 6));
    } catch {
      nearest.remove();
      own.remove();
    }
  }, 0));
}

/** Step 4 for a sentence: the heaviest terms of Σ weight × v, in words, and the first dimensions of the result. */
function contextSummary(word, labels, steps) {
  const order = [...labels.keys()].filter((j) => steps.weights[j] > 0).sort((a, b) => steps.weights[b] - steps.weights[a]);
  const terms = order.slice(0, 4).map((j) => `${weight(steps.weights[j])} × v(${labels[j]})`);
  const p = el('p', null, 'context-sum');
  p.append(`Step 4: context of '${word}' = ${terms.join(' + ')}${order.length > 4 ? ` + … (${order.length - 4} more)` : ''} = [${steps.context.slice(0, 4).map((c) => num(c, 4)).join(', ')}, … ${steps.context.length} numbers].`);
  return p;
}

/** Wraps a wide table so that it scrolls sideways instead of widening the page. */
function scrolling(table) {
  const box = el('div', null, 'steps-scroll');
  box.append(table);
  return box;
}

function upper(text) {
  return text ? text.charAt(0).toUpperCase() + text.slice(1) + (/[.!?]$/.test(text) ? '' : '.') : '';
}
