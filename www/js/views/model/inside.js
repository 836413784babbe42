// The open head opened like a GloVe row: for the focused model token, the
// step panels of the GloVe view (teach-steps.js) with this head's own
// numbers: its q and k vectors (32 dimensions for MiniLM), q·k term by term
// for one key, ÷√d, exp, the row sum, the weights, Σ w·v. The worker
// computes them (`headDetails` of the model's wasm: the head rerun for this
// query, the weights the heatmap draws) over the sentence's pieces, with
// [CLS] = piece 0; a run token's `pieces` says which pieces it covers.

import { el, scrolling } from '../../dom.js';
import { num, renderSteps } from '../../teach-steps.js';
import { quoted } from '../../text.js';

export class InsideView {
  /** box: the section to fill; view: the model view (state, run, focus(), currentHead(), change(), client) */
  constructor(box, { view }) {
    this.view = view;
    this.box = box;
    this.target = el('div', null, 'explain model-explain');
    this.target.id = 'model-explain';
    this.target.setAttribute('role', 'group');
    this.target.setAttribute('aria-label', 'The open head, step by step');
    box.append(this.target);
    this.asked = null;
    this.hint('Click a row of the heatmap (or a word above) to see how this head computes that token’s weights, step by step.');
  }

  hint(text) {
    this.target.dataset.state = 'hint';
    this.target.replaceChildren(el('p', text, 'hint'));
  }

  /** Asks for the head's details of the focused token when the sentence, head, query or key changed. */
  update() {
    const { run, state } = this.view;
    if (!run) return;
    const focus = this.view.focus();
    if (focus === null) {
      if (this.asked !== null) this.hint('Click a row of the heatmap (or a word above) to see how this head computes that token’s weights, step by step.');
      this.asked = null;
      this.view.client.forget('details');
      return;
    }
    const { layer, head } = this.view.currentHead();
    const query = run.tokens[focus].pieces[0];
    const key = state.model.cell;
    const wanted = JSON.stringify([run.sentence, layer, head, query, key, focus, run.words, run.hideSpecial]);
    if (wanted === this.asked) return;
    this.asked = wanted;
    this.target.dataset.state = 'loading';
    this.token = focus;
    this.view.client.ask('details', { sentence: run.sentence, layer, head, query, key });
  }

  /** The worker's answer: the step panel. */
  receive(details) {
    const { run } = this.view;
    if (!run) return;
    const labels = details.tokens.map((t) => t.text);
    const word = labels[details.query];
    renderSteps(this.target, {
      title: `Layer ${details.layer}, head ${details.head}: how `,
      word,
      rowLabels: labels,
      keyLabels: labels,
      // Its rows count [CLS], which is no word: "the" of "The cat" is token 2.
      placeNoun: 'token',
      steps: details.steps,
      cell: details.cell,
      settings: { scale: true, temperature: 1 },
      scaleDim: details.dim,
      values: details.values,
      valueDim: details.dim,
      note: this.note(details, run),
      onClear: () => this.view.clearFocus(),
      onCell: (j) => this.view.change({ model: { ...this.view.state.model, cell: j === this.view.state.model.cell ? null : j } }),
      extra: [vectors(details, labels)],
    });
    Object.assign(this.target.dataset, { state: 'ready', layer: String(details.layer), head: String(details.head), query: String(details.query), key: String(details.cell.key) });
  }

  /** What the panel computes, and how it meets the heatmap in the current units. */
  note(details, run) {
    const labels = details.tokens.map((t) => t.text);
    const token = run.tokens[this.token];
    const split = run.words && token && token.pieces[1] - token.pieces[0] > 1;
    // In whole words a word of several pieces has a row of its own in the heatmap, which the next sentence explains.
    const parts = [`q, k and v are this head’s own projections of the layer’s input: ${details.dim} numbers each, one slice of the layer’s ${details.dim * run.heads}.${split ? '' : ' The weights below are the heatmap’s row.'}`];
    if (split) {
      parts.push(`In whole words the heatmap’s row of ${quoted(token.text)} averages the rows of its ${token.pieces[1] - token.pieces[0]} pieces; this is the row of its first piece, ${quoted(labels[details.query])}, over pieces.`);
    } else if (run.words) {
      parts.push('The panel counts in pieces: a word of several pieces gets the sum of their weights in the heatmap.');
    }
    if (run.hideSpecial) parts.push('[CLS] and [SEP] are hidden in the heatmap, but the head attends to them all the same: they are listed here.');
    if (!details.picked) parts.push(`The dot product below is that of the strongest key, ${quoted(labels[details.cell.key])}; click another key to see its own.`);
    return parts.join(' ');
  }

  fail(message) {
    this.asked = null;
    this.target.dataset.state = 'error';
    this.target.replaceChildren(el('p', `The head could not be opened: ${message.message}`, 'error'));
  }
}

/** The query's q and the picked key's k, every dimension, side by side. */
function vectors(details, labels) {
  const { dim, queries, keys, steps, cell } = details;
  const box = el('section', null, 'context-steps model-vectors');
  const h = el('h3');
  h.append('The vectors: q of ', el('q', labels[steps.query]), ' and k of ', el('q', labels[cell.key]), ` (${dim} dimensions)`);
  const table = el('table', null, 'num-table model-vector-table');
  table.append(el('caption', `q·k = Σ q[t] × k[t] = ${num(cell.dot)}; the terms, largest first, are in the panel above.`));
  const head = el('tr');
  head.append(el('td'));
  for (let t = 0; t < dim; t++) head.append(el('th', String(t)));
  const rows = [['q', queries, steps.query], ['k', keys, cell.key]].map(([name, matrix, at]) => {
    const tr = el('tr');
    const th = el('th', name);
    th.scope = 'row';
    tr.append(th);
    for (let t = 0; t < dim; t++) tr.append(el('td', num(matrix[at * dim + t], 2)));
    return tr;
  });
  const thead = el('thead');
  thead.append(head);
  const tbody = el('tbody');
  tbody.append(...rows);
  table.append(thead, tbody);
  box.append(h, scrolling(table, 'steps-scroll', 'q and k, every dimension, scrollable'));
  return box;
}
