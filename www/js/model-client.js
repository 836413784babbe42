// The page's side of the model worker (www/js/model-worker.js): starts it,
// numbers the run requests and drops answers to requests overtaken by a
// newer one, so that fast typing never shows an old sentence.

const WORKER_URL = new URL('./model-worker.js', import.meta.url);

export class ModelClient {
  /**
   * `handlers`: { progress({ file, received, total }), ready({ layers, heads, … }),
   * result({ id, tokens, weights, … }), error({ id, message, file, status }) }.
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.worker = null;
    this.latest = 0;
    this.loaded = false;
  }

  /** Starts the worker and the download (once). */
  load() {
    if (this.worker) return;
    try {
      this.worker = new Worker(WORKER_URL, { type: 'module', name: 'attention-explorer-model' });
    } catch (error) {
      this.handlers.error({ id: null, message: `The model's worker could not start: ${error.message}.`, file: null, status: null });
      return;
    }
    this.worker.addEventListener('message', (event) => this.receive(event.data));
    // A worker script that fails to load or parse ends up here, without a message.
    this.worker.addEventListener('error', (event) => {
      event.preventDefault();
      this.handlers.error({ id: null, message: `The model's worker stopped: ${event.message || 'its script could not be loaded'}. Reload the page.`, file: 'js/model-worker.js', status: null });
    });
    this.worker.postMessage({ type: 'load' });
  }

  /** Asks for a sentence's attention; returns the request id. */
  run(sentence, { words, hideSpecial }) {
    this.load();
    const id = ++this.latest;
    this.worker?.postMessage({ type: 'run', id, sentence, words, hideSpecial });
    return id;
  }

  /** Loads again after a failure (the worker forgets a failed load). */
  retry() {
    this.worker?.postMessage({ type: 'load' });
  }

  receive(message) {
    switch (message?.type) {
      case 'progress':
        this.handlers.progress(message);
        break;
      case 'ready':
        this.loaded = true;
        this.handlers.ready(message);
        break;
      case 'result':
        if (message.id === this.latest) this.handlers.result(message);
        break;
      case 'error':
        if (message.id === null || message.id === this.latest) this.handlers.error(message);
        break;
      default:
        break;
    }
  }

  terminate() {
    this.worker?.terminate();
    this.worker = null;
  }
}
