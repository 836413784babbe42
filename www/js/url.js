// The only module that reads or writes the address: the store's state goes
// into the URL hash (the share link), and a hash the user edits or steps to
// with Back/Forward comes back into the store.

import { formatHash, parseHash, sameState } from './state.js';

/**
 * Keeps `location.hash` and `store` in step. Inside an iframe (`embed`) a
 * pushed entry would hijack the host page's Back button, so every change
 * replaces. `onHash(hash)` hears every hash written (the embed's "open in
 * full" link follows it); `incoming(state)` adjusts a state read from the
 * address (a widget opens the view its link names).
 */
export function syncUrl(store, { embed = false, onHash = () => {}, incoming = (state) => state } = {}) {
  const write = (state, how) => {
    const hash = formatHash(state);
    onHash(hash);
    if (how === 'none' || location.hash === hash) return;
    if (how === 'push' && !embed) history.pushState(null, '', hash);
    else history.replaceState(null, '', hash);
  };
  // While typing, the address is written in a task of its own, after the
  // keystroke's frame: a pasted page of 1,024 words is a link of about 9 KB,
  // and writing it cost that frame 5 ms on a slow machine.
  let typed = null; // { state, how } not written yet
  const flush = () => {
    if (!typed) return;
    const { state, how } = typed;
    typed = null;
    write(state, how);
  };
  store.subscribe((state, previous, how, gesture) => {
    if (gesture === 'typing' && how !== 'none') {
      // The session's first change pushes, the next ones replace: one entry in all.
      if (!typed) setTimeout(flush, 0);
      typed = { state, how: typed?.how === 'push' ? 'push' : how };
      return;
    }
    flush();
    write(state, how);
  });
  const read = () => {
    typed = null; // Back or Forward (or an edited address) wins over typing not written yet
    const next = incoming(parseHash(location.hash));
    if (!sameState(next, store.get())) store.set(next, 'none');
  };
  window.addEventListener('popstate', read);
  window.addEventListener('hashchange', read);
  // A link's hash is rewritten in its canonical form (defaults written, bad values dropped).
  write(store.get(), location.hash ? 'replace' : 'none');
}
