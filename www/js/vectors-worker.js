// Reads the user's own word-vector file in a Web Worker, so that a file of
// gigabytes never freezes the page: it streams from disk a chunk at a time
// into the wasm reader (attention_core::glove_text), reports progress, and
// hands back the words and their vectors (transferred, not copied), which
// the page takes in a block of rows per task (engine.js fileEngine).
// The file is never uploaded anywhere: it goes from the disk to this worker.
//
// Messages in:  { type: 'read', file: File, maxValues }
// Messages out: { type: 'progress', bytes, total, words }
//               { type: 'done', vocabulary (the words, a line each), values: Float32Array (their vectors, row
//                 after row), bytes, source: what the page says of the file (engine.js Engine's source, less
//                 its name): { words, dim, partial, merged (words read as an earlier one: 'King' after 'king'),
//                 skipped (lines left out: a word with spaces, or not UTF-8), firstSkipped (the first one's
//                 number), promised, held (a header's word count, and the lines held, when the file is cut
//                 short; else 0) } }
//               { type: 'error', message }

import { siteFile } from './site.js';

const PKG_URL = siteFile('pkg/attention_wasm.js');
const WASM_URL = siteFile('pkg/attention_wasm_bg.wasm');
const PROGRESS_MS = 100;

let wasm = null;

self.addEventListener('message', async (event) => {
  const message = event.data;
  if (message?.type !== 'read') return;
  try {
    await read(message.file, message.maxValues);
  } catch (error) {
    self.postMessage({ type: 'error', message: error?.message ?? String(error) });
  }
});

async function read(file, maxValues) {
  if (!wasm) {
    wasm = await import(PKG_URL.href);
    await wasm.default({ module_or_path: WASM_URL });
  }
  const reader = new wasm.VectorFileReader(maxValues);
  const stream = file.stream().getReader();
  let bytes = 0;
  let last = 0;
  try {
    for (;;) {
      const { done, value } = await stream.read();
      if (done) break;
      reader.feed(value);
      bytes += value.length;
      const now = performance.now();
      if (now - last > PROGRESS_MS) {
        last = now;
        self.postMessage({ type: 'progress', bytes, total: file.size, words: reader.words });
      }
      if (reader.full) {
        await stream.cancel();
        break;
      }
    }
    const partial = reader.full;
    // The rest is read after finish, which reads a last line that no newline ends.
    reader.finish();
    const source = {
      words: reader.words, dim: reader.dim, partial, merged: reader.merged,
      skipped: reader.skipped, firstSkipped: reader.firstSkipped, promised: reader.promised, held: reader.held,
    };
    const vocabulary = reader.vocabulary;
    const values = reader.takeValues();
    self.postMessage({ type: 'done', vocabulary, values, bytes, source }, [values.buffer]);
  } finally {
    reader.free();
  }
}
