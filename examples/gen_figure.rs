//! Writes the generated 21-bone figure (`figure.obj`, `figure.mtl`, `figure.bon`) into a folder:
//! `cargo run --example gen_figure -- DIR [RINGS SEGMENTS]` (default 8 × 12 per bone).
fn main() {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next() else {
        eprintln!("usage: gen_figure DIR [RINGS SEGMENTS]");
        std::process::exit(2);
    };
    let rings = args.next().and_then(|a| a.parse().ok()).unwrap_or(8);
    let segments = args.next().and_then(|a| a.parse().ok()).unwrap_or(12);
    if let Err(e) = sinew::project::bon::sample::write_figure(std::path::Path::new(&dir), rings, segments) {
        eprintln!("{dir}: {e}");
        std::process::exit(1);
    }
    println!("wrote {dir}/figure.obj, figure.mtl, figure.bon");
}
