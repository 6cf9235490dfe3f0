//! The demo's committed models are what the repo's generator writes. Compared after import with
//! a float tolerance: the generator's trigonometry may differ in the last bit between build
//! profiles (compile-time constant folding vs the C library).
use sinew::project::gltf::{import_bytes, samples::demo_assets};
use sinew::project::model_data::ModelData;

fn close(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-5)
}

/// What differs between two imports of the same model, or None. Counts are compared before
/// pairing anything up: `zip` stops at the shorter list, so a primitive or channel missing from
/// one side would otherwise go unnoticed.
fn difference(a: &ModelData, b: &ModelData) -> Option<String> {
    let count = |what: &str, x: usize, y: usize| (x != y).then(|| format!("{what}: {x} vs {y}"));
    if let Some(d) = count("meshes", a.meshes.len(), b.meshes.len()) {
        return Some(d);
    }
    for (ma, mb) in a.meshes.iter().zip(&b.meshes) {
        if ma.id != mb.id {
            return Some(format!("mesh ids: {} vs {}", ma.id, mb.id));
        }
        if let Some(d) = count(&format!("primitives of mesh {}", ma.id), ma.primitives.len(), mb.primitives.len()) {
            return Some(d);
        }
        for (i, (pa, pb)) in ma.primitives.iter().zip(&mb.primitives).enumerate() {
            let what = |f: &str| format!("mesh {} primitive {i}: {f}", ma.id);
            if pa.indices != pb.indices {
                return Some(what("indices"));
            }
            if !close(pa.positions.as_flattened(), pb.positions.as_flattened()) {
                return Some(what("positions"));
            }
            if pa.joints != pb.joints {
                return Some(what("joints"));
            }
            if let Some(d) = count(&what("morph targets"), pa.targets.len(), pb.targets.len()) {
                return Some(d);
            }
        }
    }
    if let Some(d) = count("animations", a.animations.len(), b.animations.len()) {
        return Some(d);
    }
    for (ca, cb) in a.animations.iter().zip(&b.animations) {
        if let Some(d) = count(&format!("channels of animation '{}'", ca.name), ca.channels.len(), cb.channels.len()) {
            return Some(d);
        }
        for (i, (x, y)) in ca.channels.iter().zip(&cb.channels).enumerate() {
            if !close(&x.values, &y.values) || !close(&x.times, &y.times) {
                return Some(format!("animation '{}' channel {i}: keys", ca.name));
            }
        }
    }
    (a.textures != b.textures).then(|| "textures".to_string())
}

#[test]
fn committed_demo_models_match_the_generator() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("content/models");
    for (name, bytes) in demo_assets() {
        let committed =
            std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e} (run scripts/gen-assets.sh)"));
        let a = import_bytes(name, &committed, None).unwrap_or_else(|e| panic!("{e}"));
        let b = import_bytes(name, &bytes, None).unwrap_or_else(|e| panic!("{e}"));
        if let Some(d) = difference(&a, &b) {
            panic!("{name} differs from the generator's output ({d}): run scripts/gen-assets.sh");
        }
    }
}

/// The demo's `.bon` mannequin and its OBJ/MTL are text: they match the generator exactly.
#[test]
fn committed_mannequin_matches_the_generator() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("content/models");
    for (name, text) in sinew::project::bon::sample::mannequin_files() {
        let committed = std::fs::read_to_string(dir.join(name))
            .unwrap_or_else(|e| panic!("{name}: {e} (run scripts/gen-assets.sh)"));
        assert!(committed == text, "{name} differs from the generator's output: run scripts/gen-assets.sh");
    }
}

/// The comparison can fail: a dropped primitive or channel, which `zip` alone would skip over.
#[test]
fn a_missing_primitive_or_channel_is_a_difference() {
    let (name, bytes) = demo_assets()
        .into_iter()
        .find(|(_, b)| {
            let m = import_bytes("probe", b, None).ok();
            m.is_some_and(|m| !m.animations.is_empty() && m.meshes.iter().any(|x| !x.primitives.is_empty()))
        })
        .expect("a demo model with a mesh and an animation");
    let a = import_bytes(name, &bytes, None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(difference(&a, &a), None);
    let mut fewer_primitives = a.clone();
    if let Some(m) = fewer_primitives.meshes.iter_mut().find(|m| !m.primitives.is_empty()) {
        m.primitives.pop();
    }
    let d = difference(&a, &fewer_primitives).expect("a dropped primitive differs");
    assert!(d.contains("primitives of mesh"), "{d}");
    let mut fewer_channels = a.clone();
    if let Some(c) = fewer_channels.animations.iter_mut().find(|c| !c.channels.is_empty()) {
        c.channels.pop();
    }
    let d = difference(&fewer_channels, &a).expect("a dropped channel differs");
    assert!(d.contains("channels of animation"), "{d}");
}
