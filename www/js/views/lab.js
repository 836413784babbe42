// The side panel beside the heatmap: one tab per teaching view (the steps of
// the focused word, what if, the matrix playground, multi-head,
// cross-attention, context vectors). Only the open tab does any work, and a
// tab's code is fetched when it first opens (the Steps tab's comes with the
// page). Its controls follow the state at once; its content renders in the
// same call for the steps (a click's feedback) and for any tab when the
// analysis is small (computed at once, not in slices) and the change is not
// a keystroke: one frame for the whole page (a second frame had cost a
// 32-token change 20 ms more than the 2–15 ms the tabs take). Otherwise the
// heavier tabs render after the main views' frame has been painted, so a
// keystroke or a long text never waits for them.

import { SLICED_ABOVE } from '../analysis.js';
import { el, put } from '../dom.js';
import { sameBuild } from '../engine.js';
import { LABS } from '../teach-state.js';
import { mountSteps } from './teach/steps.js';

const TABS = {
  steps: ['Steps', async () => mountSteps],
  whatif: ['What if…', async () => sameBuild(await import('./teach/whatif.js')).mountWhatif],
  play: ['Matrix playground', async () => sameBuild(await import('./teach/play.js')).mountPlay],
  heads: ['Multi-head', async () => sameBuild(await import('./teach/heads.js')).mountHeads],
  cross: ['Cross-attention', async () => sameBuild(await import('./teach/cross.js')).mountCross],
  meaning: ['Context vectors', async () => sameBuild(await import('./teach/meaning.js')).mountMeaning],
};

export function mountLab(ctx) {
  const root = document.getElementById('teach');
  return root ? new Lab(ctx, root) : { update() {} };
}

class Lab {
  constructor(ctx, root) {
    this.ctx = ctx;
    this.store = ctx.store;
    this.tabs = {};
    this.panels = {};
    this.labs = { steps: null }; // lab → its view once mounted
    this.loading = {};
    this.pending = null; // the latest deferred render: [state, analysis]
    this.last = null; // the latest update: [state, analysis]
    this.failure = null;
    const tablist = el('div', null, 'tabs');
    tablist.setAttribute('role', 'tablist');
    tablist.setAttribute('aria-label', 'Learn the maths');
    root.replaceChildren(tablist);
    for (const lab of LABS) {
      const tab = el('button', TABS[lab][0], 'tab');
      tab.type = 'button';
      tab.id = `tab-${lab}`;
      tab.setAttribute('role', 'tab');
      tab.setAttribute('aria-controls', `lab-${lab}`);
      tab.addEventListener('click', () => this.open(lab));
      this.tabs[lab] = tab;
      tablist.append(tab);
      const panel = el('section', null, 'lab');
      panel.id = `lab-${lab}`;
      panel.setAttribute('role', 'tabpanel');
      panel.setAttribute('aria-labelledby', tab.id);
      panel.tabIndex = -1;
      panel.hidden = lab !== 'steps';
      // Its headings are h3s, under the page's h1: a heading of the tab's name between them, for
      // screen readers' lists of headings (the Steps tab's panel has its own h2, "How … attends").
      if (lab !== 'steps') panel.append(el('h2', TABS[lab][0], 'visually-hidden'));
      this.panels[lab] = panel;
      root.append(panel);
    }
    this.labs.steps = mountSteps(this.panels.steps, ctx);
    tablist.addEventListener('keydown', (event) => {
      const next = this.tabAfter(event);
      if (!next) return;
      event.preventDefault();
      // A run of arrow presses is one gesture: one history entry, the tab it ends on.
      this.open(next, 'tabs');
      this.tabs[next].focus();
    });
  }

  /** The tab a key leads to (the WAI-ARIA tabs pattern: arrows wrap around, Home and End go to the ends), or null. */
  tabAfter(event) {
    if (event.key === 'Home') return LABS[0];
    if (event.key === 'End') return LABS[LABS.length - 1];
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (!step) return null;
    const from = LABS.find((lab) => this.tabs[lab] === event.target) ?? this.store.get().teach.lab;
    return LABS[(LABS.indexOf(from) + step + LABS.length) % LABS.length];
  }

  /** Opens tab `lab`; `gesture` names a run of changes that makes one history entry (store.js). */
  open(lab, gesture = null) {
    this.store.update({ teach: { ...this.store.get().teach, lab, lf: 0, lc: null } }, 'push', gesture);
  }

  /** The view of `name`, mounting it (its code fetched) on first use; null until then. */
  lab(name) {
    if (this.labs[name]) return this.labs[name];
    this.loading[name] ??= TABS[name][1]().then((mount) => {
      this.labs[name] = mount(this.panels[name], this.ctx);
      if (this.ctx.wasm) this.labs[name].wasmReady?.(this.ctx.wasm);
      if (this.failure) this.labs[name].failed?.(this.failure);
      if (this.last) this.update(...this.last);
    }).catch((error) => {
      delete this.loading[name];
      const panel = this.panels[name];
      panel.replaceChildren(...panel.querySelectorAll(':scope > h2'), el('p', `This view could not be loaded (${error.message}). Reload the page.`, 'error'));
    });
    return null;
  }

  visible(state) {
    return this.ctx.shows('lab', state);
  }

  update(state, analysis) {
    this.last = [state, analysis];
    const open = state.teach.lab;
    for (const name of LABS) {
      const selected = name === open;
      if (this.tabs[name].getAttribute('aria-selected') !== String(selected)) this.tabs[name].setAttribute('aria-selected', String(selected));
      put(this.tabs[name], 'tabIndex', selected ? 0 : -1);
      put(this.panels[name], 'hidden', !selected);
    }
    const lab = this.lab(open);
    if (!lab) return;
    lab.controls?.(state);
    if (lab.immediate || (!this.ctx.typing && !analysis.pending && analysis.n <= SLICED_ABOVE)) {
      this.pending = null; // a deferred render of an older state must not follow this one
      lab.render(state, analysis);
      return;
    }
    if (!this.pending) {
      this.ctx.afterPaint(() => {
        if (!this.pending) return;
        const [s, a] = this.pending;
        this.pending = null;
        this.labs[s.teach.lab]?.render?.(s, a);
      });
    }
    this.pending = [state, analysis];
  }

  wasmReady(wasm) {
    for (const lab of Object.values(this.labs)) lab?.wasmReady?.(wasm);
    // The playground needs the wasm only: it can work before the vectors arrive.
    if (this.last) this.update(...this.last);
  }

  /** The vectors (or the wasm) could not be loaded: every tab that needs them says so; the playground, which needs only the wasm, stays. */
  failed(message) {
    this.failure = message;
    for (const name of LABS) {
      if (name === 'play' && this.ctx.wasm) continue;
      const note = el('p', `This view needs what the page could not load: ${message}`, 'error lab-failed');
      note.setAttribute('role', 'note');
      this.panels[name].prepend(note);
    }
  }

  relayout() {
    for (const lab of Object.values(this.labs)) lab?.relayout?.();
  }
}
