//! The demo's committed models are what the repo's generator writes. Compared after import with
//! a float tolerance: the generator's trigonometry may differ in the last bit between build
//! profiles (compile-time constant folding vs the C library).
use sinew::project::gltf::{import_bytes, samples::demo_assets};

fn close(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-5)
}

#[test]
fn committed_demo_models_match_the_generator() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("content/models");
    for (name, bytes) in demo_assets() {
        let committed =
            std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e} (run scripts/gen-assets.sh)"));
        let a = import_bytes(name, &committed, None).unwrap_or_else(|e| panic!("{e}"));
        let b = import_bytes(name, &bytes, None).unwrap_or_else(|e| panic!("{e}"));
        let stale = || format!("{name} differs from the generator's output: run scripts/gen-assets.sh");
        assert_eq!(a.meshes.len(), b.meshes.len(), "{}", stale());
        for (ma, mb) in a.meshes.iter().zip(&b.meshes) {
            assert_eq!(ma.id, mb.id, "{}", stale());
            for (pa, pb) in ma.primitives.iter().zip(&mb.primitives) {
                assert_eq!(pa.indices, pb.indices, "{}", stale());
                assert!(close(pa.positions.as_flattened(), pb.positions.as_flattened()), "{}", stale());
                assert_eq!(pa.joints, pb.joints, "{}", stale());
                assert_eq!(pa.targets.len(), pb.targets.len(), "{}", stale());
            }
        }
        assert_eq!(a.animations.len(), b.animations.len(), "{}", stale());
        for (ca, cb) in a.animations.iter().zip(&b.animations) {
            for (x, y) in ca.channels.iter().zip(&cb.channels) {
                assert!(close(&x.values, &y.values) && close(&x.times, &y.times), "{}", stale());
            }
        }
        assert_eq!(a.textures, b.textures, "{}", stale());
    }
}
