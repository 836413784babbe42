// The computing side of the page: the wasm module (attention-core behind the
// attention-wasm boundary) and the word vectors it reads, either the whole
// GloVe vocabulary fetched a shard at a time (the default), or a file of the
// user's own, read in a worker. Every view reads its numbers from the
// analysis made with the current engine (analysis.js).

import { siteFile } from './site.js';
import { chunkCut } from './text.js';
import { fetchManifest, nextTask, taskPauses, VectorStore, whenIdle } from './vectors.js';

const PKG_URL = siteFile('pkg/attention_wasm.js');
const WASM_URL = siteFile('pkg/attention_wasm_bg.wasm');
export const VECTORS_URL = siteFile('data/glove-6b-50d/manifest.json');

// The build's version: scripts/offline-files.mjs writes it into every file
// with this line (the page's modules, and each module fetched later).
export const BUILT = 'unbuilt';

/**
 * A module fetched after the page opened (a teaching tab's, the trained
 * model's view), if it is of the page's own build. Fetched after a deploy, it
 * would run beside the page's older modules: what it imports by a name they
 * lack fails, but a change of behaviour would go unseen.
 */
export function sameBuild(module) {
  if (module.BUILT !== BUILT) throw new Error('this site was updated since the page was opened');
  return module;
}

let wasmLoading = null;

/** The wasm module, instantiated once. Errors say what failed, for the page. */
export function loadWasm() {
  wasmLoading ??= (async () => {
    try {
      const wasm = await import(PKG_URL.href);
      // Streamed and compiled as it downloads (the page preloads it: this fetch takes that response).
      await wasm.default({ module_or_path: WASM_URL });
      whenIdle(() => warmUp(wasm), 1000);
      return wasm;
    } catch (error) {
      wasmLoading = null;
      // A policy that refuses WebAssembly refuses it at every reload: only the site can change it.
      if (/Content.Security.Policy|wasm-unsafe-eval|\bCSP\b/i.test(error.message)) {
        throw new Error('The WebAssembly module could not be loaded: this site\'s Content-Security-Policy blocks it. The site must allow \'wasm-unsafe-eval\' in its script-src.', { cause: error });
      }
      throw new Error(`The WebAssembly module could not be loaded (${error.message}). Reload the page; if this persists, the browser may block WebAssembly.`, { cause: error });
    }
  })();
  return wasmLoading;
}

/** A file's explorer, and its nearest-word index, are built this long at most per task. */
const BUILD_SLICE_MS = 20;
/** Rows a call of Explorer.prepareNeighborsSome adds to the index (a few milliseconds at 300 dimensions). */
const INDEX_ROWS = 1000;
/** An index of more words than this is searched in a task of its own (Engine.nearest). */
const OWN_TASK_ABOVE = 50000;
/** Numbers a call of ExplorerBuilder.add takes: 256 KB of them. */
const BLOCK_VALUES = 1 << 16;

/**
 * The wasm module, an Explorer and what feeds it its vectors.
 * - explorer: the wasm Explorer;
 * - vectors: the shard store (vectors.js), or for a whole file a store that
 *   always has every word;
 * - source: null for the default GloVe vectors, else { name, words, dim,
 *   partial, merged, skipped, firstSkipped, promised, held } of the user's file (see
 *   vectors-worker.js).
 */
export class Engine {
  constructor(wasm, explorer, vectors, source = null) {
    this.wasm = wasm;
    this.explorer = explorer;
    this.vectors = vectors;
    this.source = source;
    this.neighborsLoading = null;
    this.neighborsReady = false;
    this.searches = []; // the last two: { vector, count, version, found }
  }

  /**
   * Makes the nearest-word index ready once, when a view first asks for
   * nearest words: GloVe's is fetched (a few MB); a file's is built from
   * its vectors, BUILD_SLICE_MS a task.
   */
  neighbors() {
    this.neighborsLoading ??= (this.explorer.isSharded ? this.#fetchIndex() : this.#buildIndex()).then(() => {
      this.neighborsReady = true;
    }, (error) => {
      this.neighborsLoading = null;
      throw error;
    });
    return this.neighborsLoading;
  }

  async #fetchIndex() {
    this.vectors.arrived?.add(await fetchNeighbors(this.explorer, this.vectors.manifest));
  }

  /** The index of a file's vectors, a few rows a call: whole, 100,000 words of 300 dimensions took a task of 0.4 s. */
  async #buildIndex() {
    const pause = taskPauses(BUILD_SLICE_MS);
    while (!this.explorer.prepareNeighborsSome(INDEX_ROWS)) await pause();
  }

  /**
   * The `count` vocabulary words nearest to `vector` (cosine), most similar
   * first, from exact vectors: the index finds candidates, their shards come
   * in, and they are ranked again exactly.
   */
  async nearest(vector, count) {
    await this.neighbors();
    // A search of a large file's index in a task of its own: one of 100,000
    // words of 300 dimensions takes 20-30 ms, and a view asks for several.
    // GloVe's 20,000 words take under a millisecond: a task each would only
    // wait (4 ms a task, once timers nest).
    if ((this.vectors.manifest.neighbors?.words ?? 0) > OWN_TASK_ABOVE) await nextTask();
    let found = this.#search(vector, count);
    // The shards of the candidates not checked yet; once each (a failed one
    // stays rough, and its arrival must not ask again: that looped).
    const rough = found.filter((w) => !w.exact).map((w) => this.explorer.shardOf(w.word))
      .filter((k) => !this.explorer.hasShard(k) && !this.vectors.failed.has(k));
    if (rough.length) {
      await Promise.all([...new Set(rough)].map((k) => this.vectors.load(k)));
      found = this.explorer.nearest(vector, count);
    }
    return found.slice(0, count);
  }

  /**
   * The index's candidates for `vector`, re-ranked with the exact vectors at
   * hand. The last two searches used are kept: the Steps tab asks for a
   * word's context vector and its own vector on every change (the own one
   * stays the same while the word does), and a view that found candidates
   * still to be fetched (nearestNow) asks `nearest` for the same vector at once.
   */
  #search(vector, count) {
    const version = this.vectors.version;
    const same = (s) => s.count === count && s.version === version && s.vector.length === vector.length && s.vector.every((x, k) => x === vector[k]);
    const kept = this.searches.find(same) ?? { vector: Float32Array.from(vector), count, version, found: this.explorer.nearest(vector, count) };
    this.searches = [kept, ...this.searches.filter((s) => s !== kept)].slice(0, 2);
    return kept.found;
  }

  /**
   * What `nearest` would resolve to, when it needs nothing fetched (the index
   * is in, and every candidate's shard): a view can then draw it in the same
   * frame as the rest. Otherwise null.
   */
  nearestNow(vector, count) {
    if (!this.neighborsReady) return null;
    const found = this.#search(vector, count);
    const settled = found.every((w) => w.exact || this.vectors.failed.has(this.explorer.shardOf(w.word)));
    return settled ? found.slice(0, count) : null;
  }
}

/**
 * The default engine: the wasm module and the vectors' manifest, fetched in
 * parallel; rejects with a message for the page.
 */
export async function loadEngine() {
  const [wasm, manifest] = await Promise.all([loadWasm(), fetchManifest(VECTORS_URL)]);
  let explorer;
  try {
    explorer = wasm.Explorer.sharded(manifest.dim, manifest.shards, manifest.set, manifest.words);
  } catch (error) {
    throw new Error(`The word vectors could not be read: ${error.message}.`, { cause: error });
  }
  return new Engine(wasm, explorer, new VectorStore({ explorer, manifest, base: VECTORS_URL }));
}

let hub = null;

/**
 * The wasm module and the default engine, as promises; the same ones for
 * every call in a page (start.js asks first, the page later). Widgets of one
 * post (iframes of this site on the same page) share them: the first one
 * loads them and lends them to the others, so a post with three widgets has
 * one wasm instance and one cache of word vectors. A borrowed hub names its
 * `lender` (that frame's window): when it goes, so do its fetches and
 * timers, and the borrower loads its own (ownEngineHub).
 */
export function engineHub({ share = false } = {}) {
  hub ??= (share ? siblingHub() : null) ?? ownEngineHub({ share });
  return hub;
}

/** This frame's own wasm and engine from now on, lent to the post's later widgets when `share`. */
export function ownEngineHub({ share = true } = {}) {
  hub = { wasm: loadWasm(), engine: loadEngine(), lender: null };
  hub.engine.catch(() => {}); // the page that awaits it reports the error
  if (share) window.attentionExplorerHub = hub;
  return hub;
}

/** The hub of another frame of this site in the same page, if there is one: { wasm, engine, lender }. */
function siblingHub() {
  if (window.parent === window) return null;
  let frames;
  try {
    frames = window.parent.frames;
  } catch {
    return null;
  }
  for (let i = 0; i < frames.length; i++) {
    try {
      const frame = frames[i];
      const lent = frame !== window && frame.location.origin === location.origin ? frame.attentionExplorerHub : null;
      if (lent) return { wasm: lent.wasm, engine: lent.engine, lender: frame };
    } catch {
      // A frame of another site: not ours to look into.
    }
  }
  return null;
}

/**
 * An engine over a whole vocabulary in memory: the user's file as the
 * vectors worker read it (`vocabulary`, its words a line each, and `values`,
 * their vectors), `source` what the page says of it (its `words` and `dim`
 * among them). Its explorer is built a block of rows at a time, BUILD_SLICE_MS
 * a task: whole, 100,000 words of 300 dimensions took one task of 260 ms.
 * Resolves to null when `cancelled()` says, between tasks, that it is no
 * longer wanted (another file picked); rejects for a row the store refuses.
 */
export async function fileEngine(wasm, { vocabulary, values }, source, cancelled = () => false) {
  const builder = new wasm.ExplorerBuilder(source.dim, source.words);
  let explorer;
  try {
    const pause = taskPauses(BUILD_SLICE_MS);
    for (const [words, block] of rowBlocks(vocabulary, values, source.dim, Math.max(1, Math.floor(BLOCK_VALUES / source.dim)))) {
      builder.add(words, block);
      if (await pause() && cancelled()) return null;
    }
    explorer = builder.finish();
  } finally {
    builder.free();
  }
  const words = explorer.vocabularySize;
  const vectors = {
    manifest: { words, dim: explorer.dim, fallback: false, neighbors: { words } },
    fallback: false,
    failed: new Map(),
    version: 0,
    ready: () => true,
    ensure: async () => {},
    load: async () => {},
    statusOf: () => null,
    retry() {},
  };
  return new Engine(wasm, explorer, vectors, source);
}

/** Blocks of at most `rows` rows: [their words (a line each, as in `vocabulary`), their `dim` numbers a row]. */
function* rowBlocks(vocabulary, values, dim, rows) {
  for (let at = 0, row = 0; at <= vocabulary.length && row * dim < values.length;) {
    let end = at;
    let count = 0;
    while (count < rows) {
      count++;
      const next = vocabulary.indexOf('\n', end);
      end = next < 0 ? vocabulary.length + 1 : next + 1;
      if (next < 0) break;
    }
    yield [vocabulary.slice(at, end - 1), values.subarray(row * dim, (row + count) * dim)];
    at = end;
    row += count;
  }
}

async function fetchNeighbors(explorer, manifest) {
  const entry = manifest.neighbors;
  if (!entry || typeof entry.file !== 'string' || /^[a-z]+:|^\/|\.\./i.test(entry.file)) {
    throw new Error('this site has no nearest-word index');
  }
  const url = new URL(entry.file, VECTORS_URL).href;
  const response = await fetch(url);
  if (!response.ok) throw new Error(`the nearest-word index could not be loaded (HTTP ${response.status})`);
  explorer.loadNeighbors(new Uint8Array(await response.arrayBuffer()));
  // Reading the index, building its rounded rows, then the first search:
  // three tasks of 10–20 ms rather than one of 40–60.
  await nextTask();
  explorer.prepareNeighbors();
  await nextTask();
  return url;
}

/** Words above which a link's text is worth a kernel warmed up before its first analysis (warmUpFor). */
const WARM_SOON_ABOVE = 128;
let warmed = false;

/**
 * Runs the attention kernel once on a small made-up matrix (1-3 ms), once:
 * the engine's optimizing tier then compiles the kernel in the background,
 * and the first long analysis runs on optimized code (cold, a job at 1,024
 * tokens took ×2.2 the time of a warm one). By default when the page is idle
 * (loadWasm); sooner for a long text (warmUpFor).
 */
function warmUp(wasm) {
  if (warmed) return;
  warmed = true;
  try {
    wasm.warmUp(64);
  } catch {
    // Only a head start: the real call reports any error.
  }
}

/**
 * Warms the kernel up for the page's first `text` (start.js, once its shards
 * are asked for): a long one's in the next task, while they download; a
 * short one's waits until the page is idle, for its vectors may be in
 * already (the default text's are preloaded) and a few words' kernel does
 * not need it: run first, it delayed the first heatmap.
 */
export function warmUpFor(wasm, text) {
  if (chunkCut(text, WARM_SOON_ABOVE) >= 0) setTimeout(() => warmUp(wasm), 0);
}
