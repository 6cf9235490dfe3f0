//! Box2D's own Lua API (`b2d.*`, Defold's 2D physics extension) over the rapier2d world: handles
//! to a collision object's body, to its shapes (rapier colliders), to joints made from Lua and to
//! the caller's world. Lengths and velocities arrive in world units and reach the simulation
//! times `physics.scale`, as Defold's do; angles, masses and densities pass unscaled.
use super::Physics;
use super::simulation::{Geom, Handle, JointDesc, Material};
use crate::project::physics::CollisionType;
use crate::scene::Scene;
use glam::{Quat, Vec3};

/// What a `b2d.joint` joint is: the functions that apply to one kind check it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JointType {
    Revolute,
    Prismatic,
    Weld,
    Mouse,
}

/// A joint made by `b2d.joint.create_*`.
pub struct Joint {
    pub space: u32,
    pub handle: Handle,
    pub ty: JointType,
    /// Told apart from a joint made later in the same place.
    pub serial: u32,
    /// Its two collision objects (`Physics::bodies` indices).
    pub bodies: (u32, u32),
}

/// A shape of a body: its world and collider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShapeRef {
    pub space: u32,
    pub collider: Handle,
}

/// Box2D 3's default joint softness (`b2DefaultWorldDef`: 60 Hz, damping ratio 2): a motor
/// pushing a slider against its limit takes it a little past, which Defold's examples test for.
pub const JOINT_TUNING: (f32, f32) = (60.0, 2.0);

fn need_2d(p: &Physics) -> Result<(), String> {
    if p.settings.two_d { Ok(()) } else { Err("b2d needs a 2D physics world (physics.type 2D)".into()) }
}

impl Physics {
    /// The collision object a body handle names: alive and the same one (`serial`).
    pub fn b2d_body(&self, i: u32, serial: u32) -> Result<u32, String> {
        need_2d(self)?;
        match self.get(i) {
            Some(b) if b.serial == serial => Ok(i),
            _ => Err("Cannot get b2body for the game object instance. Has the game object been deleted?".into()),
        }
    }

    /// The serial a new body handle of object `i` carries.
    pub fn b2d_serial(&self, i: u32) -> Result<u32, String> {
        need_2d(self)?;
        self.get(i).map(|b| b.serial).ok_or_else(|| "the collision object was deleted".into())
    }

    /// The world of a `socket`'s objects, if it has bodies.
    pub fn b2d_world(&self, socket: crate::base::hash::Hash) -> Result<Option<u32>, String> {
        need_2d(self)?;
        Ok(self.space_of_socket(socket))
    }

    /// A shape handle's collision object, or Defold's message for a shape that is gone.
    pub fn b2d_shape(&self, s: ShapeRef) -> Result<u32, String> {
        need_2d(self)?;
        let info = self.spaces.get(s.space as usize).and_then(|sp| sp.world.collider_info(s.collider));
        match info.map(|c| c.user).filter(|&i| self.get(i).is_some_and(|b| b.colliders.contains(&s.collider))) {
            Some(i) => Ok(i),
            None => Err("Invalid b2shape handle.".into()),
        }
    }

    /// Shape `index` (from 1, `get_shapes`' order) of object `i`.
    pub fn b2d_shape_at(&self, i: u32, index: i64) -> Result<ShapeRef, String> {
        let b = self.get(i).ok_or("the collision object was deleted")?;
        let k = usize::try_from(index - 1).ok().filter(|&k| k < b.colliders.len());
        let k = k.ok_or_else(|| format!("shape_index {index} out of range."))?;
        Ok(ShapeRef { space: b.space, collider: b.colliders[k] })
    }

    /// Where shape `s` is in its body's list, from 1 (0: not there).
    pub fn b2d_shape_index(&self, s: ShapeRef) -> u32 {
        let Ok(i) = self.b2d_shape(s) else { return 0 };
        self.get(i).and_then(|b| b.colliders.iter().position(|&c| c == s.collider)).map_or(0, |k| k as u32 + 1)
    }

    /// The shapes of object `i`, in `get_shapes`' order.
    pub fn b2d_shapes(&self, i: u32) -> Vec<ShapeRef> {
        self.get(i)
            .map_or(Vec::new(), |b| b.colliders.iter().map(|&c| ShapeRef { space: b.space, collider: c }).collect())
    }

    /// `b2d.body.create_shape` / `create_chain`: one more shape on object `i`, in its collision
    /// groups (Defold gives it Box2D's default filter; here it meets what the object meets).
    pub fn b2d_create_shape(&mut self, i: u32, g: &Geom, m: Material, sensor: bool) -> Result<ShapeRef, String> {
        let s = self.settings.scale;
        let b = self.get(i).ok_or("the collision object was deleted")?;
        let (space, handle, groups) = (b.space, b.handle, (1 << b.group, b.mask));
        let sp = &mut self.spaces[space as usize];
        let c = sp.world.add_collider(handle, &g.scaled(s), m, sensor, groups, i)?;
        sp.dirty = true;
        self.bodies[i as usize].colliders.push(c);
        Ok(ShapeRef { space, collider: c })
    }

    /// `b2d.body.destroy_shape(body, index)`.
    pub fn b2d_destroy_shape(&mut self, i: u32, index: i64) -> Result<(), String> {
        let s = self.b2d_shape_at(i, index)?;
        let sp = &mut self.spaces[s.space as usize];
        sp.world.remove_colliders(&[s.collider]);
        sp.dirty = true;
        self.bodies[i as usize].colliders.retain(|&c| c != s.collider);
        Ok(())
    }

    /// `b2d.shape.set_shape`: the shape takes geometry `g` (world units).
    pub fn b2d_set_geom(&mut self, s: ShapeRef, g: &Geom, update_mass: bool) -> Result<(), String> {
        self.b2d_shape(s)?;
        let scale = self.settings.scale;
        let sp = &mut self.spaces[s.space as usize];
        sp.dirty = true;
        sp.world.set_collider_geom(s.collider, &g.scaled(scale), update_mass)
    }

    /// `b2d.body.set_transform`: a dynamic body moves there (its object follows at the step); the
    /// object of another body is placed there too, as the body follows its object.
    pub fn b2d_set_transform(&mut self, i: u32, at: Vec3, angle: f32, scene: &mut Scene) -> Result<(), String> {
        let b = self.get(i).ok_or("the collision object was deleted")?;
        let (slot, dynamic) = (b.slot, b.ty == CollisionType::Dynamic);
        let rotation = Quat::from_rotation_z(angle);
        let s = self.settings.scale;
        if let Some((world, h)) = self.world_of_mut(i) {
            world.set_pose(h, (at * s, rotation));
        }
        if !dynamic && scene.is_live(slot) {
            // The object keeps its own depth, as a 2D body's does.
            let z = scene.world_of(slot).translation.z;
            super::place_object(scene, slot, at.with_z(z), rotation);
        }
        Ok(())
    }

    /// `b2d.joint.create_*`: a joint between objects `a` and `b` of one world.
    pub fn b2d_create_joint(&mut self, ty: JointType, a: u32, b: u32, desc: &JointDesc) -> Result<(u32, u32), String> {
        let (ba, bb) = (
            self.get(a).ok_or("the collision object was deleted")?,
            self.get(b).ok_or("the collision object was deleted")?,
        );
        if ba.space != bb.space {
            return Err("joints can only be connected to bodies in the same Box2D world.".into());
        }
        let (space, ha, hb) = (ba.space, ba.handle, bb.handle);
        let sp = &mut self.spaces[space as usize];
        let desc = JointDesc { softness: Some(sp.joint_tuning), ..desc.clone() };
        let handle = sp.world.insert_joint(ha, hb, &desc)?;
        self.b2d_serial += 1;
        let joint = Joint { space, handle, ty, serial: self.b2d_serial, bodies: (a, b) };
        let k = match self.b2d_joints.iter().position(Option::is_none) {
            Some(k) => {
                self.b2d_joints[k] = Some(joint);
                k
            }
            None => {
                self.b2d_joints.push(Some(joint));
                self.b2d_joints.len() - 1
            }
        };
        Ok((k as u32, self.b2d_serial))
    }

    /// The joint a joint handle names.
    pub fn b2d_joint(&self, k: u32, serial: u32) -> Result<&Joint, String> {
        need_2d(self)?;
        match self.b2d_joints.get(k as usize).and_then(Option::as_ref) {
            Some(j) if j.serial == serial => Ok(j),
            _ => Err("Invalid b2joint handle.".into()),
        }
    }

    pub fn b2d_destroy_joint(&mut self, k: u32, serial: u32) -> Result<(), String> {
        let (space, handle) = self.b2d_joint(k, serial).map(|j| (j.space, j.handle))?;
        self.spaces[space as usize].world.remove_joint(handle);
        self.b2d_joints[k as usize] = None;
        Ok(())
    }

    /// `b2d.world.set_joint_tuning`: the softness of world `k`'s `b2d` joints, made and to come.
    pub fn b2d_joint_tuning(&mut self, k: u32, hertz: f32, damping_ratio: f32) -> Result<(), String> {
        need_2d(self)?;
        if !(hertz.is_finite() && hertz > 0.0 && damping_ratio.is_finite() && damping_ratio >= 0.0) {
            return Err("hertz must be positive and damping_ratio not negative".into());
        }
        let sp = self.spaces.get_mut(k as usize).ok_or("Invalid b2world handle.")?;
        sp.joint_tuning = (hertz, damping_ratio);
        for j in self.b2d_joints.iter().flatten().filter(|j| j.space == k) {
            sp.world.set_joint_softness(j.handle, hertz, damping_ratio);
        }
        Ok(())
    }

    /// The joints of a removed object went with its body.
    pub(super) fn forget_b2d_joints(&mut self, i: u32) {
        for j in &mut self.b2d_joints {
            if j.as_ref().is_some_and(|j| j.bodies.0 == i || j.bodies.1 == i) {
                *j = None;
            }
        }
    }
}
