use super::*;

fn obj(text: &str) -> ObjImport {
    parse("/m/t.obj", text, None).unwrap()
}

fn err(text: &str) -> String {
    parse("/m/t.obj", text, None).unwrap_err().to_string()
}

const QUAD: &str = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n";

#[test]
fn ngons_are_fanned_and_groups_are_meshes() {
    let m = obj(&format!("{QUAD}v 0.5 1.5 0\no body\nf 1 2 3 5 4\ng arm\nf 1 2 3\n"));
    let ids: Vec<&str> = m.data.meshes.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["body", "arm"]);
    let body = &m.data.meshes[0].primitives[0];
    // A pentagon is three triangles sharing its first corner.
    assert_eq!(body.indices, [0, 1, 2, 0, 2, 3, 0, 3, 4]);
    assert_eq!(body.positions.len(), 5);
    assert_eq!(m.sources[0], [0, 1, 2, 4, 3]);
    assert_eq!(m.data.meshes[1].primitives[0].indices.len(), 3);
    assert_eq!(m.data.meshes[0].node, 0);
    assert_eq!(m.data.nodes[1].name, "arm");
    assert_eq!(m.data.aabb.max, [1.0, 1.5, 0.0]);
}

#[test]
fn negative_indices_count_back_from_the_last_vertex() {
    let a = obj(&format!("{QUAD}f 1 2 3 4\n"));
    let b = obj(&format!("{QUAD}f -4 -3 -2 -1\n"));
    assert_eq!(a.data.meshes[0].primitives, b.data.meshes[0].primitives);
    // Relative to the vertices read so far, not to the whole file.
    let c = obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\nv 5 5 5\nv 6 5 5\nv 5 6 5\nf -3 -2 -1\n");
    assert_eq!(c.sources[0], [0, 1, 2, 3, 4, 5]);
    let t = obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nvn 0 0 1\nf -3/-3/-1 -2/-2/-1 -1/-1/-1\n");
    let p = &t.data.meshes[0].primitives[0];
    assert_eq!(p.texcoords0, [[0.0, 1.0], [1.0, 1.0], [0.0, 0.0]]);
    assert_eq!(p.normals, [[0.0, 0.0, 1.0]; 3]);
}

#[test]
fn missing_normals_are_area_weighted_and_missing_uvs_zero() {
    // Two triangles at a right angle sharing the edge 1-2; the larger one dominates.
    let m = obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 3\nvt 0.5 0.5\nf 1/1 2 3\nf 1 3 4\n");
    let p = &m.data.meshes[0].primitives[0];
    assert_eq!(p.normals[0].len(), 3);
    let n0 = glam::Vec3::from(p.normals[0]);
    // Face A (area 0.5) has normal +z, face B (area 1.5) has normal +x.
    let expect = glam::Vec3::new(3.0, 0.0, 1.0).normalize();
    assert!((n0 - expect).length() < 1e-6, "{n0}");
    assert_eq!(p.normals[1], [0.0, 0.0, 1.0]);
    assert_eq!(p.texcoords0[0], [0.5, 0.5]);
    // A corner without `vt` in a primitive that has some gets (0, 0).
    assert_eq!(p.texcoords0[1], [0.0, 0.0]);
    let none = obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    assert!(none.data.meshes[0].primitives[0].texcoords0.is_empty());
}

#[test]
fn materials_split_primitives_and_unknown_names_warn() {
    let m = obj(&format!("{QUAD}usemtl a\nf 1 2 3\nusemtl b\nf 1 3 4\nusemtl a\nf 2 3 4\n"));
    assert_eq!(m.data.meshes.len(), 1);
    assert_eq!(m.data.meshes[0].primitives.len(), 1, "unknown materials are the default material");
    assert_eq!(m.warnings.len(), 2, "{:?}", m.warnings);
    assert!(m.warnings[0].starts_with("/m/t.obj:5: usemtl 'a'"), "{}", m.warnings[0]);
}

#[test]
fn malformed_lines_name_file_and_line() {
    assert_eq!(err(&format!("{QUAD}f 1 2 900\n")), "/m/t.obj:5: face index 900 out of range (4 vertices)");
    assert_eq!(err(&format!("{QUAD}f 1 2 -5\n")), "/m/t.obj:5: face index -5 out of range (4 vertices)");
    assert_eq!(err(&format!("{QUAD}f 0 1 2\n")), "/m/t.obj:5: face index 0 out of range (4 vertices)");
    assert_eq!(err("v 1 2 x\n"), "/m/t.obj:1: 'x' is not a number");
    assert_eq!(err("v 1 2\n"), "/m/t.obj:1: 'v' takes 3 coordinates, found 2");
    assert_eq!(err(&format!("{QUAD}f 1 2\n")), "/m/t.obj:5: a face needs at least 3 vertices, found 2");
    assert_eq!(
        err(&format!("{QUAD}f 1/1 2 3\n")),
        "/m/t.obj:5: texture coordinate index 1 out of range (0 texture coordinates)"
    );
    assert_eq!(err(&format!("{QUAD}f 1//x 2 3\n")), "/m/t.obj:5: normal index 'x' is not an integer");
    assert_eq!(err("v nan 0 0\n"), "/m/t.obj:1: 'nan' is not a number");
    assert_eq!(err("mtllib ../../x.mtl\n"), "/m/t.obj:1: mtllib '../../x.mtl' escapes the project root");
}

#[test]
fn comments_and_ignored_statements() {
    let m = obj(&format!("# head\n{QUAD}s 1\nl 1 2\nf 1 2 3 # tail\n"));
    assert_eq!(m.data.meshes[0].primitives[0].indices.len(), 3);
    assert_eq!(m.data.meshes[0].id, "t");
}

/// Issue 32: 300,000 `g` groups of one face each. Each `g` looked through every group before it
/// (over a minute); now by name. Not timed: at this size the old scan is obviously slow.
#[test]
fn many_groups_are_found_by_name() {
    const GROUPS: usize = 300_000;
    let mut text = String::from("v 0 0 0\nv 1 0 0\nv 0 1 0\n");
    for g in 0..GROUPS {
        text.push_str(&format!("g part{g}\nf 1 2 3\n"));
    }
    // Reopening the first group adds to it, as before.
    text.push_str("g part0\nf 3 2 1\n");
    let m = obj(&text);
    assert_eq!(m.data.meshes.len(), GROUPS);
    assert_eq!(m.data.meshes[0].id, "part0");
    assert_eq!(m.data.meshes[0].primitives[0].indices.len(), 6);
    assert_eq!(m.data.meshes[GROUPS - 1].id, format!("part{}", GROUPS - 1));
    assert_eq!(m.data.meshes[GROUPS - 1].primitives[0].indices.len(), 3);
}

/// Issue 32: an OBJ had no budget. A polygon of n corners is n − 2 triangles, so one long `f`
/// line (5 MB) asks for far more than 8 bytes per byte of the file: refused at its line.
#[test]
fn faces_past_the_import_budget_are_refused_with_their_line() {
    let corners = 2_500_000;
    let mut text = String::from("v 0 0 0\nv 1 0 0\nv 0 1 0\nf");
    text.push_str(&" 1".repeat(corners));
    text.push('\n');
    let e = err(&text);
    assert!(e.starts_with("/m/t.obj:4: a face: needs "), "{e}");
    assert!(e.contains("import budget"), "{e}");
    // The same face a hundred times shorter is well within it.
    let short = format!("v 0 0 0\nv 1 0 0\nv 0 1 0\nf{}\n", " 1".repeat(corners / 100));
    assert_eq!(obj(&short).data.meshes[0].primitives[0].indices.len(), (corners / 100 - 2) * 3);
}

/// The coordinates a rig measures are the file's decimals (f64), the model's are f32.
#[test]
fn positions_are_kept_exact_for_rigs() {
    let m = obj("v 0.1 0.2 0.3\n");
    assert_eq!(m.exact, [[0.1, 0.2, 0.3]]);
    assert_eq!(m.positions, [[0.1f32, 0.2, 0.3]]);
    assert_eq!(err("v 1e39 0 0\n"), "/m/t.obj:1: '1e39' is not a number");
}
