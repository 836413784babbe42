//! Whole-file reads with a bound, for the files the tool reads at once (a
//! shard set's manifest and shards, the model's files, a list of sentences).

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::Path;

use attention_core::error::grouped;

/// No bound but the file's own size.
pub const ANY_SIZE: u64 = u64::MAX;

/// Reads `path` whole when it is a regular file of at most `limit` bytes.
/// A device (a manifest linked to /dev/zero) was read into memory until the
/// machine ran out, and a named pipe with no writer waited for ever: both are
/// refused before anything is read (opening such a pipe blocks).
pub fn read_bounded(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let meta = fs::metadata(path)?;
    if !meta.is_file() {
        let what = if meta.is_dir() { "a folder" } else { "not a regular file" };
        return Err(io::Error::new(io::ErrorKind::InvalidInput, what));
    }
    if meta.len() > limit {
        return Err(too_large(limit));
    }
    let mut bytes = Vec::new();
    // A file that grows as it is read stops at the bound too.
    File::open(path)?.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(limit));
    }
    Ok(bytes)
}

fn too_large(limit: u64) -> io::Error {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    io::Error::new(io::ErrorKind::InvalidData, format!("larger than {} bytes", grouped(limit)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_a_folder_and_an_oversized_file_are_refused() {
        let dir = std::env::temp_dir().join(format!("attention-files-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let file = dir.join("manifest.json");
        fs::write(&file, b"{\"a\": 1}").unwrap();
        assert_eq!(read_bounded(&file, 8).unwrap(), b"{\"a\": 1}");
        let err = read_bounded(&file, 7).unwrap_err();
        assert_eq!(err.to_string(), "larger than 7 bytes");
        assert_eq!(read_bounded(&dir, ANY_SIZE).unwrap_err().to_string(), "a folder");
        if Path::new("/dev/zero").exists() {
            assert_eq!(
                read_bounded(Path::new("/dev/zero"), ANY_SIZE).unwrap_err().to_string(),
                "not a regular file"
            );
        }
        assert_eq!(read_bounded(&dir.join("none"), 8).unwrap_err().kind(), io::ErrorKind::NotFound);
        fs::remove_dir_all(&dir).unwrap();
    }
}
