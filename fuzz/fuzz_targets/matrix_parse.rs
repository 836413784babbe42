//! `Matrix::parse` (the playground's typed matrices) on arbitrary text:
//! an error or a matrix of 1 to 4,096 finite numbers, never a panic; what
//! it reads, written back as "a b; c d", reads back equal; and the product
//! of a matrix with itself (as the playground projects Q, K and V) does not
//! panic.
#![no_main]

use attention_core::Matrix;
use attention_fuzz::bounded;
use libfuzzer_sys::fuzz_target;

/// Whether a product's numbers must be finite (issue 13, F2: `Matrix::matmul`
/// converts f64 sums to f32 unchecked, so 1e38 · 1e38 shows as infinity and
/// then NaN). Turn on once `matmul` refuses sums beyond the f32 range.
const PRODUCTS_ARE_FINITE: bool = false;

fn written(m: &Matrix) -> String {
    (0..m.rows())
        .map(|i| m.row(i).iter().map(|v| v.to_string()).collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("; ")
}

fuzz_target!(|bytes: &[u8]| {
    let text = String::from_utf8_lossy(bytes);
    let Ok(m) = bounded("Matrix::parse", text.len(), 512, || Matrix::parse(&text)) else { return };
    assert!(m.rows() >= 1 && m.cols() >= 1 && m.rows() * m.cols() <= 4096, "{} × {}", m.rows(), m.cols());
    assert_eq!(m.as_slice().len(), m.rows() * m.cols());
    assert!(m.as_slice().iter().all(|v| v.is_finite()));
    match Matrix::parse(&written(&m)) {
        Ok(again) => assert_eq!(again, m, "a matrix written back reads back equal"),
        Err(e) => panic!("{:?} written back as {:?} does not parse: {e}", m, written(&m)),
    }
    // The smaller of M · Mᵀ and Mᵀ · M: the shapes fit, every number meets every other.
    let data = (0..m.cols()).flat_map(|c| (0..m.rows()).map(move |i| (i, c))).map(|(i, c)| m.row(i)[c]);
    let t = Matrix::new(m.cols(), m.rows(), data.collect()).unwrap_or_else(|e| panic!("{e}"));
    let (a, b) = if m.rows() <= m.cols() { (&m, &t) } else { (&t, &m) };
    if let Ok(product) = a.matmul(b) {
        assert_eq!((product.rows(), product.cols()), (a.rows(), a.rows()));
        if PRODUCTS_ARE_FINITE {
            assert!(
                product.as_slice().iter().all(|v| v.is_finite()),
                "{m:?} times its transpose is not finite"
            );
        }
    }
});
