// Which word vectors the page computes with: the default GloVe vocabulary,
// or the user's own file (a GloVe .txt or a word2vec/fastText .vec of any
// dimension), picked or dropped on the page, read in a worker with a
// progress bar, never uploaded. A link made with a file names it (`vec`);
// whoever opens that link is told which file it expects and sees the
// default vectors until they pick one. The vectors follow the state: Back to
// an entry without the file computes with GloVe, Forward to one naming the
// file read in this tab uses it again (page.js asks `ctx.engineFor`).

import { el, put } from '../dom.js';
import { fileEngine } from '../engine.js';
import { siteFile } from '../site.js';
import { counted, grouped, quoted } from '../text.js';

const WORKER_URL = siteFile('js/vectors-worker.js');
/**
 * At most this many numbers of a file are kept (256 MiB of f32: all of
 * glove.6B.100d, the first 223,000 words of glove.6B.300d). The page holds
 * them twice while it switches, in a wasm memory of at most 4 GiB.
 */
const MAX_VALUES = 1 << 26;

export function mountSource(ctx) {
  const note = document.getElementById('vectors-note');
  return note ? new SourceView(ctx, note) : { update() {} };
}

class SourceView {
  constructor(ctx, note) {
    this.ctx = ctx;
    this.store = ctx.store;
    this.note = note;
    this.picker = document.getElementById('vectors-file');
    this.back = document.getElementById('vectors-default');
    this.progress = document.getElementById('vectors-progress');
    this.error = document.getElementById('vectors-error');
    this.worker = null;
    this.reading = null; // the file being read
    this.file = null; // the engine of the last file read in this tab, kept for Back and Forward
    this.readNames = new Set(); // the names of every file read in this tab (only the last is kept)
    this.judging = false; // the link's file was picked: its values are judged again once computed
    ctx.engineFor = (state) => this.engineFor(state);
    this.picker?.addEventListener('change', () => {
      if (this.picker.files?.[0]) this.read(this.picker.files[0]);
      this.picker.value = '';
    });
    // The state drops the file; the render that follows computes with GloVe (engineFor).
    this.back?.addEventListener('click', () => this.store.update({ vectors: null }, 'push'));
    // A file dropped anywhere on the page is read too.
    document.addEventListener('dragover', (event) => {
      if ([...(event.dataTransfer?.types ?? [])].includes('Files')) event.preventDefault();
    });
    document.addEventListener('drop', (event) => {
      const file = event.dataTransfer?.files?.[0];
      if (!file) return;
      event.preventDefault();
      this.read(file);
    });
  }

  /** Reads `file` in the worker; the page keeps its vectors until the file is read whole. */
  read(file) {
    if (!this.ctx.wasm) return;
    this.worker?.terminate();
    this.worker = new Worker(WORKER_URL, { type: 'module', name: 'attention-explorer-vectors' });
    this.reading = file;
    this.showError('');
    put(this.progress, 'hidden', false);
    this.progress.max = Math.max(1, file.size);
    this.progress.value = 0;
    put(this.note, 'textContent', `Reading ${file.name}…`);
    this.worker.addEventListener('message', (event) => this.receive(event.data, file));
    this.worker.addEventListener('error', (event) => {
      event.preventDefault();
      this.fail(file, `the reader could not start (${event.message || 'its script did not load'})`);
    });
    this.worker.postMessage({ type: 'read', file, maxValues: MAX_VALUES });
  }

  /**
   * The engine `state` asks for: the file read in this tab while the state
   * names it; GloVe while the page computes with a file the state does not
   * name (Back to before it was read, or a link naming another file, which
   * must be picked); null keeps the engine there is.
   */
  engineFor(state) {
    const { engine, defaultEngine } = this.ctx;
    if (state.vectors && this.file && state.vectors === this.file.source.name) return this.file;
    return engine?.source ? defaultEngine : null;
  }

  receive(message, file) {
    if (file !== this.reading) return;
    if (message.type === 'progress') {
      this.progress.value = message.bytes;
      put(this.note, 'textContent', `Reading ${file.name}: ${formatBytes(message.bytes)} of ${formatBytes(message.total)}, ${grouped(message.words)} words so far…`);
    } else if (message.type === 'error') {
      this.fail(file, message.message);
    } else if (message.type === 'done') {
      this.finish(message, file);
    }
  }

  /** Takes in the vectors the worker read (a block of rows a task), unless another file is picked meanwhile. */
  async finish(message, file) {
    this.worker.terminate();
    this.worker = null;
    put(this.progress, 'hidden', true);
    put(this.note, 'textContent', `Taking in ${file.name}: ${counted(message.source.words, 'word')} of ${counted(message.source.dim, 'dimension')}…`);
    let engine;
    try {
      engine = await fileEngine(this.ctx.wasm, message, { name: file.name, ...message.source }, () => this.reading !== file);
    } catch (error) {
      if (this.reading === file) this.fail(file, error.message);
      return;
    }
    if (!engine) return;
    this.reading = null;
    const previous = this.file;
    this.file = engine;
    this.readNames.add(file.name);
    if (this.store.get().vectors === file.name) {
      // The file the link names: its focus and cell stay if they fit the new
      // analysis (page.js drops them otherwise), and its values are judged again.
      // The state stays as it is: nothing else renders.
      this.judging = true;
      this.ctx.setEngine(engine);
    } else {
      // The render of this change computes with the file (engineFor).
      this.store.update({ vectors: file.name, focus: null, cell: null }, 'push');
    }
    if (previous && previous !== this.ctx.engine) previous.explorer.free();
  }

  /**
   * Judges the link's values again once the file it names computes: what
   * views found with GloVe goes (status.js), and a focus or cell past the
   * new analysis is named (page.js drops it from the link).
   */
  judge(state, analysis) {
    if (!this.judging || state.vectors !== this.file?.source.name) {
      this.judging = false;
      return;
    }
    if (this.ctx.engine !== this.file || analysis.pending) return;
    this.judging = false;
    const n = analysis.n;
    const words = n ? `a word from 0 to ${n - 1}` : 'a word, but the sentence has none with these vectors';
    this.ctx.noteLink?.([
      state.focus !== null && state.focus >= n && { key: 'focus', value: String(state.focus), expected: words },
      state.focus !== null && state.focus < n && state.cell !== null && state.cell >= n &&
        { key: 'cell', value: String(state.cell), expected: `a key from 0 to ${n - 1}` },
    ], { again: true });
  }

  fail(file, reason) {
    this.worker?.terminate();
    this.worker = null;
    this.reading = null;
    put(this.progress, 'hidden', true);
    this.showError(`${file.name} could not be read: ${reason}. The page keeps the vectors it had.`);
    this.describe(this.store.get());
  }

  showError(text) {
    put(this.error, 'textContent', text);
    put(this.error, 'hidden', !text);
  }

  /** Says which vectors are in use, and what a link asks for that is not. */
  describe(state) {
    if (this.reading) return;
    const engine = this.ctx.engine;
    const source = engine?.source;
    // The button hides itself when pressed: the keyboard goes to the file picker beside it, not to the page's start.
    if (!source && document.activeElement === this.back) this.picker?.focus();
    put(this.back, 'hidden', !source);
    if (source) {
      const kept = source.partial ? ` (the first ${grouped(source.words)} words: the page keeps at most ${(MAX_VALUES / 1e6).toFixed(0)} million numbers)` : '';
      // Sentences are looked up lowercased: of 'king' and 'King', the file's 'king' is used (glove_text.rs).
      const merged = source.merged ? ` ${counted(source.merged, 'word')} left out: spelled as another word of the file once lowercased, with ’ read as ' ('King' beside 'king', of which 'king' is kept, else the first).` : '';
      const skipped = source.skipped ? ` ${counted(source.skipped, 'line')} left out (line ${grouped(source.firstSkipped)} first): a word with spaces, which no word of a sentence can be, or a line that is not UTF-8 text.` : '';
      const short = source.promised ? ` Its header says ${counted(source.promised, 'word')}, it holds ${grouped(source.held)}: cut short (by head, say), it is read as it is.` : '';
      put(this.note, 'textContent', `Word vectors: your file ${source.name}, ${counted(source.words, 'word')} of ${counted(source.dim, 'dimension')}${kept}.${merged}${skipped}${short} It stays on this computer; a link made now names the file, and whoever opens it is asked for it.`);
    } else if (state.vectors && this.readNames.has(state.vectors)) {
      // Back or Forward to a page of a file this tab read before another: the user is its author.
      putNamed(this.note, 'This page was computed with your file ', state.vectors, `; this tab keeps only the last file picked${this.file ? ` (${quoted(this.file.source.name)})` : ''}. You see the default GloVe vectors; pick `, state.vectors, ' again to see the same numbers.');
    } else if (state.vectors) {
      putNamed(this.note, 'This link was made with the word vectors of the file ', state.vectors, ", which stays on its author's computer. You see the default GloVe vectors; pick that file to see the same numbers.");
    } else if (engine) {
      const { manifest } = engine.vectors;
      put(this.note, 'textContent', manifest.fallback
        ? `Word vectors: the fallback of GloVe 6B ${manifest.dim}d, ${grouped(manifest.words)} words (the whole vocabulary is not built here).`
        : `Word vectors: GloVe 6B ${manifest.dim}d, all ${grouped(manifest.words)} words, fetched a few at a time.`);
    }
    this.note.classList.toggle('asks', Boolean(state.vectors && !source));
  }

  update(state, analysis) {
    this.judge(state, analysis);
    this.describe(state);
  }
}

function formatBytes(n) {
  return n >= 1e9 ? `${(n / 1e9).toFixed(2)} GB` : n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : `${Math.round(n / 1e3)} kB`;
}

/**
 * Writes `parts` in `note`: text, a file name of a link, text, and so on.
 * The name is the link's, not the page's: quoted short, its hidden and
 * direction characters escaped (`quoted`), and set in a `<code>` of its own,
 * so that a name such as "x'. SECURITY: pick ~/.ssh/id_rsa" reads as a
 * name, not as the page's own instructions.
 */
function putNamed(note, ...parts) {
  const shown = parts.map((part, k) => (k % 2 ? quoted(part) : part));
  if (note.textContent === shown.join('') && note.querySelector('code')) return;
  note.replaceChildren(...shown.map((part, k) => (k % 2 ? el('code', part, 'file-name') : part)));
}
