// The page controller: one store, one analysis per change, views that only
// draw. Data flows one way:
//
//   store (state = the link) → shards the sentence needs (vectors.js)
//     → one Analysis (analysis.js, wasm) → every visible view's update()
//   a click, a key, a control → store.update() → (the same, again)
//
// Up to 256 known tokens the analysis is computed in the change's own task.
// Beyond, an AnalysisJob computes it 25 ms at a time (a task each), then the
// heatmap's bitmap gets a task, then the views: no task of a 1,024-token text
// is long, and a newer change stops a computation that has not finished.
//
// A view is an object made by a mount function: { update(state, analysis),
// visible?(state), relayout?(), wasmReady?(wasm), failed?(message),
// focusFirst? (drawn before the others when a focus is made in it) }. It
// reads the state and the analysis and writes the DOM; it never computes
// attention, reads the URL or reaches into another view. Views that are not
// on screen (a closed tab, the closed model view, the arrows scrolled far
// away) get no work until they are. Widths come from a ResizeObserver and
// nearness from an IntersectionObserver, so an update never forces a layout.

import { Analysis, AnalysisJob, measureLatest, SLICED_ABOVE, tokensOf } from './analysis.js';
import { engineHub, ownEngineHub } from './engine.js';
import { readTheme } from './paint.js';
import { defaultModel } from './model-state.js';
import { put } from './dom.js';
import { fetchedEarly, siteFile } from './site.js';
import { indexProblem, linkCheck } from './params.js';
import { parseHash, sameAnalysis, textsOf } from './state.js';
import { createStore } from './store.js';
import { roughCut } from './text.js';
import { syncUrl } from './url.js';
import { whenIdle } from './vectors.js';

/** How long typing must pause before the words being typed are fetched. */
const TYPING_PAUSE_MS = 150;
/**
 * How long a text waits for its slowest shards before the rest of it is
 * drawn, their words marked as loading, and drawn again as they arrive.
 * Until then the text waits whole: a word's shard can change how the words
 * around it are tokenized (its vector joins them, say 'e-mail').
 */
const SLOW_SHARDS_MS = 1500;
/** How long the page, its engine ready, waits for the text's shards already on their way before it draws the words as loading. */
const SHARDS_UNDER_WAY_MS = 100;
/**
 * Above this many tokens, a new focus made in the heatmap or the arrows (a
 * click, an arrow key: ctx.focusFromView) is drawn by those views (focusFirst)
 * in a frame of its own; the others (the Steps tab, the chips, the table,
 * the status) follow after that frame is painted. At 1,024 tokens they took
 * 8 ms of script and 7 ms of layout before the click's first frame. A focus
 * made elsewhere (a chip, the find box, the Steps tab) is drawn at once
 * everywhere: the keyboard focus follows it into the view that made it.
 */
const FOCUS_FIRST_ABOVE = SLICED_ABOVE;
/**
 * A focus made within this long of the one before (an arrow key held down,
 * clicks in a row) is a run: the other views wait until the focus has rested
 * this long, and draw the last one.
 */
const FOCUS_RUN_MS = 100;
/** While shards arrive, the tokens' loading states are redrawn at most this often. */
const LOADING_REDRAW_MS = 100;
/**
 * How far above or below the screen a view still draws: scrolling by wheel
 * or keys brings it in a frame or two after it has drawn.
 */
const NEAR_SCREEN = '150px';

/** The parts an embedded widget shows, by its `view` (state.js VIEWS); the full page shows them all. */
const EMBED_PARTS = {
  main: ['heatmap', 'arrows'],
  heatmap: ['heatmap'],
  arrows: ['arrows'],
  steps: ['lab'],
  whatif: ['lab'],
  play: ['lab'],
  heads: ['lab'],
  cross: ['lab'],
  meaning: ['lab'],
  model: ['model'],
  head: ['model'],
};

/** The shared services every view's mount function receives. */
function createContext(store, { embed }) {
  const sizes = new Map(); // element → { width, height } as last observed
  const relayouts = new Map(); // element → [view.relayout]
  const changed = new Set(); // elements resized since the last relayout
  let frame = 0;
  let drewFirst;
  const firstHeatmap = new Promise((resolve) => { drewFirst = resolve; });
  const resized = new ResizeObserver((entries) => {
    // Layout is up to date while observers run: these reads cost nothing.
    for (const { target } of entries) {
      sizes.set(target, { width: target.clientWidth, height: target.clientHeight });
      changed.add(target);
    }
    frame ||= requestAnimationFrame(() => {
      frame = 0;
      const targets = [...changed];
      changed.clear();
      for (const target of targets) for (const relayout of relayouts.get(target) ?? []) relayout();
    });
  });
  return {
    store,
    embed,
    /** Whether `part` (heatmap, arrows, lab, model) is on screen: always on the full page, by the view in a widget. */
    shows: (part, state) => !embed || (EMBED_PARTS[state.view] ?? EMBED_PARTS.main).includes(part),
    engine: null,
    wasm: null,
    /** Whether the change being drawn is a keystroke (its frame shows the heatmap first; the heavier views follow). */
    typing: false,
    theme: readTheme(document.documentElement),
    /** The last observed width of `element` (0 before the first observation). */
    widthOf: (element) => sizes.get(element)?.width ?? 0,
    /** The last observed height of `element` (0 before the first observation). */
    heightOf: (element) => sizes.get(element)?.height ?? 0,
    /** Calls `relayout()` whenever `element` changes size. */
    observe(element, relayout) {
      if (!relayouts.has(element)) {
        relayouts.set(element, []);
        resized.observe(element);
      }
      relayouts.get(element).push(relayout);
    },
    /**
     * A drawing into `element` that waits while the element is far from the
     * screen: { waits(), drawn(), stale } (lazyDrawing, below).
     */
    drawWhenNear: lazyDrawing(),
    /** Settles once the first heatmap is drawn (drewFirst): what the first screen does not need waits for it. */
    firstHeatmap,
    drewFirst,
    /**
     * `store.update(changes, how, gesture)` of the focus (and cell), made in a view
     * that draws it first (the heatmap, the arrows: focusFirst): for a long
     * text in a frame of its own; the other views draw after that frame.
     */
    focusFromView(changes, how, gesture = null) {
      this.fromView = true;
      try {
        store.update(changes, how, gesture);
      } finally {
        this.fromView = false;
      }
    },
    fromView: false,
    /** Whether the change being drawn was read from the address (Back, Forward, an edited link). */
    fromAddress: false,
    /** Runs `task` after the next frame is painted: work that a click must not wait for. */
    afterPaint(task) {
      requestAnimationFrame(() => setTimeout(task, 0));
    },
    /**
     * What can be downloaded: id → { name, figure() (figure.js), visible() }.
     * A view registers what it draws; Share offers the visible ones.
     */
    figures: new Map(),
    /**
     * The last cut of a text over a limit (sentence.js, and Page.cut below):
     * { sentence (kept), removed, max (the limit of known words, or null for
     * the box's limit of characters), said (whether the box's note said it) }.
     */
    lastCut: null,
    /** Renders again in the next frame (a view's own trigger: a retry, say). */
    refresh: () => {},
    /** Computes with other vectors from now on (the user's own file, or the default again). */
    setEngine: () => {},
    /**
     * The engine a state asks for, or null to keep the current one: set by
     * views/source.js (the user's file while the state names it and this tab
     * has it, else GloVe). Every render asks first, so that a state from
     * Back or Forward is computed with the vectors its link names.
     */
    engineFor: () => null,
    /** The engine of the default GloVe vectors, once loaded. */
    defaultEngine: null,
  };
}

/**
 * The page's drawings that wait while their element is more than
 * NEAR_SCREEN from the screen, with one IntersectionObserver for all:
 * `drawWhenNear(element, redraw)` gives { waits(), hold(), drawn(), stale }. A view
 * asks `waits()` before it draws: far away (or before the element's first
 * observation, made after the frame in which it is added), the element turns
 * transparent (not hidden: what it holds stays focusable and read by screen
 * readers), so that a jump to it never shows the last text's picture for a
 * frame, and `redraw()` runs when it comes near, or when the page is
 * printed. `hold()` makes it transparent and stale until its view draws it
 * (in a task of its own). `drawn()` says it is current again; `stale`, that
 * it shows the last text (its geometry too: no click should land on it).
 */
function lazyDrawing() {
  const near = new Map(); // element → within NEAR_SCREEN of the screen, as last observed
  const redraws = new Map(); // element → the redraw of its waiting drawing
  let printing = false;
  const seen = new IntersectionObserver((entries) => {
    for (const { target, isIntersecting } of entries) {
      const was = near.get(target);
      near.set(target, isIntersecting);
      if (isIntersecting && !was) redraws.get(target)();
    }
  }, { rootMargin: `${NEAR_SCREEN} 0px` });
  // A printed page shows every view, near the screen or not.
  window.addEventListener('beforeprint', () => {
    printing = true;
    for (const redraw of redraws.values()) redraw();
  });
  window.addEventListener('afterprint', () => {
    printing = false;
  });
  return (element, redraw) => {
    let stale = false;
    redraws.set(element, () => stale && redraw());
    seen.observe(element);
    const hold = () => {
      stale = true;
      put(element.style, 'opacity', '0');
    };
    return {
      get stale() {
        return stale;
      },
      waits() {
        if (printing || near.get(element)) return false;
        hold();
        return true;
      },
      /** Transparent until `drawn()`, near or not: its view draws it in a later task. */
      hold,
      drawn() {
        stale = false;
        put(element.style, 'opacity', '');
      },
    };
  };
}

/** A quiz about the trained model opens the model, at the quiz's head. */
function quizState(state) {
  if (state.quiz?.source !== 'model') return state;
  const model = state.model ?? defaultModel();
  return { ...state, model: { ...model, layer: state.quiz.layer, head: state.quiz.head } };
}

/** Whether `state` differs from `previous` in its focus and clicked cell only. */
function onlyFocus(state, previous) {
  return Object.keys(state).every((key) => key === 'focus' || key === 'cell' || state[key] === previous[key]);
}

/** A widget's link names one view: the tab of a teaching view, or the model, opens with it. */
function embedState(state) {
  if (EMBED_PARTS[state.view]?.includes('lab')) return { ...state, teach: { ...state.teach, lab: state.view } };
  if (EMBED_PARTS[state.view]?.includes('model')) return { ...state, model: state.model ?? defaultModel() };
  return state;
}

class Page {
  constructor(mounts, { embed, onHash }) {
    const problems = [];
    const state = parseHash(location.hash, problems);
    const incoming = (next) => quizState(embed ? embedState(next) : next);
    this.store = createStore(incoming(state));
    syncUrl(this.store, { embed, onHash, incoming, onProblems: (found) => this.ctx.noteLink?.(found, { anew: true }), onSame: () => this.render() });
    this.ctx = createContext(this.store, { embed });
    this.ctx.linkProblems = problems;
    this.complete = null; // the last analysis computed, freed when the next one replaces it
    this.running = null; // the AnalysisJob computing a long text's analysis, if any
    this.fetchTimer = 0;
    this.leaving = new AbortController(); // aborted when this frame's page goes (pagehide)
    this.ensuring = null; // the text whose shards are being fetched
    this.ensuringSince = 0; // when its fetch began
    this.slowTimer = 0; // draws it without its slowest shards (SLOW_SHARDS_MS)
    this.checked = null; // { engine, version, text, settled } last found within the limits with every shard in (settled: none failed)
    this.shown = null; // the analysis (or pending one) the views drew last
    this.restOwed = null; // after a render of the focusFirst views alone, the others' render to come (oweRest), until another render
    this.lastFirstAt = -Infinity; // when the last render of the focusFirst views alone came
    let frame = 0;
    this.ctx.refresh = () => {
      frame ||= requestAnimationFrame(() => {
        frame = 0;
        this.render();
      });
    };
    this.ctx.setEngine = (engine) => this.useEngine(engine);
    this.views = mounts.map((mount) => mount(this.ctx));
    this.applyTheme(this.store.get().theme);
    if (embed) document.body.dataset.view = this.store.get().view;
    this.store.subscribe((state, previous, how, gesture) => {
      this.ctx.typing = gesture === 'typing' || gesture === 'cross';
      if (state.theme !== previous.theme) this.applyTheme(state.theme);
      if (embed) document.body.dataset.view = state.view;
      // A state read from the address (Back, Forward): fields show it even where the keyboard is (dom.js putField).
      this.ctx.fromAddress = how === 'none';
      try {
        this.render(this.ctx.fromView && onlyFocus(state, previous) ? 'first' : 'all');
      } finally {
        this.ctx.fromAddress = false;
      }
    });
    for (const query of ['(prefers-color-scheme: dark)', '(forced-colors: active)']) {
      matchMedia(query).addEventListener('change', () => this.applyTheme(this.store.get().theme));
    }
    // A window moved to a screen of another pixel ratio (or the system's scale changed) keeps its
    // size, so no resize comes: the painters' ratio (readTheme) changes, and every canvas is drawn again.
    const watchRatio = () => matchMedia(`(resolution: ${window.devicePixelRatio}dppx)`).addEventListener('change', () => {
      this.applyTheme(this.store.get().theme);
      watchRatio();
    }, { once: true });
    watchRatio();
    // Paper is white: the canvases drawn for printing (lazyDrawing) take the light theme's colours, as the CSS does.
    addEventListener('beforeprint', () => this.applyTheme('light'));
    addEventListener('afterprint', () => this.applyTheme(this.store.get().theme));
  }

  /** Light, dark or as the system (`auto`): the page's colours, and the painters' colours read from them. */
  applyTheme(theme) {
    const root = document.documentElement;
    if (theme === 'auto') delete root.dataset.theme;
    else root.dataset.theme = theme;
    const next = readTheme(root);
    if (JSON.stringify(next) === JSON.stringify(this.ctx.theme)) return;
    this.ctx.theme = next;
    for (const view of this.views ?? []) view.relayout?.();
  }

  /** Loads the wasm (the playground can start), then the vectors; a failure is told to every view. */
  async load() {
    const { ctx } = this;
    const hub = engineHub({ share: ctx.embed });
    // A widget that borrowed another's engine loads its own when that one
    // leaves the post (a blog that renders its posts again removes widgets).
    // What this frame hangs on the lender goes with this frame: the lender's
    // listeners would keep every removed widget's page alive (0.5 MB each).
    hub.lender?.addEventListener('pagehide', () => this.rehome(), { once: true, signal: this.leaving.signal });
    window.addEventListener('pagehide', (event) => {
      if (!event.persisted) this.leaving.abort(); // not a page kept for Back (bfcache), which may come back
    });
    if (!(await this.adopt(hub))) return;
    await this.shardsUnderWay();
    this.render();
    keepOffline(() => ctx.defaultEngine.vectors, this.store);
  }

  /**
   * Waits, at most SHARDS_UNDER_WAY_MS, for the shards the text needs when
   * every one of them is already on its way (start.js asked for them; the
   * default text's are preloaded, and come a few tasks later): drawing the
   * words as loading first cost a render and a frame, and the shards waited
   * behind them (the first heatmap came 9-60 ms after that render).
   */
  async shardsUnderWay() {
    const state = this.store.get();
    const { vectors } = this.ctx.engineFor(state) ?? this.ctx.engine;
    if (!vectors.loading || roughCut(state.sentence, this.ctx.wasm.maxTokens()) >= 0) return;
    const missing = vectors.missing(textsOf(state));
    const loads = missing.map((k) => vectors.loading.get(k));
    if (missing.length === 0 || !loads.every(Boolean)) return;
    await Promise.race([Promise.all(loads), new Promise((resolve) => setTimeout(resolve, SHARDS_UNDER_WAY_MS))]);
  }

  /** Loads this frame's own engine in place of the one it borrowed, and computes with it. */
  async rehome() {
    const { ctx } = this;
    const lent = ctx.defaultEngine;
    if (!(await this.adopt(ownEngineHub()))) return;
    if (ctx.engine === lent) this.useEngine(ctx.defaultEngine);
  }

  /** Takes the wasm and the default engine of `hub`; false (told to every view) if they fail to load. */
  async adopt(hub) {
    const { ctx } = this;
    try {
      ctx.wasm = await hub.wasm;
      for (const view of this.views) view.wasmReady?.(ctx.wasm);
      ctx.defaultEngine = await hub.engine;
      ctx.engine ??= ctx.defaultEngine;
    } catch (error) {
      for (const view of this.views) view.failed?.(error.message);
      document.documentElement.dataset.failed = '1';
      return false;
    }
    // Each shard that arrives or fails shows in the tokens, a few times a
    // second: a long text's hundred shards would redraw them every frame.
    // (The last one draws the analysis at once: fetch() renders then.) A
    // shard that nothing shown waits for (a nearest word's, after a click)
    // changes nothing here: the view that asked for it draws it.
    let timer = 0;
    let last = 0;
    const stop = ctx.defaultEngine.vectors.listen(() => {
      if (!this.shown?.pending && !this.shown?.tokens.some((t) => t.pending)) return;
      timer ||= setTimeout(() => {
        timer = 0;
        last = performance.now();
        ctx.refresh();
      }, Math.max(0, last + LOADING_REDRAW_MS - performance.now()));
    });
    this.leaving.signal.addEventListener('abort', stop, { once: true });
    return true;
  }

  /** Computes with `engine` from now on, and renders. */
  useEngine(engine) {
    this.switchEngine(engine);
    this.render();
  }

  /** Makes `engine` the current one (if it is not yet); the analysis of the previous one goes. */
  switchEngine(engine) {
    if (!engine || engine === this.ctx.engine) return;
    this.stopJob();
    this.ensuring = null; // the other engine's fetch no longer answers for this one
    this.complete?.free();
    this.complete = null;
    this.ctx.engine = engine;
  }

  /**
   * Draws the state in every visible view; `part` 'first' (a new focus
   * alone) draws a long text in the focusFirst views now and in the others
   * after the next frame ('rest'), unless a render of them all comes first.
   */
  render(part = 'all') {
    const state = this.store.get();
    // The vectors follow the state (Back to a link without the file: GloVe again).
    this.switchEngine(this.ctx.engineFor(state));
    const analysis = this.analysisFor(state);
    this.shown = analysis;
    if (part === 'first' && (analysis.pending || analysis.n <= FOCUS_FIRST_ABOVE)) part = 'all';
    if (part === 'first') this.oweRest();
    else this.restOwed = null;
    for (const view of this.views) {
      if (view.visible && !view.visible(state)) continue;
      if ((part === 'first' && !view.focusFirst) || (part === 'rest' && view.focusFirst)) continue;
      try {
        view.update(state, analysis);
      } catch (error) {
        // One view's bug must not take the others down: say it where developers look.
        console.warn(error);
      }
    }
  }

  /**
   * After a render of the focusFirst views alone: the others' render once
   * its frame is painted, or, in a run of new focuses, once the focus has
   * rested FOCUS_RUN_MS; a later render of every view makes it void.
   */
  oweRest() {
    const now = performance.now();
    const run = now - this.lastFirstAt < FOCUS_RUN_MS;
    this.lastFirstAt = now;
    const owed = {};
    this.restOwed = owed;
    const draw = () => {
      if (this.restOwed === owed) this.render('rest');
    };
    this.ctx.afterPaint(() => (run ? setTimeout(draw, FOCUS_RUN_MS) : draw()));
  }

  /** The analysis of `state`: kept while the sentence and options stay, a pending one while shards load. */
  analysisFor(state) {
    const { engine } = this.ctx;
    if (!engine) return { pending: true, tokens: [], n: 0, loading: true };
    const text = textsOf(state);
    // A long analysis of another text, or other options, is not worth finishing.
    if (this.running && !sameAnalysis(this.running.state, state)) this.stopJob();
    const { checked } = this;
    // Checked once per text, not on every render (a focus click, a slider);
    // again when a shard arrives only if one had failed (a retry can bring
    // words of this text): else every shard it needs was in already.
    if (checked?.engine !== engine || checked.text !== text || (!checked.settled && checked.version !== engine.vectors.version)) {
      // A text beyond the limit is cut: first roughly (before any shard is
      // fetched for it), then exactly after its last word that fits (below).
      const rough = roughCut(state.sentence, this.ctx.wasm.maxTokens());
      if (rough >= 0) return this.cut(state, rough);
      // While its shards are being fetched, the text is not ready (the
      // fetch renders once they are in): a redraw as each arrives need not
      // tokenize it once more to find out.
      if (this.ensuring === text || !engine.vectors.ready(text)) {
        this.fetchShards(text);
        if (this.ensuring !== text || performance.now() - this.ensuringSince < SLOW_SHARDS_MS) return this.pendingOf(state);
        // Slow shards: the rest of the text now, with what is in (checked again as each shard arrives).
        this.checked = { engine, version: engine.vectors.version, text, settled: false };
      } else {
        this.checked = { engine, version: engine.vectors.version, text, settled: engine.vectors.failed.size === 0 };
      }
    }
    const { complete, running } = this;
    // An analysis (or one being computed) that left out words still loading
    // (or failed) is redone once more shards are in.
    const answers = (result) => result?.engine === engine && sameAnalysis(result.state, state) &&
      (result.version === engine.vectors.version || !result.tokens.some((t) => t.pending));
    if (answers(complete)) {
      this.stopJob();
      return this.normalize(complete, state);
    }
    if (answers(running)) return running.shown;
    this.stopJob();
    const t0 = performance.now();
    const started = Analysis.start(engine, state);
    measureLatest('analyze', t0);
    // Too many known words: cut after the last that fits. Asked only when
    // the analysis fails, for it tokenizes the whole text again.
    const exact = started.error ? engine.explorer.knownCut(state.sentence, this.ctx.wasm.maxTokens()) : -1;
    if (exact >= 0) return this.cut(state, exact);
    if (started instanceof AnalysisJob) return this.runJob(started, engine.vectors.version);
    // The analysis it replaces is freed only now: views keep drawing it until then.
    complete?.free();
    this.complete = started;
    this.complete.version = engine.vectors.version;
    return this.normalize(this.complete, state);
  }

  /**
   * Computes a long text's analysis a slice at a time (a task each), then
   * draws it in a task of its own. Meanwhile the views keep what they show
   * and the status says how far it is; a change of the text or the options
   * stops it.
   */
  runJob(job, version) {
    job.version = version;
    job.shown = { pending: true, computing: job, tokens: job.tokens, n: 0, state: job.state };
    this.running = job;
    job.run((done) => {
      // The heatmap's bitmap (a million cells at 1,024 tokens) in a task of
      // its own too, then the views: each task stays short. Until the views'
      // task the job stays the one running, so that a render in between (a
      // shard's redraw, say) keeps showing "computing" rather than drawing
      // every view and the bitmap in one long task.
      job.result = done;
      job.timer = setTimeout(() => {
        done.prepare(this.store.get().palette);
        job.timer = setTimeout(() => {
          job.result = null;
          this.running = null;
          this.complete?.free();
          this.complete = done;
          done.version = version;
          this.render();
        }, 0);
      }, 0);
    });
    return job.shown;
  }

  /** Stops the analysis being computed, if any. */
  stopJob() {
    this.running?.free();
    this.running = null;
  }

  /**
   * Fetches what the text needs and renders again when it is in (and once
   * SLOW_SHARDS_MS have passed, without what is still out). Typing never
   * waits, and a word being typed costs one request once typing pauses, not
   * one for every prefix of it.
   */
  fetchShards(text) {
    const { vectors } = this.ctx.engine;
    if (this.ensuring !== text) {
      clearTimeout(this.fetchTimer);
      const current = () => textsOf(this.store.get()) === text;
      const fetch = () => {
        this.ensuring = text;
        this.ensuringSince = performance.now();
        clearTimeout(this.slowTimer);
        this.slowTimer = setTimeout(() => this.ensuring === text && current() && this.render(), SLOW_SHARDS_MS);
        vectors.ensure(text).then(() => {
          if (this.ensuring === text) this.ensuring = null;
          if (current()) this.render();
        });
      };
      // The pause counts from the last keystroke (ctx.keystroke, set by the
      // sentence box), not from the last frame: on a slow machine frames come
      // further apart than keys, and each would look like a pause. Keys still
      // waiting for their frame (ctx.inputPending) are not in `text` yet: their
      // frame either changes the text (and a new call replaces this timer) or
      // leaves it as it is (and this timer fetches it).
      const afterPause = () => {
        const wait = (this.ctx.keystroke ?? 0) + TYPING_PAUSE_MS - performance.now();
        if (wait > 0 || this.ctx.inputPending?.()) this.fetchTimer = setTimeout(afterPause, Math.max(wait, 16));
        else fetch();
      };
      if (this.ctx.typing) this.fetchTimer = setTimeout(afterPause, TYPING_PAUSE_MS);
      else fetch();
    }
  }

  /** What the views show while a text's shards are fetched: its tokens, the known words with the rows they will have. */
  pendingOf(state) {
    const { explorer } = this.ctx.engine;
    let tokens = [];
    try {
      tokens = tokensOf(explorer.tokenize(state.sentence));
    } catch {
      // The analysis will say what is wrong with the sentence.
    }
    // The known words get the rows the analysis will give them (their order
    // among the known ones), so that their chips stay the buttons they were
    // while a new word's shard loads: typing a word into a long text would
    // otherwise turn every chip into plain text and back.
    let row = 0;
    for (const t of tokens) if (t.known) t.row = row++;
    return { pending: true, tokens, n: 0, state };
  }

  /** Keeps the sentence up to UTF-16 index `at` (the link too), and says so where the sentence is typed. */
  cut(state, at) {
    const sentence = state.sentence.slice(0, at).trimEnd();
    const max = this.ctx.wasm.maxTokens();
    // What the cut leaves out, for the note and its Copy button: a writer's
    // text does not vanish without a trace. The box's cut at 20,000
    // characters (sentence.js), a rough cut and an exact one (analysisFor)
    // leave out one tail between them (ctx.lastCut: the last cut's text and tail).
    const { lastCut } = this.ctx;
    const before = lastCut?.sentence === state.sentence ? lastCut.removed : '';
    const removed = state.sentence.slice(sentence.length) + before;
    this.ctx.lastCut = { sentence, removed, max, said: false };
    // The first `max` known words keep their rows: so do the focus and cell among them.
    const kept = state.focus !== null && state.focus < max;
    queueMicrotask(() => this.store.update({ sentence, focus: kept ? state.focus : null, cell: kept && state.cell < max ? state.cell : null }, 'replace'));
    return { pending: true, tokens: [], n: 0, state };
  }

  /**
   * A focus or cell beyond the new matrix is dropped, in the link too; not
   * while the link waits for the file of vectors it was made with (GloVe may
   * know fewer of its words): views/source.js judges them when it is picked.
   */
  normalize(analysis, state) {
    if (state.vectors && this.ctx.engine?.source?.name !== state.vectors) return analysis;
    // An analysis that failed has no rows to judge the focus by: a link's
    // words that could not arrive (offline) keep their focus for when they do.
    if (analysis.error) return analysis;
    const n = analysis.n;
    // A link's focus or cell past its text is named, whatever view is open (an embed's heatmap alone too).
    this.checkLink ??= linkCheck(this.ctx);
    this.checkLink([indexProblem('focus', state.focus, n, 'word'), state.focus < n && indexProblem('cell', state.cell, n, 'key')]);
    if ((state.focus !== null && state.focus >= n) || (state.cell !== null && (state.focus === null || state.cell >= n))) {
      const focus = state.focus !== null && state.focus < n ? state.focus : null;
      queueMicrotask(() => this.store.update({ focus, cell: null }, 'replace'));
    }
    return analysis;
  }
}

/**
 * Starts a page. `views` is a list of mount functions `(ctx) => view`;
 * `embed` for the embed page (no history entries); `onHash(hash)` hears
 * every hash the page writes.
 */
export async function startPage({ views, embed = false, onHash = () => {} }) {
  const page = new Page(views, { embed, onHash });
  page.render();
  await page.load();
  return page;
}

/** How long the user leaves the page alone before the service worker installs. */
const OFFLINE_QUIET_MS = 4000;

/**
 * Registers the service worker (sw.js) after the first heatmap, so that the
 * page opens without the network from then on. The worker keeps every file
 * of the app and takes control of this visit as it starts; the word-vector
 * files that `vectors()` (the default store, read when needed: a widget may trade a borrowed one for its own) fetched before that are named to
 * it, and it keeps them too, as it keeps the model's WebAssembly fetched before then (`fetchedEarly`). Its install fetches and stores about 70 files:
 * on a 2-core machine, done while someone types, it made each keystroke's
 * frame 5-8 ms later (scripts/bench-page), so it waits for a pause
 * (OFFLINE_QUIET_MS without a key, click, wheel or touch, and without a
 * change of `store`'s state: a link followed, Back), then for an idle moment.
 * A worker of the site's own at the same scope is left in place (no offline use then).
 */
function keepOffline(vectors, store) {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  const workers = navigator.serviceWorker;
  if (!workers.controller) {
    workers.addEventListener('controllerchange', () => {
      workers.controller?.postMessage({ type: 'keep', urls: [...vectors().arrived, ...fetchedEarly] });
    }, { once: true });
  }
  const input = new AbortController();
  let unsubscribe = null;
  const register = async () => {
    input.abort();
    unsubscribe();
    // A scope holds one worker: deployed at a site's root whose own pages (a
    // blog) have a worker there, registering this one would replace it, and
    // the site's would replace it back at the next visit of its pages. The
    // site's is left alone: the page then works online, without offline use.
    const scope = siteFile('').href;
    const found = await workers.getRegistration(scope).catch(() => null);
    const script = (found?.active ?? found?.waiting ?? found?.installing)?.scriptURL;
    if (found?.scope === scope && script && script !== siteFile('sw.js').href) return;
    workers.register(siteFile('sw.js')).catch(() => {});
  };
  let timer = 0;
  const wait = () => {
    clearTimeout(timer);
    timer = setTimeout(() => whenIdle(register, 3000), OFFLINE_QUIET_MS);
  };
  for (const type of ['keydown', 'pointerdown', 'wheel', 'touchstart']) {
    window.addEventListener(type, wait, { capture: true, passive: true, signal: input.signal });
  }
  unsubscribe = store.subscribe(wait);
  wait();
}
