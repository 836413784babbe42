//! A deterministic 2-D principal component analysis, small enough for one
//! head's vectors (MiniLM: 2n vectors of 32 dimensions).
//!
//! For `m` rows of `dim` values, `X` the rows minus their mean:
//!
//! ```text
//! C = XᵀX / m                       (dim, dim)  the covariance
//! axes = the two eigenvectors of C with the largest eigenvalues λ₁ ≥ λ₂     (2, dim)
//! points = X · axesᵀ                (m, 2)
//! explained[i] = λᵢ / trace(C)      the share of the total variance on axis i
//! ```
//!
//! The eigenvectors come from the cyclic Jacobi method in f64 (exact to
//! rounding, no random start), on `C` or, when there are fewer rows than
//! dimensions, on the Gram matrix `XXᵀ / m`, which has the same nonzero
//! eigenvalues (axis = `Xᵀu`, normalised). Signs are fixed so that each
//! axis's largest-magnitude coordinate (the first, on a tie) is positive: the
//! same vectors always give the same picture. Axes beyond the rank of the
//! points are zero, with a share of 0.

use crate::error::{Error, Result};

/// The largest matrix the eigen-solve takes: `min(dim, rows)` at most this
/// (MiniLM's heads have 32 dimensions, so it never binds there). The Jacobi
/// method costs about `10·size³` operations.
pub const MAX_EIGEN_SIZE: usize = 256;

/// The result of [`pca_2d`].
#[derive(Debug, Clone, PartialEq)]
pub struct Pca {
    /// `(2, dim)`: the two axes, unit length, or zero beyond the rank.
    pub axes: Vec<f32>,
    /// `(m, 2)`: every row's coordinates on the two axes.
    pub points: Vec<f32>,
    /// The share of the total variance on each axis, in `[0, 1]`.
    pub explained: [f32; 2],
}

/// PCA of `rows` (`(m, dim)` row-major) onto two axes: see the module
/// documentation. Fails only for a shape the eigen-solve refuses
/// ([`MAX_EIGEN_SIZE`]) or rows that do not fill `dim` columns.
pub fn pca_2d(rows: &[f32], dim: usize) -> Result<Pca> {
    if dim == 0 || rows.len() % dim != 0 {
        return Err(Error::OutOfRange(format!("{} values are not rows of {dim}", rows.len())));
    }
    let m = rows.len() / dim;
    let size = dim.min(m);
    if size > MAX_EIGEN_SIZE {
        return Err(Error::OutOfRange(format!(
            "a projection of {m} vectors of {dim} dimensions is too large: at most {MAX_EIGEN_SIZE} of either"
        )));
    }
    if m == 0 {
        return Ok(Pca { axes: vec![0.0; 2 * dim], points: Vec::new(), explained: [0.0; 2] });
    }
    let mut mean = vec![0f64; dim];
    for row in rows.chunks_exact(dim) {
        mean.iter_mut().zip(row).for_each(|(s, x)| *s += f64::from(*x));
    }
    mean.iter_mut().for_each(|s| *s /= m as f64);
    let x: Vec<f64> = rows
        .chunks_exact(dim)
        .flat_map(|row| row.iter().zip(&mean).map(|(v, c)| f64::from(*v) - c))
        .collect();
    let total = x.iter().map(|v| v * v).sum::<f64>() / m as f64;

    // Eigen-pairs of the smaller of C (dim × dim) and the Gram matrix (m × m).
    let gram = m < dim;
    let mut matrix = vec![0f64; size * size];
    for a in 0..size {
        for b in a..size {
            let value = if gram {
                (0..dim).map(|t| x[a * dim + t] * x[b * dim + t]).sum::<f64>()
            } else {
                (0..m).map(|r| x[r * dim + a] * x[r * dim + b]).sum::<f64>()
            } / m as f64;
            matrix[a * size + b] = value;
            matrix[b * size + a] = value;
        }
    }
    let (values, vectors) = jacobi_eigen(&mut matrix, size);
    let mut order: Vec<usize> = (0..size).collect();
    order.sort_by(|a, b| values[*b].total_cmp(&values[*a]).then(a.cmp(b)));

    let mut axes = vec![0f64; 2 * dim];
    let mut explained = [0f32; 2];
    // Eigenvalues below this share of the total are rounding, not variance.
    let floor = total * 1e-12;
    for (slot, &e) in order.iter().take(2).enumerate() {
        let lambda = values[e];
        if lambda <= floor {
            continue;
        }
        let axis = &mut axes[slot * dim..(slot + 1) * dim];
        if gram {
            // axis = Xᵀu: a combination of the rows.
            for r in 0..m {
                let u = vectors[r * size + e];
                axis.iter_mut().zip(&x[r * dim..(r + 1) * dim]).for_each(|(a, v)| *a += u * v);
            }
        } else {
            axis.iter_mut().enumerate().for_each(|(t, a)| *a = vectors[t * size + e]);
        }
        let norm = axis.iter().map(|a| a * a).sum::<f64>().sqrt();
        if norm == 0.0 {
            continue;
        }
        let largest =
            axis.iter().enumerate().fold(0, |best, (t, a)| if a.abs() > axis[best].abs() { t } else { best });
        let sign = if axis[largest] < 0.0 { -1.0 } else { 1.0 };
        axis.iter_mut().for_each(|a| *a *= sign / norm);
        explained[slot] = if total > 0.0 { (lambda / total).clamp(0.0, 1.0) as f32 } else { 0.0 };
    }
    let points = x
        .chunks_exact(dim)
        .flat_map(|row| {
            let coordinate = |axis: &[f64]| row.iter().zip(axis).map(|(v, a)| v * a).sum::<f64>() as f32;
            [coordinate(&axes[..dim]), coordinate(&axes[dim..])]
        })
        .collect();
    Ok(Pca { axes: axes.into_iter().map(|a| a as f32).collect(), points, explained })
}

/// Eigenvalues and eigenvectors of the symmetric `(size, size)` matrix `a`
/// (destroyed), by cyclic Jacobi rotations: `vectors[t·size + e]` is
/// coordinate `t` of eigenvector `e`, for eigenvalue `values[e]`.
fn jacobi_eigen(a: &mut [f64], size: usize) -> (Vec<f64>, Vec<f64>) {
    let mut v = vec![0f64; size * size];
    (0..size).for_each(|i| v[i * size + i] = 1.0);
    let scale = a.iter().map(|x| x * x).sum::<f64>();
    // Convergence is quadratic: a 32 × 32 covariance takes about 6 to 8 sweeps.
    for _sweep in 0..64 {
        let off: f64 = (0..size)
            .flat_map(|p| (0..size).filter(move |q| *q != p).map(move |q| (p, q)))
            .map(|(p, q)| a[p * size + q] * a[p * size + q])
            .sum();
        if off <= scale * 1e-30 || off == 0.0 {
            break;
        }
        for p in 0..size {
            for q in p + 1..size {
                let apq = a[p * size + q];
                if apq == 0.0 {
                    continue;
                }
                let theta = (a[q * size + q] - a[p * size + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                // A ← Jᵀ A J, V ← V J, J the rotation in the (p, q) plane.
                for k in 0..size {
                    let (akp, akq) = (a[k * size + p], a[k * size + q]);
                    a[k * size + p] = c * akp - s * akq;
                    a[k * size + q] = s * akp + c * akq;
                }
                for k in 0..size {
                    let (apk, aqk) = (a[p * size + k], a[q * size + k]);
                    a[p * size + k] = c * apk - s * aqk;
                    a[q * size + k] = s * apk + c * aqk;
                }
                for k in 0..size {
                    let (vkp, vkq) = (v[k * size + p], v[k * size + q]);
                    v[k * size + p] = c * vkp - s * vkq;
                    v[k * size + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    ((0..size).map(|i| a[i * size + i]).collect(), v)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn close(a: &[f32], b: &[f32], tolerance: f32) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tolerance)
    }

    #[test]
    fn a_cross_in_the_plane_has_its_arms_as_axes() {
        // Variance 2 along x, 0.5 along y, none along z: shares 0.8 and 0.2.
        #[rustfmt::skip]
        let rows = [2.0, 0.0, 0.0,  -2.0, 0.0, 0.0,  0.0, 1.0, 0.0,  0.0, -1.0, 0.0];
        let pca = pca_2d(&rows, 3).unwrap();
        assert!(close(&pca.axes, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0], 1e-6), "{:?}", pca.axes);
        assert!(close(&pca.explained, &[0.8, 0.2], 1e-6), "{:?}", pca.explained);
        assert!(close(&pca.points, &[2.0, 0.0, -2.0, 0.0, 0.0, 1.0, 0.0, -1.0], 1e-6), "{:?}", pca.points);
    }

    #[test]
    fn a_rotated_shifted_cloud_gives_the_rotation_back() {
        // The same cross turned by 30° in the xy plane, moved to (5, 5, 5),
        // with a little spread along z (variance 0.02): the first axis is
        // (cos 30°, sin 30°, 0), the second (−sin 30°, cos 30°, 0) flipped so
        // that its largest coordinate (cos 30° on y) is positive.
        let (c, s) = (30f32.to_radians().cos(), 30f32.to_radians().sin());
        let local = [[2.0, 0.0, 0.2], [-2.0, 0.0, -0.2], [0.0, 1.0, 0.0], [0.0, -1.0, 0.0]];
        let rows: Vec<f32> =
            local.iter().flat_map(|[a, b, z]| [5.0 + a * c - b * s, 5.0 + a * s + b * c, 5.0 + z]).collect();
        let pca = pca_2d(&rows, 3).unwrap();
        // The z spread rides on the first arm: the first axis tilts by atan(0.1).
        let tilt = (0.2f32 / 2.0).atan();
        let first = [c * tilt.cos(), s * tilt.cos(), tilt.sin()];
        assert!(close(&pca.axes[..3], &first, 1e-5), "{:?}", pca.axes);
        assert!(close(&pca.axes[3..], &[-s, c, 0.0], 1e-5), "{:?}", pca.axes);
        let total = 2.02 + 0.5;
        assert!(close(&pca.explained, &[2.02 / total, 0.5 / total], 1e-5), "{:?}", pca.explained);
    }

    #[test]
    fn fewer_rows_than_dimensions_use_the_gram_matrix() {
        // Two points in 10-D: one axis along their difference, all the variance.
        let mut rows = vec![0f32; 20];
        rows[3] = 1.0;
        rows[10 + 3] = -1.0;
        rows[10 + 7] = -2.0;
        let pca = pca_2d(&rows, 10).unwrap();
        // Centred: (1 at 3, 1 at 7) and its opposite; the axis is (e₃ + e₇)/√2.
        let mut axis = [0f32; 10];
        (axis[3], axis[7]) = (1.0 / 2f32.sqrt(), 1.0 / 2f32.sqrt());
        assert!(close(&pca.axes[..10], &axis, 1e-6), "{:?}", pca.axes);
        assert!(pca.axes[10..].iter().all(|a| *a == 0.0));
        assert!(close(&pca.explained, &[1.0, 0.0], 1e-6));
        // The two points sit at ±√2 on the axis.
        assert!(close(&pca.points, &[2f32.sqrt(), 0.0, -(2f32.sqrt()), 0.0], 1e-6), "{:?}", pca.points);
    }

    #[test]
    fn the_same_vectors_always_give_the_same_picture() {
        let rows: Vec<f32> =
            (0..24 * 8).map(|i| ((i * 37 % 101) as f32 / 50.0 - 1.0) * (1 + i % 8) as f32).collect();
        let a = pca_2d(&rows, 8).unwrap();
        assert_eq!(a, pca_2d(&rows, 8).unwrap());
        // Flipping every vector flips no axis: the sign rule decides.
        let flipped: Vec<f32> = rows.iter().map(|x| -x).collect();
        let b = pca_2d(&flipped, 8).unwrap();
        assert!(close(&a.axes, &b.axes, 1e-5));
        assert!(a.explained[0] >= a.explained[1] && a.explained[0] + a.explained[1] <= 1.0 + 1e-6);
    }

    #[test]
    fn degenerate_inputs_give_zero_axes_not_errors() {
        let same = pca_2d(&[1.0, 2.0, 1.0, 2.0], 2).unwrap();
        assert_eq!(same.explained, [0.0, 0.0]);
        assert!(same.points.iter().all(|p| *p == 0.0));
        assert!(pca_2d(&[1.0, 2.0, 3.0], 2).is_err());
        assert!(pca_2d(&vec![0.0; 300 * 300], 300).unwrap_err().to_string().contains("too large"));
    }
}
