//! One component from its file fields: prototype overrides merged, fields of other types
//! refused, and the script, model, camera and light specs built.
use super::*;

/// Merges `over` into the component of `list` with its id (see [`merged`]); None when `list`
/// has none.
pub(super) fn merge_by_id(
    list: &mut [ComponentDesc],
    over: &ComponentDesc,
    file: &str,
) -> Option<Result<(), LoadError>> {
    let base = list.iter_mut().find(|b| b.id.value == over.id.value)?;
    Some(merged(base, over, file).map(|m| *base = m))
}

/// An instance component over the prototype's: the instance's fields win, and `properties`
/// merge per property so an instance can tweak one `go.property` and keep the rest.
pub(super) fn merged(base: &ComponentDesc, over: &ComponentDesc, file: &str) -> Result<ComponentDesc, LoadError> {
    let known = |c: &ComponentDesc| c.ty.as_ref().and_then(|t| t.value.known());
    if let (Some(a), Some(b)) = (known(base), known(over))
        && a != b
    {
        let msg = format!("component '{}' is a {} in the prototype but a {} here", over.id.value.0, a.name(), b.name());
        return Err(over.id.error(file, msg));
    }
    let mut m = over.clone();
    macro_rules! keep_base {
        ($($f:ident),*) => { $( if m.$f.is_none() { m.$f = base.$f.clone(); } )* };
    }
    keep_base!(
        ty,
        script,
        model,
        mesh,
        skeleton,
        animations,
        default_animation,
        material,
        textures,
        create_go_bones,
        cast_shadows,
        receive_shadows,
        fov,
        near,
        far,
        orthographic,
        ortho_height,
        ortho_width,
        orthographic_zoom,
        orthographic_mode,
        kind,
        color,
        intensity,
        range,
        inner_cone_angle,
        outer_cone_angle,
        prototype,
        collection,
        text,
        size,
        outline,
        pivot,
        font,
        position,
        rotation,
        euler,
        scale,
        sound,
        gain,
        pan,
        speed,
        looping,
        loopcount,
        group,
        spatial,
        min_distance,
        max_distance,
        collision_type,
        mass,
        friction,
        restitution,
        linear_damping,
        angular_damping,
        locked_rotation,
        bullet,
        event_collision,
        event_contact,
        event_trigger,
        mask,
        shapes,
        tile_set,
        blend_mode,
        size_mode,
        billboard,
        slice9,
        attributes
    );
    if let (Some(b), Some(o)) = (&base.properties, &over.properties) {
        let mut props = b.0.clone();
        for (k, v) in &o.0 {
            match props.iter_mut().find(|(pk, _)| pk == k) {
                Some(slot) => slot.1 = v.clone(),
                None => props.push((k.clone(), v.clone())),
            }
        }
        m.properties = Some(OrderedMap(props));
    } else if m.properties.is_none() {
        m.properties = base.properties.clone();
    }
    Ok(m)
}

/// The first field that is set but belongs to another component type.
pub(super) fn foreign_field(c: &ComponentDesc, ty: ComponentType) -> Option<&'static str> {
    use ComponentType::*;
    // A slice, not an array: a new field is one line, not a line and a count to change.
    let fields: &[(&str, bool, &[ComponentType])] = &[
        ("script", c.script.is_some(), &[Script]),
        ("properties", c.properties.is_some(), &[Script]),
        ("model", c.model.is_some(), &[Model]),
        ("mesh", c.mesh.is_some(), &[Model]),
        ("skeleton", c.skeleton.is_some(), &[Model]),
        ("animations", c.animations.is_some(), &[Model]),
        ("default_animation", c.default_animation.is_some(), &[Model, Sprite]),
        ("material", c.material.is_some(), &[Model, Sprite]),
        ("textures", c.textures.is_some(), &[Model, Sprite]),
        ("create_go_bones", c.create_go_bones.is_some(), &[Model]),
        ("cast_shadows", c.cast_shadows.is_some(), &[Model]),
        ("receive_shadows", c.receive_shadows.is_some(), &[Model]),
        ("fov", c.fov.is_some(), &[Camera]),
        ("near", c.near.is_some(), &[Camera]),
        ("far", c.far.is_some(), &[Camera]),
        ("orthographic", c.orthographic.is_some(), &[Camera]),
        ("ortho_height", c.ortho_height.is_some(), &[Camera]),
        ("orthographic_zoom", c.orthographic_zoom.is_some(), &[Camera]),
        ("ortho_width", c.ortho_width.is_some(), &[Camera]),
        ("orthographic_mode", c.orthographic_mode.is_some(), &[Camera]),
        ("kind", c.kind.is_some(), &[Light]),
        ("color", c.color.is_some(), &[Light, Label]),
        ("intensity", c.intensity.is_some(), &[Light]),
        ("range", c.range.is_some(), &[Light]),
        ("inner_cone_angle", c.inner_cone_angle.is_some(), &[Light]),
        ("outer_cone_angle", c.outer_cone_angle.is_some(), &[Light]),
        ("prototype", c.prototype.is_some(), &[Factory]),
        ("collection", c.collection.is_some(), &[CollectionProxy]),
        ("text", c.text.is_some(), &[Label]),
        ("size", c.size.is_some(), &[Label, Sprite]),
        ("outline", c.outline.is_some(), &[Label]),
        ("pivot", c.pivot.is_some(), &[Label]),
        ("font", c.font.is_some(), &[Label]),
        ("line_break", c.line_break.is_some(), &[Label]),
        ("width", c.width.is_some(), &[Label]),
        ("leading", c.leading.is_some(), &[Label]),
        ("tracking", c.tracking.is_some(), &[Label]),
        ("shadow", c.shadow.is_some(), &[Label]),
        ("world_size", c.world_size.is_some(), &[Label]),
        ("position", c.position.is_some(), &[Model, Label, CollisionObject, Sprite, ParticleFx, TileMap]),
        ("rotation", c.rotation.is_some(), &[Model, Label, CollisionObject, Sprite, ParticleFx, TileMap]),
        ("euler", c.euler.is_some(), &[Model, Label, CollisionObject, Sprite, ParticleFx, TileMap]),
        ("scale", c.scale.is_some(), &[Model, Sprite, Label]),
        ("sound", c.sound.is_some(), &[Sound]),
        ("gain", c.gain.is_some(), &[Sound]),
        ("pan", c.pan.is_some(), &[Sound]),
        ("speed", c.speed.is_some(), &[Sound]),
        ("looping", c.looping.is_some(), &[Sound]),
        ("loopcount", c.loopcount.is_some(), &[Sound]),
        ("group", c.group.is_some(), &[Sound, CollisionObject]),
        ("spatial", c.spatial.is_some(), &[Sound]),
        ("min_distance", c.min_distance.is_some(), &[Sound]),
        ("max_distance", c.max_distance.is_some(), &[Sound]),
        ("collision_type", c.collision_type.is_some(), &[CollisionObject]),
        ("mass", c.mass.is_some(), &[CollisionObject]),
        ("friction", c.friction.is_some(), &[CollisionObject]),
        ("restitution", c.restitution.is_some(), &[CollisionObject]),
        ("linear_damping", c.linear_damping.is_some(), &[CollisionObject]),
        ("angular_damping", c.angular_damping.is_some(), &[CollisionObject]),
        ("locked_rotation", c.locked_rotation.is_some(), &[CollisionObject]),
        ("bullet", c.bullet.is_some(), &[CollisionObject]),
        ("event_collision", c.event_collision.is_some(), &[CollisionObject]),
        ("event_contact", c.event_contact.is_some(), &[CollisionObject]),
        ("event_trigger", c.event_trigger.is_some(), &[CollisionObject]),
        ("mask", c.mask.is_some(), &[CollisionObject]),
        ("shapes", c.shapes.is_some(), &[CollisionObject]),
        ("tile_set", c.tile_set.is_some(), &[Sprite]),
        ("particlefx", c.particlefx.is_some(), &[ParticleFx]),
        ("tilemap", c.tilemap.is_some(), &[TileMap, CollisionObject]),
        ("blend_mode", c.blend_mode.is_some(), &[Sprite]),
        ("size_mode", c.size_mode.is_some(), &[Sprite]),
        ("billboard", c.billboard.is_some(), &[Sprite]),
        ("slice9", c.slice9.is_some(), &[Sprite]),
        ("attributes", c.attributes.is_some(), &[Sprite]),
        ("gui", c.gui.is_some(), &[Gui]),
    ];
    // `prototype` is the one field of both factory types.
    let ty = if ty == CollectionFactory { Factory } else { ty };
    fields.iter().find(|(_, set, owners)| *set && !owners.contains(&ty)).map(|(name, ..)| *name)
}

pub(super) fn inline_model(c: &ComponentDesc) -> ModelFields {
    ModelFields {
        mesh: c.mesh.clone(),
        skeleton: c.skeleton.clone(),
        animations: c.animations.clone(),
        default_animation: c.default_animation.clone(),
        material: c.material.clone(),
        textures: c.textures.clone(),
        create_go_bones: c.create_go_bones,
        cast_shadows: c.cast_shadows,
        receive_shadows: c.receive_shadows,
        ..ModelFields::default()
    }
}

pub(super) fn has_model_options(f: &ModelFields) -> bool {
    f.skeleton.is_some()
        || f.animations.is_some()
        || f.default_animation.is_some()
        || f.material.is_some()
        || f.textures.is_some()
        || f.create_go_bones.is_some()
}

/// Applies the `.model` defaults; referenced files are only checked for well-formed paths here
/// (the mesh and texture loaders read them and report what is missing).
pub(super) fn model_spec(
    source: &str,
    f: ModelFields,
    missing_mesh: impl FnOnce() -> LoadError,
) -> Result<ModelSpec, LoadError> {
    let Some(mesh) = &f.mesh else {
        return Err(missing_mesh());
    };
    let mesh = json::resource_path(mesh, source)?;
    let path_or = |p: &Option<Located<String>>, default: &str| match p {
        Some(p) => json::resource_path(p, source),
        None => Ok(default.to_string()),
    };
    let animations = match &f.animations {
        Some(list) => list.iter().map(|p| json::resource_path(p, source)).collect::<Result<_, _>>()?,
        None => vec![mesh.clone()],
    };
    let textures = match &f.textures {
        Some(t) => {
            t.0.iter().map(|(k, p)| Ok((k.clone(), json::resource_path(p, source)?))).collect::<Result<_, _>>()?
        }
        None => Vec::new(),
    };
    let rig_extras = Box::new(rig_extras(source, &f)?);
    Ok(ModelSpec {
        source: source.to_string(),
        skeleton: path_or(&f.skeleton, &mesh)?,
        material: path_or(&f.material, DEFAULT_MODEL_MATERIAL)?,
        mesh,
        animations,
        default_animation: f.default_animation,
        textures,
        create_go_bones: f.create_go_bones.unwrap_or(true),
        rig_extras,
        joint_limits: joint_limits(source, &f.joint_limits)?,
        transform: Box::default(),
        cast_shadows: f.cast_shadows.unwrap_or(true),
        receive_shadows: f.receive_shadows.unwrap_or(true),
    })
}

/// `masks`, `ik` and `events` in spec form; shapes are checked here (a chain's type and its
/// fields, finite vectors, event times ≥ 0), names against the rig when it is built.
fn rig_extras(source: &str, f: &ModelFields) -> Result<RigExtrasSpec, LoadError> {
    let mut out = RigExtrasSpec::default();
    if let Some(m) = &f.masks {
        out.masks = m.0.clone();
    }
    let finite = |v: [f32; 3]| v.iter().all(|x| x.is_finite()) && v != [0.0; 3];
    for (name, desc) in f.ik.iter().flat_map(|m| &m.0) {
        let d = &desc.value;
        let bad = |m: &str| Err(desc.error(source, format!("ik chain '{name}': {m}")));
        let kind = match d.ty.as_str() {
            "two_bone" => {
                if d.joint.is_some() || d.forward.is_some() || d.up.is_some() {
                    return bad("a two_bone chain takes `joints` and `pole` only");
                }
                let Some([a, b, c]) = d.joints.as_deref() else {
                    return bad("`joints` must name three joints (root, middle, end)");
                };
                let pole = d.pole.unwrap_or([0.0, 0.0, 1.0]);
                if !finite(pole) {
                    return bad("`pole` must be a finite, non-zero vector");
                }
                IkKindSpec::TwoBone { joints: [a.clone(), b.clone(), c.clone()], pole }
            }
            "aim" => {
                if d.joints.is_some() || d.pole.is_some() {
                    return bad("an aim chain takes `joint`, `forward` and `up` only");
                }
                let Some(joint) = d.joint.clone() else { return bad("`joint` is missing") };
                let (forward, up) = (d.forward.unwrap_or([0.0, 0.0, 1.0]), d.up.unwrap_or([0.0, 1.0, 0.0]));
                if !finite(forward) || !finite(up) {
                    return bad("`forward` and `up` must be finite, non-zero vectors");
                }
                IkKindSpec::Aim { joint, forward, up }
            }
            other => return bad(&format!("unknown type '{other}' (two_bone or aim)")),
        };
        out.ik.push(IkChainSpec { name: name.clone(), kind });
    }
    for (clip, list) in f.events.iter().flat_map(|m| &m.0) {
        let mut events = Vec::with_capacity(list.len());
        for e in list {
            let t = e.time.value;
            if !t.is_finite() || t < 0.0 {
                return Err(e.time.error(source, format!("event '{}' of '{clip}': time must be ≥ 0", e.id)));
            }
            events.push(EventSpec { time: t, id: e.id.clone() });
        }
        events.sort_by(|a, b| a.time.total_cmp(&b.time));
        out.events.push((clip.clone(), events));
    }
    Ok(out)
}

/// `joint_limits`: min <= max per axis, finite.
fn joint_limits(
    source: &str,
    list: &Option<OrderedMap<Located<JointLimitDesc>>>,
) -> Result<Vec<JointLimitSpec>, LoadError> {
    let mut out = Vec::new();
    for (joint, l) in list.iter().flat_map(|m| &m.0) {
        let (min, max) = (l.value.min, l.value.max);
        if !min.iter().chain(&max).all(|v| v.is_finite()) {
            return Err(l.error(source, format!("joint_limits '{joint}': limits must be finite")));
        }
        if let Some(axis) = (0..3).find(|&k| min[k] > max[k]) {
            let msg = format!(
                "joint_limits '{joint}': min {} is above max {} on axis {}",
                min[axis],
                max[axis],
                ["x", "y", "z"][axis]
            );
            return Err(l.error(source, msg));
        }
        out.push(JointLimitSpec { joint: joint.clone(), min, max });
    }
    Ok(out)
}

/// A model's or label's own `position`, `rotation`/`euler` and `scale`.
pub(super) fn component_transform(c: &ComponentDesc, file: &str) -> Result<ComponentTransform, LoadError> {
    let t = transform(file, c.position, &c.rotation, &c.euler, c.scale)?;
    if !t.s.is_finite() || !t.t.is_finite() {
        return Err(c.id.error(file, format!("component '{}': position and scale must be finite", c.id.value.0)));
    }
    Ok(ComponentTransform { position: t.t.to_array(), rotation: t.r.to_array(), scale: t.s.to_array() })
}

/// Refuses values that would make the projection matrix singular or flipped.
pub(super) fn camera(c: &ComponentDesc, file: &str) -> Result<CameraSpec, LoadError> {
    let cam = CameraSpec {
        fov: c.fov.unwrap_or(DEFAULT_FOV),
        near: c.near.unwrap_or(super::DEFAULT_NEAR),
        far: c.far.unwrap_or(1000.0),
        orthographic: c.orthographic.unwrap_or(false),
        ortho_height: c.ortho_height.unwrap_or(10.0),
        zoom: c.orthographic_zoom.unwrap_or(1.0),
        ortho_mode: match &c.orthographic_mode {
            None => OrthoMode::Fixed,
            Some(m) => OrthoMode::parse(&m.value).ok_or_else(|| {
                m.error(file, format!("unknown orthographic_mode '{}' (expected {})", m.value, OrthoMode::NAMES))
            })?,
        },
        design_aspect: match (c.ortho_width, c.ortho_height) {
            (Some(w), Some(h)) if h > 0.0 => w / h,
            (Some(w), None) => w / 10.0,
            _ => 0.0,
        },
    };
    let id = &c.id.value.0;
    match cam.problem() {
        Some(p) => Err(c.id.error(file, format!("camera '{id}': {p}"))),
        None => Ok(cam),
    }
}

pub(super) fn light(c: &ComponentDesc, file: &str) -> Result<LightSpec, LoadError> {
    let color = match &c.color {
        Some(v) => match colour(v, file, &c.id.value.0, ("light", "color"), false)? {
            [r, g, b, _] => [r, g, b],
        },
        None => [1.0; 3],
    };
    let range = c.range.unwrap_or(0.0);
    if !(range.is_finite() && range >= 0.0) {
        return Err(c.id.error(file, format!("light '{}': range must be a number >= 0 (got {range})", c.id.value.0)));
    }
    let kind = match c.kind {
        Some(LightKindDesc::Point) => LightKind::Point,
        Some(LightKindDesc::Spot) => LightKind::Spot,
        Some(LightKindDesc::Ambient) => LightKind::Ambient,
        Some(LightKindDesc::Directional) | None => LightKind::Directional,
    };
    let [inner_cone, outer_cone] = match kind {
        LightKind::Spot => {
            let outer = c.outer_cone_angle.unwrap_or(crate::project::types::DEFAULT_SPOT_CONE[1]);
            let inner = c.inner_cone_angle.unwrap_or(crate::project::types::DEFAULT_SPOT_CONE[0].min(outer));
            if !((0.0..=90.0).contains(&outer) && (0.0..=outer).contains(&inner)) {
                let msg = format!(
                    "light '{}': a spot light's cone needs 0 <= inner_cone_angle <= outer_cone_angle <= 90 degrees (got {inner} and {outer})",
                    c.id.value.0
                );
                return Err(c.id.error(file, msg));
            }
            [inner, outer]
        }
        _ if c.inner_cone_angle.is_some() || c.outer_cone_angle.is_some() => {
            let msg = format!("light '{}': cone angles are for spot lights (kind \"spot\")", c.id.value.0);
            return Err(c.id.error(file, msg));
        }
        _ => [0.0; 2],
    };
    Ok(LightSpec { kind, color, intensity: c.intensity.unwrap_or(1.0), range, inner_cone, outer_cone })
}

/// A colour of 3 numbers (or 4 with `alpha`), each finite: a bad one points at where it was
/// written. Alpha defaults to 1.
fn colour(
    v: &Located<Vec<f32>>,
    file: &str,
    id: &str,
    (ty, field): (&str, &str),
    alpha: bool,
) -> Result<[f32; 4], LoadError> {
    let want = if alpha { "3 or 4 numbers (r, g, b[, a])" } else { "3 numbers (r, g, b)" };
    let bad = || v.error(file, format!("{ty} '{id}': '{field}' must be {want}, each finite"));
    if v.value.iter().any(|x| !x.is_finite()) {
        return Err(bad());
    }
    match *v.value.as_slice() {
        [r, g, b] => Ok([r, g, b, 1.0]),
        [r, g, b, a] if alpha => Ok([r, g, b, a]),
        _ => Err(bad()),
    }
}

/// The largest label text size in pixels: a glyph bigger than a 4K screen is a typo.
const MAX_LABEL_SIZE: f32 = 2048.0;

/// A number field's value, `default` when left out, or the field itself when it is outside
/// `range` (NaN included), for the caller to word the error.
pub(super) fn in_range(
    v: &Option<Located<f32>>,
    range: std::ops::RangeInclusive<f32>,
    default: f32,
) -> Result<f32, &Located<f32>> {
    match v {
        Some(x) if range.contains(&x.value) => Ok(x.value),
        Some(x) => Err(x),
        None => Ok(default),
    }
}

/// A `label` component: Defold's pivot names, colours checked, its font loaded (a `.font` or
/// a face file; the built-in face without one).
pub(super) fn label(c: &ComponentDesc, file: &str, res: &Resources) -> Result<LabelSpec, LoadError> {
    let id = &c.id.value.0;
    let color = match &c.color {
        Some(v) => colour(v, file, id, ("label", "color"), true)?,
        None => [1.0; 4],
    };
    let outline = match &c.outline {
        Some(v) => colour(v, file, id, ("label", "outline"), true)?,
        None => [0.0; 4],
    };
    let shadow = match &c.shadow {
        Some(v) => colour(v, file, id, ("label", "shadow"), true)?,
        None => [0.0, 0.0, 0.0, 1.0],
    };
    let size = match &c.size {
        Some(s) => match s.value.as_f64().map(|v| v as f32) {
            Some(v) if v > 0.0 && v <= MAX_LABEL_SIZE => Some(v),
            _ => {
                let msg = format!("label '{id}': size must be a number of pixels above 0 and at most {MAX_LABEL_SIZE}");
                return Err(s.error(file, msg));
            }
        },
        None => None,
    };
    let pivot = match &c.pivot {
        Some(p) => Pivot::parse(&p.value).ok_or_else(|| {
            p.error(file, format!("label '{id}': unknown pivot '{}' (expected {})", p.value, Pivot::NAMES))
        })?,
        None => Pivot::Center,
    };
    let font = match &c.font {
        Some(f) => {
            let loaded = crate::project::font::file::load_font(res, f, file, size.unwrap_or(DEFAULT_LABEL_SIZE))?;
            let path = crate::project::json::resource_path(f, file)?;
            Some(LabelFont { path, font: std::sync::Arc::new(loaded) })
        }
        None => None,
    };
    let size = size.or(font.as_ref().map(|f| f.font.size)).unwrap_or(DEFAULT_LABEL_SIZE);
    // Widths, leading and tracking: finite, and not beyond what a screen shows.
    let number = |v: &Option<Located<f32>>, name: &str, lo: f32, hi: f32, default: f32| {
        in_range(v, lo..=hi, default)
            .map_err(|n| n.error(file, format!("label '{id}': {name} must be a number from {lo} to {hi}")))
    };
    let width = number(&c.width, "width", 0.0, 1.0e5, 0.0)?;
    let wrap = (c.line_break == Some(true)).then_some(width);
    let leading = number(&c.leading, "leading", 0.0, 100.0, 1.0)?;
    let tracking = number(&c.tracking, "tracking", -10.0, 10.0, 0.0)?;
    let scale = c.scale.unwrap_or([1.0; 3]);
    let position = c.position.unwrap_or([0.0; 3]);
    let text = c.text.clone().unwrap_or_default();
    let layout = LabelLayout { font, wrap, leading, tracking, world_size: c.world_size.unwrap_or(false) };
    Ok(LabelSpec { text, size, color, outline, shadow, pivot, position, scale, layout })
}

/// Converts one `go.property` override; the JSON shape decides the type, as listed in the spec.
pub(super) fn property_value(name: &str, v: &Located<Value>, file: &str) -> Result<PropertyValue, LoadError> {
    let bad = || {
        let msg = format!(
            "property '{name}': expected a number, bool, string (\"hash:...\", \"url:...\") or an array of 3 or 4 numbers"
        );
        v.error(file, msg)
    };
    Ok(match &v.value {
        Value::Number(n) => PropertyValue::Number(n.as_f64().ok_or_else(bad)?),
        Value::Bool(b) => PropertyValue::Bool(*b),
        Value::String(s) => match (s.strip_prefix("hash:"), s.strip_prefix("url:")) {
            (Some(h), _) => PropertyValue::Hash(h.to_string()),
            (_, Some(u)) => PropertyValue::Url(u.to_string()),
            _ => PropertyValue::String(s.clone()),
        },
        Value::Array(a) => vector(a).ok_or_else(bad)?,
        Value::Null | Value::Object(_) => return Err(bad()),
    })
}

pub(super) fn vector(a: &[Value]) -> Option<PropertyValue> {
    let n: Vec<f32> = a.iter().map(|v| v.as_f64().map(|x| x as f32)).collect::<Option<_>>()?;
    match *n.as_slice() {
        [x, y, z] => Some(PropertyValue::Vector3([x, y, z])),
        [x, y, z, w] => Some(PropertyValue::Vector4([x, y, z, w])),
        _ => None,
    }
}

/// A `collisionobject` component: its fields checked by `project::physics`, its own position
/// and rotation carried onto every shape.
pub(super) fn collision_object(
    c: &ComponentDesc,
    file: &str,
    tiles: Option<crate::project::physics::TileCollision>,
) -> Result<crate::project::physics::CollisionObjectSpec, LoadError> {
    let t = component_transform(c, file)?;
    let fields = crate::project::physics::CollisionFields {
        id: &c.id.value.0,
        at: c.id.at.as_ref(),
        collision_type: c.collision_type.as_ref(),
        mass: c.mass.as_ref(),
        friction: c.friction.as_ref(),
        restitution: c.restitution.as_ref(),
        linear_damping: c.linear_damping.as_ref(),
        angular_damping: c.angular_damping.as_ref(),
        locked_rotation: c.locked_rotation,
        bullet: c.bullet,
        events: [c.event_collision, c.event_contact, c.event_trigger],
        group: c.group.as_ref(),
        mask: c.mask.as_ref(),
        shapes: c.shapes.as_ref(),
        tiles,
        offset: (t.position, t.rotation),
    };
    crate::project::physics::collision_object(&fields, file)
}
