// One analysis per change of the sentence or the options, computed once in
// wasm and shared by every view: the heatmap, the arrows, the table, the
// step panel, the teaching views, the trained-model comparison and export.
// What only some views need (a row's scores and context vector, its steps,
// the unscaled twin of the what-if view, the padded, multi-head and
// cross-attention variants) is computed on first use and kept with the
// analysis, so no view ever computes the same numbers twice.
//
// Matrices are flat Float32Array copies out of wasm, `(rows, cols)` row-major:
// entry (i, j), query i and key j, is at i * cols + j.

import { newCanvas } from './dom.js';
import { settingsOf } from './state.js';
import { grouped, quoted } from './text.js';

// Kept per wasm module: a widget that borrowed another frame's module and
// loads its own when that frame goes must not keep the other's arrays (and
// with them, that frame's whole page).
const tablesOf = new WeakMap(); // wasm → palette → its 256 r, g, b triples

/** The colour table of `palette` (from the core's colormaps). */
export function colormap(wasm, palette) {
  if (!tablesOf.has(wasm)) tablesOf.set(wasm, new Map());
  const tables = tablesOf.get(wasm);
  if (!tables.has(palette)) tables.set(palette, wasm.colormapTable(palette));
  return tables.get(palette);
}

const bars = new Map(); // palette → its colour bar (a canvas of this frame)

/**
 * The colour bar of `palette`: a 1 × 256 canvas, the top of the scale on top,
 * drawn stretched (one image, where 256 bands of fillRect cost a millisecond
 * a repaint).
 */
export function colorbarOf(wasm, palette) {
  if (!bars.has(palette)) {
    const table = colormap(wasm, palette);
    const bands = table.length / 3;
    const canvas = newCanvas(1, bands);
    const image = new ImageData(1, bands);
    for (let b = 0; b < bands; b++) {
      const k = (bands - 1 - b) * 3;
      image.data.set([table[k], table[k + 1], table[k + 2], 255], 4 * b);
    }
    canvas.getContext('2d').putImageData(image, 0, 0);
    bars.set(palette, canvas);
  }
  return bars.get(palette);
}

/**
 * The cells of matrix data as a (cols × rows) canvas, one pixel a cell, in
 * `palette`, with `max` (default: the data's largest weight) at the top of
 * the scale; made once per palette and scale, kept on the data.
 */
export function cellsOf(wasm, data, palette, max = data.scaleMax) {
  data.cellsBy ??= new Map();
  const key = `${palette}/${max}`;
  if (!data.cellsBy.has(key)) {
    // Painted from the wasm analysis while it lives: its 5 MB of weights and mask at 1,024 tokens are not copied back in.
    const raw = data.source?.();
    let canvas;
    if (raw) {
      canvas = newCanvas(data.cols, data.rows);
      raw.paint(canvas.getContext('2d'), palette, max);
    } else {
      canvas = matrixCanvas(wasm, data.weights, data.masked, data.rows, data.cols, palette, max);
    }
    data.cellsBy.set(key, canvas);
  }
  return data.cellsBy.get(key);
}

/** A (cols × rows) canvas of a matrix, one pixel a cell, painted by the wasm painter (masked cells transparent). */
export function matrixCanvas(wasm, weights, masked, rows, cols, palette, max) {
  const canvas = newCanvas(cols, rows);
  wasm.paintMatrix(canvas.getContext('2d'), weights, masked ?? new Uint8Array(0), rows, cols, palette, max);
  return canvas;
}

/** What the painters need beyond the data: the cells, the colour table and bar, and the ticks of `palette` and `max`. */
export function paintable(wasm, data, palette, max = data.scaleMax) {
  return { cells: cellsOf(wasm, data, palette, max), table: colormap(wasm, palette), bar: colorbarOf(wasm, palette), scaleMax: max, ticks: Array.from(wasm.ticks(max, 4)) };
}

/** Words the error names before it says how many there are (error.rs `quote_list`). */
const LISTED = 8;

/**
 * The error of an analysis as every view shows it (`source`: the user's
 * vectors file, if they are in use). For a sentence without a known word,
 * the core's message (error.rs NoKnownWords, NotLoaded) is
 * written again here from the tokens, in the same words: the core quotes
 * each word but does not isolate it, and a right-to-left list came out
 * backwards ("('השטיח' ,'על'"). Any other error is shown as it is.
 */
function errorOf(error, tokens, source) {
  if (!error || !tokens.length || tokens.some((t) => t.known) || !/^(None of the words|The vectors of) /.test(error)) return error;
  const list = (words) => words.slice(0, LISTED).map((w) => quoted(w)).join(', ') + (words.length > LISTED ? `, … (${grouped(words.length)} in all)` : '');
  const pending = tokens.filter((t) => t.pending).map((t) => t.text);
  return pending.length
    ? `The vectors of ${list(pending)} have not arrived.`
    : source ? `None of the words is in your file ${quoted(source.name)} (${list(tokens.map((t) => t.text))}).`
      : `None of the words is in the vocabulary (${list(tokens.map((t) => t.text))}): try common English words.`;
}

/** The plain data of any matrix view (the shape MatrixPanel and the painters take), copied out of wasm. */
export function panelData(wasm, view, { rowLabels, colLabels, padding } = {}) {
  const rows = view.rows ?? view.size;
  const cols = view.cols ?? view.size;
  const labels = rowLabels ?? (view.rowLabels ? view.rowLabels() : view.labels());
  return {
    rows,
    cols,
    rowLabels: labels,
    colLabels: colLabels ?? (view.colLabels ? view.colLabels() : labels),
    weights: view.weights(),
    masked: view.masked(),
    padding: padding ?? (view.padding ? view.padding() : new Uint8Array(cols)),
    fullyMasked: view.fullyMasked(),
    scaleMax: view.scaleMax,
    factor: view.factor,
  };
}

/**
 * The tokens of a wasm TokenList (freed here) as objects: { text, start, end
 * (UTF-16), known, pending (its shard has not arrived), row (in the matrix,
 * or null) }.
 */
export function tokensOf(list) {
  const texts = list.texts();
  const numbers = list.numbers();
  list.free();
  return texts.map((text, k) => {
    const [start, end, flags, row] = numbers.subarray(4 * k, 4 * k + 4);
    return { text, start, end, known: (flags & 1) === 1, pending: (flags & 2) === 2, row: row ? row - 1 : null };
  });
}

/** Keeps one value per key, freeing (wasm) the one it replaces. */
class Memo {
  #key = undefined;
  #value = null;

  get(key, make) {
    if (key !== this.#key) {
      this.free();
      this.#key = key;
      try {
        this.#value = { value: make() };
      } catch (error) {
        this.#value = { error };
      }
    }
    if (this.#value.error) throw this.#value.error;
    return this.#value.value;
  }

  has(key) {
    return this.#value !== null && key === this.#key;
  }

  free() {
    const value = this.#value?.value;
    value?.free?.();
    value?.raw?.free?.();
    this.#value = null;
    this.#key = undefined;
  }
}

/** Known tokens above which an analysis is computed in slices instead of in one task. */
export const SLICED_ABOVE = 256;
/** Milliseconds of computing per slice: a task stays well under 50 ms. */
const SLICE_MS = 25;

export class Analysis {
  /**
   * Starts the analysis of `state`: the Analysis itself when it is quick (up
   * to SLICED_ABOVE known tokens) or fails, else an AnalysisJob that
   * computes it a slice at a time. Never throws: a sentence that cannot be
   * analyzed (empty, no known word, too long) gives an analysis with `error`
   * set, `n` 0 and its tokens.
   */
  static start(engine, state) {
    // With the What-if tab open, the other side (scaling switched) comes
    // from the same dot products: a second softmax a row, not a second analysis.
    const twin = state.teach?.lab === 'whatif';
    let job;
    try {
      job = engine.explorer.startAnalysis(state.sentence, settingsOf(state), twin);
    } catch (error) {
      return Analysis.failed(engine, state, error);
    }
    if (job.size <= SLICED_ABOVE) return new Analysis(engine, state, job.finish());
    return new AnalysisJob(engine, state, job);
  }

  /** The analysis of a sentence that could not be analyzed: `error` says why; `n` is 0. */
  static failed(engine, state, error) {
    let tokens = [];
    try {
      tokens = tokensOf(engine.explorer.tokenize(state.sentence));
    } catch {
      // The error says enough.
    }
    return Object.assign(Object.create(Analysis.prototype), {
      engine, wasm: engine.wasm, state: pick(state), tokens, error: errorOf(sentenceCase(error.message), tokens, engine.source), n: 0, memos: {},
    });
  }

  constructor(engine, state, raw, tokens = tokensOf(raw.tokens())) {
    this.engine = engine;
    this.wasm = engine.wasm;
    this.state = pick(state);
    this.raw = raw;
    this.error = null;
    this.tokens = tokens;
    this.data = panelData(engine.wasm, raw);
    this.data.source = () => this.raw; // null once freed
    this.n = this.data.rows;
    this.dim = raw.dim;
    this.labels = this.data.rowLabels;
    this.weights = this.data.weights;
    this.masked = this.data.masked;
    this.fullyMasked = this.data.fullyMasked;
    this.scaleMax = this.data.scaleMax;
    this.factor = this.data.factor;
    this.memos = {};
    this.rows = new Map(); // row → its steps
    this.twin = raw.takeTwin() ?? null; // flipped(), computed with this analysis; null once taken
  }

  #memo(name) {
    this.memos[name] ??= new Memo();
    return this.memos[name];
  }

  /**
   * Paints the heatmap's cells in `palette` now, before a view asks for them
   * (cellsOf keeps them), and takes the What-if twin out of wasm: a long
   * analysis does this in a task of its own, before the views draw.
   */
  prepare(palette) {
    if (this.raw) cellsOf(this.wasm, this.data, palette);
    if (this.twin) this.flipped();
  }

  /**
   * The context vector of query row `row` (Float32Array, `dim`): its steps' Σ w·v, as the kernel sums it.
   * Taken from the steps a view keeps (Steps), else computed without keeping them: the
   * Context-vectors tab and a download read every row once.
   */
  contextOf(row) {
    return Float32Array.from((this.rows.get(row) ?? this.engine.explorer.explainRow(this.raw, row)).context);
  }

  /** The input vectors of the known tokens (Q = K = V), `(n, dim)`. */
  get vectors() {
    return this.#memo('vectors').get(0, () => this.engine.explorer.inputVectors(this.raw));
  }

  /** Steps 1–4 of query row `row` (a RowSteps object of the wasm boundary). */
  steps(row) {
    if (!this.rows.has(row)) this.rows.set(row, this.engine.explorer.explainRow(this.raw, row));
    return this.rows.get(row);
  }

  /** The dot product of cell (row, col) term by term (CellSteps). */
  cell(row, col) {
    return this.#memo('cell').get(`${row},${col}`, () => this.engine.explorer.explainCell(this.raw, row, col));
  }

  /** The same sentence with scaling switched the other way (the what-if view), as panel data. */
  flipped() {
    return this.#memo('flipped').get(0, () => {
      const raw = this.twin ?? this.engine.explorer.analyze(this.state.sentence, { ...settingsOf(this.state), scale: !this.state.scale });
      this.twin = null;
      return this.#flippedSide(raw);
    }).data;
  }

  /** The flipped side as its memo keeps it: freed with this analysis, and painted from wasm until then. */
  #flippedSide(raw, data = panelData(this.wasm, raw)) {
    data.source = () => (this.raw ? raw : null);
    return { raw, data };
  }

  /**
   * `flipped()` without a long task: for a long text it is computed in
   * slices, and `ready()` is called once it is in; null until then.
   */
  flippedSoon(ready) {
    const memo = this.#memo('flipped');
    if (this.n <= SLICED_ABOVE || memo.has(0) || this.twin) return this.flipped();
    if (!this.flipping) {
      this.flipping = Analysis.start(this.engine, { ...this.state, scale: !this.state.scale });
      AnalysisJob.whenDone(this.flipping, (done) => {
        this.flipping = null;
        try {
          memo.get(0, () => {
            if (done.error) throw new Error(done.error);
            return this.#flippedSide(done.raw, done.data);
          });
        } catch {
          // Kept in the memo: flipped() throws it to the view.
        }
        ready();
      });
    }
    return memo.has(0) ? this.flipped() : null;
  }

  /** The sentence padded with zero vectors to `length` positions, pad keys masked: { raw (AttentionView), data }. */
  padded(length) {
    return this.#memo('padded').get(length, () => {
      const raw = this.engine.explorer.analyzePadded(this.state.sentence, settingsOf(this.state), length);
      return { raw, data: panelData(this.wasm, raw) };
    });
  }

  /** Multi-head attention over the sentence (a wasm MultiHeadView, kept with this analysis). */
  multiHead(heads, mode, seed) {
    return this.#memo('heads').get(`${heads}/${mode}/${seed}`, () =>
      this.engine.explorer.multiHead(this.state.sentence, settingsOf(this.state), heads, mode, seed));
  }

  /** Cross-attention of this sentence's words over sentence `b`'s: { raw (AttentionView), data }. */
  cross(b) {
    return this.#memo('cross').get(b, () => {
      const raw = this.engine.explorer.analyzeCross(this.state.sentence, b, settingsOf(this.state));
      return { raw, data: panelData(this.wasm, raw) };
    });
  }

  /** The weights as CSV (the wasm boundary writes it). */
  csv() {
    return this.raw.csv();
  }

  /** Frees the wasm objects of this analysis and of everything computed from it. */
  free() {
    this.flipping?.free();
    this.flipping = null;
    this.twin?.free();
    this.twin = null;
    for (const memo of Object.values(this.memos)) memo.free();
    this.raw?.free();
    this.raw = null;
  }
}

/**
 * An analysis being computed, a few query rows at a time: `run(done)`
 * computes SLICE_MS per task until the last row is in, then hands `done`
 * the Analysis, so that the page stays responsive while a long text is
 * computed; `free()` stops it.
 */
export class AnalysisJob {
  constructor(engine, state, job) {
    this.engine = engine;
    this.state = pick(state);
    this.job = job;
    this.tokens = tokensOf(job.tokens());
    this.size = job.size;
    this.timer = 0;
  }

  /** Calls `done(analysis)` once `started` (Analysis.start) is done: at once for an Analysis, else after `run`. */
  static whenDone(started, done) {
    if (started instanceof AnalysisJob) started.run(done);
    else done(started);
  }

  /**
   * Computes in slices, then hands `done` the analysis. Leaves the
   * `performance` measure "analysis-job" of the last job, from its first
   * slice to its last, whose `detail` holds { tokens, ms }: the time spent
   * computing (scripts/bench-page compares a page's first job with later ones).
   */
  run(done) {
    let computing = 0;
    let first = 0;
    const slice = () => {
      const start = performance.now();
      first ||= start;
      let analysis;
      try {
        while (!this.job.advance(1)) {
          const spent = performance.now() - start;
          if (spent >= SLICE_MS) {
            computing += spent;
            this.timer = setTimeout(slice, 0);
            return;
          }
        }
        analysis = this.finish();
        computing += performance.now() - start;
        measureLatest('analysis-job', first, { tokens: this.tokens.length, ms: computing });
      } catch (error) {
        // A failure inside wasm ends the computation with its message,
        // rather than leaving "Computing…" on screen for good.
        try {
          this.free();
        } catch {
          // The wasm instance failed with it.
        }
        analysis = Analysis.failed(this.engine, this.state, error);
      }
      done(analysis);
    };
    this.timer = setTimeout(slice, 0);
  }

  /** Computes the rest at once. */
  finish() {
    const raw = this.job.finish(); // consumes the job
    this.job = null;
    return new Analysis(this.engine, this.state, raw, this.tokens);
  }

  /** Stops: the rows computed so far are dropped, and so is a result not handed over yet (`result`). */
  free() {
    clearTimeout(this.timer);
    this.job?.free();
    this.job = null;
    this.result?.free();
    this.result = null;
  }
}

/**
 * Leaves a `performance` measure `name` from `start` to now, with `detail`,
 * in place of the last one of that name: a page open for hours keeps one,
 * not one per change (a DevTools recording still shows each). A browser
 * without User Timing Level 3 (Firefox before 103) takes no options object,
 * and gets no measure: they are only for DevTools and the benchmark.
 */
export function measureLatest(name, start, detail = null) {
  try {
    performance.clearMeasures(name);
    performance.measure(name, { start, detail });
  } catch {
    // See above.
  }
}

/** The part of the state an analysis depends on. */
function pick(state) {
  return { sentence: state.sentence, scale: state.scale, self: state.self, causal: state.causal, temperature: state.temperature };
}

export function sentenceCase(text) {
  if (!text) return '';
  return text.charAt(0).toUpperCase() + text.slice(1) + (/[.!?]$/.test(text) ? '' : '.');
}
