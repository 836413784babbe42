// A classic deferred script that runs before the page's modules (deferred
// scripts run in document order; start.js, async, may run earlier: it only
// starts downloads, and the page reports their failures): if they fail to
// load or throw, it shows what went wrong instead of leaving "Loading…" forever.
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
  // The shards of the sentence the page opens with when its link names none
  // (scripts/build lists them): requested now, while the wasm downloads, not
  // once it is in to tokenize the sentence (start.js). The page's own
  // requests for them take these responses.
  var shards = document.querySelector('meta[name="default-shards"]');
  if (shards && !new URLSearchParams(location.hash.slice(1)).has('s')) {
    shards.content.split(' ').forEach(function (href) {
      var preload = document.createElement('link');
      preload.rel = 'preload';
      preload.as = 'fetch';
      preload.crossOrigin = 'anonymous';
      preload.href = href;
      document.head.appendChild(preload);
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
