// What the teaching labs share: the step panel of a lab's focused row, the
// small comparison tables, the error line of a lab that could not compute,
// the checked whole-number fields, and the link note's problems found once
// the sentence is known.

import { el, put, putField } from '../../dom.js';
import { tableHead } from '../../heatmap-view.js';
import { KEYS_SHOWN, renderSteps } from '../../teach-steps.js';
import { sentenceCase } from '../../analysis.js';
import { indexProblem } from '../../params.js';
import { grouped, weight } from '../../text.js';

/** The lab's focus: row `lf` and clicked column `lc` of its own matrix (teach-state.js). */
export function setLabFocus(store, row, col = null) {
  const state = store.get();
  store.update({ teach: { ...state.teach, lf: row ?? 0, lc: col } }, 'push');
}

/**
 * The lab's focused row: `teach.lf` within its `rows` (the last row for one
 * past them), and the link's problems with lf and lc (the tab's link note
 * names them). A row or column past the matrix is dropped from the state
 * after this render, so that the address no longer passes it on.
 */
export function labFocus(ctx, teach, rows, cols) {
  const problems = [indexProblem('lf', teach.lf, rows, 'row'), indexProblem('lc', teach.lc, cols, 'column')];
  const focus = Math.min(teach.lf, rows - 1);
  if (problems.some(Boolean)) {
    queueMicrotask(() => {
      if (ctx.store.get().teach === teach) setTeach(ctx.store, { lf: focus, lc: problems[1] ? null : teach.lc }, 'replace');
    });
  }
  return { focus, problems };
}

/** Changes the teaching part of the state. */
export function setTeach(store, changes, how = 'push', session = null) {
  const state = store.get();
  store.update({ teach: { ...state.teach, ...changes } }, how, session);
}

/** The MatrixPanel options of a lab whose focus is its own (lf, lc). */
export function panelOptions(ctx, name, tableId, extra = {}) {
  return {
    ctx,
    name,
    tableId,
    onFocus: (row) => setLabFocus(ctx.store, row),
    onCell: (row, col) => setLabFocus(ctx.store, row, col),
    ...extra,
  };
}

/** Steps of row `focus` of a lab's wasm AttentionView `view` (and of cell `col` when set). */
export function labSteps(target, ctx, view, data, focus, col, state, { scaleDim } = {}) {
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
    width: view.dim,
    values: view.input('v'),
    valueDim: view.valueDim,
    fullyMasked: data.fullyMasked[focus] === 1,
    onCell: (j) => setLabFocus(ctx.store, focus, j),
  });
}

/**
 * A table of a few named rows over the keys. Over more than KEYS_SHOWN keys
 * it lists the keys each row weighs most (in sentence order), and says so.
 */
export function compareRows(table, keys, rows, caption) {
  const columns = keys.length > KEYS_SHOWN ? strongestColumns(rows.map(([, values]) => values), keys.length) : [...keys.keys()];
  const head = tableHead('', columns.map((j) => keys[j]));
  const body = el('tbody');
  for (const [label, values, format] of rows) {
    const tr = el('tr');
    const th = el('th', label);
    th.scope = 'row';
    tr.append(th);
    for (const j of columns) tr.append(el('td', values[j] === null ? 'masked' : (format ?? weight)(values[j])));
    body.append(tr);
  }
  const note = columns.length < keys.length ? `: the ${columns.length} keys that either row weighs most, of ${keys.length}` : '';
  table.replaceChildren(el('caption', caption + note), head, body);
}

/** The columns of the KEYS_SHOWN largest values, shared out between `rows`, in column order. */
function strongestColumns(rows, n) {
  const picked = new Set();
  const orders = rows.map((values) => [...Array(n).keys()].sort((a, b) => (values[b] ?? -Infinity) - (values[a] ?? -Infinity)));
  for (let rank = 0; picked.size < Math.min(KEYS_SHOWN, n) && rank < n; rank++) {
    for (const order of orders) if (picked.size < KEYS_SHOWN) picked.add(order[rank]);
  }
  return [...picked].sort((a, b) => a - b);
}

/** Shows `error` (or clears it) in a lab's error line and marks the lab failed; returns whether it failed. */
export function showFailure(lab, line, error) {
  const failed = Boolean(error);
  line.textContent = failed ? sentenceCase(error.message ?? String(error)) : '';
  line.hidden = !failed;
  lab.classList.toggle('failed', failed);
  return failed;
}

/** An error line, hidden until needed. */
export function errorLine(id) {
  const line = el('p', null, 'error');
  if (id) line.id = id;
  line.setAttribute('role', 'alert');
  line.hidden = true;
  return line;
}

/** Runs `compute` and returns { value } or { error }: a lab shows the error instead of breaking. */
export function attempt(compute) {
  try {
    return { value: compute() };
  } catch (error) {
    return { error };
  }
}

const meanMaxes = new WeakMap(); // panel data → its meanMax

/**
 * Mean over rows of the largest weight: 1 means every row is one-hot
 * (saturated). Kept per data: a focus click redraws the What-if tab, and a
 * million weights take milliseconds to scan.
 */
export function meanMax(data) {
  if (!meanMaxes.has(data)) meanMaxes.set(data, scanMeanMax(data));
  return meanMaxes.get(data);
}

function scanMeanMax(data) {
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

/**
 * A lab with nothing to compute from the sentence (it is empty, or none of
 * its words is known): says why in `line` and hides `results`, so that no
 * number of the previous sentence stays on screen looking current. Returns
 * whether there was nothing to show.
 */
export function showNothing(line, results, analysis) {
  const nothing = Boolean(analysis.error) || !analysis.n;
  const reason = analysis.error ?? 'Type a sentence with a few English words above.';
  put(line, 'textContent', nothing ? `Nothing to show here: ${reason}` : '');
  put(line, 'hidden', !nothing);
  for (const node of results) put(node, 'hidden', nothing);
  return nothing;
}

/**
 * A number field that takes whole numbers from `min` to `max`: on each
 * `commit` event ('input' or 'change') a value in range goes to `use`.
 * Anything else (empty, a fraction, out of range) is not used, not even as
 * a default: the field is marked invalid and `line` says what it takes. The
 * typed text stays to be mended, until the state's value changes. `note`
 * adds to the message. Returns `sync(value)`, for the view's controls().
 */
export function wholeNumberField(field, line, { min, max, commit, use, note = '' }) {
  Object.assign(field, { min: String(min), max: String(max), step: '1', required: true });
  const message = `Type a whole number from ${grouped(min)} to ${grouped(max)}${note}.`;
  field.setAttribute('aria-describedby', line.id);
  let shown = null; // the state's value, as last given to sync()
  let refused = null; // the state's value when the field's text was refused
  const check = () => {
    const text = field.value.trim();
    const value = Number(text);
    const valid = text !== '' && Number.isInteger(value) && value >= min && value <= max;
    field.setCustomValidity(valid ? '' : message);
    put(line, 'textContent', valid ? '' : message);
    put(line, 'hidden', valid);
    refused = valid ? null : (refused ?? shown);
    return valid ? value : null;
  };
  field.addEventListener('input', () => {
    const value = check();
    if (value !== null && commit === 'input') use(value);
  });
  field.addEventListener('change', () => {
    const value = check();
    if (value !== null && commit === 'change') use(value);
  });
  // `anyway`: as putField's (a value from the address replaces even a refused text).
  return (value, anyway = false) => {
    shown = value;
    if (!anyway && refused !== null && refused === value) return; // keep the refused text and its message
    refused = null;
    putField(field, value, anyway);
    if (anyway || document.activeElement !== field) check();
  };
}

/** How many words the nearest-word search covers: the index's (GloVe's 20,000 most frequent), or every word of a file. */
export function nearestSearched(ctx, analysis) {
  return ctx.engine?.vectors.manifest.neighbors?.words ?? analysis.n;
}
