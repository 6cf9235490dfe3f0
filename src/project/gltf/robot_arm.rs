//! A generated model that needs node animation to look right: rigid meshes under skin joints, a
//! nested animated node chain without any skin, a static rigid base, and one primitive that is
//! morphed, skinned and moved by animated joints at once. Tests use it against a straightforward
//! CPU implementation and GPU readback; the demo and benches may use it as a prop.
use super::writer::{ChannelSpec, GltfBuilder, PrimitiveSpec, TargetSpec, srgb_to_linear};
use crate::project::model_data::{ChannelPath, Interpolation};
use glam::{Mat4, Quat, Vec3};

const NO_ROTATION: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// An axis-aligned box of `size` centred on `center`, with flat normals (24 vertices).
pub fn box_primitive(center: [f32; 3], size: [f32; 3], material: Option<usize>) -> PrimitiveSpec {
    let (c, h) = (Vec3::from(center), Vec3::from(size) * 0.5);
    let mut p = PrimitiveSpec { material, ..Default::default() };
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let mut n = Vec3::ZERO;
            n[axis] = sign;
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            let base = p.positions.len() as u32;
            for (a, b) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                let mut q = n;
                q[u] = a;
                q[v] = b;
                p.positions.push((c + q * h).to_array());
                p.normals.push(n.to_array());
            }
            let quad = if sign > 0.0 { [0, 1, 2, 0, 2, 3] } else { [0, 2, 1, 0, 3, 2] };
            p.indices.extend(quad.iter().map(|i| base + i));
        }
    }
    p
}

fn rot_z(deg: f32) -> [f32; 4] {
    Quat::from_rotation_z(deg.to_radians()).to_array()
}

fn rot_y(deg: f32) -> [f32; 4] {
    Quat::from_rotation_y(deg.to_radians()).to_array()
}

/// glTF node indices of [`robot_arm`], for tests.
pub mod nodes {
    pub const ARMATURE: usize = 0;
    pub const SHOULDER: usize = 1;
    pub const ELBOW: usize = 2;
    pub const UPPER_ARM: usize = 3;
    pub const FOREARM: usize = 4;
    pub const CABLE: usize = 5;
    pub const BASE: usize = 6;
    pub const SPINNER: usize = 7;
    pub const BLADE: usize = 8;
}

/// The robot arm: clip `swing` (1 s, LINEAR) bends the shoulder and elbow joints (their rigid
/// arm boxes follow), bobs and spins a two-level node chain carrying a blade, and inflates the
/// skinned cable's morph target while its joints move it.
pub fn robot_arm() -> Vec<u8> {
    let mut b = GltfBuilder::new();
    // Display colours, stored linear as glTF factors are.
    let grey = b.material("grey", srgb_to_linear([0.55, 0.57, 0.6, 1.0]), None);
    let orange = b.material("orange", srgb_to_linear([0.95, 0.5, 0.12, 1.0]), None);
    let blue = b.material("blue", srgb_to_linear([0.2, 0.45, 0.9, 1.0]), None);
    let armature = b.node("Armature", None, [0.0, 0.0, 0.0], NO_ROTATION, [1.0; 3]);
    let shoulder = b.node("Shoulder", Some(armature), [0.0, 0.5, 0.0], NO_ROTATION, [1.0; 3]);
    let elbow = b.node("Elbow", Some(shoulder), [0.0, 1.0, 0.0], NO_ROTATION, [1.0; 3]);
    let upper = b.node("UpperArmMesh", Some(shoulder), [0.0, 0.0, 0.0], NO_ROTATION, [1.0; 3]);
    let fore = b.node("ForearmMesh", Some(elbow), [0.0, 0.0, 0.0], NO_ROTATION, [1.0; 3]);
    // The cable's own node transform must be ignored (it is skinned): give it a visible one.
    let cable = b.node("Cable", Some(armature), [5.0, 0.0, 0.0], rot_y(30.0), [2.0; 3]);
    let base = b.node("Base", None, [0.0, 0.25, 0.0], NO_ROTATION, [1.0; 3]);
    let spinner = b.node("Spinner", None, [1.2, 0.6, 0.0], NO_ROTATION, [1.0; 3]);
    let blade = b.node("Blade", Some(spinner), [0.0, 0.3, 0.0], NO_ROTATION, [1.0; 3]);
    debug_assert_eq!(
        [armature, shoulder, elbow, upper, fore, cable, base, spinner, blade],
        [
            nodes::ARMATURE,
            nodes::SHOULDER,
            nodes::ELBOW,
            nodes::UPPER_ARM,
            nodes::FOREARM,
            nodes::CABLE,
            nodes::BASE,
            nodes::SPINNER,
            nodes::BLADE
        ]
    );
    b.mesh(upper, "upper_arm", &[box_primitive([0.0, 0.5, 0.0], [0.22, 1.0, 0.22], Some(orange))], &[], &[]);
    b.mesh(fore, "forearm", &[box_primitive([0.0, 0.45, 0.0], [0.18, 0.9, 0.18], Some(orange))], &[], &[]);
    b.mesh(base, "base", &[box_primitive([0.0, 0.0, 0.0], [0.8, 0.5, 0.8], Some(grey))], &[], &[]);
    b.mesh(blade, "blade", &[box_primitive([0.0, 0.0, 0.0], [0.7, 0.06, 0.14], Some(blue))], &[], &[]);

    // The cable: a thin column beside the arm from the shoulder (y 0.5) to the elbow's end
    // (y 2.3), each vertex bound to both joints by height; one morph target fattens it.
    let mut cable_prim = box_primitive([0.2, 1.4, 0.0], [0.06, 1.8, 0.06], Some(blue));
    // Split the long faces so the bend shows: add a ring of vertices is unnecessary for the
    // tests; weights by height already make the box shear between the joints.
    let (mut joints, mut weights, mut fat) = (Vec::new(), Vec::new(), Vec::new());
    for p in &cable_prim.positions {
        let k = ((p[1] - 0.5) / 1.8).clamp(0.0, 1.0);
        joints.push([0u16, 1, 0, 0]);
        weights.push([1.0 - k, k, 0.0, 0.0]);
        fat.push([if p[0] > 0.2 { 0.05 } else { -0.05 }, 0.0, if p[2] > 0.0 { 0.05 } else { -0.05 }]);
    }
    cable_prim.joints = joints;
    cable_prim.weights = weights;
    cable_prim.targets = vec![TargetSpec { positions: fat, normals: Vec::new() }];
    b.mesh(cable, "cable", &[cable_prim], &[0.0], &["fat"]);
    let rest_world = |t: [f32; 3]| Mat4::from_translation(Vec3::from(t));
    let ib =
        [rest_world([0.0, 0.5, 0.0]).inverse().to_cols_array(), rest_world([0.0, 1.5, 0.0]).inverse().to_cols_array()];
    b.skin(cable, &[shoulder, elbow], Some(&ib));

    let times = vec![0.0, 0.5, 1.0];
    let rot = |node: usize, f: fn(f32) -> [f32; 4], a: [f32; 3]| ChannelSpec {
        node,
        path: ChannelPath::Rotation,
        interpolation: Interpolation::Linear,
        times: times.clone(),
        values: a.iter().flat_map(|&d| f(d)).collect(),
    };
    let channels = vec![
        rot(shoulder, rot_z, [0.0, 40.0, -10.0]),
        rot(elbow, rot_z, [0.0, -70.0, 20.0]),
        ChannelSpec {
            node: spinner,
            path: ChannelPath::Translation,
            interpolation: Interpolation::Linear,
            times: times.clone(),
            values: vec![1.2, 0.6, 0.0, 1.2, 1.1, 0.0, 1.2, 0.7, 0.0],
        },
        rot(blade, rot_y, [0.0, 90.0, 170.0]),
        ChannelSpec {
            node: cable,
            path: ChannelPath::Weights,
            interpolation: Interpolation::Linear,
            times: times.clone(),
            values: vec![0.0, 1.0, 0.3],
        },
    ];
    b.animation("swing", &channels);
    b.to_glb()
}
