// The side panel beside the heatmap: one tab per teaching view (the steps of
// the focused word, what if, the matrix playground, multi-head,
// cross-attention, context vectors). Only the open tab does any work. Its
// controls follow the state at once; its content renders in the same call
// for the steps (a click's feedback) and after the main views' frame has been
// painted for the heavier labs, so a click or a keystroke never waits for them.

import { el, put } from '../dom.js';
import { LABS } from '../teach-state.js';
import { mountCross } from './teach/cross.js';
import { mountHeads } from './teach/heads.js';
import { mountMeaning } from './teach/meaning.js';
import { mountPlay } from './teach/play.js';
import { mountSteps } from './teach/steps.js';
import { mountWhatif } from './teach/whatif.js';

const TABS = {
  steps: ['Steps', mountSteps],
  whatif: ['What if…', mountWhatif],
  play: ['Matrix playground', mountPlay],
  heads: ['Multi-head', mountHeads],
  cross: ['Cross-attention', mountCross],
  meaning: ['Context vectors', mountMeaning],
};

export function mountLab(ctx) {
  const root = document.getElementById('teach');
  if (!root) return { update() {} };
  const { store } = ctx;
  const setLab = (lab) => store.update({ teach: { ...store.get().teach, lab, lf: 0, lc: null } }, 'push');
  const tablist = el('div', null, 'tabs');
  tablist.setAttribute('role', 'tablist');
  tablist.setAttribute('aria-label', 'Learn the maths');
  const tabs = {};
  const labs = {};
  root.replaceChildren(tablist);
  for (const lab of LABS) {
    const [name, mount] = TABS[lab];
    const tab = el('button', name, 'tab');
    tab.type = 'button';
    tab.id = `tab-${lab}`;
    tab.setAttribute('role', 'tab');
    tab.setAttribute('aria-controls', `lab-${lab}`);
    tab.addEventListener('click', () => setLab(lab));
    tabs[lab] = tab;
    tablist.append(tab);
    const panel = el('section', null, 'lab');
    panel.id = `lab-${lab}`;
    panel.setAttribute('role', 'tabpanel');
    panel.setAttribute('aria-labelledby', tab.id);
    panel.tabIndex = -1;
    root.append(panel);
    labs[lab] = mount(panel, ctx);
  }
  tablist.addEventListener('keydown', (event) => {
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (!step) return;
    event.preventDefault();
    const from = LABS.find((lab) => tabs[lab] === event.target) ?? store.get().teach.lab;
    const next = LABS[(LABS.indexOf(from) + step + LABS.length) % LABS.length];
    setLab(next);
    tabs[next].focus();
  });

  let pending = null; // the latest deferred render: [state, analysis]
  const renderLater = () => {
    const [state, analysis] = pending;
    pending = null;
    labs[state.teach.lab].render?.(state, analysis);
  };

  return {
    update(state, analysis) {
      const open = state.teach.lab;
      for (const lab of LABS) {
        const selected = lab === open;
        if (tabs[lab].getAttribute('aria-selected') !== String(selected)) tabs[lab].setAttribute('aria-selected', String(selected));
        put(tabs[lab], 'tabIndex', selected ? 0 : -1);
        put(document.getElementById(`lab-${lab}`), 'hidden', !selected);
      }
      const lab = labs[open];
      lab.controls?.(state);
      if (lab.immediate) {
        lab.render(state, analysis);
        return;
      }
      if (!pending) ctx.afterPaint(renderLater);
      pending = [state, analysis];
    },
    wasmReady(wasm) {
      for (const lab of Object.values(labs)) lab.wasmReady?.(wasm);
    },
    failed(message) {
      for (const lab of Object.values(labs)) lab.failed?.(message);
      // The playground needs the wasm only: it stays usable when the word vectors fail.
      if (ctx.wasm) labs.play.render?.(store.get(), { error: message, pending: false, n: 0, tokens: [] });
    },
    relayout() {
      for (const lab of Object.values(labs)) lab.relayout?.();
    },
  };
}
