// The only module that reads or writes the address: the store's state goes
// into the URL hash (the share link), and a hash the user edits or steps to
// with Back/Forward comes back into the store.

import { formatHash, parseHash, sameState } from './state.js';

/** Runs `task` later, at the lowest priority where the browser has `scheduler.postTask` (Chromium runs it after the frame of the change). */
function later(task) {
  if (globalThis.scheduler?.postTask) globalThis.scheduler.postTask(task, { priority: 'background' }).catch(reportError);
  else setTimeout(task, 0);
}

// Browsers limit how often a page may write its address: Safari throws a
// SecurityError past 100 pushState/replaceState calls in 30 s; Chromium and
// Firefox ignore the calls past their own limits. Dragging the temperature
// slider wrote about 60 a second, so after a few seconds of it Safari's
// address bar, and any link copied from it, kept an old temperature. Writes
// are spent from a budget: BURST at once, then one every REFILL_MS, so at
// most 20 + 60 in any 30 s. A change over budget waits for the next write,
// merged with the changes made meanwhile.
const BURST = 20;
const REFILL_MS = 500;
/** After a write the browser refused, the next try; after FAILURES in a row, the page stops trying until the next change. */
const RETRY_MS = 2000;
const FAILURES = 3;

/** A token bucket of history writes: `wait()` is the ms before the next may go (0: now), `spend()` takes one. */
export function writeBudget(now = () => performance.now(), burst = BURST, refill = REFILL_MS) {
  let tokens = burst;
  let at = now();
  const fill = () => {
    const t = now();
    tokens = Math.min(burst, tokens + (t - at) / refill);
    at = t;
  };
  return {
    wait() {
      fill();
      return tokens >= 1 ? 0 : Math.ceil((1 - tokens) * refill);
    },
    spend() {
      fill();
      tokens -= 1;
    },
  };
}

/**
 * Keeps `location.hash` and `store` in step. Inside an iframe (`embed`) a
 * pushed entry would hijack the host page's Back button, so every change
 * replaces. `onHash(hash)` hears every hash written (the embed's "open in
 * full" link follows it); `incoming(state)` adjusts a state read from the
 * address (a widget opens the view its link names); `onProblems(problems)`
 * hears what an address read later (Back, Forward, an edit) could not use;
 * `onSame()`, that such an address holds the state already (another
 * spelling of it): no change is heard, but what the views said of the last
 * address may be out of date.
 */
export function syncUrl(store, { embed = false, onHash = () => {}, incoming = (state) => state, onProblems = () => {}, onSame = () => {} } = {}) {
  // A gesture whose first write found the address already holding its state
  // (its steps came back to where they started before the write) pushed
  // nothing: its next step pushes, or the gesture would overwrite the entry
  // it started from, and Back could not return there.
  let owed = null;
  const budget = writeBudget();
  /** Writes `state` in the address, as `how` says; false when the browser refused the write. */
  const write = (state, how, gesture = null) => {
    const hash = formatHash(state);
    onHash(hash);
    if (how === 'none') return true;
    if (location.hash === hash) {
      if (how === 'push') owed = gesture;
      return true;
    }
    const push = how === 'push' || (gesture !== null && gesture === owed);
    budget.spend();
    try {
      if (push && !embed) history.pushState(null, '', hash);
      else history.replaceState(null, '', hash);
    } catch {
      return false; // over a browser's limit (Safari: a SecurityError): tried again later
    }
    owed = null;
    return true;
  };
  // The address is written in a background task, after the change's frame:
  // `pushState` cost a click 2–4 ms and a keystroke up to 5 ms on a slow
  // machine (a link of 1,024 words is about 9 KB). A new entry writes the one
  // still pending first, so no step of Back is lost.
  let pending = null; // { state, how, gesture } not written yet
  let timer = null;
  let failures = 0;
  const flush = () => {
    clearTimeout(timer);
    if (!pending) return;
    const item = pending;
    pending = null;
    if (write(item.state, item.how, item.gesture)) {
      failures = 0;
    } else if (!pending && ++failures < FAILURES) {
      pending = item;
      timer = setTimeout(flush, RETRY_MS);
    }
  };
  const schedule = () => {
    const wait = budget.wait();
    if (wait === 0) later(flush);
    else timer = setTimeout(flush, wait);
  };
  store.subscribe((state, previous, how, gesture) => {
    // From the address itself (read, below, has dropped what was pending): only onHash hears it.
    if (how === 'none') {
      write(state, how);
      return;
    }
    if (pending && how === 'push') flush();
    if (!pending) schedule();
    // A gesture's first change pushes, its next ones replace (store.js): one entry in all.
    pending = { state, how: pending?.how === 'push' ? 'push' : how, gesture };
  });
  // Leaving the page right after a change still leaves its address in the history.
  window.addEventListener('pagehide', flush);
  // A new hash fires popstate, then hashchange: the address is read once.
  let readHash = null;
  const read = (event) => {
    if (event.type === 'hashchange' && location.hash === readHash) {
      readHash = null;
      return;
    }
    readHash = event.type === 'popstate' ? location.hash : null;
    pending = null; // Back or Forward (or an edited address) wins over a change not written yet
    // What this address asks for that the page cannot use (an address edited by hand), named anew.
    const problems = [];
    const next = incoming(parseHash(location.hash, problems));
    onProblems(problems);
    if (sameState(next, store.get())) onSame();
    else store.set(next, 'none');
  };
  window.addEventListener('popstate', read);
  window.addEventListener('hashchange', read);
  // A link's hash is rewritten in its canonical form (defaults written, bad values dropped).
  write(store.get(), location.hash ? 'replace' : 'none');
}
