//! Geometry of the page's two views as plain functions of the data: where
//! every heatmap cell, label and colorbar goes, which cell a pointer is over,
//! where the curves of the arrows view run, and the colormap that turns a
//! weight into a colour. Nothing here draws; a painter reads these numbers.
//!
//! Conventions:
//! - Coordinates are CSS pixels, origin at the top left, `y` down.
//! - The heatmap shows query rows `i` down and key columns `j` across, one
//!   square cell each; weights are row-major `(rows, cols)` as in
//!   [`crate::Attention`].
//! - Colours map `weight / scale_max` through a perceptually uniform,
//!   colour-blind-safe gradient (viridis by default). Masked cells get
//!   alpha 0 in the bitmap so that the painter's hatching shows through.

/// An axis-aligned rectangle.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl Rect {
    /// Whether the point lies inside (left and top edges included, right and
    /// bottom excluded, so neighbouring cells never both claim a point).
    pub fn contains(&self, x: f64, y: f64) -> bool {
        x >= self.x && x < self.x + self.width && y >= self.y && y < self.y + self.height
    }

    pub fn right(&self) -> f64 {
        self.x + self.width
    }

    pub fn bottom(&self) -> f64 {
        self.y + self.height
    }
}

/// Sizes that decide the heatmap's geometry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeatmapSpec {
    /// Number of query rows.
    pub rows: usize,
    /// Number of key columns.
    pub cols: usize,
    /// Width available to the whole view, CSS pixels.
    pub width: f64,
    /// Width of the widest token label as the painter measures it.
    pub label_width: f64,
    /// Font size of the labels, CSS pixels.
    pub font_size: f64,
}

/// Largest cell side: beyond this a short sentence would look bloated.
pub const MAX_CELL: f64 = 48.0;
/// Gap between labels and cells, and around the colorbar.
pub const GAP: f64 = 6.0;
/// Room the painters keep between a label and the canvas's edge.
pub const LABEL_EDGE: f64 = 2.0;
/// Width of the colour strip of the colorbar.
pub const COLORBAR_STRIP: f64 = 12.0;
/// Smallest height of the colorbar, so its ticks stay readable for one token.
pub const MIN_COLORBAR_HEIGHT: f64 = 120.0;
/// Room for the colorbar's tick labels, in font sizes: six characters, such
/// as "0.0025" (the painter writes at most 4 decimals: a long text's weights
/// are thousandths), after the tick mark.
pub const TICK_LABEL_EMS: f64 = 3.6;

/// Where everything of the heatmap goes.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatmapLayout {
    pub rows: usize,
    pub cols: usize,
    /// Side of one square cell.
    pub cell: f64,
    /// The cells, `rows · cell` high and `cols · cell` wide.
    pub matrix: Rect,
    /// The query labels, right-aligned against the matrix.
    pub row_labels: Rect,
    /// The key labels, written upwards (rotated −90°) above the matrix.
    pub column_labels: Rect,
    /// The colour strip; its tick labels go to its right.
    pub colorbar: Rect,
    /// Whether cells are tall enough to carry a label each. When they are
    /// not, the painter labels only the focused and hovered row and column.
    pub labels_shown: bool,
    /// Whether cells are large enough to print their weight inside.
    pub values_shown: bool,
    /// Total size of the view.
    pub width: f64,
    pub height: f64,
}

/// What a point of the heatmap is over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hit {
    /// The cell of query `row` and key `col`.
    Cell { row: usize, col: usize },
    /// The label of query row `row`.
    RowLabel(usize),
    /// The label of key column `col`.
    ColumnLabel(usize),
    /// Anything else.
    Nothing,
}

impl HeatmapLayout {
    /// Fits the matrix, its labels and the colorbar into `spec.width`.
    pub fn new(spec: &HeatmapSpec) -> Self {
        let rows = spec.rows;
        let cols = spec.cols;
        let font = finite_or(spec.font_size, 12.0).clamp(6.0, 48.0);
        let width = finite_or(spec.width, 320.0).max(60.0);
        let label_width = finite_or(spec.label_width, 0.0).clamp(0.0, width * 0.35);
        // Room for the colorbar strip and its tick labels.
        let colorbar_room = GAP * 2.0 + COLORBAR_STRIP + font * TICK_LABEL_EMS;
        let fit = |gutter: f64| {
            let free = (width - gutter - colorbar_room).max(1.0);
            (free / cols.max(rows).max(1) as f64).min(MAX_CELL)
        };
        // Labels need a cell at least as tall as the text. A label is drawn
        // GAP from the cells and LABEL_EDGE from the edge: without that edge,
        // the widest label was always cut ("kingd…" on the default page).
        let label_room = label_width + GAP + LABEL_EDGE;
        let with_labels = fit(label_room);
        let labels_shown = with_labels >= font * 1.15;
        let (gutter, cell) = if labels_shown { (label_room, with_labels) } else { (GAP, fit(GAP)) };
        // Without labels the top keeps one line, where the painter names the
        // focused and hovered tokens.
        let top = if labels_shown { gutter } else { font * 1.6 };
        let matrix = Rect { x: gutter, y: top, width: cols as f64 * cell, height: rows as f64 * cell };
        let row_labels = Rect { x: 0.0, y: matrix.y, width: gutter - GAP.min(gutter), height: matrix.height };
        let column_labels = Rect { x: matrix.x, y: 0.0, width: matrix.width, height: top - GAP.min(top) };
        let colorbar_height = matrix.height.max(MIN_COLORBAR_HEIGHT);
        let colorbar = Rect {
            x: matrix.right() + GAP * 2.0,
            y: matrix.y,
            width: COLORBAR_STRIP,
            height: colorbar_height,
        };
        let height = matrix.y + colorbar_height + font * 0.8;
        HeatmapLayout {
            rows,
            cols,
            cell,
            matrix,
            row_labels,
            column_labels,
            colorbar,
            labels_shown,
            values_shown: cell >= font * 3.2,
            width: (colorbar.right() + GAP + font * TICK_LABEL_EMS).min(width).max(colorbar.right()),
            height,
        }
    }

    /// The cell of query `row` and key `col`.
    pub fn cell_rect(&self, row: usize, col: usize) -> Rect {
        Rect {
            x: self.matrix.x + col as f64 * self.cell,
            y: self.matrix.y + row as f64 * self.cell,
            width: self.cell,
            height: self.cell,
        }
    }

    /// The strip of query row `row`, from its label to the last cell.
    pub fn row_band(&self, row: usize) -> Rect {
        let y = self.matrix.y + row as f64 * self.cell;
        Rect { x: 0.0, y, width: self.matrix.right(), height: self.cell }
    }

    /// The strip of key column `col`, from its label to the last cell.
    pub fn column_band(&self, col: usize) -> Rect {
        let x = self.matrix.x + col as f64 * self.cell;
        Rect { x, y: 0.0, width: self.cell, height: self.matrix.bottom() }
    }

    /// Centre of the label of row `row`: its right edge and vertical middle.
    pub fn row_label_anchor(&self, row: usize) -> (f64, f64) {
        (self.matrix.x - GAP, self.matrix.y + (row as f64 + 0.5) * self.cell)
    }

    /// Anchor of the label of column `col`: horizontal middle, bottom edge.
    pub fn column_label_anchor(&self, col: usize) -> (f64, f64) {
        (self.matrix.x + (col as f64 + 0.5) * self.cell, self.matrix.y - GAP)
    }

    /// Vertical position of `value` on the colorbar (0 at the bottom,
    /// `scale_max` at the top).
    pub fn colorbar_y(&self, value: f64, scale_max: f64) -> f64 {
        let t = if scale_max > 0.0 { (value / scale_max).clamp(0.0, 1.0) } else { 0.0 };
        self.colorbar.bottom() - t * self.colorbar.height
    }

    /// What the point `(x, y)` is over. Labels count across the whole gutter
    /// so that short words are easy to hit with a finger.
    pub fn hit(&self, x: f64, y: f64) -> Hit {
        if !(x.is_finite() && y.is_finite()) || self.rows == 0 || self.cols == 0 {
            return Hit::Nothing;
        }
        let row = index_in(y - self.matrix.y, self.cell, self.rows);
        let col = index_in(x - self.matrix.x, self.cell, self.cols);
        match (row, col) {
            (Some(row), Some(col)) => Hit::Cell { row, col },
            (Some(row), None) if x >= 0.0 && x < self.matrix.x => Hit::RowLabel(row),
            (None, Some(col)) if y >= 0.0 && y < self.matrix.y => Hit::ColumnLabel(col),
            _ => Hit::Nothing,
        }
    }
}

/// Sizes that decide the arrows view: query tokens in a column on the left,
/// key tokens in a column on the right, curves between them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArrowSpec {
    /// Number of tokens (the matrix is `(n, n)`).
    pub tokens: usize,
    /// Width available, CSS pixels.
    pub width: f64,
    /// Width of the widest token label.
    pub label_width: f64,
    /// Font size of the labels.
    pub font_size: f64,
    /// The tallest the view may be; rows shrink (and labels go) to fit.
    pub max_height: f64,
}

/// Where the two token columns of the arrows view go.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrowLayout {
    /// Number of query tokens (the left column).
    pub tokens: usize,
    /// Number of key tokens (the right column): `tokens` for self-attention,
    /// the other sentence's length for cross-attention.
    pub keys: usize,
    /// Height of one token row.
    pub row_height: f64,
    /// Top of the first row.
    pub top: f64,
    /// Where curves leave the query column (right edge of the left labels).
    pub query_x: f64,
    /// Where curves reach the key column.
    pub key_x: f64,
    /// Where the key labels start: GAP right of `key_x`, and a leader's room
    /// more when rows are too thin for every label.
    pub key_label_x: f64,
    /// Whether rows are tall enough to carry labels.
    pub labels_shown: bool,
    pub width: f64,
    pub height: f64,
}

/// One curve of the arrows view, from a query token to a key token.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Link {
    pub query: usize,
    pub key: usize,
    pub weight: f32,
    /// Start (at the query) and end (at the key).
    pub from: (f64, f64),
    pub to: (f64, f64),
    /// Stroke width, CSS pixels, proportional to the weight.
    pub line_width: f64,
    /// Opacity in `[0, 1]`, proportional to the weight relative to the
    /// strongest link shown.
    pub opacity: f64,
}

/// Room for the leader lines from the ends of the named keys' curves to
/// their labels, when rows are too thin for every label: the painter moves
/// the labels of neighbouring keys apart, and a leader tells which curve each
/// names.
pub const LEADER: f64 = 14.0;
/// Stroke width of a link of weight 1.
pub const MAX_LINE_WIDTH: f64 = 10.0;
/// Thinnest stroke drawn, so that weak links stay visible.
pub const MIN_LINE_WIDTH: f64 = 0.5;

impl ArrowLayout {
    pub fn new(spec: &ArrowSpec) -> Self {
        Self::cross(spec, spec.tokens)
    }

    /// The arrows of cross-attention: `spec.tokens` queries on the left,
    /// `keys` keys on the right, rows of the same height on both sides.
    pub fn cross(spec: &ArrowSpec, keys: usize) -> Self {
        let queries = spec.tokens;
        let n = queries.max(keys);
        let font = finite_or(spec.font_size, 12.0).clamp(6.0, 48.0);
        let width = finite_or(spec.width, 320.0).max(120.0);
        let max_height = finite_or(spec.max_height, 2000.0).max(60.0);
        let top = font * 1.8; // room for the "query" / "key" headings
        let natural = font * 1.9;
        let row_height =
            if n == 0 { natural } else { natural.min((max_height - top - GAP) / n as f64).max(0.25) };
        let labels_shown = row_height >= font * 1.1;
        // The label columns stay even when rows are too thin for every label:
        // the painter still names the focused token and its strongest keys.
        // A label is drawn GAP from its curves and LABEL_EDGE from the edge:
        // without that edge, the widest label was always cut ("kingd… 0.15").
        let label_room = finite_or(spec.label_width, 0.0).clamp(0.0, width * 0.3) + GAP + LABEL_EDGE;
        let key_x = width - label_room - if labels_shown { 0.0 } else { LEADER };
        ArrowLayout {
            tokens: queries,
            keys,
            row_height,
            top,
            query_x: label_room,
            key_x,
            key_label_x: key_x + GAP + if labels_shown { 0.0 } else { LEADER },
            labels_shown,
            width,
            height: top + n as f64 * row_height + GAP,
        }
    }

    fn row_y(&self, i: usize) -> f64 {
        self.top + (i as f64 + 0.5) * self.row_height
    }

    /// Where curves of query `i` start.
    pub fn query_anchor(&self, i: usize) -> (f64, f64) {
        (self.query_x, self.row_y(i))
    }

    /// Where curves to key `j` end.
    pub fn key_anchor(&self, j: usize) -> (f64, f64) {
        (self.key_x, self.row_y(j))
    }

    /// The token row under `(x, y)` in either column, if any. In
    /// self-attention both columns list the same tokens, so either side picks
    /// that token as the query; in cross-attention the right half counts the
    /// keys (see [`ArrowLayout::is_key_side`]).
    pub fn hit(&self, x: f64, y: f64) -> Option<usize> {
        if !(x.is_finite() && y.is_finite()) || x < 0.0 || x >= self.width {
            return None;
        }
        let count = if self.is_key_side(x) { self.keys } else { self.tokens };
        index_in(y - self.top, self.row_height, count)
    }

    /// Whether `x` is in the right (key) half of the view.
    pub fn is_key_side(&self, x: f64) -> bool {
        x >= (self.query_x + self.key_x) / 2.0
    }

    /// The curves to draw for every query of `weights` (row-major `(tokens,
    /// keys)`), keeping weights `>= threshold` and at most `max_links` of the
    /// strongest. They come weakest first, so strong links are drawn on top.
    pub fn links(&self, weights: &[f32], threshold: f32, max_links: usize) -> Vec<Link> {
        let n_k = self.keys;
        if weights.len() != self.tokens * n_k {
            return Vec::new();
        }
        self.links_of((0..self.tokens).map(|i| (i, &weights[i * n_k..(i + 1) * n_k])), threshold, max_links)
    }

    /// The curves of the focused query `query` alone, from its row of weights
    /// (`keys` of them), as [`links`](ArrowLayout::links) draws every row's.
    pub fn row_links(&self, query: usize, row: &[f32], threshold: f32, max_links: usize) -> Vec<Link> {
        if query >= self.tokens || row.len() != self.keys {
            return Vec::new();
        }
        self.links_of(std::iter::once((query, row)), threshold, max_links)
    }

    fn links_of<'a>(
        &self,
        rows: impl Iterator<Item = (usize, &'a [f32])>,
        threshold: f32,
        max_links: usize,
    ) -> Vec<Link> {
        let threshold = if threshold.is_finite() { threshold.max(0.0) } else { 0.0 };
        let mut kept: Vec<(usize, usize, f32)> = Vec::new();
        for (i, row) in rows {
            for (j, w) in row.iter().enumerate() {
                // A weight of exactly 0 is a masked pair: never a link.
                if *w > 0.0 && *w >= threshold {
                    kept.push((i, j, *w));
                }
            }
        }
        kept.sort_by(|a, b| b.2.total_cmp(&a.2));
        kept.truncate(max_links);
        kept.reverse();
        let strongest = kept.last().map_or(1.0, |l| f64::from(l.2)).max(f64::MIN_POSITIVE);
        kept.into_iter()
            .map(|(query, key, weight)| {
                let w = f64::from(weight);
                Link {
                    query,
                    key,
                    weight,
                    from: self.query_anchor(query),
                    to: self.key_anchor(key),
                    line_width: (w * MAX_LINE_WIDTH).max(MIN_LINE_WIDTH),
                    opacity: (0.15 + 0.85 * w / strongest).clamp(0.0, 1.0),
                }
            })
            .collect()
    }
}

/// The gradients the page offers, all from dark (weight 0) to light (the
/// top of the scale). Viridis and cividis are perceptually uniform and
/// readable with the common colour-vision deficiencies (cividis was made
/// for them); greys, from black to white, has the most contrast.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Gradient {
    #[default]
    Viridis,
    Cividis,
    Greys,
}

impl Gradient {
    /// Parses "viridis", "cividis" or "greys" (any case); anything else is `None`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "viridis" => Some(Gradient::Viridis),
            "cividis" => Some(Gradient::Cividis),
            "greys" => Some(Gradient::Greys),
            _ => None,
        }
    }
}

/// Number of entries of a [`Colormap`] lookup table.
pub const COLORMAP_STEPS: usize = 256;

/// A gradient sampled into a lookup table, so that colouring a million cells
/// costs a multiply and an index each.
#[derive(Debug, Clone, PartialEq)]
pub struct Colormap {
    lut: Vec<[u8; 3]>,
}

impl Colormap {
    pub fn new(gradient: Gradient) -> Self {
        let (source, reversed) = match gradient {
            Gradient::Viridis => (colorous::VIRIDIS, false),
            Gradient::Cividis => (colorous::CIVIDIS, false),
            // colorous's greys runs from white to black: read it backwards, dark first like the others.
            Gradient::Greys => (colorous::GREYS, true),
        };
        let at = |i: usize| if reversed { COLORMAP_STEPS - 1 - i } else { i };
        let lut =
            (0..COLORMAP_STEPS).map(|i| source.eval_rational(at(i), COLORMAP_STEPS).into_array()).collect();
        Colormap { lut }
    }

    /// The colour of `t` in `[0, 1]` (clamped; NaN counts as 0).
    pub fn rgb(&self, t: f64) -> [u8; 3] {
        self.lut[self.index(t)]
    }

    fn index(&self, t: f64) -> usize {
        index_of(t)
    }

    /// Whether text on the colour of `t` should be dark (the colour is light).
    pub fn is_light(&self, t: f64) -> bool {
        let [r, g, b] = self.rgb(t);
        // Rec. 709 luma, good enough to choose between black and white text.
        0.2126 * f64::from(r) + 0.7152 * f64::from(g) + 0.0722 * f64::from(b) > 140.0
    }

    /// The whole table as `r, g, b` bytes, darkest (t = 0) first.
    pub fn table(&self) -> Vec<u8> {
        self.lut.iter().flatten().copied().collect()
    }

    /// One RGBA pixel per cell of the row-major `(rows, cols)` `weights`:
    /// colour of `weight / scale_max`, opaque; masked cells (`masked[k]`)
    /// fully transparent. Returns `rows · cols · 4` bytes.
    pub fn cells_rgba(&self, weights: &[f32], masked: &[bool], scale_max: f32) -> Vec<u8> {
        let inverse = if scale_max > 0.0 && scale_max.is_finite() { 1.0 / f64::from(scale_max) } else { 1.0 };
        // Each colour as the four bytes of its pixel, so that a cell is one
        // lookup and one 4-byte copy (a million of them at 1,024 tokens).
        let pixels: Vec<[u8; 4]> = self.lut.iter().map(|[r, g, b]| [*r, *g, *b, 255]).collect();
        let mut out = vec![0u8; weights.len() * 4];
        let cells = out.chunks_exact_mut(4).zip(weights);
        for (pixel, w) in cells {
            pixel.copy_from_slice(&pixels[index_of(f64::from(*w) * inverse)]);
        }
        // Masked cells fully transparent (zero bytes), afterwards: the loop above stays branch-free.
        for (pixel, _) in out.chunks_exact_mut(4).zip(masked).filter(|(_, m)| **m) {
            pixel.fill(0);
        }
        out
    }
}

/// The colour of `t` in `[0, 1]`: one of [`COLORMAP_STEPS`], the nearest,
/// half way rounded up (as `round`), NaN and below 0 to the first, above 1
/// to the last. With a truncating conversion and a comparison, not `round`
/// (a libm call in wasm) or `floor`: `x` is in `[0, 255]`, so `x as usize`
/// is its floor and `x - floor` is exact.
fn index_of(t: f64) -> usize {
    let x = t.clamp(0.0, 1.0) * (COLORMAP_STEPS - 1) as f64; // NaN stays NaN, and `NaN as usize` is 0
    let below = x as usize;
    below + usize::from(x - below as f64 >= 0.5)
}

/// The top of the colour scale: the largest weight, so that the colours use
/// the whole gradient, or 1 when there is none.
pub fn scale_max(weights: &[f32]) -> f32 {
    // Eight running maxima, so that the loop vectorizes (a million weights at 1,024 tokens).
    let mut lanes = [0.0f32; 8];
    let mut chunks = weights.chunks_exact(8);
    for chunk in &mut chunks {
        for (lane, w) in lanes.iter_mut().zip(chunk) {
            *lane = if w.is_finite() && *w > *lane { *w } else { *lane };
        }
    }
    let rest = chunks.remainder().iter().copied().filter(|w| w.is_finite());
    let max = lanes.into_iter().chain(rest).fold(0.0f32, f32::max);
    if max > 0.0 {
        max
    } else {
        1.0
    }
}

/// Round tick values from 0 to at most `max` (steps of 1, 2 or 5 × 10ᵏ),
/// about `count` of them, for the colorbar.
pub fn ticks(max: f64, count: usize) -> Vec<f64> {
    if !(max.is_finite() && max > 0.0) || count == 0 {
        return vec![0.0];
    }
    let rough = max / count as f64;
    let magnitude = 10f64.powf(rough.log10().floor());
    let step =
        [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * magnitude).find(|s| *s >= rough).unwrap_or(10.0 * magnitude);
    let steps = (max / step + 1e-9).floor() as usize;
    // Rounding to the step's decimals avoids values such as 0.30000000000000004.
    let decimals = (-step.log10().floor()).max(0.0) as i32;
    let unit = 10f64.powi(decimals);
    (0..=steps).map(|k| ((k as f64 * step) * unit).round() / unit).collect()
}

fn index_in(offset: f64, size: f64, count: usize) -> Option<usize> {
    if offset < 0.0 || size <= 0.0 {
        return None;
    }
    let i = (offset / size).floor();
    (i < count as f64).then_some(i as usize)
}

fn finite_or(x: f64, fallback: f64) -> f64 {
    if x.is_finite() {
        x
    } else {
        fallback
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heatmap(n: usize, width: f64) -> HeatmapLayout {
        HeatmapLayout::new(&HeatmapSpec { rows: n, cols: n, width, label_width: 60.0, font_size: 12.0 })
    }

    #[test]
    fn a_short_sentence_gets_large_labelled_cells_within_the_width() {
        let h = heatmap(7, 700.0);
        assert!(h.labels_shown);
        assert_eq!(h.cell, MAX_CELL);
        assert_eq!(h.matrix.x, 68.0);
        assert_eq!(h.matrix.width, 7.0 * MAX_CELL);
        assert!(h.width <= 700.0 && h.colorbar.x > h.matrix.right());
        assert!(h.values_shown);
    }

    #[test]
    fn a_phone_width_still_fits_and_keeps_labels_for_ten_tokens() {
        let h = heatmap(10, 328.0);
        assert!(h.labels_shown, "cell {}", h.cell);
        assert!(h.width <= 328.0 + 1e-9, "width {}", h.width);
        assert!(h.cell >= 14.0);
    }

    #[test]
    fn a_thousand_tokens_drop_labels_and_still_fit() {
        let h = heatmap(1024, 900.0);
        assert!(!h.labels_shown);
        assert!(h.matrix.right() < 900.0);
        assert!(h.cell > 0.5 && h.cell < 1.0);
    }

    #[test]
    fn every_cell_hits_itself_at_its_centre_and_corner() {
        let h = heatmap(5, 500.0);
        for row in 0..5 {
            for col in 0..5 {
                let r = h.cell_rect(row, col);
                assert_eq!(h.hit(r.x + r.width / 2.0, r.y + r.height / 2.0), Hit::Cell { row, col });
                assert_eq!(h.hit(r.x, r.y), Hit::Cell { row, col });
            }
        }
    }

    #[test]
    fn labels_and_outside_points_hit_as_expected() {
        let h = heatmap(5, 500.0);
        let (_, y) = h.row_label_anchor(3);
        assert_eq!(h.hit(2.0, y), Hit::RowLabel(3));
        let (x, _) = h.column_label_anchor(4);
        assert_eq!(h.hit(x, 2.0), Hit::ColumnLabel(4));
        assert_eq!(h.hit(2.0, 2.0), Hit::Nothing);
        assert_eq!(h.hit(h.matrix.right() + 1.0, h.matrix.y + 1.0), Hit::Nothing);
        assert_eq!(h.hit(h.matrix.x + 1.0, h.matrix.bottom()), Hit::Nothing);
        assert_eq!(h.hit(-1.0, y), Hit::Nothing);
        assert_eq!(h.hit(f64::NAN, y), Hit::Nothing);
    }

    #[test]
    fn degenerate_specs_give_finite_geometry() {
        for spec in [
            HeatmapSpec { rows: 0, cols: 0, width: 0.0, label_width: f64::NAN, font_size: -3.0 },
            HeatmapSpec { rows: 1, cols: 1, width: f64::INFINITY, label_width: 1e9, font_size: 1e9 },
        ] {
            let h = HeatmapLayout::new(&spec);
            assert!(h.width.is_finite() && h.height.is_finite() && h.cell.is_finite());
            assert!(h.cell >= 0.0);
        }
        assert_eq!(heatmap(0, 300.0).hit(50.0, 50.0), Hit::Nothing);
    }

    #[test]
    fn colorbar_runs_from_zero_at_the_bottom_to_the_max_at_the_top() {
        let h = heatmap(3, 400.0);
        assert_eq!(h.colorbar_y(0.0, 0.5), h.colorbar.bottom());
        assert_eq!(h.colorbar_y(0.5, 0.5), h.colorbar.y);
        assert_eq!(h.colorbar_y(0.25, 0.5), h.colorbar.y + h.colorbar.height / 2.0);
        assert!(h.colorbar.height >= MIN_COLORBAR_HEIGHT);
    }

    fn arrows(n: usize) -> ArrowLayout {
        ArrowLayout::new(&ArrowSpec {
            tokens: n,
            width: 400.0,
            label_width: 50.0,
            font_size: 12.0,
            max_height: 1000.0,
        })
    }

    #[test]
    fn the_widest_heatmap_label_fits_beside_the_cells_and_above_them() {
        let h = heatmap(7, 640.0);
        assert!(h.labels_shown);
        // The painter's room: from GAP beside the cells to LABEL_EDGE from the canvas's edge.
        assert_eq!(h.matrix.x - GAP - LABEL_EDGE, 60.0);
        assert_eq!(h.matrix.y - GAP - LABEL_EDGE, 60.0);
    }

    #[test]
    fn the_widest_label_fits_its_column_on_either_side() {
        let a = arrows(3);
        // The painter's room: from GAP beside the curves to LABEL_EDGE from the canvas's edge.
        assert_eq!(a.query_x - GAP - LABEL_EDGE, 50.0);
        assert_eq!(a.width - a.key_x - GAP - LABEL_EDGE, 50.0);
        assert_eq!(a.key_label_x, a.key_x + GAP);
    }

    #[test]
    fn cross_attention_arrows_have_their_own_key_column() {
        let spec =
            ArrowSpec { tokens: 2, width: 400.0, label_width: 50.0, font_size: 12.0, max_height: 1000.0 };
        let a = ArrowLayout::cross(&spec, 4);
        assert_eq!((a.tokens, a.keys), (2, 4));
        // Rows keep one height on both sides; the view is as tall as the longer side.
        assert!((a.height - (a.top + 4.0 * a.row_height + GAP)).abs() < 1e-9);
        let weights = [0.1, 0.2, 0.3, 0.4, 0.4, 0.0, 0.0, 0.6];
        let links = a.row_links(1, &weights[4..], 0.0, 100);
        let pairs: Vec<(usize, usize)> = links.iter().map(|l| (l.query, l.key)).collect();
        assert_eq!(pairs, vec![(1, 0), (1, 3)]);
        assert_eq!(links[1].to, a.key_anchor(3));
        // A (2, 2) matrix does not fit a (2, 4) layout: no links rather than wrong ones.
        assert!(a.links(&[0.5; 4], 0.0, 100).is_empty());
        // The right half counts keys, the left half queries.
        let y = a.top + 3.5 * a.row_height;
        assert_eq!(a.hit(a.key_x + 5.0, y), Some(3));
        assert_eq!(a.hit(a.query_x - 5.0, y), None);
        assert!(a.is_key_side(a.key_x) && !a.is_key_side(a.query_x));
    }

    #[test]
    fn focused_links_go_from_the_query_to_each_key_above_the_threshold() {
        let a = arrows(3);
        let weights = [0.7, 0.2, 0.1, 0.0, 0.6, 0.4, 0.3, 0.3, 0.4];
        let links = a.row_links(0, &weights[..3], 0.15, 100);
        let pairs: Vec<(usize, usize)> = links.iter().map(|l| (l.query, l.key)).collect();
        assert_eq!(pairs, vec![(0, 1), (0, 0)], "weakest first, 0.1 hidden");
        assert_eq!(links[1].from, a.query_anchor(0));
        assert_eq!(links[1].to, a.key_anchor(0));
        assert!((links[1].line_width - 7.0).abs() < 1e-6);
        assert!((links[1].opacity - 1.0).abs() < 1e-9);
        assert!(links[0].opacity < links[1].opacity);
        // A row's curves are those every row gets from the whole matrix.
        let all = a.links(&weights, 0.15, 100);
        for (i, row) in weights.chunks_exact(3).enumerate() {
            let mine: Vec<_> = all.iter().filter(|l| l.query == i).map(|l| (l.key, l.weight)).collect();
            let alone: Vec<_> = a.row_links(i, row, 0.15, 100).iter().map(|l| (l.key, l.weight)).collect();
            assert_eq!(alone, mine, "row {i}");
        }
        assert!(a.row_links(3, &weights[..3], 0.0, 100).is_empty(), "no query 3");
        assert!(a.row_links(0, &weights[..2], 0.0, 100).is_empty(), "a row of 2 keys, not 3");
    }

    #[test]
    fn without_focus_every_query_links_and_masked_pairs_never_do() {
        let a = arrows(3);
        let weights = [0.7, 0.2, 0.1, 0.0, 0.6, 0.4, 0.3, 0.3, 0.4];
        let links = a.links(&weights, 0.0, 100);
        assert_eq!(links.len(), 8, "the 0.0 weight is a masked pair");
        assert!(links.windows(2).all(|w| w[0].weight <= w[1].weight));
        let capped = a.links(&weights, 0.0, 2);
        assert_eq!(capped.iter().map(|l| l.weight).collect::<Vec<_>>(), vec![0.6, 0.7]);
        assert!(a.row_links(9, &weights[..3], 0.0, 100).is_empty());
        assert!(a.links(&weights[..4], 0.0, 100).is_empty());
    }

    #[test]
    fn arrow_rows_shrink_to_the_height_limit_and_hit_their_token() {
        let a = arrows(1024);
        assert!(a.height <= 1000.0 + 1e-9 && !a.labels_shown);
        // The widest key label still fits, after the leaders' room.
        assert_eq!(a.width - a.key_label_x - LABEL_EDGE, 50.0);
        assert_eq!(a.key_label_x - a.key_x, GAP + LEADER);
        let small = arrows(4);
        assert!(small.labels_shown);
        let (x, y) = small.key_anchor(2);
        assert_eq!(small.hit(x, y), Some(2));
        assert_eq!(small.hit(1.0, small.query_anchor(3).1), Some(3));
        assert_eq!(small.hit(1.0, 1.0), None);
    }

    #[test]
    fn colormap_ends_are_viridis_purple_and_yellow() {
        let c = Colormap::new(Gradient::Viridis);
        let dark = c.rgb(0.0);
        let light = c.rgb(1.0);
        assert!(dark[2] > dark[1] && dark[0] < 80, "{dark:?}");
        assert!(light[0] > 200 && light[1] > 200 && light[2] < 80, "{light:?}");
        assert!(c.is_light(1.0) && !c.is_light(0.0));
        assert_eq!(c.rgb(f64::NAN), dark);
        assert_eq!(c.rgb(7.0), light);
        assert_eq!(c.table().len(), COLORMAP_STEPS * 3);
        assert_ne!(Colormap::new(Gradient::Cividis).rgb(0.0), dark);
        assert_eq!(Gradient::from_name("CIVIDIS"), Some(Gradient::Cividis));
        let greys = Colormap::new(Gradient::Greys);
        assert!(
            greys.rgb(0.0).iter().all(|c| *c < 10) && greys.rgb(1.0).iter().all(|c| *c > 245),
            "black to white"
        );
        assert_eq!(Gradient::from_name("jet"), None);
    }

    #[test]
    fn colormap_is_perceptually_ordered_by_lightness() {
        // A sequential map must get lighter as the weight grows.
        let c = Colormap::new(Gradient::Viridis);
        let luma = |t: f64| {
            let [r, g, b] = c.rgb(t);
            0.2126 * f64::from(r) + 0.7152 * f64::from(g) + 0.0722 * f64::from(b)
        };
        let samples: Vec<f64> = (0..=10).map(|k| luma(k as f64 / 10.0)).collect();
        assert!(samples.windows(2).all(|w| w[0] < w[1]), "{samples:?}");
    }

    #[test]
    fn bitmap_scales_by_the_max_and_leaves_masked_cells_transparent() {
        let c = Colormap::new(Gradient::Viridis);
        let rgba = c.cells_rgba(&[0.5, 0.25, 0.0, 1.0], &[false, false, true, false], 0.5);
        assert_eq!(rgba.len(), 16);
        let top = c.rgb(1.0);
        assert_eq!(&rgba[0..4], &[top[0], top[1], top[2], 255]);
        let mid = c.rgb(0.5);
        assert_eq!(&rgba[4..8], &[mid[0], mid[1], mid[2], 255]);
        assert_eq!(&rgba[8..12], &[0, 0, 0, 0]);
        assert_eq!(&rgba[12..16], &[top[0], top[1], top[2], 255], "clamped above the max");
        // No mask, or a short one: the cells it does not cover are painted.
        let opaque = c.cells_rgba(&[0.5, 0.25, 0.0, 1.0], &[], 0.5);
        assert_eq!(opaque.iter().skip(3).step_by(4).collect::<Vec<_>>(), [&255; 4]);
        let short = c.cells_rgba(&[0.5, 0.25, 0.0, 1.0], &[true], 0.5);
        assert_eq!((&short[0..4], &short[4..]), (&[0u8; 4][..], &opaque[4..]));
    }

    #[test]
    fn a_weight_takes_the_nearest_of_the_256_colours_halves_up() {
        let map = Colormap::new(Gradient::Viridis);
        let steps = (COLORMAP_STEPS - 1) as f64;
        for k in 0..=10_000 {
            let t = f64::from(k) / 10_000.0;
            assert_eq!(map.index(t), (t * steps).round() as usize, "t = {t}");
        }
        for k in 0..COLORMAP_STEPS - 1 {
            let half = (k as f64 + 0.5) / steps;
            assert_eq!(map.index(half), (half * steps).round() as usize, "half way after colour {k}");
        }
        assert_eq!((map.index(-1.0), map.index(2.0), map.index(f64::NAN)), (0, COLORMAP_STEPS - 1, 0));
    }

    #[test]
    fn scale_max_and_ticks_are_round_and_within_range() {
        assert_eq!(scale_max(&[0.1, 0.44, f32::NAN, 0.2]), 0.44);
        assert_eq!(scale_max(&[0.0, 0.0]), 1.0);
        // Wherever the largest weight sits: in any of the eight lanes, or in the remainder.
        for at in 0..19 {
            let mut weights = vec![0.01f32; 19];
            weights[(at + 5) % 19] = f32::INFINITY;
            weights[(at + 11) % 19] = f32::NAN;
            weights[at] = 0.75;
            assert_eq!(scale_max(&weights), 0.75, "largest at {at}");
        }
        assert_eq!(ticks(0.4431, 5), vec![0.0, 0.1, 0.2, 0.3, 0.4]);
        assert_eq!(ticks(0.4431, 4), vec![0.0, 0.2, 0.4]);
        assert_eq!(ticks(1.0, 4), vec![0.0, 0.5, 1.0]);
        assert_eq!(ticks(0.07, 4), vec![0.0, 0.02, 0.04, 0.06]);
        assert_eq!(ticks(f64::NAN, 4), vec![0.0]);
        assert!(ticks(0.9999, 5).iter().all(|t| *t <= 0.9999));
    }
}
