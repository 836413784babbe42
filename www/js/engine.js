// The computing side of the page: the wasm module (attention-core behind the
// attention-wasm boundary) and the word vectors it reads. Loaded once per
// page; every view reads its numbers from the analysis it makes (analysis.js).

import { fetchManifest, VectorStore } from './vectors.js';

const PKG_URL = new URL('../pkg/attention_wasm.js', import.meta.url);
const WASM_URL = new URL('../pkg/attention_wasm_bg.wasm', import.meta.url);
export const VECTORS_URL = new URL('../data/glove-6b-50d/manifest.json', import.meta.url);

let wasmLoading = null;

/** The wasm module, instantiated once. Errors say what failed, for the page. */
export function loadWasm() {
  wasmLoading ??= (async () => {
    try {
      const wasm = await import(PKG_URL.href);
      await wasm.default({ module_or_path: WASM_URL });
      return wasm;
    } catch (error) {
      wasmLoading = null;
      throw new Error(`The WebAssembly module could not be loaded (${error.message}). Reload the page; if this persists, the browser may block WebAssembly.`);
    }
  })();
  return wasmLoading;
}

/**
 * The wasm module and the vectors' manifest, fetched in parallel; resolves
 * to { wasm, vectors: VectorStore } or rejects with a message for the page.
 * `onShard()` hears every shard that arrives or fails.
 */
export async function loadEngine({ onShard = () => {} } = {}) {
  const [wasm, manifest] = await Promise.all([loadWasm(), fetchManifest(VECTORS_URL)]);
  let explorer;
  try {
    explorer = wasm.Explorer.sharded(manifest.dim, manifest.shards, manifest.set, manifest.words);
  } catch (error) {
    throw new Error(`The word vectors could not be read: ${error.message}.`);
  }
  const vectors = new VectorStore({ explorer, manifest, base: VECTORS_URL, onChange: onShard });
  let neighbors = null;
  return {
    wasm,
    explorer,
    vectors,
    /** Loads the nearest-word index once (a few MB, only when a view asks for nearest words). */
    neighbors() {
      neighbors ??= fetchNeighbors(explorer, manifest).catch((error) => {
        neighbors = null;
        throw error;
      });
      return neighbors;
    },
    /**
     * The `count` vocabulary words nearest to `vector` (cosine), most similar
     * first, from exact vectors: the index finds candidates, their shards
     * come in, and they are ranked again exactly.
     */
    async nearest(vector, count) {
      await this.neighbors();
      let found = explorer.nearest(vector, count);
      const rough = found.filter((w) => !w.exact).map((w) => explorer.shardOf(w.word));
      if (rough.length) {
        await Promise.all([...new Set(rough)].map((k) => vectors.load(k)));
        found = explorer.nearest(vector, count);
      }
      return found.slice(0, count);
    },
  };
}

async function fetchNeighbors(explorer, manifest) {
  const entry = manifest.neighbors;
  if (!entry || typeof entry.file !== 'string' || /^[a-z]+:|^\/|\.\./i.test(entry.file)) {
    throw new Error('this site has no nearest-word index');
  }
  const url = new URL(entry.file, VECTORS_URL);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`the nearest-word index could not be loaded (HTTP ${response.status})`);
  explorer.loadNeighbors(new Uint8Array(await response.arrayBuffer()));
}

/**
 * Runs the attention kernel once on a small made-up matrix, after the first
 * heatmap: the engine's optimizing tier then compiles it in the background,
 * so the first long sentence does not run on the baseline tier.
 */
export function warmUp(wasm) {
  const run = () => {
    try {
      wasm.warmUp?.(64);
    } catch {
      // Only a head start: the real call reports any error.
    }
  };
  if ('requestIdleCallback' in window) requestIdleCallback(run, { timeout: 1000 });
  else setTimeout(run, 200);
}
