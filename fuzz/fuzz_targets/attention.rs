//! `attend_with` on arbitrary small finite matrices, options and extras.
//!
//! For finite inputs and valid options: every weight, score and context
//! value is finite; a masked cell (no self, causal, key padding) has weight
//! exactly 0 and reads as masked; a row whose every key is masked is flagged
//! and all 0; every other row sums to 1 (±1e-5). Invalid options or shapes
//! get an error, never a panic. The same attention computed a slice of rows
//! at a time (`AttentionJob`, how the page computes a long text), in slices
//! of any size, is exactly equal.
#![no_main]

use arbitrary::{Arbitrary, Result, Unstructured};
use attention_core::{attend_with, AttentionJob, Extras, Matrix, Options};
use libfuzzer_sys::fuzz_target;

/// A finite number: small integers, fractions, the extremes of f32, or any finite bit pattern.
fn number(u: &mut Unstructured) -> Result<f32> {
    Ok(match u.int_in_range(0..=5u8)? {
        0 => f32::from(u.int_in_range(-4i8..=4)?),
        1 => f32::from(u.arbitrary::<i16>()?) / 256.0,
        2 => *u.choose(&[f32::MAX, -f32::MAX, f32::MIN_POSITIVE, 1e38, -1e38, 1e-45, 0.0, -0.0])?,
        _ => {
            let v = f32::from_bits(u.arbitrary()?);
            if v.is_finite() {
                v
            } else {
                1.0
            }
        }
    })
}

fn matrix(u: &mut Unstructured, rows: usize, cols: usize) -> Result<Matrix> {
    let data = (0..rows * cols).map(|_| number(u)).collect::<Result<Vec<_>>>()?;
    Ok(Matrix::new(rows, cols, data).unwrap_or_else(|e| panic!("{e}")))
}

fn temperature(u: &mut Unstructured) -> Result<f32> {
    Ok(match u.int_in_range(0..=3u8)? {
        0 => 1.0,
        1 => *u.choose(&[0.001, 1000.0, 0.0009, 1000.1, 0.0, -1.0, f32::NAN, f32::INFINITY])?,
        2 => 0.001 + (u.arbitrary::<u16>()? as f32) / 65535.0 * 999.999,
        _ => f32::from_bits(u.arbitrary()?),
    })
}

fn run(u: &mut Unstructured) -> Result<()> {
    // Now and then more queries than one block of the kernel (32 rows).
    let n_q = if u.ratio(1u8, 8)? { u.int_in_range(9..=70usize)? } else { u.int_in_range(0..=8usize)? };
    let n_k = u.int_in_range(0..=8usize)?;
    let d = u.int_in_range(0..=8usize)?;
    let d_v = u.int_in_range(0..=6usize)?;
    let same = bool::arbitrary(u)?; // self-attention: one matrix as Q, K and V
    let q = matrix(u, n_q, d)?;
    let (k, v) = if same { (None, None) } else { (Some(matrix(u, n_k, d)?), Some(matrix(u, n_k, d_v)?)) };
    let (k, v) = (k.as_ref().unwrap_or(&q), v.as_ref().unwrap_or(&q));
    let options = Options {
        scale: bool::arbitrary(u)?,
        self_attention: bool::arbitrary(u)?,
        causal: bool::arbitrary(u)?,
        temperature: temperature(u)?,
    };
    let padding: Option<Vec<bool>> = if bool::arbitrary(u)? {
        let len = if u.ratio(1u8, 16)? { u.int_in_range(0..=9usize)? } else { k.rows() };
        Some((0..len).map(|_| bool::arbitrary(u)).collect::<Result<_>>()?)
    } else {
        None
    };
    let scale_dim = if bool::arbitrary(u)? { Some(u.int_in_range(0..=10_000usize)?) } else { None };
    let extras = Extras { key_padding: padding.as_deref(), scale_dim, ..Extras::default() };

    let valid_options = options.temperature.is_finite() && (0.001..=1000.0).contains(&options.temperature);
    let result = attend_with(&q, k, v, &options, &extras);
    let valid_extras = padding.as_ref().is_none_or(|p| p.len() == k.rows()) && scale_dim != Some(0);
    let Ok(a) = result else {
        assert!(!(valid_options && valid_extras), "valid input refused: {:?}", result.err());
        return Ok(());
    };
    assert!(valid_options && valid_extras, "invalid options accepted: {options:?} {extras:?}");
    let (n_q, n_k) = (q.rows(), k.rows());
    assert_eq!((a.queries, a.keys, a.dim, a.value_dim), (n_q, n_k, q.cols(), v.cols()));
    assert_eq!((a.weights.len(), a.scores.len(), a.scaled.len()), (n_q * n_k, n_q * n_k, n_q * n_k));
    assert_eq!(a.context.len(), n_q * v.cols());
    assert!(a.scores.iter().all(|s| s.is_finite()), "scores: {:?}", a.scores);
    assert!(a.weights.iter().all(|w| w.is_finite() && *w >= 0.0), "weights: {:?}", a.weights);
    assert!(a.context.iter().all(|c| c.is_finite()), "context: {:?}", a.context);
    let cells = a.masked_cells();
    assert_eq!(cells.len(), n_q * n_k);
    for i in 0..n_q {
        let masked = |j: usize| options.is_masked(i, j) || padding.as_ref().is_some_and(|p| p[j]);
        let all_masked = (0..n_k).all(masked);
        assert_eq!(a.fully_masked[i], all_masked, "row {i}");
        for j in 0..n_k {
            assert_eq!(a.is_masked(i, j), masked(j), "cell ({i}, {j})");
            assert_eq!(cells[i * n_k + j], masked(j), "cell ({i}, {j}) of masked_cells");
            if masked(j) {
                assert_eq!(a.weight(i, j), 0.0, "masked cell ({i}, {j})");
                assert_eq!(a.scaled[i * n_k + j], f32::NEG_INFINITY, "masked cell ({i}, {j})");
            } else {
                assert!(a.scaled[i * n_k + j].is_finite(), "unmasked scaled score ({i}, {j})");
            }
        }
        let sum: f32 = a.weight_row(i).iter().sum();
        if all_masked {
            assert!(a.weight_row(i).iter().all(|w| *w == 0.0), "fully masked row {i}: {:?}", a.weight_row(i));
        } else {
            assert!((sum - 1.0).abs() <= 1e-5, "row {i} sums to {sum}: {:?}", a.weight_row(i));
        }
    }
    let mut job = AttentionJob::new(&q, k, v, &options, &extras)
        .unwrap_or_else(|e| panic!("accepted by attend_with: {e}"));
    while !job.advance(u.int_in_range(1..=80usize).unwrap_or(1)) {}
    assert_eq!(job.finish(), a, "the same attention, a slice at a time");
    // Weights only, with the twin of scaling switched the other way: the
    // same weights, and the twin those of a job with the flipped options.
    let lean = Extras { weights_only: true, flipped_twin: true, ..extras };
    let mut job = AttentionJob::new(&q, k, v, &options, &lean)
        .unwrap_or_else(|e| panic!("accepted by attend_with: {e}"));
    while !job.advance(u.int_in_range(1..=80usize).unwrap_or(1)) {}
    let (only, twin) = job.finish_with_twin();
    assert_eq!((&only.weights, &only.fully_masked), (&a.weights, &a.fully_masked), "weights only");
    assert!(only.scores.is_empty() && only.scaled.is_empty() && only.context.is_empty());
    let flipped = Options { scale: !options.scale, ..options };
    let other = attend_with(&q, k, v, &flipped, &extras).unwrap_or_else(|e| panic!("flipped scaling: {e}"));
    let twin = twin.unwrap_or_else(|| panic!("asked for"));
    assert_eq!(
        (&twin.weights, &twin.fully_masked, twin.factor),
        (&other.weights, &other.fully_masked, other.factor),
        "the twin"
    );
    Ok(())
}

fuzz_target!(|bytes: &[u8]| {
    let _ = run(&mut Unstructured::new(bytes));
});
