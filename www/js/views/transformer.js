// The trained-model view's place in the page (the transformer beside GloVe): its open button, and the view
// itself (views/model/view.js), whose code is fetched only when it first
// opens (the button, or a link with model=1). It gets the page's state and
// GloVe analysis like every view, and nothing while it is closed.

import { attr, put } from '../dom.js';
import { sameBuild } from '../engine.js';
import { defaultModel } from '../model-state.js';
import { siteFile } from '../site.js';

export function mountModelSlot(ctx) {
  const { store } = ctx;
  const button = document.getElementById('model-open');
  const root = document.getElementById('model-view');
  if (!root) return { update() {} };
  let view = null;
  let loading = null;
  let last = null; // [state, analysis] while the code loads

  button?.addEventListener('click', () => {
    const state = store.get();
    store.update({ model: state.model ? undefined : defaultModel() }, 'push');
  });

  function load() {
    loading ??= Promise.all([import('./model/view.js').then(sameBuild), styles()])
      .then(([{ mountModel }]) => {
        view = mountModel(root, ctx);
        if (last) view.update(...last);
      })
      .catch((error) => {
        loading = null;
        const message = document.getElementById('error');
        if (message) {
          message.textContent = `The trained-model view could not be loaded: ${error.message}. Reload the page.`;
          message.hidden = false;
        }
      });
  }

  return {
    visible: (state) => ctx.shows('model', state),
    update(state, analysis) {
      attr(button, 'aria-expanded', state.model ? 'true' : 'false');
      if (!state.model) {
        view?.hide();
        put(root, 'hidden', true);
        return;
      }
      last = [state, analysis];
      if (view) view.update(state, analysis);
      else load();
    },
    relayout: () => view?.relayout(),
  };
}

/**
 * Loads the view's style sheet (model.css), fetched with its code: resolves
 * once it applies, or has failed (the view is then drawn unstyled rather
 * than not at all). Built before, the view showed one frame unstyled, 1,800
 * px tall, then folded to its loading line.
 */
function styles() {
  const { href } = siteFile('model.css');
  let link = document.querySelector(`link[href="${href}"]`);
  if (link?.sheet) return Promise.resolve();
  if (!link) {
    link = Object.assign(document.createElement('link'), { rel: 'stylesheet', href });
    document.head.append(link);
  }
  return new Promise((resolve) => {
    link.addEventListener('load', resolve, { once: true });
    // A sheet that failed is asked for anew by the next try (the view's code failing too, say).
    link.addEventListener('error', () => {
      link.remove();
      resolve();
    }, { once: true });
  });
}
