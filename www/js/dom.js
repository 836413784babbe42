// The one DOM helper every view shares. Text reaches the page only as
// `textContent`, never as HTML.

/** Creates an element with text content (never HTML) and optional classes. */
export function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (className) node.className = className;
  return node;
}
