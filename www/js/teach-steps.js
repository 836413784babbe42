// The step-by-step panel: how one query's row of the heatmap is computed,
// from the core's numbers (StepsInfo and CellInfo of the wasm boundary, so
// the panel always matches the heatmap). Used for the focused token of the
// page and inside every teaching view. Text only ever goes in as
// textContent.
//
//   1. dot products q·k_j             (a clicked cell: its terms, largest first)
//   2. scaled s_j = factor · q·k_j    (factor = (1/√d_k or 1) / T)
//   3. exp(s_j), their sum, w_j = exp(s_j) / Σ exp(s)
//   4. context = Σ_j w_j · v_j

import { attr, el, keepingFocus, put, putText, scrolling, setChildren } from './dom.js';
import { strongestKeys } from './paint.js';
import { grouped, quoted, scoring, weight } from './text.js';

/** Terms of a dot product listed before "the other terms" are collapsed. */
export const TERMS_SHOWN = 6;
/** Keys listed before the rest of a long row is collapsed. */
export const KEYS_SHOWN = 24;
/** Dimensions of a context vector shown before the rest is collapsed. */
const DIMS_SHOWN = 8;

// The teaching views take `el` from here, beside `num` and `weight`.
export { el };

/** A number as a learner reads it: integers whole, else `decimals` places; huge or tiny ones in e-notation. */
export function num(x, decimals = 3) {
  if (x === null || x === undefined) return '—';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '−∞';
  if (Number.isInteger(x) && Math.abs(x) < 1e9) return String(x);
  const a = Math.abs(x);
  if (a !== 0 && (a >= 1e6 || a < 10 ** -decimals)) return x.toExponential(3).replace('e+', 'e');
  return x.toFixed(decimals);
}


/** Step 2 as an equation: the scale and the temperature by name, T's value apart, then the one factor they make. */
function scaleText(settings, scaleDim, factor) {
  const scale = settings.scale ? ` × 1/√${scaleDim}` : '';
  // Four significant digits below 0.01 (at T = 1000, 0.0001414: four decimals made it 0.0001, which did not give the scores beside it).
  const shown = factor !== 0 && Math.abs(factor) < 0.01 ? String(Number(factor.toPrecision(4))) : num(factor, 4);
  return `s = q·k${scale}${byTemperature(settings.temperature)} = q·k × ${shown}`;
}

/** The temperature's share of a score's formula, " ÷ T (T = 0.5)", or '' at 1. */
export function byTemperature(t) {
  return t !== 1 ? ` ÷ T (T = ${t})` : '';
}

/**
 * Why step 2 scales as it does: the ÷√d only when it is on (a reason given
 * for a ÷T alone was false), and what the temperature does, by its side of 1.
 * `width`: the numbers of q and k, when d is not theirs (the playground's d_k set by hand).
 */
function scaleReasons(settings, scaleDim, width = scaleDim) {
  const t = settings.temperature;
  const temperature = t < 1 ? `T = ${t}, below 1, makes the weights sharper` : t > 1 ? `T = ${t}, above 1, makes the weights flatter` : '';
  if (!settings.scale) return `: no ÷√${scaleDim} (scaling is off), and ${temperature}`;
  if (scaleDim === 1 && width === 1) return `: ÷√1 changes nothing, as scores of one number each do not spread${temperature && `, and ${temperature}`}`;
  const scores = width === scaleDim
    ? `the scores of ${scaleDim} dimensions (their spread grows with √${scaleDim})`
    : `the scores (with d_k set to ${scaleDim}; q and k have ${width === 1 ? '1 number' : `${width} numbers`})`;
  return temperature
    ? `: ÷√${scaleDim} keeps ${scores} from making the softmax all-or-nothing, and ${temperature}`
    : `, so that ${scores} do not make the softmax all-or-nothing`;
}

/**
 * A sum of exponentials as far as float32 holds it: 4 decimals below 100,
 * else 6 significant digits (its last digits are rounding: 990263.8671 was
 * 990264.0708 exactly).
 */
export function expNum(x) {
  return x !== null && Number.isFinite(x) && Math.abs(x) >= 100 && Math.abs(x) < 1e6 ? String(Number(x.toPrecision(6))) : num(x, 4);
}

/**
 * Renders the steps of `steps.query` into `target`.
 * opts: { word, keyLabels, steps, cell (or null), settings, scaleDim, width
 *         (the numbers of q and k, if not scaleDim), values
 *         (flat (keys, valueDim) Float32Array), valueDim, title, onClear,
 *         onCell(j), fullyMasked, note (text, optional), extra (nodes appended),
 *         placeNoun (what a key's place counts: 'word', the default, or 'token') }
 *
 * A target keeps its panel: the next render changes the text of the same
 * elements (a new sentence rewrites the numbers, not the table), so the
 * browser restyles nothing and a focused key button keeps the focus.
 */
export function renderSteps(target, opts) {
  let panel = panels.get(target);
  if (!panel) {
    panel = new StepsPanel(target);
    panels.set(target, panel);
  }
  panel.render(opts);
}

const panels = new WeakMap(); // target → its StepsPanel

/** The element that takes the focus when the steps in `target` go: the tab panel around it, else `target` itself. */
function holder(target) {
  const around = target.closest('[tabindex]');
  if (around) return around;
  target.tabIndex = -1;
  return target;
}

class StepsPanel {
  constructor(target) {
    this.target = target;
    this.opts = null;
    this.title = el('h2');
    this.clear = el('button', 'Clear focus', 'small');
    this.clear.type = 'button';
    // Cleared, the panel may hold a hint in place of the steps: the focus goes to the panel around it, not to <body>.
    this.clear.addEventListener('click', () => keepingFocus(this.target, () => this.opts?.onClear?.(), () => holder(this.target)));
    this.head = el('div', null, 'explain-head');
    this.note = el('p', null, 'note');
    this.items = [0, 1, 2, 3].map(() => el('li'));
    this.list = el('ol', null, 'steps');
    this.list.append(...this.items);
    this.maskedNote = el('p', null, 'note');
    this.overflow = el('p', null, 'note');
    this.table = new StepsTable(() => this.opts);
  }

  render(opts) {
    this.opts = opts;
    const { word, keyLabels, steps, cell, settings, scaleDim, width } = opts;
    const title = opts.title ?? 'How ';
    if (this.heading?.title !== title || this.heading.word !== word) {
      this.heading = { title, word };
      this.title.replaceChildren(title, el('q', word), ' attends');
    }
    setChildren(this.head, opts.onClear ? [this.title, this.clear] : [this.title]);
    const nodes = [this.head];
    if (opts.note) nodes.push(putText(this.note, opts.note));
    const [score, scale, softmax, output] = this.items;
    putText(score, `Score each key: q·k, the dot product of the query vector of ${quoted(word)} with each key vector.`);
    putText(scale, settings.scale || settings.temperature !== 1
      ? `Scale: ${scaleText(settings, scaleDim, steps.factor)}${scaleReasons(settings, scaleDim, width)}.`
      : 'Scaling is off: s = q·k goes into the softmax as it is, which makes it sharper (saturated).');
    // A row whose every key is masked has no softmax: its weights are 0 (this tool's choice; some libraries give NaN there).
    const none = steps.scaled.every((s) => s === null);
    putText(softmax, none
      ? 'Softmax: every key is masked, so there is nothing to divide by: this page sets every weight to 0 (some libraries give NaN here).'
      : 'Softmax: exp(s) for each key, divided by their sum, so the weights are positive and add up to 1.' + (steps.scaled.some((s) => s === null) ? ' Masked keys get weight 0.' : ''));
    putText(output, `Output: the context vector of ${quoted(word)} is the weighted sum of the value vectors, Σ weight × v.`);
    nodes.push(this.list);

    if (opts.fullyMasked) {
      nodes.push(putText(this.maskedNote, `Every key of ${quoted(word)} is masked, so it has no weights and its output is zero.`));
    } else {
      nodes.push(this.table.update(opts));
      if (steps.sumOfExps === null) {
        nodes.push(putText(this.overflow, `exp(s) of the largest scores is beyond what a computer number holds, which is why the softmax is computed as exp(s − max) ÷ Σ exp(s − max) (max = ${num(steps.max)}): the same weights, no overflow.`));
      }
      if (cell) nodes.push(cellSection(word, keyLabels[cell.key], cell, settings));
      if (opts.values && opts.valueDim) nodes.push(contextSection(word, keyLabels, steps, opts.values, opts.valueDim));
    }
    setChildren(this.target, [...nodes, ...(opts.extra ?? [])]);
  }
}

/**
 * Steps 1–3 as a table: one row per key (the strongest ones for a long row),
 * the sums below. Rows are kept from one render to the next, each with the
 * same eight cells: key, q·k, s, exp(s), weight, exp(s − max), cos, bar.
 */
class StepsTable {
  constructor(options) {
    this.table = el('table', null, 'steps-table');
    this.caption = el('caption');
    const hr = el('tr');
    for (const [label, tip] of [
      ['key', null], ['q·k', 'step 1: dot product'], ['s', 'step 2: scaled score'], ['exp(s)', 'step 3: as the tutorials print it'],
      ['weight', 'step 3: exp(s) ÷ Σ exp(s)'], ['exp(s − max)', 'the same ratio, computed without overflow'],
      ['cos', 'raw cosine similarity of q and k: the angle, without the lengths'],
    ]) {
      const th = el('th', label);
      th.scope = 'col';
      if (tip) th.title = tip;
      hr.append(th);
    }
    // Above the bars, a cell and not a header: a header with no text names nothing to a screen reader.
    hr.append(el('td'));
    const thead = el('thead');
    thead.append(hr);
    this.body = el('tbody');
    const sumHead = el('th', 'sum');
    sumHead.scope = 'row';
    this.sums = [el('td', null, 'sum-of-exps'), el('td'), el('td', null, 'muted')];
    const sum = el('tr');
    sum.append(sumHead, el('td'), el('td'), ...this.sums, el('td'), el('td'));
    const tfoot = el('tfoot');
    tfoot.append(sum);
    this.table.append(this.caption, thead, this.body, tfoot);
    this.scroll = el('div', null, 'steps-scroll');
    this.scroll.append(this.table);
    // One listener for every key's button: a row's key changes with the sentence.
    this.table.addEventListener('click', (event) => {
      const button = event.target.closest?.('button[data-key]');
      if (button) options()?.onCell?.(Number(button.dataset.key));
    });
  }

  update(opts) {
    const { keyLabels, steps, cell } = opts;
    const n = keyLabels.length;
    // One pass for the strongest of a long row (sorting 1,024 keys took a millisecond a click).
    const listed = n > KEYS_SHOWN ? strongestKeys(steps.weights, KEYS_SHOWN) : [...Array(n).keys()];
    putText(this.caption, n > KEYS_SHOWN ? `The ${KEYS_SHOWN} strongest of ${grouped(n)} keys` : 'Every key; click one to see its dot product term by term');
    const rows = this.body.children;
    while (rows.length > listed.length) this.body.lastChild.remove();
    while (rows.length < listed.length) this.body.append(keyRow());
    listed.forEach((j, k) => fillKeyRow(rows[k], j, opts, cell));
    const [exps, total, shifted] = this.sums;
    putText(exps, steps.sumOfExps === null ? 'overflow' : expNum(steps.sumOfExps));
    putText(total, weight(steps.weights.reduce((a, b) => a + b, 0)));
    putText(shifted, num(steps.shiftedSum, 4));
    return this.scroll;
  }
}

/** Why a cosine is missing (attention-core gives NaN, where 0 would read as a right angle). */
const NO_COSINE = 'a vector of zeros, as a pad’s, has no direction, so no angle';

/** An empty row of the steps table: a key header and seven cells, the last a bar. */
function keyRow() {
  const tr = el('tr');
  const th = el('th');
  th.scope = 'row';
  tr.append(th);
  for (let c = 0; c < 5; c++) tr.append(el('td'));
  tr.append(el('td', null, 'muted')); // the cosine
  const barCell = el('td', null, 'bar-cell');
  barCell.append(el('span', null, 'bar'));
  tr.append(barCell);
  return tr;
}

/** The labels a text holds more than once, kept per labels array. */
const repeats = new WeakMap();
export function repeatsOf(labels) {
  if (!repeats.has(labels)) {
    const seen = new Set();
    const twice = new Set();
    for (const label of labels) (seen.has(label) ? twice : seen).add(label);
    repeats.set(labels, twice);
  }
  return repeats.get(labels);
}

/** Row `tr` of the steps table, for key `j`. */
function fillKeyRow(tr, j, opts, cell) {
  const { keyLabels, steps } = opts;
  put(tr, 'className', [j === steps.query && keyLabels === opts.rowLabels ? 'self' : '', cell?.key === j ? 'picked' : ''].join(' ').trim());
  const [th, dot, scaled, exp, w, shifted, cosine, barCell] = tr.children;
  if (opts.onCell) {
    let pick = th.firstElementChild;
    if (!pick) {
      pick = el('button', null, 'link-button');
      pick.type = 'button';
      th.replaceChildren(pick);
    }
    put(pick.dataset, 'key', String(j));
    putText(pick, keyLabels[j]);
    // A word the text holds more than once shows its place (style.css), as the rows are sorted by weight.
    const place = repeatsOf(keyLabels).has(keyLabels[j]) ? String(j + 1) : null;
    attr(pick, 'data-place', place);
    put(pick, 'title', `Show q·k for ${quoted(keyLabels[j])}${place ? ` (${opts.placeNoun ?? 'word'} ${place})` : ''} term by term`);
  } else {
    putText(th, keyLabels[j]);
  }
  putText(dot, num(steps.dots[j]));
  const masked = steps.scaled[j] === null;
  const cells = masked
    ? [['masked', 'masked'], ['0', 'masked'], [weight(0), 'weight'], ['0', 'masked']]
    : [[num(steps.scaled[j], 3), ''], [steps.exps[j] === null ? 'overflow' : expNum(steps.exps[j]), ''], [weight(steps.weights[j]), 'weight'], [num(steps.shiftedExps[j], 4), 'muted']];
  [scaled, exp, w, shifted].forEach((td, k) => {
    putText(td, cells[k][0]);
    put(td, 'className', cells[k][1]);
  });
  putText(cosine, Number.isNaN(steps.cosines[j]) ? '–' : steps.cosines[j].toFixed(3));
  put(cosine, 'title', Number.isNaN(steps.cosines[j]) ? NO_COSINE : '');
  put(barCell.firstChild.style, 'width', `${(steps.weights[j] * 100).toFixed(1)}%`);
}

/** Step 1 of one cell: the terms of the dot product, largest in size first (the core's order), the rest collapsed. */
function cellSection(word, key, cell, settings) {
  const box = el('section', null, 'cell-steps');
  const h = el('h3');
  h.append('Dot product of ', el('q', word), ' and ', el('q', key), ' term by term, the largest (+ or −) first');
  box.append(h);
  const table = (terms) => {
    const t = el('table', null, 'num-table terms');
    const hr = el('tr');
    for (const text of ['dimension', 'q', 'k', 'q × k']) hr.append(el('th', text));
    const thead = el('thead');
    thead.append(hr);
    const tbody = el('tbody');
    for (const term of terms) {
      const tr = el('tr');
      tr.append(el('th', String(term.dimension)), el('td', num(term.query, 4)), el('td', num(term.key, 4)), el('td', num(term.product, 4)));
      tbody.append(tr);
    }
    t.append(thead, tbody);
    return t;
  };
  box.append(table(cell.terms.slice(0, TERMS_SHOWN)));
  if (cell.terms.length > TERMS_SHOWN) {
    const more = el('details');
    const rest = cell.terms.slice(TERMS_SHOWN);
    const restSum = rest.reduce((a, t) => a + t.product, 0);
    more.append(el('summary', `The other ${rest.length} terms (together ${num(restSum, 4)})`), table(rest));
    box.append(more);
  }
  const sum = el('p', null, 'cell-sum');
  sum.append(`Sum: q·k = ${num(cell.dot)}; ${cell.scaled === null ? 's: masked' : `s = ${num(cell.scaled)} (${scoring(settings)})`}; weight ${weight(cell.weight)} (from the softmax of the whole row); ${Number.isNaN(cell.cosine) ? `no cosine (${NO_COSINE})` : `cosine ${cell.cosine.toFixed(3)}`}.`);
  box.append(sum);
  return box;
}

/** The `count` heaviest keys with a weight above 0, heaviest first (ties: the earlier key), and how many keys have one. */
export function heaviestKeys(weights, count) {
  let total = 0;
  for (const w of weights) if (w > 0) total += 1;
  return { keys: strongestKeys(weights, count).filter((j) => weights[j] > 0), total };
}

/** Step 4: the weighted sum of the value vectors. */
function contextSection(word, keyLabels, steps, values, d) {
  const box = el('section', null, 'context-steps');
  const h = el('h3');
  h.append('Context vector of ', el('q', word), ' = Σ weight × v');
  box.append(h);
  const shown = Math.min(d, DIMS_SHOWN);
  const { keys: listedKeys, total: weighted } = heaviestKeys(steps.weights, 8);
  const t = el('table', null, 'num-table context');
  t.append(el('caption', d > shown
    ? `First ${shown} of ${d} dimensions; ${weighted > listedKeys.length ? `the ${listedKeys.length} heaviest of ${weighted} keys` : 'every key with a weight'}`
    : weighted > listedKeys.length ? `The ${listedKeys.length} heaviest of ${weighted} keys` : 'Every key with a weight'));
  const hr = el('tr');
  hr.append(el('th', 'key'), el('th', 'weight'));
  for (let c = 0; c < shown; c++) hr.append(el('th', `v[${c}]`));
  const thead = el('thead');
  thead.append(hr);
  const tbody = el('tbody');
  for (const j of listedKeys) {
    const tr = el('tr');
    tr.append(el('th', keyLabels[j]), el('td', `× ${weight(steps.weights[j])}`));
    for (let c = 0; c < shown; c++) tr.append(el('td', num(values[j * d + c], 3)));
    tbody.append(tr);
  }
  const tfoot = el('tfoot');
  const total = el('tr', null, 'context-row');
  total.append(el('th', 'context'), el('td', '='));
  for (let c = 0; c < shown; c++) total.append(el('td', num(steps.context[c], 4)));
  tfoot.append(total);
  t.append(thead, tbody, tfoot);
  box.append(scrolling(t, 'steps-scroll', 'The context vector, key by key, scrollable'));
  if (d > shown) {
    const all = el('details');
    all.append(el('summary', `All ${d} dimensions of the context vector`), el('p', steps.context.map((c) => num(c, 4)).join('  '), 'vector'));
    box.append(all);
  }
  return box;
}
