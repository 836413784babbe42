// A classic deferred script that runs before the modules (scripts run in
// document order): if they fail to load or
// throw, it shows what went wrong instead of leaving "Loading…" forever.
(function () {
  'use strict';
  function show(text) {
    var target = document.getElementById('error');
    var status = document.getElementById('status');
    if (!target) return;
    target.textContent = text;
    target.hidden = false;
    if (status) status.textContent = '';
    document.documentElement.setAttribute('data-failed', '1');
  }
  window.attentionExplorerFailed = function (error) {
    show('The page stopped with an error: ' + (error && error.message ? error.message : String(error)));
  };
  // The wasm, compiled while the modules arrive (engine.js, which needs it,
  // runs only once the whole module graph is in): engine.js instantiates
  // this module, or fetches the file itself if it is not there. Only where
  // the page preloads the wasm: embeds do not, as their frames share one.
  var preload = document.querySelector('link[rel="preload"][href$=".wasm"]');
  if (preload && window.WebAssembly && WebAssembly.compileStreaming) {
    window.attentionExplorerWasm = WebAssembly.compileStreaming(fetch(preload.href)).catch(function () {
      return null;
    });
  }
  // Failed <script> loads do not bubble; listen in the capture phase.
  window.addEventListener('error', function (event) {
    var node = event.target;
    if (node && node.tagName === 'SCRIPT') {
      show('The page could not load its script ' + (node.getAttribute('src') || '') + '. Reload the page.');
    } else if (event.error && !document.documentElement.hasAttribute('data-ready')) {
      show('The page could not start: ' + event.error.message);
    }
  }, true);
})();
