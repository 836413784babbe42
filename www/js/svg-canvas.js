// A 2D context that writes SVG: the few calls of paint.js's painters that
// draw strokes, rectangles and text (paintArrows, paintOverlay), recorded as
// SVG elements, so that a picture of the arrows, or a heatmap's focus, is
// drawn by the same code on the screen and in the downloaded SVG. Text is
// measured by a real canvas context in the same font, so that labels are
// cut where the screen cuts them.

// XML allows neither most control characters, nor U+FFFE and U+FFFF, nor half an emoji: a
// sentence holding one would make a file no viewer opens. Each becomes U+FFFD.
// eslint-disable-next-line no-control-regex -- the control characters are what it finds
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** Text for an XML attribute or element: & < > " escaped, what XML cannot hold replaced. */
export const xml = (text) => String(text).replace(NOT_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const ANCHORS = { left: 'start', start: 'start', right: 'end', end: 'end', center: 'middle' };
const BASELINES = { middle: 'middle', top: 'hanging', hanging: 'hanging', bottom: 'text-after-edge', alphabetic: 'auto' };

/** A number as an attribute writes it: at most two decimals. */
const num = (x) => String(Math.round(x * 100) / 100);

/**
 * The attributes of paint `name` ('fill' or 'stroke') in CSS colour `colour`
 * at opacity `alpha`: an rgba() (the theme's focus band) is written as rgb()
 * and an opacity, which every SVG editor reads.
 */
function paint(name, colour, alpha) {
  const rgba = /^rgba\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*\)$/.exec(colour);
  const opacity = alpha * (rgba ? Number(rgba[4]) : 1);
  const shown = rgba ? `rgb(${rgba[1]},${rgba[2]},${rgba[3]})` : colour;
  return `${name}="${xml(shown)}"${opacity < 1 ? ` ${name}-opacity="${num(opacity)}"` : ''}`;
}

export class SvgContext {
  font = '10px sans-serif';
  fillStyle = '#000';
  strokeStyle = '#000';
  globalAlpha = 1;
  lineWidth = 1;
  lineCap = 'butt';
  textAlign = 'start';
  textBaseline = 'alphabetic';
  #path = [];
  #measure;

  #family;

  /**
   * `measure`: a canvas 2D context, for measureText; `family`: the font
   * family of the group the parts go in, which their text then leaves out.
   */
  constructor(measure, family = null) {
    this.#measure = measure;
    this.#family = family;
    this.parts = [];
  }

  measureText(text) {
    this.#measure.font = this.font;
    return this.#measure.measureText(text);
  }

  // The painters clear their canvas first; an SVG starts empty.
  clearRect() {}

  beginPath() {
    this.#path = [];
  }

  moveTo(x, y) {
    this.#path.push(`M${num(x)} ${num(y)}`);
  }

  lineTo(x, y) {
    this.#path.push(`L${num(x)} ${num(y)}`);
  }

  bezierCurveTo(x1, y1, x2, y2, x, y) {
    this.#path.push(`C${[x1, y1, x2, y2, x, y].map(num).join(' ')}`);
  }

  stroke() {
    if (!this.#path.length) return;
    const opacity = this.globalAlpha < 1 ? ` stroke-opacity="${num(this.globalAlpha)}"` : '';
    this.parts.push(`<path d="${this.#path.join('')}" fill="none" stroke="${xml(this.strokeStyle)}" stroke-width="${num(this.lineWidth)}" stroke-linecap="${xml(this.lineCap)}"${opacity}/>`);
  }

  fillRect(x, y, width, height) {
    this.parts.push(`<rect x="${num(x)}" y="${num(y)}" width="${num(width)}" height="${num(height)}" ${paint('fill', this.fillStyle, this.globalAlpha)}/>`);
  }

  strokeRect(x, y, width, height) {
    this.parts.push(`<rect x="${num(x)}" y="${num(y)}" width="${num(width)}" height="${num(height)}" fill="none" ${paint('stroke', this.strokeStyle, this.globalAlpha)} stroke-width="${num(this.lineWidth)}"/>`);
  }

  fillText(text, x, y) {
    // "bold 12px system-ui, sans-serif", as paint.js font() writes it.
    const [, weight = 'normal', size = '10', family = 'sans-serif'] = this.font.match(/^(\S+) ([\d.]+)px (.+)$/) ?? [];
    const anchor = ANCHORS[this.textAlign] ?? 'start';
    const baseline = BASELINES[this.textBaseline] ?? 'auto';
    const attrs = [
      `x="${num(x)}"`, `y="${num(y)}"`, `font-size="${size}"`, family !== this.#family ? `font-family="${xml(family)}"` : '',
      weight !== 'normal' ? `font-weight="${xml(weight)}"` : '', anchor !== 'start' ? `text-anchor="${anchor}"` : '',
      baseline !== 'auto' ? `dominant-baseline="${baseline}"` : '', `fill="${xml(this.fillStyle)}"`,
      this.globalAlpha < 1 ? `fill-opacity="${num(this.globalAlpha)}"` : '',
    ];
    this.parts.push(`<text ${attrs.filter(Boolean).join(' ')}>${xml(text)}</text>`);
  }
}
