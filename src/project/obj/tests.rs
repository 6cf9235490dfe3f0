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
