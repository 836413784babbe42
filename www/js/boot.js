// A classic deferred script that runs before the page's modules (deferred
// scripts run in document order; start.js, async, may run earlier: it only
// starts downloads, and the page reports their failures): if they fail to
// load or throw, it shows what went wrong instead of leaving "Loading…"
// forever, and says when nothing has come for a while. On a phone it folds
// the options.
(function () {
  'use strict';
  // Seconds; a test may shorten it (window.aeStalledS, set before this runs), never lengthen it.
  var STALLED_S = Math.max(1, Math.min(15, Number(window.aeStalledS) || 15));
  function show(text) {
    var target = document.getElementById('error');
    var status = document.getElementById('status');
    if (!target) return;
    target.textContent = text;
    target.hidden = false;
    if (status) status.textContent = '';
    document.documentElement.setAttribute('data-failed', '1');
  }
  // A file that never comes (a stalled connection, a server that stopped
  // answering: a script, the wasm, the vectors' manifest) has no error to
  // show. While the status still says its first "Loading…", after a while it
  // says so, and what to do; the page's own status replaces it if the files
  // come after all. (Words still loading after that have their own limit.)
  setTimeout(function () {
    var status = document.getElementById('status');
    if (!status || status.textContent !== 'Loading…' || document.documentElement.hasAttribute('data-failed')) return;
    var text = 'Still loading after ' + STALLED_S + ' s: the connection may be slow or stalled. Reload the page to try again.';
    status.textContent = text;
    var said = document.getElementById('status-said');
    if (said) said.textContent = text;
  }, STALLED_S * 1000);
  // On a phone the options start folded under their summary, so that a
  // shared link's heatmap is on the first screen (style.css shows the
  // summary there only); wider, they are always open.
  var settings = document.getElementById('settings');
  var narrow = window.matchMedia ? window.matchMedia('(max-width: 600px)') : null;
  if (settings && narrow && document.body.getAttribute('data-mode') === 'full') {
    if (narrow.matches) settings.open = false;
    narrow.addEventListener('change', function () {
      if (!narrow.matches) settings.open = true;
    });
  }
  // The embed's way out names the same view before the page's modules run, and if they never do
  // (a frame sandboxed without allow-same-origin): the plain page would show another sentence.
  var full = document.getElementById('open-full');
  if (full) full.href = 'index.html' + location.hash;
  // Until now style.css has shown them folded on a phone, open or not.
  document.documentElement.setAttribute('data-folded', '');
  window.attentionExplorerFailed = function (error) {
    show('The page stopped with an error: ' + (error && error.message ? error.message : String(error)));
  };
  // Failed <script> loads do not bubble; listen in the capture phase.
  window.addEventListener('error', function (event) {
    var node = event.target;
    if (node && node.tagName === 'SCRIPT') {
      // A page opened as a file (index.html double-clicked), or a frame
      // sandboxed without allow-same-origin, has no origin of its own: its
      // modules cannot load (they need CORS), and a reload cannot help.
      if (location.protocol === 'file:') {
        show('The page cannot run opened as a file (file://): the browser does not load its scripts from there. Serve its folder over HTTP: ./scripts/serve in the project, or any static web server.');
      } else if (self.origin === 'null' && window.top === window) {
        // A tab opened from such a frame (allow-popups without allow-popups-to-escape-sandbox) keeps its sandbox.
        show('The page cannot run here: this tab was opened from a sandboxed frame and keeps its sandbox, so its scripts cannot load. Copy the address into a new tab of your own.');
      } else if (self.origin === 'null') {
        show('The page cannot run in a frame sandboxed without "allow-same-origin": its scripts cannot load. The site embedding it can add allow-same-origin to the iframe\'s sandbox, or link to the page.');
      } else {
        show('The page could not load its script ' + (node.getAttribute('src') || '') + '. Reload the page.');
      }
    } else if (event.error && !document.documentElement.hasAttribute('data-ready')) {
      show('The page could not start: ' + event.error.message);
    }
  }, true);
})();
