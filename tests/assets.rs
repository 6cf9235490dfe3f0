//! The demo's committed models are exactly what the repo's generator writes.
use sinew::project::gltf::samples::demo_assets;

#[test]
fn committed_demo_models_match_the_generator() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("content/models");
    for (name, bytes) in demo_assets() {
        let committed =
            std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e} (run scripts/gen-assets.sh)"));
        assert!(committed == bytes, "{name} differs from the generator's output: run scripts/gen-assets.sh");
    }
}
