//! The debug view (`physics.debug`): every shape as wire lines in its object's colour class,
//! every contact point as a short line along its normal, every ray cast of the frame, drawn
//! over the scene through the frame's debug lines.
use super::Physics;
use super::simulation::DebugLines;
use crate::game::render_requests::RenderRequests;
use crate::project::physics::CollisionType;

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

/// Pushes a world's lines in the colours of their objects, in world units; stops when the
/// frame's line budget is spent.
struct Lines<'a> {
    p: &'a Physics,
    out: &'a mut RenderRequests,
    inv: f32,
}

impl DebugLines for Lines<'_> {
    fn shape(&mut self, user: u32, from: glam::Vec3, to: glam::Vec3) -> bool {
        let Some(b) = self.p.get(user) else { return true };
        self.out.line((from * self.inv).to_array(), (to * self.inv).to_array(), colour(b.ty, b.enabled))
    }

    fn contact(&mut self, from: glam::Vec3, to: glam::Vec3) -> bool {
        // The normal's length stays a quarter unit of the world, whatever the scale.
        let at = from * self.inv;
        self.out.line(at.to_array(), (at + (to - from)).to_array(), CONTACT)
    }
}

pub fn draw(p: &mut Physics, out: &mut RenderRequests) {
    let inv = 1.0 / p.settings.scale;
    let mut lines = Lines { p: &*p, out: &mut *out, inv };
    for sp in &p.spaces {
        sp.world.debug_lines(&mut lines);
    }
    for (from, to) in std::mem::take(&mut p.debug_rays) {
        if !out.line(from, to, RAY) {
            return;
        }
    }
}
