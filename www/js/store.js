// The one store of the page: it holds the state (exactly what a link holds,
// see state.js) and changes it in one place. Views never change the state
// themselves: they call `store.set` (or `update`), and every subscriber
// hears of the change once, with how it should enter the browser history.
//
//   how:     'push' (a new history entry), 'replace' (a correction, or a step
//            of a continuous gesture), 'none' (the state came from the URL)
//   session: a name for a continuous gesture (typing, dragging a slider): the
//            first change of a session pushes, the following ones replace.

import { sameState } from './state.js';

export function createStore(initial) {
  let state = initial;
  let session = null;
  const listeners = new Set();
  const store = {
    get: () => state,
    /** Replaces the state; nothing happens when `next` equals the current state. */
    set(next, how = 'push', gesture = null) {
      if (sameState(next, state)) return;
      const previous = state;
      state = next;
      // A continuous gesture makes one history entry.
      const mode = how === 'push' && gesture !== null && gesture === session ? 'replace' : how;
      session = how === 'none' ? null : gesture;
      for (const listener of listeners) listener(state, previous, mode, gesture);
    },
    /** `set` of the current state with `changes` applied. */
    update(changes, how = 'push', gesture = null) {
      store.set({ ...state, ...changes }, how, gesture);
    },
    /** `listener(state, previous, how, gesture)` after every change; returns the unsubscribe function. */
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return store;
}
