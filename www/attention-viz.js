// <attention-viz>: Attention Explorer as one custom element, for blog posts.
//
//   <script type="module" src="https://…/attention-viz.js"></script>
//   <attention-viz sentence="The cat sat on the mat because it was tired"
//                  no-self causal no-scale temperature="2" focus="7"></attention-viz>
//
// The element hosts the embed page (embed.html, from the same site as this
// script) in an iframe inside its shadow root, so the host page's styles and
// scripts and the widget's stay apart, and sizes the iframe to the height
// the embed page reports. Nothing is loaded from anywhere else.

import { DEFAULT_SENTENCE, formatHash, TEMPERATURE_MAX, TEMPERATURE_MIN } from './js/state.js';

const EMBED_URL = new URL('embed.html', import.meta.url);
const HEIGHT_MESSAGE = 'attention-explorer:height';

export class AttentionViz extends HTMLElement {
  static observedAttributes = ['sentence', 'no-self', 'causal', 'no-scale', 'temperature', 'focus'];

  #frame;
  #onMessage = (event) => {
    if (event.source !== this.#frame.contentWindow) return;
    const data = event.data;
    if (data && data.type === HEIGHT_MESSAGE && Number.isFinite(data.height) && data.height > 0) {
      this.#frame.style.height = `${Math.min(Math.ceil(data.height), 20000)}px`;
    }
  };

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    style.textContent = ':host{display:block}iframe{display:block;width:100%;height:560px;border:0}';
    this.#frame = document.createElement('iframe');
    this.#frame.title = 'Attention Explorer';
    this.#frame.loading = 'lazy';
    root.append(style, this.#frame);
  }

  /** The URL hash (share format) that the attributes describe. */
  get hash() {
    const temperature = Number(this.getAttribute('temperature'));
    const focus = this.getAttribute('focus');
    return formatHash({
      sentence: this.getAttribute('sentence') ?? DEFAULT_SENTENCE,
      self: !this.hasAttribute('no-self'),
      causal: this.hasAttribute('causal'),
      scale: !this.hasAttribute('no-scale'),
      temperature: Number.isFinite(temperature) && temperature >= TEMPERATURE_MIN && temperature <= TEMPERATURE_MAX ? temperature : 1,
      focus: focus !== null && /^\d{1,6}$/.test(focus) ? Number(focus) : null,
    });
  }

  connectedCallback() {
    window.addEventListener('message', this.#onMessage);
    this.#load();
  }

  disconnectedCallback() {
    window.removeEventListener('message', this.#onMessage);
  }

  attributeChangedCallback() {
    if (this.isConnected) this.#load();
  }

  #load() {
    const src = EMBED_URL.href + this.hash;
    if (this.#frame.src !== src) this.#frame.src = src;
  }
}

if (!customElements.get('attention-viz')) customElements.define('attention-viz', AttentionViz);
