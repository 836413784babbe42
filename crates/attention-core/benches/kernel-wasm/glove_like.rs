//! Seeded random word vectors of GloVe-like scale, shared by the native bench
//! (`examples/bench.rs`) and the wasm bench (`lib.rs` here), so that both time
//! the kernel on exactly the same numbers without a data file, and by the
//! property tests (`tests/properties.rs`).

use attention_core::Matrix;

/// GloVe 6B 50d's components are roughly normal with a standard deviation of 0.4.
pub const SPREAD: f64 = 0.4;
/// The page's dimension.
pub const DIM: usize = 50;

/// `(n, DIM)` vectors from `seed`, each component about N(0, SPREAD).
pub fn glove_like(n: usize, seed: u64) -> attention_core::Result<Matrix> {
    normal_matrix(n, DIM, SPREAD, seed)
}

/// `(rows, cols)` normal numbers of standard deviation `spread`, from
/// `seed`: xorshift64* and Box–Muller (the property tests use it too).
pub fn normal_matrix(rows: usize, cols: usize, spread: f64, seed: u64) -> attention_core::Result<Matrix> {
    let mut state = seed.max(1);
    let mut uniform = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        // 53 random bits, in (0, 1].
        ((state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 + 1.0) / (1u64 << 53) as f64
    };
    let data = (0..rows * cols)
        .map(|_| {
            let (u, v) = (uniform(), uniform());
            (spread * (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()) as f32
        })
        .collect();
    Matrix::new(rows, cols, data)
}
