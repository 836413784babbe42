// The matrix playground: Q, K, V (and W_q, W_k, W_v) typed by hand, with the
// tutorials' worked examples as presets. It needs the wasm module only, not
// the word vectors, so it works even when they fail to load.

import { control, el, input, put, putField, scrolling } from '../../dom.js';
import { MatrixPanel } from '../../matrix-panel.js';
import { settingsOf } from '../../state.js';
import { MAX_MATRIX_TEXT, MAX_SCALE_DIM, PRESETS } from '../../teach-state.js';
import { byTemperature, num } from '../../teach-steps.js';
import {
  attempt, compareRows, errorLine, labFocus, labSteps, panelOptions, setTeach, showFailure, wholeNumberField,
} from './common.js';
import { linkCheck } from '../../params.js';
import { panelData } from '../../analysis.js';
import { counted, grouped, quoted } from '../../text.js';

// Checked by the page when it fetches this module (engine.js sameBuild).
export const BUILT = 'unbuilt';

const FIELDS = [
  ['q', 'Q', 'one row per query'], ['k', 'K', 'empty: same as Q'], ['v', 'V', 'empty: same as K'],
  ['wq', 'W_q', 'optional'], ['wk', 'W_k', 'optional'], ['wv', 'W_v', 'optional'],
];
const TEXT_KEYS = ['q', 'k', 'v', 'wq', 'wk', 'wv', 'names'];

export function mountPlay(lab, ctx) {
  const { store } = ctx;
  lab.append(el('p', 'Type small matrices, rows separated by ";" or new lines, numbers by spaces or commas. Queries are Q·W_q, keys K·W_k, values V·W_v; leave K empty to use Q, V empty to use K, and any W empty for no projection. The options above (scaling, temperature, masks) apply here too, by position: with no attention to itself, query i may not take key i, and with the causal mask, no key after i.', 'note'));
  const preset = presetMenu(store);
  lab.append(control('Load', preset));
  const fields = {};
  const grid = el('div', null, 'play-grid');
  for (const [key, name, hint] of FIELDS) {
    fields[key] = input('textarea', `play-${key}`, { rows: '3', spellcheck: 'false', autocomplete: 'off', maxlength: String(MAX_MATRIX_TEXT) });
    grid.append(control(name, fields[key], hint));
  }
  lab.append(grid);
  fields.names = input('text', 'play-names', { maxlength: '400', autocomplete: 'off', spellcheck: 'false' });
  const dkField = input('number', 'play-dk');
  const dkError = errorLine('play-dk-error');
  const row2 = el('div', null, 'play-row');
  row2.append(control('Token names', fields.names, 'space-separated'), control('Scale by 1/√', dkField, 'd_k; 0 = the number of columns of Q·W_q'));
  lab.append(row2, dkError);
  let frame = 0;
  // The matrices and names as typed; d_k only when the field holds a whole number it takes (else the last one stays).
  const read = (changes) => {
    frame = 0;
    const next = { ...store.get().teach.play, ...changes };
    for (const key of TEXT_KEYS) next[key] = fields[key].value;
    setTeach(store, { play: next }, 'push', 'playground');
  };
  for (const field of Object.values(fields)) field.addEventListener('input', () => { frame ||= requestAnimationFrame(() => read({})); });
  const syncDk = wholeNumberField(dkField, dkError, {
    min: 0, max: MAX_SCALE_DIM, commit: 'input', use: (dk) => read({ dk }), note: ' (0: the number of columns of Q·W_q)',
  });
  const error = errorLine('play-error');
  lab.append(error);
  // Its figure is of the matrices typed here, not of the sentence: it carries them (the JSON), and says so.
  const panel = new MatrixPanel(el('div'), panelOptions(ctx, 'Playground', 'play-weights', {
    title: () => 'Matrix playground: Q, K and V as typed',
    inputs: (state) => ({ ...state.teach.play }),
    unit: 'row',
  }));
  const compare = el('table', null, 'steps-table compare-table');
  compare.id = 'play-compare';
  const inputs = el('div', null, 'play-inputs');
  const steps = el('div', null, 'explain lab-steps');
  steps.id = 'play-steps';
  lab.append(panel.root, el('h3', 'Scaling off beside scaling on, for the focused query'), scrolling(compare, 'steps-scroll', 'The focused row, scaling off and on, scrollable'), inputs, steps);

  const checkLink = linkCheck(ctx);
  // Results are kept for the inputs they came from: a render that changes only the focus computes nothing.
  const cache = { key: null, views: null };
  function compute(state) {
    const p = state.teach.play;
    const key = JSON.stringify([p, settingsOf(state)]);
    if (key === cache.key) return cache.views;
    for (const view of Object.values(cache.views ?? {})) view?.free?.();
    const spec = (settings) => ({ q: p.q, k: p.k, v: p.v, wq: p.wq, wk: p.wk, wv: p.wv, names: p.names, scaleDim: p.dk, settings });
    const main = attempt(() => ctx.wasm.playground(spec(settingsOf(state))));
    const views = { main: main.value ?? null, error: main.error ?? null };
    if (views.main) {
      views.data = panelData(ctx.wasm, views.main);
      views.off = attempt(() => ctx.wasm.playground(spec({ ...settingsOf(state), scale: false }))).value ?? null;
      views.on = attempt(() => ctx.wasm.playground(spec({ ...settingsOf(state), scale: true }))).value ?? null;
    }
    cache.key = key;
    cache.views = views;
    return views;
  }

  return {
    controls(state) {
      const p = state.teach.play;
      for (const key of TEXT_KEYS) putField(fields[key], p[key], ctx.fromAddress);
      syncDk(String(p.dk), ctx.fromAddress);
      const match = Object.entries(PRESETS).find(([, v]) => [...TEXT_KEYS, 'dk'].every((k) => v[k] === p[k]));
      put(preset, 'value', match ? match[0] : '');
    },
    render(state) {
      if (!ctx.wasm) return;
      const views = compute(state);
      if (showFailure(lab, error, views.error && cutShort(views.error, state.teach.play))) return;
      const { main: view, data } = views;
      const teach = state.teach;
      const { focus, problems } = labFocus(ctx, teach, data.rows, data.cols);
      checkLink(problems);
      // No word vectors here, and the scaling is the playground's own d_k.
      // d_k as the scaling takes it: set below, it is not the width of q and k, and the caption says both.
      const dk = teach.play.dk || view.dim;
      const width = teach.play.dk ? ` (set below; q and k have ${counted(view.dim, 'number')})` : '';
      panel.show(data, { focus, settings: { vectors: false, scaleDim: dk }, caption: `${data.rows} ${data.rows === 1 ? 'query' : 'queries'} × ${counted(data.cols, 'key')}, d_k = ${dk}${width}, d_v = ${view.valueDim}` });
      if (views.off && views.on) compareScaling(compare, views, data, focus, dk, state.temperature);
      showProjected(inputs, teach.play, view, data);
      labSteps(steps, ctx, view, data, focus, teach.lc, state, { scaleDim: dk });
    },
  };
}

/**
 * A matrix's error, after the boxes the browser cut: a paste past a box's
 * MAX_MATRIX_TEXT characters is cut there without a word, and the shape
 * error of its cut last row ("row 63 has 16 numbers") alone misled.
 */
function cutShort(error, play) {
  const full = FIELDS.filter(([key]) => play[key].length >= MAX_MATRIX_TEXT).map(([, name]) => name);
  if (!full.length) return error;
  const what = full.length === 1 ? `${full[0]} holds` : `${full.join(' and ')} hold`;
  return `${what} ${grouped(MAX_MATRIX_TEXT)} characters, the most a box takes, so what was pasted past them was cut. ${error.message ?? String(error)}`;
}

function presetMenu(store) {
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
    setTeach(store, { play: values, lf: 0, lc: null });
  });
  return preset;
}

function compareScaling(table, views, data, focus, dk, temperature) {
  const n = data.cols;
  const offSteps = views.off.explainRow(focus);
  const onSteps = views.on.explainRow(focus);
  compareRows(table, data.colLabels, [
    ['q·k', offSteps.dots, (x) => num(x)],
    [`weight, scaling off${byTemperature(temperature)}`, offSteps.weights],
    // The page's temperature divides both sides: the label says so.
    [`s = q·k ÷ √${dk}${byTemperature(temperature)}`, onSteps.scaled, (x) => num(x)],
    [`weight, scaling on${byTemperature(temperature)}`, onSteps.weights],
  ].map(([label, values, format]) => [label, Array.from(values).slice(0, n), format]), `Query ${quoted(data.rowLabels[focus])}`);
}

/** The matrices actually used, after the projections. */
function showProjected(box, play, view, data) {
  box.replaceChildren();
  if (!(play.wq.trim() || play.wk.trim() || play.wv.trim())) return;
  box.append(el('h3', 'After the projections'));
  const row = el('div', null, 'matrices');
  for (const [which, name, labels] of [['q', 'Q·W_q', data.rowLabels], ['k', 'K·W_k', data.colLabels], ['v', 'V·W_v', data.colLabels]]) {
    row.append(matrixTable(name, view.input(which), view.shape(which), labels, `play-${which}-used`));
  }
  box.append(row);
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
