// The embed page inside its iframe. By default it fits the iframe it is
// given: the views take the height left under the options, so a fixed-size
// iframe (a post with no script) shows the whole heatmap with no scroll bar.
// It says {type: 'attention-explorer:ready'} to the page that holds it; when
// that page asks back ({type: 'attention-explorer:resize'}: the snippet's few
// lines, or <attention-viz>), it takes its natural height instead and
// reports it ({type: 'attention-explorer:height', height}) whenever it
// changes, so that the host sizes the iframe to fit.

export const READY_MESSAGE = 'attention-explorer:ready';
export const RESIZE_MESSAGE = 'attention-explorer:resize';
export const HEIGHT_MESSAGE = 'attention-explorer:height';

export function fitFrame() {
  const root = document.documentElement;
  if (window.parent === window) return;
  root.dataset.fit = '1';
  let observer = null;
  window.addEventListener('message', (event) => {
    // Only the page that holds this iframe can ask; it may be any site.
    if (event.source !== window.parent || event.data?.type !== RESIZE_MESSAGE || observer) return;
    delete root.dataset.fit;
    let last = 0;
    observer = new ResizeObserver(() => {
      const height = Math.ceil(root.getBoundingClientRect().height);
      if (height === last) return;
      last = height;
      window.parent.postMessage({ type: HEIGHT_MESSAGE, height }, '*');
    });
    observer.observe(root);
  });
  window.parent.postMessage({ type: READY_MESSAGE }, '*');
}
