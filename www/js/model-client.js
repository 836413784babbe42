// The page's side of the model worker (www/js/model-worker.js): starts it,
// numbers the requests and drops answers to requests overtaken by a newer
// one of the same kind, so that fast typing or clicking never shows an old
// sentence, head or query.

import { fetchedEarly, MODEL_WASM_FILES, siteFile } from './site.js';

const WORKER_URL = siteFile('js/model-worker.js');

/**
 * The worker gives up a download that receives nothing for 20 s. A test
 * sets `globalThis.aeModelStallMs` before the page loads to shorten that
 * (to no less than 100 ms) instead of waiting; it never lengthens it.
 */
function loadMessage() {
  const stallMs = globalThis.aeModelStallMs;
  return Number.isFinite(stallMs) ? { type: 'load', stallMs } : { type: 'load' };
}

/** Request type → the type of its answer (and its handler's name). */
const ANSWERS = { run: 'result', search: 'ranking', rank: 'ranking', rollout: 'rollout', details: 'details', project: 'projection' };

export class ModelClient {
  /**
   * `handlers`: { progress({ file, received, total }), ready({ layers, heads, … }),
   * result({ id, tokens, weights, behaviours, … }), error({ id, message, file, status, network }),
   * and, for the questions about a run or a head: ranking(message),
   * rollout(message), details(message), projection(message),
   * failed(channel, message) (an error answering one of them) }.
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.worker = null;
    this.next = 0;
    this.latest = {}; // answer type → id of the latest request for it
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
    // Not under the service worker yet (a first visit), the worker's fetches are not kept by it: named to it later.
    if (!navigator.serviceWorker?.controller) {
      for (const file of Object.values(MODEL_WASM_FILES)) fetchedEarly.add(siteFile(file).href);
    }
    this.worker.addEventListener('message', (event) => this.receive(event.data));
    // A worker script that fails to load or parse ends up here, without a message.
    // (The worker reports its own errors as messages.) Such a worker never
    // runs: it is let go, and the next load (Try again) starts a new one.
    this.worker.addEventListener('error', (event) => {
      event.preventDefault();
      this.terminate();
      this.handlers.error({ id: null, message: `The model's worker stopped: ${event.message || 'its script could not be loaded'}. Try again, or reload the page.`, file: 'js/model-worker.js', status: null });
    });
    this.worker.postMessage(loadMessage());
  }

  /** Sends a request of `type` (see the worker's messages); returns its id. */
  ask(type, fields) {
    this.load();
    const id = ++this.next;
    this.latest[ANSWERS[type]] = id;
    this.worker?.postMessage({ type, id, ...fields });
    return id;
  }

  /** Asks for a sentence's attention; returns the request id. */
  run(sentence, { words, hideSpecial }) {
    return this.ask('run', { sentence, words, hideSpecial });
  }

  /** Forgets the pending request of an answer type: its answer, if any comes, is dropped. */
  forget(answer) {
    this.latest[answer] = -1;
  }

  /**
   * Loads again after a failure (the worker forgets a failed load, and keeps
   * what arrived of a broken download); a worker that stopped is started anew.
   */
  retry() {
    if (this.worker) this.worker.postMessage(loadMessage());
    else this.load();
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
      case 'error': {
        const answer = ANSWERS[message.channel ?? 'run'] ?? 'result';
        if (answer === 'result') {
          if (message.id === null || message.id === this.latest.result) this.handlers.error(message);
        } else if (message.id === this.latest[answer]) {
          this.handlers.failed?.(answer, message);
        }
        break;
      }
      default:
        if (message && message.id === this.latest[message.type]) this.handlers[message.type]?.(message);
        break;
    }
  }

  terminate() {
    this.worker?.terminate();
    this.worker = null;
  }
}
