// The Multi-head tab: 1 to 50 heads over the sentence, each in its own
// d_k = d / h dimensions (projected by seeded W_q, W_k, W_v, or split), a
// grid of every head and their average, per-head colours in the arrows.

import { control, el, input, keepingFocus, put } from '../../dom.js';
import { MatrixPanel } from '../../matrix-panel.js';
import { HEAD_MODES } from '../../teach-state.js';
import { colormap, matrixCanvas, panelData, sentenceCase } from '../../analysis.js';
import { legend } from '../../legend.js';
import { attempt, errorLine, labFocus, labSteps, panelOptions, setTeach, showNothing, wholeNumberField } from './common.js';
import { indexProblem, linkCheck } from '../../params.js';
import { counted } from '../../text.js';

// Checked by the page when it fetches this module (engine.js sameBuild).
export const BUILT = 'unbuilt';

const MAX_SEED = 4294967295;

/** A distinct colour per head: hues a golden angle apart, readable on light and dark. */
export function headColor(h, dark = false) {
  const hue = Math.round((h * 137.508 + 25) % 360);
  return `hsl(${hue} 75% ${dark ? 62 : 42}%)`;
}

export function mountHeads(lab, ctx) {
  return new HeadsLab(lab, ctx);
}

class HeadsLab {
  constructor(lab, ctx) {
    this.ctx = ctx;
    this.store = ctx.store;
    this.note = el('p', '', 'note');
    this.nothing = errorLine('heads-nothing');
    this.fitNote = el('p', null, 'note');
    this.fitNote.id = 'heads-fit-note';
    this.fitNote.hidden = true;
    lab.append(this.note, this.controlsRow(), this.nothing, this.fitNote);
    this.toggles = el('fieldset', null, 'head-toggles');
    this.toggles.id = 'head-toggles';
    this.grid = el('div', null, 'head-grid');
    this.grid.id = 'head-grid';
    this.grid.setAttribute('role', 'group');
    this.grid.setAttribute('aria-label', 'Heads: choose one to enlarge');
    this.title = el('h3');
    this.title.id = 'heads-title';
    this.panel = new MatrixPanel(el('div'), panelOptions(ctx, 'Multi-head', 'heads-weights', { arrowsCaption: 'Arrows: one colour per head (untick a head to hide it); the enlarged head alone when one is chosen.' }));
    this.steps = el('div', null, 'explain lab-steps');
    lab.append(this.toggles, this.grid, this.title, this.panel.root, this.steps);
    this.results = [this.toggles, this.grid, this.title, this.panel.root, this.steps];
    this.checkLink = linkCheck(ctx);
    this.last = null; // the last render's [state, analysis], drawn again when the theme changes
    this.choices = [];
    this.choicesDim = 0;
    this.fitted = null; // { dim, heads, round, text }: the head count shown instead of one that did not divide the dimension (ctx.linkRound: the address it was made for)
    this.copied = { mh: null, perHead: [], average: null }; // weights copied out of wasm once per result
    this.drawn = null; // what the toggles and the grid show
    this.headView = { mh: null, shown: null, view: null, data: null };
  }

  set(changes, how = 'push') {
    setTeach(this.store, changes, how);
  }

  /** The head count, the mode and the seed. */
  controlsRow() {
    const row = el('div', null, 'play-row');
    this.count = el('select');
    this.count.id = 'heads-count';
    this.count.addEventListener('change', () => this.set({ heads: Number(this.count.value), head: null, hide: [], lf: 0, lc: null }));
    row.append(control('Heads', this.count));
    const modes = el('fieldset', null, 'radio-group');
    modes.append(el('legend', 'Mode'));
    this.modeInputs = {};
    for (const mode of HEAD_MODES) {
      const radio = input('radio', `heads-mode-${mode}`, { name: 'heads-mode', value: mode });
      radio.addEventListener('change', () => radio.checked && this.set({ headMode: mode, lf: 0, lc: null }));
      this.modeInputs[mode] = radio;
      const label = el('label');
      label.append(radio, ` ${mode}`);
      modes.append(label);
    }
    row.append(modes);
    this.seed = input('number', 'heads-seed');
    const seedError = errorLine('heads-seed-error');
    this.syncSeed = wholeNumberField(this.seed, seedError, { min: 0, max: MAX_SEED, commit: 'change', use: (seed) => this.set({ seed }) });
    this.reseed = el('button', 'New seed', 'small');
    this.reseed.type = 'button';
    this.reseed.addEventListener('click', () => this.set({ seed: Math.floor(Math.random() * 1e6) }));
    row.append(control('Seed', this.seed), this.reseed, seedError);
    return row;
  }

  /**
   * The head count shown: the one asked for (the link's, the user's or the
   * default 5) when it divides the dimension, else the divisor nearest to it
   * (ties: the smaller), so that any vectors file shows heads.
   */
  headsOf(teach) {
    return nearestCount(this.choices, teach.heads);
  }

  setChoices(dim) {
    if (dim === this.choicesDim) return;
    this.choicesDim = dim;
    this.choices = Array.from(this.ctx.wasm.headCounts(dim));
    this.count.replaceChildren(...this.choices.map((h) => Object.assign(el('option', `${h} × d_k = ${dim / h}`), { value: String(h) })));
    this.note.textContent = `Each of h heads attends in its own d_k = ${dim} / h dimensions. "Projected": every head multiplies the vectors by its own W_q, W_k, W_v (random here, drawn from the seed, as at the start of training). "Split": head k reads only its slice of the dimensions, with no weights. Heads are averaged for the overview; click a small heatmap to enlarge it.`;
  }

  controls(state) {
    if (!this.ctx.engine) return;
    this.setChoices(this.ctx.engine.explorer.dim);
    const teach = state.teach;
    put(this.count, 'value', String(this.headsOf(teach)));
    for (const mode of HEAD_MODES) put(this.modeInputs[mode], 'checked', mode === teach.headMode);
    this.syncSeed(String(teach.seed), this.ctx.fromAddress);
    // Split heads take slices of the vectors: they have no projections, so no seed.
    put(this.seed, 'disabled', teach.headMode === 'split');
    put(this.reseed, 'disabled', teach.headMode === 'split');
  }

  render(state, analysis) {
    if (analysis.pending || showNothing(this.nothing, this.results, analysis)) {
      put(this.fitNote, 'hidden', true);
      return;
    }
    this.last = [state, analysis];
    const teach = state.teach;
    this.setChoices(analysis.dim ?? this.ctx.engine.explorer.dim);
    const h = this.headsOf(teach);
    const result = attempt(() => analysis.multiHead(h, teach.headMode, teach.headMode === 'split' ? 0 : teach.seed));
    if (result.error) {
      // Nothing of other heads or other vectors may stay on screen looking current.
      showNothing(this.nothing, this.results, { error: sentenceCase(result.error.message), n: 0 });
      put(this.fitNote, 'hidden', true);
      this.drawn = null;
      return;
    }
    const mh = result.value;
    if (this.copied.mh !== mh) {
      this.copied = { mh, perHead: [...Array(h).keys()].map((k) => mh.weights(k)), average: mh.weights(-1) };
    }
    const shown = teach.head !== null && teach.head < h ? teach.head : null;
    const hidden = new Set(teach.hide.filter((x) => x < h));
    this.checkLink(this.linkProblems(teach, h, mh.size));
    this.fit(teach, h, state.vectors && this.ctx.engine?.source?.name !== state.vectors);
    this.dark = this.ctx.theme.dark;
    // A focus change leaves the toggles and the small heatmaps as they are.
    const key = `${h}/${shown}/${[...hidden]}/${this.dark}/${state.palette}`;
    if (this.drawn?.mh !== mh || this.drawn.key !== key) {
      this.drawn = { mh, key };
      // A tile or a toggle pressed is drawn anew: the keyboard focus goes to its new self.
      const had = document.activeElement;
      const same = had?.dataset.head !== undefined ? `.head-tile[data-head="${had.dataset.head}"]` : had?.id ? `#${had.id}` : null;
      const within = this.toggles.parentElement;
      keepingFocus(within, () => {
        this.drawToggles(h, hidden);
        this.drawGrid(mh.size, shown, state.palette);
      }, () => (same ? within.querySelector(same) : null) ?? this.grid.querySelector('.head-tile'));
    }
    this.showHead(state, mh, h, shown, hidden);
  }

  /** The page's theme changed (page.js): the heads' colours follow it. */
  relayout() {
    if (this.last && this.store.get().teach.lab === 'heads') this.render(...this.last);
  }

  /**
   * A head count, an enlarged head or hidden heads that these vectors cannot
   * have are replaced in the state by what is shown (the link holds what the
   * page shows), and a head count replaced is said in the tab. Not while the
   * link names vectors of a file not picked yet (`waiting`): its values are
   * judged again with that file.
   */
  fit(teach, h, waiting) {
    const head = teach.head !== null && teach.head < h ? teach.head : null;
    const hide = teach.hide.filter((k) => k < h);
    if (teach.heads !== h) {
      const dim = this.choicesDim;
      this.fitted = { dim, heads: h, round: this.ctx.linkRound, text: `${counted(teach.heads, 'head')} ${teach.heads === 1 ? 'does' : 'do'} not divide the ${counted(dim, 'dimension')} of these vectors: ${counted(h, 'head')} shown, the nearest count that does.` };
    }
    // Kept until the count, the vectors or the address change (another link, Back).
    const fitted = this.fitted?.dim === this.choicesDim && this.fitted.heads === h && this.fitted.round === this.ctx.linkRound ? this.fitted : null;
    this.fitted = fitted;
    put(this.fitNote, 'textContent', fitted?.text ?? '');
    put(this.fitNote, 'hidden', !fitted);
    if (waiting || (teach.heads === h && head === teach.head && hide.length === teach.hide.length)) return;
    // After this render (the store is telling its listeners now), unless the state changed meanwhile.
    queueMicrotask(() => {
      if (this.store.get().teach === teach) this.set({ heads: h, head, hide }, 'replace');
    });
  }

  /** What the link asked of this tab that these heads cannot show (the link note names it). */
  linkProblems(teach, h, n) {
    const counts = this.choices;
    const list = counts.length > 1 ? `${counts.slice(0, -1).join(', ')} or ${counts.at(-1)}` : String(counts[0]);
    return [
      teach.heads !== h && { key: 'h', value: String(teach.heads), expected: `a number of heads that divides ${this.choicesDim}: ${list}; ${counted(h, 'head')} shown` },
      indexProblem('head', teach.head, h, 'head'),
      teach.hide.some((k) => k >= h) && { key: 'hide', value: teach.hide.join(','), expected: `heads from 0 to ${h - 1}` },
      ...labFocus(this.ctx, teach, n, n).problems,
    ];
  }

  /** The enlarged head (or the average) in the panel, with its steps. */
  showHead(state, mh, h, shown, hidden) {
    const teach = state.teach;
    if (this.headView.mh !== mh || this.headView.shown !== shown) {
      this.headView.view?.free();
      const view = mh.head(shown ?? -1);
      this.headView = { mh, shown, view, data: panelData(this.ctx.wasm, view) };
    }
    const { view, data } = this.headView;
    const focus = Math.min(teach.lf, data.rows - 1);
    const sets = shown === null
      ? [...Array(h).keys()].filter((k) => !hidden.has(k)).map((k) => ({ weights: this.copied.perHead[k], color: headColor(k, this.dark) }))
      : [{ weights: data.weights, color: headColor(shown, this.dark) }];
    this.title.textContent = shown === null ? `The average of ${counted(h, 'head')}` : `Head ${shown + 1} of ${h}`;
    const dims = teach.headMode === 'split' ? sliceOf(shown, mh.headDim) : `projections from seed ${teach.seed}`;
    // Each head scales by its own √d_k, not the vectors' √d.
    // Each head, and the average, downloads under a name of its own ('…-multi-head-head-3-of-5-split.csv').
    const file = `Multi-head ${shown === null ? 'average' : `head ${shown + 1}`} of ${h}${teach.headMode === 'split' ? ' split' : ''}`;
    this.panel.show(data, { focus, arrowSets: sets, settings: { scaleDim: mh.headDim }, file, caption: `${shown === null ? 'Average of the heads' : `Head ${shown + 1}`}: ${counted(mh.size, 'token')}, d_k = ${mh.headDim}, ${dims}` });
    if (shown === null) {
      this.steps.replaceChildren(el('p', 'The average has no single query and key: enlarge one head to see its steps. Each head has its own queries and keys, so each finds its own pattern.', 'hint'));
    } else {
      labSteps(this.steps, this.ctx, view, data, focus, teach.lc, state, { scaleDim: mh.headDim });
    }
  }

  /** The head toggles: which heads the arrows draw. */
  drawToggles(h, hidden) {
    this.toggles.replaceChildren(el('legend', 'Heads in the arrows view'));
    for (let k = 0; k < h; k++) {
      const box = input('checkbox', `head-toggle-${k}`);
      box.checked = !hidden.has(k);
      box.setAttribute('aria-label', `Show head ${k + 1} in the arrows`);
      box.addEventListener('change', () => {
        const next = new Set(this.store.get().teach.hide);
        if (box.checked) next.delete(k);
        else next.add(k);
        this.set({ hide: [...next].sort((a, b) => a - b) });
      });
      const label = el('label', null, 'head-toggle');
      const swatch = el('span', null, 'swatch');
      swatch.style.background = headColor(k, this.dark);
      label.append(box, swatch, ` ${k + 1}`);
      label.title = `Head ${k + 1}`;
      this.toggles.append(label);
    }
  }

  /** The grid of small heatmaps, the average first, on one colour scale: which head is enlarged. */
  drawGrid(n, shown, palette) {
    const table = colormap(this.ctx.wasm, palette);
    let top = 0;
    for (const weights of [this.copied.average, ...this.copied.perHead]) for (const w of weights) top = Math.max(top, w);
    const tile = (index, name, weights) => {
      const button = el('button', null, 'head-tile');
      button.type = 'button';
      button.dataset.head = String(index);
      button.setAttribute('aria-pressed', String(index === (shown ?? -1)));
      button.setAttribute('aria-label', `Enlarge ${name}`);
      const canvas = matrixCanvas(this.ctx.wasm, weights, null, n, n, palette, top);
      canvas.setAttribute('aria-hidden', 'true');
      const caption = el('span', name);
      if (index >= 0) caption.style.borderBottomColor = headColor(index, this.dark);
      button.append(canvas, caption);
      button.addEventListener('click', () => this.set({ head: index < 0 ? null : index, lf: 0, lc: null }));
      return button;
    };
    this.grid.replaceChildren(tile(-1, 'Average', this.copied.average), ...this.copied.perHead.map((w, k) => tile(k, `Head ${k + 1}`, w)), legend(table, top, 'one colour scale for every head'));
  }
}

/** The dimensions a split head reads (each its own slice, for the average). */
function sliceOf(shown, headDim) {
  if (shown === null) return `each head its own ${counted(headDim, 'dimension')}`;
  const first = shown * headDim;
  return headDim === 1 ? `dimension ${first}` : `dimensions ${first}–${first + headDim - 1}`;
}

/** The number of `choices` (ascending) nearest to `wanted`, the smaller on a tie; `wanted` when there are none. */
export function nearestCount(choices, wanted) {
  let best = choices[0] ?? wanted;
  for (const c of choices) if (Math.abs(c - wanted) < Math.abs(best - wanted)) best = c;
  return best;
}
