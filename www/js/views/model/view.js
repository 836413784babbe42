// The trained-model view: all-MiniLM-L6-v2's attention for the page's
// sentence, beside the GloVe attention. The model runs in a Web Worker
// (model-worker.js through model-client.js), so the page never waits for it.
// This module holds the run shown and wires the parts: the grid of heads
// (grid.js), the open head (head.js), the comparison (compare.js), head
// search (search.js), the open head step by step (inside.js), its queries and
// keys (projection.js) and the layers together (rollout.js). The parts read
// this view (`state`, `run`, `glove`, `focus()`, `currentHead()`), ask the
// worker through `client`, and change the state through `change()`; the
// state is the page's (`state.model`, see model-state.js). The heatmap and
// the projection share one hover (`setHover`), which is not in the link.
// While a new sentence runs, the last run stays on screen; when the model
// cannot run it, that run is hidden (`hideStale`), never passed off as the
// new sentence's. A failed download is asked for again (`retry`) by Try
// again, by reopening the view, and by the browser coming back online.

import { colorbarOf, colormap, matrixCanvas, sentenceCase } from '../../analysis.js';
import { announcer } from '../../dom.js';
import { focusHistory } from '../../heatmap-view.js';
import { ModelClient } from '../../model-client.js';
import { withUtf16Spans } from '../../model-spans.js';
import { DEFAULT_HEAD, DEFAULT_LAYER } from '../../model-state.js';
import { renderCompare } from './compare.js';
import { gloveRowOf, modelFocus } from './focus.js';
import { buildGrid, markGrid, wireGrid } from './grid.js';
import { HeadView } from './head.js';
import { InsideView } from './inside.js';
import { ProjectionView } from './projection.js';
import { FlowView } from './rollout.js';
import { resolveToken, SearchView, tokenText } from './search.js';
import { buildSkeleton } from './skeleton.js';
import { megabytes, quoted } from '../../text.js';

// Checked by the page when it fetches this module (engine.js sameBuild).
export const BUILT = 'unbuilt';


/** `map[p]`: the run token that covers piece `p` ([CLS] = 0), undefined when none shows it. */
function tokenOfPiece(tokens) {
  const map = [];
  tokens.forEach((t, i) => {
    for (let p = t.pieces[0]; p < t.pieces[1]; p++) map[p] = i;
  });
  return map;
}

/** How many pieces the run's sentence has, [CLS] and [SEP] included: what `mcell` counts. */
function pieceCount(run) {
  const last = run.tokens[run.tokens.length - 1];
  return (last?.pieces[1] ?? 1) + (run.hideSpecial ? 1 : 0);
}

/**
 * A sentence naming the link's indices in `past` ([name, key, what]) that lie
 * beyond the `count` tokens of `unit`, and what was `dropped`; '' for none.
 */
function pastEndSentence(past, model, count, unit, dropped = past.length === 1 ? 'it was' : 'they were') {
  if (!past.length) return '';
  const list = past.map(([name, key, what]) => `${key}=${model[name]} (${what})`);
  const named = list.length === 1 ? list[0] : `${list.slice(0, -1).join(', ')} and ${list.at(-1)}`;
  const range = count ? ` (0 to ${count - 1})` : '';
  return `The link’s ${named} ${past.length === 1 ? 'points' : 'point'} past the end of this sentence, which has ${count} ${unit}${range}, so ${dropped} dropped.`;
}

const PATTERN_NAMES = { previous: 'the previous token', next: 'the next token', self: 'itself', special: '[CLS]/[SEP]', 'same-word': 'other occurrences of the same word' };

/** One line measured on the sentence: how many heads do what (the descriptions' patterns, counted). */
function summarize(run) {
  const heads = run.behaviours?.heads;
  if (!heads?.length) return '';
  const counts = new Map();
  let none = 0;
  for (const h of heads) {
    if (!h.pattern) none++;
    else {
      const name = h.pattern === 'focus' ? `${quoted(run.labels[h.focus.token] ?? '?')} (the other tokens’ common target)` : PATTERN_NAMES[h.pattern];
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
  }
  const parts = [...counts].sort((a, b) => b[1] - a[1]).map(([name, count]) => `${count} to ${name}`);
  if (none) parts.push(`${none} with no common pattern`);
  return `Measured on this sentence, of the ${heads.length} heads (each one’s largest pattern holding at least 30% of its attention): ${parts.join(', ')}.`;
}

function maxOf(values) {
  let max = 0;
  for (const v of values) if (v > max) max = v;
  return max > 0 ? max : 1;
}

/** The view in `root`, whose style sheet (model.css) has loaded: views/transformer.js. */
export function mountModel(root, ctx) {
  return new ModelView(root, ctx);
}

class ModelView {
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.store = ctx.store;
    this.dom = buildSkeleton(root);
    this.sayStatus = announcer(ctx, this.dom.statusSaid); // the model's ready and result lines, once typing pauses
    root.dataset.state = 'loading';
    this.colours = this.coloursOf(ctx.store.get().palette);
    this.state = null; // the page state last seen
    this.glove = null; // the page's analysis last seen
    this.run = null; // the result shown
    this.requested = null; // key of the last run asked for
    this.shown = null; // { run, layer, head } the heatmap holds
    this.stale = false; // the run is another sentence's, which the model could not replace (hidden)
    this.loadedOnce = false;
    this.failure = null; // the worker's last error message, until a result replaces it
    this.downloaded = 0;
    this.runs = 0;
    this.carry = null; // the search's query and key pieces, while the units or [CLS]/[SEP] change
    this.head = new HeadView(this.dom, ctx, {
      focus: () => this.focus(),
      focusToken: (index, how, cell) => this.focusToken(index, how, cell),
      clear: () => this.clearFocus(),
      onHover: (hover) => this.projection.light(hover),
      problem: () => (this.dom.error.hidden ? null : this.dom.error.textContent.split(/(?<=\.) /)[0]),
    });
    this.client = new ModelClient(this.handlers());
    const parts = { view: this, grid: this.dom.grid };
    this.search = new SearchView(this.dom.search, parts);
    this.inside = new InsideView(this.dom.inside, parts);
    this.projection = new ProjectionView(this.dom.projection, parts);
    this.flow = new FlowView(this.dom.flow, parts);
    this.parts = [this.search, this.inside, this.projection, this.flow];
    wireGrid(this.dom.grid, { size: () => this.run, open: (layer, head) => this.openHead(layer, head) });
    this.wireControls();
    // A download lost with the connection is fetched again when it returns (not while the view is closed: reopening does it).
    window.addEventListener('online', () => {
      if (!root.hidden && this.failure?.network && !this.dom.retry.hidden) this.retry();
    });
  }

  change(changes, how = 'push', gesture = null) {
    this.store.update(changes, how, gesture);
  }

  focus() {
    return modelFocus(this.state, this.glove, this.run);
  }

  /** Focuses model token `index`; `cell`, a clicked key column, becomes the step panel's key (as a piece). */
  focusToken(index, how = 'click', cell = null) {
    const { run } = this;
    if (!run || index < 0 || index >= run.n) return;
    const key = cell !== null && cell >= 0 && cell < run.n ? run.tokens[cell].pieces[0] : null;
    // Moving the query with the keyboard keeps the picked key; a click picks anew.
    const picked = how === 'keys' && cell === null ? this.state.model.cell : key;
    this.change({ focus: gloveRowOf(this.glove, run, index), model: { ...this.state.model, focus: index, cell: picked } }, ...focusHistory(how));
  }

  clearFocus() {
    this.change({ focus: null, cell: null, model: { ...this.state.model, focus: null, cell: null } });
  }

  /** Opens head (layer, head) (the grid, the search list). */
  openHead(layer, head) {
    this.change({ model: { ...this.state.model, layer, head } });
  }

  /** The shared hover of the heatmap and the projection: { row, col } in run tokens (-1: none), or null. */
  setHover(hover) {
    this.head.light(hover);
  }

  handlers() {
    const { dom } = this;
    return {
      progress: ({ received, total }) => {
        dom.progress.max = total;
        dom.progress.value = received;
        dom.status.textContent = `Downloading the model… ${megabytes(received)} of ${megabytes(total)}`;
      },
      ready: ({ coreBytes, cached }) => {
        this.loadedOnce = true;
        if (!cached) this.downloaded += coreBytes;
        dom.progress.max = 1;
        dom.progress.value = 1;
        dom.status.textContent = cached ? 'Model loaded from your browser’s cache. Running…' : 'Model downloaded. Running…';
        this.sayStatus(dom.status.textContent);
      },
      result: (message) => {
        this.downloaded += message.fetched.bytes;
        this.failure = null;
        this.showError('');
        this.receive(message);
      },
      error: (message) => {
        this.root.dataset.state = 'error';
        this.failure = message;
        dom.loading.hidden = true;
        // The status line, hidden while the error shows, says that it failed, not the step it stopped at ('Starting…').
        dom.status.textContent = this.loadedOnce ? 'The model could not run this sentence.' : 'The model could not be loaded.';
        // Once the model is in, only a file (a shard) can be tried again; a sentence it refuses cannot.
        dom.retry.hidden = this.loadedOnce && message.file === null;
        // The core's messages are clauses ("the sentence has … pieces"); the page writes sentences.
        // A run of another sentence (or units) stays on screen only as long as nothing says it is this one's.
        const stale = this.run !== null && this.run.key !== this.requested;
        this.showError(`${sentenceCase(message.message)}${stale ? ' The previous results are hidden until the model can run this sentence.' : ''}`);
        // Views that read the model's numbers (a quiz about a head) hear of the failure too.
        if (stale) this.hideStale();
        else this.ctx.refresh();
      },
      ranking: (message) => this.search.receive(message),
      details: (message) => this.inside.receive(message),
      projection: (message) => this.projection.receive(message),
      rollout: (message) => this.flow.receive(message),
      failed: (answer, message) => ({ ranking: this.search, details: this.inside, projection: this.projection, rollout: this.flow })[answer]?.fail(message),
    };
  }

  showError(text) {
    this.dom.error.textContent = text;
    this.dom.error.hidden = !text;
  }

  /**
   * After an error the run on screen is the previous sentence's: it is
   * hidden rather than shown as this one's, and the open head gives up its
   * table id and its figure (no download, no quiz answer from old numbers).
   */
  hideStale() {
    if (this.stale) return;
    this.stale = true;
    this.dom.body.hidden = true;
    this.head.forget();
    this.shown = null;
    this.ctx.refresh();
  }

  receive(message) {
    const key = JSON.stringify([message.sentence, message.words ? 'words' : 'pieces', !message.hideSpecial]);
    if (key !== this.requested) return;
    const tokens = withUtf16Spans(message.sentence, message.tokens);
    const run = {
      ...message, id: ++this.runs, requestId: message.id, key, tokens, labels: tokens.map((t) => t.text), headMax: [],
      tokenOfPiece: tokenOfPiece(tokens),
    };
    const before = this.run;
    const nn = run.n * run.n;
    for (let k = 0; k < run.layers * run.heads; k++) run.headMax.push(maxOf(run.weights.subarray(k * nn, (k + 1) * nn)));
    // The grid compares the heads: one colour scale for all of them.
    run.gridMax = Math.max(...run.headMax);
    this.run = run;
    this.stale = false;
    const { root, dom } = this;
    dom.body.hidden = false;
    root.dataset.state = 'ready';
    dom.loading.hidden = false;
    dom.retry.hidden = true;
    root.dataset.n = String(run.n);
    root.dataset.runMs = run.runMs.toFixed(2);
    const computed = `${run.n} ${message.words ? 'words' : 'pieces'} · all ${run.layers * run.heads} heads computed`;
    dom.status.textContent = `${computed} in ${run.runMs.toFixed(0)} ms in a Web Worker · ${megabytes(this.downloaded)} downloaded this visit`;
    this.sayStatus(computed);
    performance.clearMarks('model-result'); // the last result's, not one per sentence
    performance.mark('model-result');
    dom.summary.textContent = summarize(run);
    buildGrid(dom.grid, run, this.colours);
    this.shown = null;
    if (this.carry && this.state?.model) this.carrySearch(run);
    else if (before && this.state?.model) this.followWords(before, run);
    this.showDropped('');
    if (this.state?.model) this.showHead();
    // Views that read the model's numbers (a quiz about a head) hear of the result.
    this.ctx.refresh();
  }

  /** The search's query and key in the new units (their pieces' tokens), once the new run is in. */
  carrySearch(run) {
    const { query, key } = this.carry;
    this.carry = null;
    const q = query === null ? null : run.tokenOfPiece[query] ?? null;
    const k = key === null ? null : run.tokenOfPiece[key] ?? null;
    const { model } = this.state;
    if (q !== null && k !== null && (q !== model.query || k !== model.key)) this.change({ model: { ...model, query: q, key: k } }, 'replace');
  }

  /**
   * After an edit of the sentence (same units), the search and the focus
   * follow their words: the same text, the same occurrence. They are token
   * indices (the link's mq, mk, mfocus), and an edit before them turned
   * 'it' → 'cat' into whatever words had taken those places. A search whose
   * word is gone is dropped, and its status says so.
   */
  followWords(before, run) {
    if (before.sentence === run.sentence || before.words !== run.words || before.hideSpecial !== run.hideSpecial) return;
    const { model } = this.state;
    // Unset, or past the end (dropPastEnd says so); else typed back ('it#2') and looked up as the search fields are.
    const follow = (i) => (i === null || i >= before.labels.length ? i : resolveToken(run, run.sentence, tokenText(before, i)).index ?? -1);
    const [query, key, focus] = [follow(model.query), follow(model.key), follow(model.focus)];
    const kept = { ...model, focus: focus === -1 ? null : focus, query, key };
    if (query === -1 || key === -1) {
      const gone = [model.query, model.key].filter((i, k) => [query, key][k] === -1).map((i) => quoted(before.labels[i]));
      this.search.say(`The sentence changed: ${gone.join(' and ')} ${gone.length > 1 ? 'are' : 'is'} no longer in it, so the search was dropped. Type a query word and a key word.`, true);
      Object.assign(kept, { query: null, key: null, rank: null });
    }
    if (kept.query !== model.query || kept.key !== model.key || kept.focus !== model.focus) this.change({ model: kept }, 'replace');
  }

  /**
   * Drops the token indices of the state that lie past the end of `run` (a
   * link's, or left from a longer sentence): how many tokens a sentence has
   * is known only once the model has tokenized it. Says which: the search's
   * in its status, the others in a note. True when the state changed.
   */
  dropPastEnd(run) {
    const { model } = this.state;
    const beyond = (count) => ([name]) => model[name] !== null && model[name] >= count;
    const unit = run.words ? 'words' : 'pieces';
    const focus = [['focus', 'mfocus', 'the focused token']].filter(beyond(run.n));
    const search = [['query', 'mq', 'the head search’s query'], ['key', 'mk', 'the head search’s key']].filter(beyond(run.n));
    const pieces = pieceCount(run);
    const cell = [['cell', 'mcell', 'the step panel’s key, counted in pieces']].filter(beyond(pieces));
    if (!focus.length && !search.length && !cell.length) return false;
    const note = [pastEndSentence(focus, model, run.n, unit), pastEndSentence(cell, model, pieces, 'pieces with [CLS] and [SEP]')];
    this.showDropped(note.filter(Boolean).join(' '));
    // The query and the key are one search: it goes as a whole.
    if (search.length) this.search.say(`${pastEndSentence(search, model, run.n, unit, 'the search was')} Type a query word and a key word.`, true);
    const kept = { ...model };
    for (const [name] of [...focus, ...cell]) kept[name] = null;
    if (search.length) Object.assign(kept, { query: null, key: null });
    this.change({ model: kept }, 'replace');
    return true;
  }

  showDropped(text) {
    this.dom.dropped.textContent = text;
    this.dom.dropped.hidden = !text;
  }

  /** The open head, falling back to the default when the model lacks it. */
  currentHead() {
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
    if (run.key === this.requested && this.dropPastEnd(run)) return; // the store calls back with the corrected state
    const { layer, head } = this.currentHead();
    if (layer !== state.model.layer || head !== state.model.head) {
      this.change({ model: { ...state.model, layer, head } }, 'replace');
      return; // the store calls back with the corrected state
    }
    const { shown } = this;
    if (!shown || shown.run !== run || shown.layer !== layer || shown.head !== head) {
      this.shown = { run, layer, head };
      this.head.show(run, layer, head, this.colours, state.model.special);
      const about = run.behaviours?.heads[layer * run.heads + head]?.description;
      this.dom.headAbout.textContent = about ? `Layer ${layer}, head ${head}, measured on this sentence: ${about}.` : '';
      if (about) this.dom.heatCaption.textContent += ` On this sentence: ${about}.`;
      markGrid(this.dom.grid, layer, head);
      this.root.dataset.head = `${layer}:${head}`;
      if (!performance.getEntriesByName('model-first-head').length) performance.mark('model-first-head');
    }
    this.refocus();
  }

  refocus() {
    this.head.refocus();
    renderCompare(this.dom.compare, { state: this.state, glove: this.glove, run: this.run, hv: this.head.hv, focus: this.focus(), shownHead: this.shown });
    for (const part of this.parts) part.update();
  }

  wireControls() {
    const { dom } = this;
    // Token indices change with the units: the focus carries over through the GloVe word.
    const carried = () => {
      const own = this.focus();
      return own === null ? this.state.focus : gloveRowOf(this.glove, this.run, own) ?? this.state.focus;
    };
    // The search's query and key carry over through their pieces, once the new run is in.
    const change = (changes) => {
      const { model } = this.state;
      const piece = (i) => (i !== null && this.run && i < this.run.n ? this.run.tokens[i].pieces[0] : null);
      this.carry = model.rank ? null : { query: piece(model.query), key: piece(model.key) };
      this.change({ focus: carried(), model: { ...model, ...changes, focus: null, query: null, key: null } });
    };
    for (const input of Object.values(dom.units)) {
      input.addEventListener('change', () => input.checked && change({ units: input.value }));
    }
    dom.special.addEventListener('change', () => change({ special: dom.special.checked }));
    dom.close.addEventListener('click', () => {
      this.change({ model: undefined });
      // The view hides with the focused button in it: the focus goes back to the button that opens it.
      document.getElementById('model-open')?.focus({ preventScroll: true });
    });
    dom.retry.addEventListener('click', () => this.retry());
  }

  /** Asks again after a failure: the worker loads what it lacks (the core, the shards), then runs the sentence. */
  retry() {
    this.restart();
    this.update(this.state, this.glove);
  }

  /** Clears the failure and asks the worker to load again; the next update asks for the run. */
  restart() {
    const { dom } = this;
    this.failure = null;
    this.showError('');
    dom.retry.hidden = true;
    dom.loading.hidden = false;
    dom.status.textContent = this.loadedOnce ? 'Running…' : 'Starting…'; // until the worker says more
    this.root.dataset.state = 'loading';
    this.requested = null;
    this.client.retry();
  }

  /** The page's palette for this view: its colour table and bar, and a painter of matrices on a given scale. */
  coloursOf(palette) {
    const { wasm } = this.ctx;
    return { palette, table: colormap(wasm, palette), bar: colorbarOf(wasm, palette), canvas: (weights, rows, cols, max) => matrixCanvas(wasm, weights, null, rows, cols, palette, max) };
  }

  update(state, glove) {
    const { root, dom } = this;
    if (state.palette !== this.colours.palette) {
      // Another palette: the grid and the open head are painted again.
      this.colours = this.coloursOf(state.palette);
      this.shown = null;
      if (this.run) buildGrid(dom.grid, this.run, this.colours);
    }
    this.state = state;
    if (!glove.pending) this.glove = glove;
    // Reopened after a failure that Try again would fix: it starts again by itself.
    if (root.hidden && !dom.retry.hidden) this.restart();
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
    if (this.run && !this.stale) this.showHead();
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
