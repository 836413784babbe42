// <attention-viz>: Attention Explorer as one element for a blog post. A
// classic script (no type="module"), so it runs from any site without the
// host of this file sending a CORS header:
//
//   <script src="https://YOUR-SITE/attention-viz.js" defer></script>
//   <attention-viz sentence="The cat sat on the mat because it was tired" focus="7" theme="dark">
//     <a href="https://YOUR-SITE/#s=The%20cat…">The cat sat on the mat… in Attention Explorer</a>
//   </attention-viz>
//
// The element shows the embed page (embed.html, from the same site as this
// script) in an iframe, so the post's styles and scripts and the widget's
// stay apart. The iframe is the element's own child, slotted into a shadow
// root that hides the element's content: that content (the link above) is
// what a reader sees without JavaScript, and the iframes of the widgets of
// one post stay in the page's frame tree, where they find each other and
// share one engine (www/js/engine.js). The iframe reports its height and the
// element applies it, accepting that message from the widget's own origin and
// iframe only. Attributes (every one optional):
//
//   sentence, no-self, causal, no-scale, temperature, focus, view, theme
//   (light | dark | auto), palette (viridis | cividis | greys), threshold,
//   zoom, model-layer, model-head, units, no-special, height (px, before the
//   widget reports its own), and any key of the share link under its own
//   name (s, t, pal, lab, b, h, head, …; docs/share-links.md lists them).
//   The frame is named for screen readers by the element's aria-label or
//   title, else by its sentence.
//
// Attribute values are untrusted: they only ever go into the iframe's URL
// hash (encoded), where the embed page reads them like any link and says
// which it did not understand. A failure draws its message inside the
// element's own box; nothing here throws into the host page.
// A block, not a module: its names stay out of the post's global scope.
{
  // The site this script comes from: its embed page is next to it.
  const script = document.currentScript;
  const EMBED = new URL('embed.html', script?.src || location.href).href;
  const ORIGIN = new URL(EMBED).origin;
  const HEIGHT = 'attention-explorer:height';
  const READY = 'attention-explorer:ready';
  const RESIZE = 'attention-explorer:resize';
  const SLOT = 'attention-explorer-frame';
  // The embed page says it started while it loads (its modules run before its
  // load event), so a frame loaded this long ago that has not said so never
  // will: its site forbids framing it (X-Frame-Options, frame-ancestors) and
  // the browser drew its "refused to connect" box instead.
  const SILENT_MS = 5000;
  // Friendly attribute names and the link keys they write (state.js documents the keys).
  // Maps, not objects: an author's attribute named `constructor` or `__proto__` must find nothing.
  const NAMED = new Map(Object.entries({
    sentence: 's', temperature: 't', palette: 'pal', threshold: 'th', 'model-layer': 'mlayer', 'model-head': 'mhead',
    focus: 'focus', view: 'view', theme: 'theme', zoom: 'zoom', units: 'units',
  }));
  const FLAGS = new Map(Object.entries({
    'no-self': ['self', '0'], causal: ['causal', '1'], 'no-scale': ['scale', '0'], special: ['special', '1'], 'no-special': ['special', '0'],
  }));
  // A longer sentence or sentence B is cut before it goes into the frame's
  // address (250,000 characters made a 2 MB address, which the frame never
  // loaded), past the page's own limit (state.js MAX_SENTENCE_LENGTH, 20,000),
  // so that the page still cuts it and says where.
  const TEXT_MAX = 20100;
  const CSS = ':host{display:block;margin:1em 0}' +
    'p{font:14px/1.4 system-ui,sans-serif;padding:12px;border:1px dashed #c2410c;border-radius:8px;margin:0}';
  let sheet = null;

  /**
   * Gives shadow root `root` the element's styles: a constructed style sheet,
   * one for every widget, which a post's Content-Security-Policy without
   * 'unsafe-inline' styles allows (a <style> was refused and reported at every
   * view); in a browser without them, the <style> returned, to put in `root`.
   */
  function styled(root) {
    try {
      if (!sheet) {
        sheet = new CSSStyleSheet();
        sheet.replaceSync(CSS);
      }
      root.adoptedStyleSheets = [sheet];
      return [];
    } catch {
      const style = document.createElement('style');
      style.textContent = CSS;
      return [style];
    }
  }
  const KEYS = ['s', 'self', 'causal', 'scale', 't', 'focus', 'cell', 'th', 'pal', 'theme', 'zoom', 'view', 'vec', 'lab', 'lf', 'lc', 'pad',
    'h', 'hm', 'seed', 'head', 'hide', 'b', 'pq', 'pk', 'pv', 'pwq', 'pwk', 'pwv', 'pn', 'pdk', 'model', 'mlayer', 'mhead', 'units',
    'special', 'mfocus', 'mq', 'mk', 'mrank', 'mcell', 'mflow', 'quiz'];

  /** A string safe to put in a URL: lone halves of an emoji become U+FFFD. */
  function wellFormed(text) {
    const s = String(text);
    if (typeof s.toWellFormed === 'function') return s.toWellFormed();
    return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/g, function (m) {
      return m.length === 2 ? m[0] + '\uFFFD' : '\uFFFD';
    });
  }

  /**
   * The link hash an element's attributes describe. Two attributes that set
   * one key differently (sentence= and s=, no-self and self=1): the later
   * one is used, and `conflict(first, later)` hears of it.
   */
  function hashOf(element, conflict) {
    const params = new URLSearchParams();
    const from = {}; // key → the attribute that set it
    for (const attribute of element.attributes) {
      const name = attribute.name.toLowerCase();
      const value = wellFormed(attribute.value.length > TEXT_MAX ? attribute.value.slice(0, TEXT_MAX) : attribute.value);
      let [key, setting] = FLAGS.get(name) || (NAMED.has(name) ? [NAMED.get(name), value] : KEYS.includes(name) ? [name, value] : []);
      if (!key) continue;
      // A flag set to "0" or "false" is off, as a link's causal=0 is: no-self="false" leaves self-attention on.
      const off = FLAGS.has(name) && /^\s*(0|false)\s*$/i.test(value);
      if (off && !KEYS.includes(name)) continue;
      if (off) setting = '0';
      if (params.has(key) && params.get(key) !== setting) conflict(from[key], name);
      params.set(key, setting);
      from[key] = name;
    }
    if (params.has('mlayer') || params.has('mhead') || params.has('units') || /^(model|head)$/.test(params.get('view') || '')) params.set('model', '1');
    return '#' + params.toString().replace(/\+/g, '%20');
  }

  /** The frame's name for a screen reader: its sentence, cut short, so that each widget of a post has its own. */
  function titleOf(sentence) {
    const text = String(sentence || '').replace(/\s+/g, ' ').trim();
    if (!text) return 'Attention Explorer: attention weights of a sentence';
    const words = Array.from(text);
    return `Attention Explorer: attention weights of “${words.length > 60 ? words.slice(0, 59).join('') + '…' : text}”`;
  }

  function pixels(value, fallback) {
    const n = Number(value);
    return Number.isFinite(n) && n >= 120 && n <= 4000 ? Math.round(n) : fallback;
  }

  class AttentionViz extends HTMLElement {
    static get observedAttributes() {
      return [...NAMED.keys(), ...FLAGS.keys(), ...KEYS, 'height', 'aria-label', 'title'];
    }

    constructor() {
      super();
      this._frame = null;
      this._src = null; // the address the frame was last sent to
      this._loaded = false; // whether the frame has loaded a page since it was put in this element
      this._started = false; // whether the page the frame was last sent to has said it started
      this._silence = 0; // the timer that gives up on a frame that loaded without starting
      this._warned = new Set(); // the pairs of conflicting attributes already told
      this._onMessage = (event) => this._message(event);
      this._onViolation = (event) => this._refused(event);
      try {
        const root = this.attachShadow({ mode: 'open' });
        const slot = document.createElement('slot');
        slot.name = SLOT;
        root.append(...styled(root), slot);
        this._frame = this._newFrame();
      } catch (error) {
        this._fail(error);
      }
    }

    /** An iframe for the embed page, not yet in the element, with no address yet. */
    _newFrame() {
      const frame = document.createElement('iframe');
      frame.slot = SLOT;
      frame.loading = 'lazy';
      // A post that is cross-origin isolated (COOP and COEP) takes frames of other sites only credentialless.
      if (window.crossOriginIsolated) frame.credentialless = true;
      // Inline and important, so that the post's own styles for iframes (a theme's
      // `iframe { height: auto !important; aspect-ratio: 16/9 }`) do not reach this one.
      frame.style.cssText = ['display:block', 'width:100%', 'max-width:none', 'min-width:0', 'max-height:none', 'min-height:0',
        'aspect-ratio:auto', 'border:0', 'margin:0', 'padding:0', 'color-scheme:normal'].map((rule) => `${rule} !important`).join(';');
      frame.addEventListener('load', () => {
        this._loaded = true;
        // The embed page then takes its natural height, and reports it.
        frame.contentWindow?.postMessage({ type: RESIZE }, ORIGIN);
        clearTimeout(this._silence);
        if (!this._started) this._silence = setTimeout(() => this._silent(frame), SILENT_MS);
      });
      return frame;
    }

    connectedCallback() {
      window.addEventListener('message', this._onMessage);
      document.addEventListener('securitypolicyviolation', this._onViolation);
      // An iframe copied from another widget (cloneNode, a post saved as HTML) is not this one's: one shows.
      for (const child of Array.from(this.children)) {
        if (child !== this._frame && child.localName === 'iframe' && child.slot === SLOT) child.remove();
      }
      if (!this._frame) return;
      // Put in: it loads its src then, which is made first (a lazy frame, once near the screen).
      this._src = null;
      this._loaded = false;
      this._load();
      if (this._frame) this.append(this._frame);
    }

    // Moved with moveBefore(), the frame keeps its page: nothing to load again.
    connectedMoveCallback() {}

    disconnectedCallback() {
      clearTimeout(this._silence);
      window.removeEventListener('message', this._onMessage);
      document.removeEventListener('securitypolicyviolation', this._onViolation);
      // Put back in the post (moved, or removed and added again), this frame
      // would load its src attribute again, at once even far off screen; and a
      // change after its first load left that attribute behind (_load replaces
      // the frame's address instead). So the element takes a new frame, which
      // connectedCallback sends to the current address: a new frame's first
      // page adds no entry to the post's history. It keeps the reported
      // height, so the post does not jump.
      try {
        const frame = this._frame;
        if (!frame) return;
        this._frame = this._newFrame();
        this._frame.style.setProperty('height', frame.style.getPropertyValue('height'), 'important');
        frame.remove();
      } catch (error) {
        this._fail(error);
      }
    }

    /** The post's Content-Security-Policy refused the widget's frame: say so, and show the element's own content. */
    _refused(event) {
      if (!this._frame || !/^(frame|child|default)-src/.test(event.effectiveDirective || '')) return;
      if (String(event.blockedURI || '').indexOf(ORIGIN) !== 0) return;
      this._fail(new Error(`this page's Content-Security-Policy (${event.effectiveDirective}) does not allow frames from ${ORIGIN}`));
    }

    /** The frame loaded a page that never said it started: the widget's site refused the frame, most likely. */
    _silent(frame) {
      if (frame !== this._frame || this._started) return;
      this._fail(new Error(`its frame never started: the site ${ORIGIN} may forbid framing its pages (X-Frame-Options or frame-ancestors), or this page's Cross-Origin-Embedder-Policy may refuse frames of other sites`));
    }

    // Set again to the value it has, an attribute is sent again too: the
    // reader may have changed the widget since (a click on a word), and the
    // post's script (a "Show queen" button) wants its value back.
    attributeChangedCallback() {
      if (this.isConnected) this._load(true);
    }

    _load(again = false) {
      try {
        if (!this._frame) return;
        if (!this._frame.style.height) this._frame.style.setProperty('height', `${pixels(this.getAttribute('height'), 560)}px`, 'important');
        this._frame.title = this.getAttribute('aria-label') || this.getAttribute('title') || titleOf(this.getAttribute('sentence') || this.getAttribute('s'));
        const src = EMBED + hashOf(this, (first, later) => this._conflict(first, later));
        if (src === this._src && !(again && this._loaded && this._frame.contentWindow)) return;
        // A change once the frame has loaded replaces its address: a new src
        // would add an entry to the post's history, and the reader's Back
        // would step the widget back instead of leaving the post. Before
        // that (a lazy frame not yet scrolled near), its src is what it loads.
        if (this._loaded && this._frame.contentWindow) this._frame.contentWindow.location.replace(src);
        else this._frame.src = src;
        this._src = src;
        this._started = false;
      } catch (error) {
        this._fail(error);
      }
    }

    /** Tells the post's author, once per pair, which of two conflicting attributes is used. */
    _conflict(first, later) {
      const pair = first + ' ' + later;
      if (this._warned.has(pair)) return;
      this._warned.add(pair);
      console.warn(`<attention-viz>: the attributes ${first} and ${later} set the same thing differently; ${later}, the later one, is used.`);
    }

    _message(event) {
      const frame = this._frame;
      // Only our own iframe, from the widget's own site, may size us.
      if (!frame || event.source !== frame.contentWindow || event.origin !== ORIGIN) return;
      const data = event.data;
      if (data && data.type === READY) {
        this._started = true;
        clearTimeout(this._silence);
        frame.contentWindow.postMessage({ type: RESIZE }, ORIGIN);
      }
      if (data && data.type === HEIGHT && typeof data.height === 'number' && Number.isFinite(data.height) && data.height > 0) {
        frame.style.setProperty('height', `${Math.min(Math.ceil(data.height), 20000)}px`, 'important');
      }
    }

    _fail(error) {
      try {
        const p = document.createElement('p');
        p.textContent = `Attention Explorer could not start here: ${error?.message ?? String(error)}`;
        this._frame?.remove();
        this._frame = null;
        // The element's own content (the snippet's link to the full page) shows under the message.
        const root = this.shadowRoot ?? this.attachShadow({ mode: 'open' });
        root.replaceChildren(...root.querySelectorAll('style'), p, document.createElement('slot'));
      } catch {
        // Nothing more can be done without touching the host page.
      }
    }
  }

  try {
    if (window.customElements && !customElements.get('attention-viz')) customElements.define('attention-viz', AttentionViz);
  } catch {
    // Another script took the name: leave the post as it is.
  }
}
