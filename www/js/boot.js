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
