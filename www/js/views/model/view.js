// The trained-model view: all-MiniLM-L6-v2's attention for the page's
// sentence, beside the GloVe attention. The model runs in a Web Worker
// (model-worker.js through model-client.js), so the page never waits for it.
// This module holds the run shown and wires the parts: the grid of heads
// (grid.js), the open head (head.js), the comparison (compare.js). The state
// is the page's (`state.model`, see model-state.js), changed through the store.

import { GRADIENT } from '../../analysis.js';
import { ModelClient } from '../../model-client.js';
import { withUtf16Spans } from '../../model-spans.js';
import { DEFAULT_HEAD, DEFAULT_LAYER } from '../../model-state.js';
import { renderCompare } from './compare.js';
import { gloveRowOf, modelFocus } from './focus.js';
import { buildGrid, markGrid, wireGrid } from './grid.js';
import { HeadView } from './head.js';
import { buildSkeleton } from './skeleton.js';

const CSS_URL = new URL('../../../model.css', import.meta.url);

function formatMB(bytes) {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

function maxOf(values) {
  let max = 0;
  for (const v of values) if (v > max) max = v;
  return max > 0 ? max : 1;
}

export function mountModel(root, ctx) {
  if (!document.querySelector(`link[href="${CSS_URL.href}"]`)) {
    document.head.append(Object.assign(document.createElement('link'), { rel: 'stylesheet', href: CSS_URL.href }));
  }
  return new ModelView(root, ctx);
}

class ModelView {
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.store = ctx.store;
    this.dom = buildSkeleton(root);
    root.dataset.state = 'loading';
    this.colormap = ctx.wasm.colormapTable(GRADIENT);
    this.state = null; // the page state last seen
    this.glove = null; // the page's analysis last seen
    this.run = null; // the result shown
    this.requested = null; // key of the last run asked for
    this.shown = null; // { run, layer, head } the heatmap holds
    this.loadedOnce = false;
    this.downloaded = 0;
    this.runs = 0;
    this.head = new HeadView(this.dom, ctx, {
      focus: () => this.focus(),
      focusToken: (index, how) => this.focusToken(index, how),
      clear: () => this.change({ focus: null, model: { ...this.state.model, focus: null } }),
    });
    this.client = new ModelClient(this.handlers());
    wireGrid(this.dom.grid, { size: () => this.run, open: (layer, head) => this.change({ model: { ...this.state.model, layer, head } }) });
    this.wireControls();
  }

  change(changes, how = 'push') {
    this.store.update(changes, how);
  }

  focus() {
    return modelFocus(this.state, this.glove, this.run);
  }

  focusToken(index, how = 'push') {
    if (!this.run || index < 0 || index >= this.run.n) return;
    this.change({ focus: gloveRowOf(this.glove, this.run, index), model: { ...this.state.model, focus: index } }, how);
  }

  handlers() {
    const { dom } = this;
    return {
      progress: ({ received, total }) => {
        dom.progress.max = total;
        dom.progress.value = received;
        dom.status.textContent = `Downloading the model… ${formatMB(received)} of ${formatMB(total)}`;
      },
      ready: ({ coreBytes, cached }) => {
        this.loadedOnce = true;
        if (!cached) this.downloaded += coreBytes;
        dom.progress.max = 1;
        dom.progress.value = 1;
        dom.status.textContent = cached ? 'Model loaded from your browser’s cache. Running…' : 'Model downloaded. Running…';
      },
      result: (message) => {
        this.downloaded += message.fetched.bytes;
        this.showError('');
        this.receive(message);
      },
      error: (message) => {
        this.root.dataset.state = 'error';
        dom.loading.hidden = true;
        dom.retry.hidden = this.loadedOnce;
        this.showError(message.message);
      },
    };
  }

  showError(text) {
    this.dom.error.textContent = text;
    this.dom.error.hidden = !text;
  }

  receive(message) {
    const key = JSON.stringify([message.sentence, message.words ? 'words' : 'pieces', !message.hideSpecial]);
    if (key !== this.requested) return;
    const tokens = withUtf16Spans(message.sentence, message.tokens);
    const run = { ...message, id: ++this.runs, key, tokens, labels: tokens.map((t) => t.text), headMax: [] };
    const nn = run.n * run.n;
    for (let k = 0; k < run.layers * run.heads; k++) run.headMax.push(maxOf(run.weights.subarray(k * nn, (k + 1) * nn)));
    this.run = run;
    const { root, dom } = this;
    root.dataset.state = 'ready';
    dom.loading.hidden = false;
    dom.retry.hidden = true;
    root.dataset.n = String(run.n);
    root.dataset.runMs = run.runMs.toFixed(2);
    dom.status.textContent = `${run.n} ${message.words ? 'words' : 'pieces'} · all ${run.layers * run.heads} heads computed in ${run.runMs.toFixed(0)} ms in a Web Worker · ${formatMB(this.downloaded)} downloaded this visit`;
    performance.mark('model-result');
    buildGrid(dom.grid, run, this.colormap);
    this.shown = null;
    if (this.state?.model) this.showHead();
  }

  /** The open head, falling back to the default when the model lacks it. */
  openHead() {
    let { layer, head } = this.state.model;
    if (layer >= this.run.layers || head >= this.run.heads) {
      layer = Math.min(DEFAULT_LAYER, this.run.layers - 1);
      head = Math.min(DEFAULT_HEAD, this.run.heads - 1);
    }
    return { layer, head };
  }

  showHead() {
    const { run, state } = this;
    if (!run || !state?.model) return;
    const { layer, head } = this.openHead();
    if (layer !== state.model.layer || head !== state.model.head) {
      this.change({ model: { ...state.model, layer, head } }, 'replace');
      return; // the store calls back with the corrected state
    }
    const { shown } = this;
    if (!shown || shown.run !== run || shown.layer !== layer || shown.head !== head) {
      this.shown = { run, layer, head };
      this.head.show(run, layer, head, this.colormap, state.model.special);
      markGrid(this.dom.grid, layer, head);
      this.root.dataset.head = `${layer}:${head}`;
      if (!performance.getEntriesByName('model-first-head').length) performance.mark('model-first-head');
    }
    this.refocus();
  }

  refocus() {
    this.head.refocus();
    renderCompare(this.dom.compare, { state: this.state, glove: this.glove, run: this.run, hv: this.head.hv, focus: this.focus(), shownHead: this.shown });
  }

  wireControls() {
    const { dom } = this;
    // Token indices change with the units: the focus carries over through the GloVe word.
    const carried = () => {
      const own = this.focus();
      return own === null ? this.state.focus : gloveRowOf(this.glove, this.run, own) ?? this.state.focus;
    };
    for (const input of Object.values(dom.units)) {
      input.addEventListener('change', () => {
        if (input.checked) this.change({ focus: carried(), model: { ...this.state.model, units: input.value, focus: null } });
      });
    }
    dom.special.addEventListener('change', () => this.change({ focus: carried(), model: { ...this.state.model, special: dom.special.checked, focus: null } }));
    dom.close.addEventListener('click', () => this.change({ model: undefined }));
    dom.retry.addEventListener('click', () => {
      this.showError('');
      dom.retry.hidden = true;
      dom.loading.hidden = false;
      this.root.dataset.state = 'loading';
      this.requested = null;
      this.client.retry();
      this.update(this.state, this.glove);
    });
  }

  update(state, glove) {
    const { root, dom } = this;
    this.state = state;
    if (!glove.pending) this.glove = glove;
    root.hidden = false;
    dom.units[state.model.units].checked = true;
    dom.special.checked = state.model.special;
    const key = JSON.stringify([state.sentence, state.model.units, state.model.special]);
    if (key !== this.requested) {
      this.requested = key;
      this.client.run(state.sentence, { words: state.model.units === 'words', hideSpecial: !state.model.special });
      if (root.dataset.state !== 'error' || this.loadedOnce) root.dataset.state = this.run ? 'running' : 'loading';
      if (this.run) dom.status.textContent = 'Running…';
    }
    if (this.run) this.showHead();
    else renderCompare(dom.compare, { state, glove: this.glove, run: null, hv: null, focus: null, shownHead: null });
  }

  hide() {
    this.root.hidden = true;
    this.head.release();
  }

  relayout() {
    this.head.relayout();
  }
}
