// The DOM helpers every view shares. Text reaches the page only as
// `textContent` or form values, never as HTML.

/** Creates an element with text content (never HTML) and optional classes. */
export function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** A new `<canvas>` of `width` × `height` pixels. */
export function newCanvas(width, height) {
  return Object.assign(document.createElement('canvas'), { width, height });
}

/** Sets `element[property]` only when it differs: writing the same value would still invalidate style or layout. */
export function put(element, property, value) {
  if (element && element[property] !== value) element[property] = value;
}

/**
 * Shows `value` in a text or number field, unless the field has the focus:
 * what the user is typing there is not committed yet, and a redraw for
 * something else (a shard arriving) must not undo it. `anyway`: the value
 * came from the address (Back, Forward), which the field must show even
 * with the focus: the numbers beside it are the address's.
 */
export function putField(field, value, anyway = false) {
  if (field && (anyway || document.activeElement !== field)) put(field, 'value', value);
}

/**
 * Sets the text of `node`, changing the characters of its one text node when
 * it has one (so the node keeps its place: the browser re-lays out the text
 * alone); returns `node`.
 */
export function putText(node, value) {
  const only = node.firstChild;
  if (only && only === node.lastChild && only.nodeType === Node.TEXT_NODE) put(only, 'data', value);
  else node.textContent = value;
  return node;
}

/**
 * Makes `nodes` the children of `parent`, moving only those out of place.
 * The children that go are removed first, so that the ones that stay, in
 * the same order, never move: moving a node takes the keyboard focus off it
 * (the token strip's "Show fewer" button, after the 944 chips before it go).
 */
export function setChildren(parent, nodes) {
  const kept = new Set(nodes);
  for (const child of [...parent.childNodes]) if (!kept.has(child)) child.remove();
  nodes.forEach((node, k) => {
    const at = parent.childNodes[k];
    if (at !== node) parent.insertBefore(node, at ?? null);
  });
}

/**
 * Runs `redraw()`; if it takes the keyboard focus from inside `within` (the
 * focused element removed or moved: the focus falls to <body>), gives it back
 * to that element if it is still there, else to `fallback()` (an element, or
 * null to leave it). A screen reader user is not sent back to the page's top.
 */
export function keepingFocus(within, redraw, fallback) {
  const had = document.activeElement;
  const inside = had !== document.body && within.contains(had);
  redraw();
  if (!inside || (document.activeElement && document.activeElement !== document.body)) return;
  const next = had.isConnected && within.contains(had) ? had : fallback();
  next?.focus({ preventScroll: true });
}

/** Sets or removes an attribute only when it differs. */
export function attr(element, name, value) {
  if (!element) return;
  if (value === null || value === false) {
    if (element.hasAttribute(name)) element.removeAttribute(name);
  } else if (element.getAttribute(name) !== String(value)) {
    element.setAttribute(name, String(value));
  }
}

/** A labelled form control: `<label><span>text</span> input <small>hint</small></label>`. */
export function control(labelText, input, hint) {
  const label = el('label', null, 'teach-control');
  label.append(el('span', labelText), input);
  if (hint) label.append(el('small', hint, 'muted'));
  return label;
}

/** An `<input>` (or `<textarea>`) with an id and attributes. */
export function input(type, id, attrs = {}) {
  const node = el(type === 'textarea' ? 'textarea' : 'input');
  if (type !== 'textarea') node.type = type;
  node.id = id;
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

/**
 * Wraps a wide table so that it scrolls sideways instead of widening the
 * page. A table with nothing focusable in it gets a `label`: its box is then
 * a Tab stop of that name, which the arrow keys scroll (WCAG 2.1.1: on a
 * phone these tables are wider than the screen).
 */
export function scrolling(table, className = 'steps-scroll', label = null) {
  const box = el('div', null, className);
  if (label) {
    box.tabIndex = 0;
    box.setAttribute('role', 'group');
    box.setAttribute('aria-label', label);
  }
  box.append(table);
  return box;
}

/** Copies text, with a fallback where the async clipboard is unavailable. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = el('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'offscreen';
    document.body.append(area);
    area.select();
    let ok;
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    area.remove();
    return ok;
  }
}

/** Offers `blob` as a download named `name`. */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = el('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/** How long after the last key typed a live region speaks: once typing pauses, longer than the gap between a steady typist's keys. */
const SAID_AFTER_TYPING_MS = 500;

/** Milliseconds until the keys typed in the sentence box (`ctx.typing`) have paused SAID_AFTER_TYPING_MS; 0 once they have. */
export function untilTypingPauses(ctx) {
  return ctx.typing ? Math.max(0, (ctx.keystroke ?? 0) + SAID_AFTER_TYPING_MS - performance.now()) : 0;
}

/**
 * The live region `region`: `say(text)` puts `text` there when it differs
 * from what was said last (a focus click, a slider step, says nothing
 * again), and, while the sentence is being typed (`ctx.typing`), only once
 * the keys pause: a screen reader would otherwise hear a result per key.
 * `say(null)` drops a text still waiting; `say('')` empties the region
 * silently, so that the next text is said whatever it is.
 */
export function announcer(ctx, region) {
  let said = '';
  let timer = 0;
  const write = (text) => {
    said = text;
    put(region, 'textContent', text);
  };
  // Counted from the last key at each try: a key typed while the text waited puts it off again.
  const attempt = (text) => {
    const wait = untilTypingPauses(ctx);
    if (wait > 0 && text) timer = setTimeout(() => attempt(text), wait);
    else write(text);
  };
  return (text) => {
    clearTimeout(timer);
    if (region && text !== null && text !== said) attempt(text);
  };
}
