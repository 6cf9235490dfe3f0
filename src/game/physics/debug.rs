//! The debug view (`physics.debug`): every shape as wire lines in its object's colour class,
//! every contact point as a short line along its normal, every ray cast of the frame, drawn
//! over the scene through the frame's debug lines.
use super::{Physics, arr3};
use crate::game::render_requests::RenderRequests;
use crate::project::physics::CollisionType;
use rapier3d::prelude::*;

/// Segments per circle of a sphere or capsule.
const SEGMENTS: usize = 16;
const CONTACT: [f32; 4] = [1.0, 1.0, 0.0, 1.0];
const RAY: [f32; 4] = [1.0, 0.0, 0.0, 1.0];

fn colour(ty: CollisionType, enabled: bool) -> [f32; 4] {
    if !enabled {
        return [0.5, 0.5, 0.5, 1.0];
    }
    match ty {
        CollisionType::Dynamic => [0.2, 1.0, 0.2, 1.0],
        CollisionType::Kinematic => [0.2, 0.6, 1.0, 1.0],
        CollisionType::Static => [1.0, 1.0, 1.0, 1.0],
        CollisionType::Trigger => [1.0, 0.3, 1.0, 1.0],
    }
}

/// Pushes this frame's lines; stops when the frame's line budget is spent.
pub fn draw(p: &mut Physics, out: &mut RenderRequests) {
    let inv = 1.0 / p.settings.scale;
    let world_point = |pose: &Pose, local: glam::Vec3| -> [f32; 3] {
        let v = pose.transform_point(Vector::new(local.x, local.y, local.z));
        (glam::Vec3::from(arr3(v)) * inv).to_array()
    };
    let colliders = p.spaces.iter().flat_map(|sp| sp.world.colliders.iter());
    for (_, c) in colliders {
        let Some(b) = p.get(c.user_data as u32) else { continue };
        let col = colour(b.ty, b.enabled);
        let pose = c.position();
        let mut segs: Vec<(glam::Vec3, glam::Vec3)> = Vec::new();
        let circle = |segs: &mut Vec<(glam::Vec3, glam::Vec3)>, centre: glam::Vec3, r: f32, axis: usize| {
            for k in 0..SEGMENTS {
                let at = |k: usize| {
                    let a = k as f32 / SEGMENTS as f32 * std::f32::consts::TAU;
                    let (s, co) = a.sin_cos();
                    let v = match axis {
                        0 => glam::Vec3::new(0.0, co, s),
                        1 => glam::Vec3::new(co, 0.0, s),
                        _ => glam::Vec3::new(co, s, 0.0),
                    };
                    centre + v * r
                };
                segs.push((at(k), at(k + 1)));
            }
        };
        if let Some(ball) = c.shape().as_ball() {
            for axis in 0..3 {
                circle(&mut segs, glam::Vec3::ZERO, ball.radius, axis);
            }
        } else if let Some(cuboid) = c.shape().as_cuboid() {
            let h = glam::Vec3::from(arr3(cuboid.half_extents));
            let corner = |i: usize| {
                glam::Vec3::new(
                    if i & 1 == 0 { -h.x } else { h.x },
                    if i & 2 == 0 { -h.y } else { h.y },
                    if i & 4 == 0 { -h.z } else { h.z },
                )
            };
            for i in 0..8 {
                for bit in [1, 2, 4] {
                    if i & bit == 0 {
                        segs.push((corner(i), corner(i | bit)));
                    }
                }
            }
        } else if let Some(cap) = c.shape().as_capsule() {
            let (a, bb) = (glam::Vec3::from(arr3(cap.segment.a)), glam::Vec3::from(arr3(cap.segment.b)));
            let r = cap.radius;
            for end in [a, bb] {
                for axis in 0..3 {
                    circle(&mut segs, end, r, axis);
                }
            }
            for d in [glam::Vec3::X, glam::Vec3::NEG_X, glam::Vec3::Z, glam::Vec3::NEG_Z] {
                segs.push((a + d * r, bb + d * r));
            }
        }
        for (s, e) in segs {
            if !out.line(world_point(pose, s), world_point(pose, e), col) {
                return;
            }
        }
    }
    let pairs = p.spaces.iter().flat_map(|sp| sp.world.narrow_phase.contact_pairs().map(move |pair| (sp, pair)));
    for (sp, pair) in pairs {
        if !pair.has_any_active_contact() {
            continue;
        }
        let Some(c1) = sp.world.colliders.get(pair.collider1) else { continue };
        for m in pair.manifolds() {
            let n = glam::Vec3::from(arr3(m.data.normal)) * 0.25;
            for c in &m.points {
                let at = glam::Vec3::from(world_point(c1.position(), glam::Vec3::from(arr3(c.local_p1))));
                if !out.line(at.to_array(), (at + n).to_array(), CONTACT) {
                    return;
                }
            }
        }
    }
    for (from, to) in std::mem::take(&mut p.debug_rays) {
        if !out.line(from, to, RAY) {
            return;
        }
    }
}
