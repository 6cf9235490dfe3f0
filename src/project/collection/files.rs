//! The JSON shapes of `.collection`, `.go` and `.model` files and of a component, parsed
//! strictly (`deny_unknown_fields`, positions kept) before anything is flattened.
use super::*;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CollectionFile {
    pub(super) name: Option<String>,
    #[serde(default)]
    pub(super) objects: Vec<ObjectDesc>,
    #[serde(default)]
    pub(super) collections: Vec<InstanceDesc>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ObjectDesc {
    pub(super) id: Located<Id>,
    #[serde(default, deserialize_with = "json::position")]
    pub(super) position: Option<[f32; 3]>,
    pub(super) rotation: Option<Located<[f32; 4]>>,
    pub(super) euler: Option<Located<[f32; 3]>>,
    #[serde(default, deserialize_with = "json::scale")]
    pub(super) scale: Option<[f32; 3]>,
    pub(super) prototype: Option<Located<String>>,
    #[serde(default)]
    pub(super) components: Vec<ComponentDesc>,
    #[serde(default)]
    pub(super) children: json::Children<ObjectDesc>,
}

/// A nested collection instance: not a game object, only a prefix and a placement.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct InstanceDesc {
    pub(super) id: Located<Id>,
    pub(super) collection: Located<String>,
    #[serde(default, deserialize_with = "json::position")]
    pub(super) position: Option<[f32; 3]>,
    pub(super) rotation: Option<Located<[f32; 4]>>,
    pub(super) euler: Option<Located<[f32; 3]>>,
    #[serde(default, deserialize_with = "json::scale")]
    pub(super) scale: Option<[f32; 3]>,
    /// Component overrides of objects inside the instance (Defold's `instance_properties`).
    #[serde(default)]
    pub(super) overrides: Vec<OverrideDesc>,
}

/// Overrides of one object inside a nested collection instance: `id` is its path below the
/// instance (`door`, or `room/door` through a deeper instance), `components` merge by id into
/// the object's own as an instance's `components` merge into its prototype's.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OverrideDesc {
    pub(super) id: Located<String>,
    #[serde(default)]
    pub(super) components: Vec<ComponentDesc>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct GoFile {
    #[serde(default)]
    pub(super) components: Vec<ComponentDesc>,
}

/// Every field any component type may have, so `deny_unknown_fields` catches typos with their
/// position; fields that belong to another type are refused after parsing (`foreign_field`).
/// `type` is optional because an instance may override a prototype component by id alone.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct ComponentDesc {
    pub(super) id: Located<Id>,
    #[serde(rename = "type")]
    pub(super) ty: Option<Located<TypeField>>,
    pub(super) script: Option<Located<String>>,
    pub(super) properties: Option<OrderedMap<Located<Value>>>,
    pub(super) model: Option<Located<String>>,
    pub(super) mesh: Option<Located<String>>,
    pub(super) skeleton: Option<Located<String>>,
    pub(super) animations: Option<Vec<Located<String>>>,
    pub(super) default_animation: Option<Located<String>>,
    pub(super) material: Option<Located<String>>,
    pub(super) textures: Option<OrderedMap<Located<String>>>,
    pub(super) create_go_bones: Option<bool>,
    /// A model's shadow switches (Sinew's own); also beside `model`, over the file's.
    pub(super) cast_shadows: Option<bool>,
    pub(super) receive_shadows: Option<bool>,
    pub(super) fov: Option<f32>,
    pub(super) near: Option<f32>,
    pub(super) far: Option<f32>,
    pub(super) orthographic: Option<bool>,
    pub(super) ortho_height: Option<f32>,
    /// The design area's width, which `auto_fit` and `auto_cover` fit or cover with
    /// `ortho_height`; without it, the window's shape.
    pub(super) ortho_width: Option<f32>,
    pub(super) orthographic_zoom: Option<f32>,
    /// `fixed` (the default), `auto_fit` or `auto_cover`, or Defold's `ORTHO_MODE_*`.
    pub(super) orthographic_mode: Option<Located<String>>,
    pub(super) kind: Option<LightKindDesc>,
    /// A light's (3 numbers) or a label's (3 or 4) colour: checked per type after parsing.
    pub(super) color: Option<Located<Vec<f32>>>,
    pub(super) intensity: Option<f32>,
    pub(super) range: Option<f32>,
    /// A spot light's cone in degrees from its axis (full strength inside the inner one).
    pub(super) inner_cone_angle: Option<f32>,
    pub(super) outer_cone_angle: Option<f32>,
    pub(super) prototype: Option<Located<String>>,
    /// A `collectionproxy`'s collection.
    pub(super) collection: Option<Located<String>>,
    pub(super) text: Option<String>,
    /// A label's text size (a number) or a sprite's `[width, height]`: checked per type.
    pub(super) size: Option<Located<Value>>,
    pub(super) outline: Option<Located<Vec<f32>>>,
    pub(super) pivot: Option<Located<String>>,
    /// A label's font: a `.font` file, or a `.ttf`/`.otf` face at the label's `size`.
    pub(super) font: Option<Located<String>>,
    /// A label's wrapping (Defold's `line_break` with the label's `size.x` as `width`).
    pub(super) line_break: Option<bool>,
    pub(super) width: Option<Located<f32>>,
    pub(super) leading: Option<Located<f32>>,
    pub(super) tracking: Option<Located<f32>>,
    pub(super) shadow: Option<Located<Vec<f32>>>,
    pub(super) world_size: Option<bool>,
    /// The component's own placement (engine.md section 2): models and labels.
    #[serde(default, deserialize_with = "json::position")]
    pub(super) position: Option<[f32; 3]>,
    pub(super) rotation: Option<Located<[f32; 4]>>,
    pub(super) euler: Option<Located<[f32; 3]>>,
    #[serde(default, deserialize_with = "json::scale")]
    pub(super) scale: Option<[f32; 3]>,
    /// A `sound` component's fields (engine.md section 5; `spatial` and the distances are
    /// Sinew's positional sound).
    pub(super) sound: Option<Located<String>>,
    pub(super) gain: Option<Located<f32>>,
    pub(super) pan: Option<Located<f32>>,
    pub(super) speed: Option<Located<f32>>,
    pub(super) looping: Option<bool>,
    pub(super) loopcount: Option<Located<f32>>,
    pub(super) group: Option<Located<String>>,
    pub(super) spatial: Option<bool>,
    pub(super) min_distance: Option<Located<f32>>,
    pub(super) max_distance: Option<Located<f32>>,
    /// A collision object's fields (engine.md section 3, `crate::project::physics`).
    pub(super) collision_type: Option<Located<String>>,
    pub(super) mass: Option<Located<f32>>,
    pub(super) friction: Option<Located<f32>>,
    pub(super) restitution: Option<Located<f32>>,
    pub(super) linear_damping: Option<Located<f32>>,
    pub(super) angular_damping: Option<Located<f32>>,
    pub(super) locked_rotation: Option<bool>,
    pub(super) bullet: Option<bool>,
    pub(super) event_collision: Option<bool>,
    pub(super) event_contact: Option<bool>,
    pub(super) event_trigger: Option<bool>,
    pub(super) mask: Option<Located<Vec<String>>>,
    pub(super) shapes: Option<Located<crate::project::physics::Shapes>>,
    /// A sprite's atlas or tile source (sprites.md).
    pub(super) tile_set: Option<Located<String>>,
    /// A `particlefx` component's `.particlefx` file.
    pub(super) particlefx: Option<Located<String>>,
    /// A `tilemap` component's `.tilemap` file.
    pub(super) tilemap: Option<Located<String>>,
    pub(super) blend_mode: Option<Located<String>>,
    pub(super) size_mode: Option<Located<String>>,
    pub(super) billboard: Option<Located<Value>>,
    /// A sprite's nine-slice borders `[left, top, right, bottom]` in pixels (Defold's `slice9`).
    pub(super) slice9: Option<Located<Value>>,
    /// A sprite's own values of its custom material's vertex attributes, `{ name: [numbers] }`
    /// (Defold's `attributes` in a `.sprite`).
    pub(super) attributes: Option<Located<Value>>,
    /// A `gui` component's `.gui` scene.
    pub(super) gui: Option<Located<String>>,
}

/// A `.model` file, or the same fields taken from a component.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct ModelFields {
    pub(super) mesh: Option<Located<String>>,
    pub(super) skeleton: Option<Located<String>>,
    pub(super) animations: Option<Vec<Located<String>>>,
    pub(super) default_animation: Option<Located<String>>,
    pub(super) material: Option<Located<String>>,
    pub(super) textures: Option<OrderedMap<Located<String>>>,
    pub(super) create_go_bones: Option<bool>,
    pub(super) cast_shadows: Option<bool>,
    pub(super) receive_shadows: Option<bool>,
    /// `.model` files only (layers.md): named joint masks, IK chains, events per clip.
    pub(super) masks: Option<OrderedMap<Vec<String>>>,
    pub(super) ik: Option<OrderedMap<Located<IkDesc>>>,
    pub(super) events: Option<OrderedMap<Vec<EventDesc>>>,
    pub(super) joint_limits: Option<OrderedMap<Located<JointLimitDesc>>>,
}

/// One chain of a `.model`'s `ik`: `two_bone` uses `joints` and `pole`, `aim` the others.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct IkDesc {
    #[serde(rename = "type")]
    pub(super) ty: String,
    pub(super) joints: Option<Vec<String>>,
    pub(super) pole: Option<[f32; 3]>,
    pub(super) joint: Option<String>,
    pub(super) forward: Option<[f32; 3]>,
    pub(super) up: Option<[f32; 3]>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct EventDesc {
    pub(super) time: Located<f32>,
    pub(super) id: String,
}

/// One entry of a `.model`'s `joint_limits`.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct JointLimitDesc {
    pub(super) min: [f32; 3],
    pub(super) max: [f32; 3],
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub(super) enum LightKindDesc {
    Directional,
    Point,
    Spot,
    Ambient,
}

/// A game object or component id, checked while parsing so the error has a position. A
/// component's may be empty, as Defold allows (its examples have scripts with `id: ""`); an
/// object's may not (`loader::duplicate_ids` says so).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Id(pub(super) String);

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        // These characters separate the parts of a URL such as `main:/hero#script`. A `/` is
        // taken, as Defold takes it (d954mas' jam game names an object `factory/character`):
        // the object's path is `/factory/character`, as Defold's is.
        if let Some(c) = s.chars().find(|c| matches!(c, ':' | '#')) {
            return Err(de::Error::custom(format!("id '{s}' must not contain '{c}'")));
        }
        Ok(Id(s))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ComponentType {
    Script,
    Model,
    Camera,
    Light,
    Factory,
    CollectionFactory,
    CollectionProxy,
    Label,
    Sound,
    CollisionObject,
    Sprite,
    Gui,
    ParticleFx,
    TileMap,
}

/// The list of component types, for error messages.
pub(super) const TYPE_NAMES: &str = "script, model, camera, light, factory, collectionfactory, collectionproxy, label, sound, collisionobject, sprite, gui, particlefx or tilemap";

impl ComponentType {
    pub(super) fn name(self) -> &'static str {
        match self {
            ComponentType::Script => "script",
            ComponentType::Model => "model",
            ComponentType::Camera => "camera",
            ComponentType::Light => "light",
            ComponentType::Factory => "factory",
            ComponentType::CollectionFactory => "collectionfactory",
            ComponentType::CollectionProxy => "collectionproxy",
            ComponentType::Label => "label",
            ComponentType::Sound => "sound",
            ComponentType::CollisionObject => "collisionobject",
            ComponentType::Sprite => "sprite",
            ComponentType::Gui => "gui",
            ComponentType::ParticleFx => "particlefx",
            ComponentType::TileMap => "tilemap",
        }
    }
}

/// A component's `type` as written. An unknown one is kept, not a parse error, so the loader
/// reports it at its position and goes on to the file's other problems (`sinew check` lists a
/// missing script beside a misspelt type).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum TypeField {
    Known(ComponentType),
    Unknown(String),
}

impl TypeField {
    pub(super) fn known(&self) -> Option<ComponentType> {
        match self {
            TypeField::Known(t) => Some(*t),
            TypeField::Unknown(_) => None,
        }
    }
}

impl<'de> Deserialize<'de> for TypeField {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(match s.as_str() {
            "script" => TypeField::Known(ComponentType::Script),
            "model" => TypeField::Known(ComponentType::Model),
            "camera" => TypeField::Known(ComponentType::Camera),
            "light" => TypeField::Known(ComponentType::Light),
            "factory" => TypeField::Known(ComponentType::Factory),
            "collectionfactory" => TypeField::Known(ComponentType::CollectionFactory),
            "collectionproxy" => TypeField::Known(ComponentType::CollectionProxy),
            "label" => TypeField::Known(ComponentType::Label),
            "sound" => TypeField::Known(ComponentType::Sound),
            "collisionobject" => TypeField::Known(ComponentType::CollisionObject),
            "sprite" => TypeField::Known(ComponentType::Sprite),
            "gui" => TypeField::Known(ComponentType::Gui),
            "particlefx" => TypeField::Known(ComponentType::ParticleFx),
            "tilemap" => TypeField::Known(ComponentType::TileMap),
            _ => TypeField::Unknown(s),
        })
    }
}
