//! Import time of a generated 50,000-triangle textured model (25,351 vertices with normals and
//! UVs, u16 indices, a 256x256 PNG): the bytes are generated once, `import_bytes` is what is timed.
use criterion::{Criterion, criterion_group, criterion_main};
use sinew::project::gltf::{import_bytes, samples::textured_grid};
use std::hint::black_box;

fn import(c: &mut Criterion) {
    let bytes = textured_grid(250, 100);
    let m = import_bytes("/grid.glb", &bytes, None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.meshes[0].primitives[0].indices.len(), 150_000);
    c.bench_function("import_50k_triangles_textured", |b| {
        b.iter(|| import_bytes("/grid.glb", black_box(&bytes), None).map(|m| m.meshes.len()))
    });
}

criterion_group!(benches, import);
criterion_main!(benches);
