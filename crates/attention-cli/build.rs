//! Embeds the default subset when it exists. Without it (a checkout that is
//! about to build it with `attention build-data`) the binary still compiles
//! and asks for `--embeddings`.

use std::path::Path;

fn main() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/glove-6b-50d.aewv");
    println!("cargo::rerun-if-changed={}", data.display());
    println!("cargo::rustc-check-cfg=cfg(default_data)");
    if data.is_file() {
        println!("cargo::rustc-cfg=default_data");
    }
}
