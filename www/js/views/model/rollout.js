// Across layers: attention rollout (Abnar & Zuidema, 2020) and the raw
// average of each layer's heads, as a small multiple of one heatmap per
// layer on one colour scale, and the focused token's row of each layer as a
// table (the numbers, for assistive technology and tests). Computed by the
// worker (`rollout()` of the model's wasm) only while the section is open
// (`mflow` in the link, see model-state.js). Each layer's matrix is a figure
// to download (figure.js), on the scale the layers are drawn on.

import { el, scrolling } from '../../dom.js';
import { quoted, weight } from '../../text.js';
import { MODEL_NAME } from './skeleton.js';

const EXPLAIN = {
  rollout: 'Rollout estimates how much of each token’s representation after a layer comes from each input token, if attention were all that mixed tokens: each layer’s heads are averaged, the residual connection is counted as attention to itself (A + I, rows renormalised), and the layers are multiplied in order. Every row sums to 1. It is an estimate: it ignores the values, the feed-forward layers and the norms, and it averages heads that do different things. A large share from [CLS] or [SEP] is mostly attention parked there (heads with nothing to do look at them), not meaning that comes from them.',
  // [CLS] and [SEP] hidden: the worker runs rollout on the matrices without them.
  hidden: 'With [CLS] and [SEP] hidden, rollout is computed without them: each layer’s head average with the [CLS] and [SEP] columns left out (its rows then sum to what they did not send there), plus I, rows renormalised, and the layers multiplied as above. This is another quantity than the rollout with them, not the same numbers with two columns hidden: the share a token parked on [CLS] or [SEP] is dropped, so the residual term (the token itself) and the shares between words weigh more (show [CLS] and [SEP] to compare).',
  average: 'Each layer’s attention averaged over its 12 heads, with nothing carried from one layer to the next: the model’s own numbers. Rows sum to 1 when [CLS] and [SEP] are shown; without them, to what the token did not send there.',
};

/** Paints an (n, n) matrix (`image`: a canvas holding it a pixel a cell) on `ctx`, `size` pixels a side, with the focused row outlined. */
export function paintFlowLayer(ctx, image, n, size, focus, theme) {
  ctx.imageSmoothingEnabled = false;
  ctx.clearRect(0, 0, size, size);
  ctx.drawImage(image, 0, 0, size, size);
  if (focus !== null && focus < n) {
    const cell = size / n;
    ctx.strokeStyle = theme.accent;
    ctx.lineWidth = Math.max(1.5, Math.min(3, cell / 4));
    ctx.strokeRect(1, focus * cell, size - 2, cell);
  }
}

export class FlowView {
  /** box: the section to fill; view: the model view (run, state, focus(), change(), client, colours, ctx) */
  constructor(box, { view }) {
    this.view = view;
    this.flows = null; // the worker's answer for the run shown, with its images
    this.asked = null;
    this.details = el('details', null, 'model-flow');
    this.details.id = 'model-flow';
    const summary = el('summary', 'Across layers: attention rollout, and each layer’s average');
    this.body = el('div', null, 'model-flow-body');
    this.details.append(summary, this.body);
    box.append(this.details);
    this.build();
    this.details.addEventListener('toggle', () => {
      const { model } = view.state;
      const flow = this.details.open ? model.flow ?? 'rollout' : null;
      if (flow !== model.flow) view.change({ model: { ...model, flow } });
    });
  }

  build() {
    this.modes = {};
    const modes = el('fieldset', null, 'model-flow-modes');
    modes.append(el('legend', 'Show'));
    for (const [value, text] of [['rollout', 'Rollout (layers multiplied)'], ['average', 'Average of the heads, layer by layer']]) {
      const label = el('label');
      const input = Object.assign(el('input'), { type: 'radio', name: 'model-flow-mode', value });
      input.addEventListener('change', () => input.checked && this.view.change({ model: { ...this.view.state.model, flow: value } }));
      this.modes[value] = input;
      label.append(input, ` ${text}`);
      modes.append(label);
    }
    this.explain = el('p', '', 'note');
    this.status = el('p', '', 'model-flow-status');
    this.status.setAttribute('role', 'status');
    this.multiples = el('div', null, 'model-flow-multiples');
    this.table = el('table', null, 'weights-table model-flow-table');
    this.table.id = 'model-flow-table';
    this.body.append(modes, this.explain, this.status, this.multiples, scrolling(this.table, 'table-scroll', 'The focused token across layers, scrollable'));
  }

  /** Follows the state: open or closed, which mode; asks for the numbers of a new run while open. */
  update() {
    const { run, state } = this.view;
    const flow = state.model.flow;
    if (this.details.open !== Boolean(flow)) this.details.open = Boolean(flow);
    if (!flow || !run) return;
    this.modes[flow].checked = true;
    this.explain.textContent = flow === 'rollout' && !state.model.special ? `${EXPLAIN.rollout} ${EXPLAIN.hidden}` : EXPLAIN[flow];
    if (this.asked !== run.id) {
      this.asked = run.id;
      this.flows = null;
      this.status.textContent = 'Computing…';
      this.view.client.ask('rollout', { run: run.requestId });
    }
    this.draw();
  }

  receive(message) {
    const { run } = this.view;
    if (!run || message.n !== run.n) return;
    this.flows = { ...message, images: {}, scales: {}, run };
    this.status.textContent = '';
    this.register(message.layers);
    this.draw();
  }

  /** The largest value of a mode's matrices: the top of the colour scale every layer is drawn on. */
  scaleOf(flow) {
    const { flows } = this;
    if (flows.scales[flow] === undefined) {
      let max = 0;
      for (const value of flows[flow]) max = Math.max(max, value);
      flows.scales[flow] = max || 1;
    }
    return flows.scales[flow];
  }

  /** The images of one mode, on one colour scale across the layers. */
  images(flow) {
    const { flows } = this;
    const key = `${flow}/${this.view.colours.palette}`;
    if (flows.images[key]) return flows.images[key];
    const { n, layers } = flows;
    const nn = n * n;
    flows.images[key] = Array.from({ length: layers }, (_, l) => this.view.colours.canvas(flows[flow].subarray(l * nn, (l + 1) * nn), n, n, this.scaleOf(flow)));
    return flows.images[key];
  }

  /** A figure to download for each layer (ctx.figures), listed while the layers are on screen. */
  register(layers) {
    const { figures } = this.view.ctx;
    for (let l = 0; l < layers; l++) {
      if (figures.has(`model-flow-${l}`)) continue;
      figures.set(`model-flow-${l}`, {
        name: () => `${this.view.state?.model.flow === 'average' ? 'the heads’ average' : 'the rollout'} of the trained model after layer ${l}`,
        visible: () => this.shown() && l < this.flows.layers,
        figure: () => (this.shown() && l < this.flows.layers ? this.figure(l) : null),
      });
    }
  }

  /** Whether the layers drawn are the run's on screen, the section open. */
  shown() {
    const { run, state, stale } = this.view;
    return Boolean(this.flows && this.flows.run === run && state?.model?.flow && this.details.open && !stale && !this.details.closest('[hidden]'));
  }

  /** Layer `l`'s matrix of the mode shown, as a figure (figure.js), on the layers' one colour scale. */
  figure(l) {
    const { run, state } = this.view;
    const flow = state.model.flow;
    const { n } = this.flows;
    const what = flow === 'rollout' ? `rollout after layer ${l} (layers 0 to ${l} multiplied, each with its residual)` : `layer ${l}, the average of its heads`;
    const special = run.hideSpecial ? 'without [CLS] and [SEP]' : 'with [CLS] and [SEP]';
    return {
      kind: 'model', title: run.sentence, caption: `${MODEL_NAME} · ${what} · ${run.words ? 'whole words' : 'word pieces'} · ${special} · one colour scale for every layer`,
      rows: n, cols: n, rowLabels: run.labels, colLabels: run.labels, weights: this.flows[flow].slice(l * n * n, (l + 1) * n * n), masked: null,
      scaleMax: this.scaleOf(flow), palette: this.view.colours.palette, layer: l, file: `MiniLM ${flow} layer ${l}`,
    };
  }

  draw() {
    const { flows, view } = this;
    const flow = view.state.model.flow;
    if (!flows || !flow) return;
    const { n, layers } = flows;
    const focus = view.focus();
    const drawn = [flows, flow, focus, view.ctx.theme, view.colours.palette];
    if (this.drawn && drawn.every((v, k) => v === this.drawn[k])) return;
    this.drawn = drawn;
    const size = Math.max(n, Math.min(160, n * 12));
    const images = this.images(flow);
    const figures = images.map((image, l) => {
      const figure = el('figure', null, 'model-flow-layer');
      const canvas = Object.assign(el('canvas'), { width: size, height: size });
      canvas.setAttribute('role', 'img');
      canvas.setAttribute('aria-label', `${flow === 'rollout' ? 'Rollout' : 'Average attention'} after layer ${l}: rows are tokens, columns are ${flow === 'rollout' ? 'input tokens' : 'keys'}; the focused token's row is in the table below.`);
      paintFlowLayer(canvas.getContext('2d'), image, n, size, focus, view.ctx.theme);
      figure.append(canvas, el('figcaption', `after layer ${l}`));
      return figure;
    });
    this.multiples.replaceChildren(...figures);
    this.multiples.dataset.layers = String(layers);
    this.fillTable(flow, focus);
  }

  /** The focused token's row after each layer (the first token's when nothing is focused). */
  fillTable(flow, focus) {
    const { run } = this.view;
    const { n, layers } = this.flows;
    const row = focus ?? 0;
    const matrices = this.flows[flow];
    const head = el('tr');
    head.append(el('th', 'after layer'));
    for (const label of run.labels) {
      const th = el('th', label);
      th.scope = 'col';
      head.append(th);
    }
    head.append(el('th', 'row sum'));
    const thead = el('thead');
    thead.append(head);
    const tbody = el('tbody');
    for (let l = 0; l < layers; l++) {
      const tr = el('tr');
      const th = el('th', String(l));
      th.scope = 'row';
      tr.append(th);
      let sum = 0;
      for (let j = 0; j < n; j++) {
        const value = matrices[(l * n + row) * n + j];
        sum += value;
        tr.append(el('td', weight(value)));
      }
      tr.append(el('td', weight(sum), 'row-sum'));
      tbody.append(tr);
    }
    const what = flow === 'rollout' ? 'comes from each input token (rollout)' : 'attends to each key, averaged over the heads';
    this.table.replaceChildren(el('caption', `How much of ${quoted(run.labels[row])} ${what}, after each layer.`), thead, tbody);
    Object.assign(this.table.dataset, { flow, row: String(row) });
  }

  fail(message) {
    this.asked = null;
    this.status.textContent = `The rollout could not be computed: ${message.message}`;
  }
}
