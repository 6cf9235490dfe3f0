//! The one description of the Lua API that people and editors read: every namespace function
//! with its parameters, returns and a one-line doc, the constants and the script callbacks.
//!
//! `sinew api --lua DIR` writes lua-language-server annotations from it ([`luals_files`]) and
//! `docs/api/*.md` are generated from it ([`markdown_pages`]). The bindings themselves are Lua
//! files (`lua/*.lua`), so a test (`tests/api_docs.rs`) walks the live Lua state's namespace
//! tables and fails when a function or constant exists on one side only: the annotations and
//! the docs cannot drift from what scripts can call.
//!
//! Signature text: `name: type` separated by commas, `name?` for an optional argument, `...`
//! for varargs; types in LuaLS syntax. `url_like` is `string|hash|url`, `hash_like` is
//! `string|hash`.

/// One function of a namespace (`ns` empty: a global function).
pub struct Func {
    pub ns: &'static str,
    pub name: &'static str,
    pub params: &'static str,
    pub returns: &'static str,
    pub doc: &'static str,
    /// Other call forms, each `(params) -> returns`.
    pub overloads: &'static [&'static str],
}

/// A namespace: its functions come from [`FUNCS`], constants from [`constants`].
pub struct Namespace {
    pub name: &'static str,
    pub doc: &'static str,
    /// Pages of docs/ (relative to docs/api) with runnable examples that use it.
    pub examples: &'static [&'static str],
    /// A paragraph for its reference page (properties, conventions).
    pub notes: &'static str,
}

pub struct Const {
    pub ns: &'static str,
    pub name: String,
    pub value: ConstValue,
    pub doc: String,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConstValue {
    Number(f64),
    /// A unique non-number value (`json.null`, a light userdata): no number to print or compare.
    Sentinel,
    /// `hash(text)`: Defold's property constants (`gui.PROP_COLOR`) are hashes of the names.
    Hash(&'static str),
}

/// A callback a `.script` may define as a global function.
pub struct Callback {
    pub name: &'static str,
    pub params: &'static str,
    pub returns: &'static str,
    pub doc: &'static str,
}

const fn f(
    ns: &'static str,
    name: &'static str,
    params: &'static str,
    returns: &'static str,
    doc: &'static str,
) -> Func {
    Func { ns, name, params, returns, doc, overloads: &[] }
}

/// Functions that other work adds to the runtime and that this table already describes. The
/// live-vs-table test accepts these as absent at runtime (printing each); once the runtime has
/// them, remove them here. Nowhere else may the table and the runtime differ.
pub const PENDING: &[&str] = &[];

/// Defold's Lua namespaces beyond the core ones every Sinew version has. Those that
/// [`NAMESPACES`] does not describe are [`unsupported`]; a namespace that arrives needs no edit
/// here.
pub const DEFOLD_NAMESPACES: &[&str] = &[
    "physics",
    "sound",
    "gui",
    "render",
    "camera",
    "http",
    "buffer",
    "resource",
    "sprite",
    "tilemap",
    "particlefx",
    "image",
    // Box2D's own API (Defold 1.10's physics 2D extension) and the `graphics` constants of
    // `resource.create_texture`.
    "b2d",
    "graphics",
    "crash",
    "profiler",
    "iac",
    "iap",
    "push",
    "webview",
    "liveupdate",
    // Defold leaves `html5` nil on its desktop builds, but Defold games branch on it to call
    // desktop-only native extensions Sinew does not have (`if not html5 then defos...`): as a
    // table it keeps them on the path that runs, and names what is missing when used.
    "html5",
    "collectionproxy",
    // Runtime font resources (`font.add_font`, `prewarm_text`, ...): Defold 1.9's.
    "font",
];

/// Defold namespaces Sinew lacks: each is a table whose every field raises
/// "<ns>.<name> is not supported by Sinew".
pub fn unsupported() -> Vec<&'static str> {
    DEFOLD_NAMESPACES.iter().copied().filter(|d| !NAMESPACES.iter().any(|n| n.name == *d)).collect()
}

pub const NAMESPACES: &[Namespace] = &[
    Namespace { name: "", doc: "Global functions.", examples: &["../formats.md#collections-collection"], notes: "" },
    Namespace {
        name: "go",
        doc: "Game objects: transforms, properties, hierarchy, deletion and property tweens.",
        examples: &["../formats.md#script", "../bones.md"],
        notes: "Properties for `go.get`/`go.set`/`go.animate`: `position` (vector3), `rotation` (quat), `euler` (vector3, degrees), `scale` (vector3; a number sets all axes), each with `.x`/`.y`/`.z`(/`.w`); a script's `go.property` values (`\"#script\"`, or nil for the calling script). A nil or omitted `url`/`id` means the calling script's object. Local transforms are parent-relative; world ones are last frame's.",
    },
    Namespace {
        name: "model",
        doc: "Model components: skeletal and morph animation, bones as game objects, meshes.",
        examples: &["../bones.md"],
        notes: "Model properties for `go.get`/`go.set`/`go.animate`: `cursor` (0-1), `playback_rate`, `animation` (hash, read only) and the material's constants such as `tint` (vector4, with `.x`..`.w`). Messages: `enable`, `disable`; sent: `model_animation_done {animation_id, playback}`.",
    },
    Namespace {
        name: "msg",
        doc: "Addresses (URLs) and messages.",
        examples: &["../formats.md#collections-collection", "../formats.md#factory-collectionfactory"],
        notes: "URL strings: `[socket:][path][#fragment]`, e.g. `main:/hero#model`; `\".\"` is the own object, `\"#\"` the own script, `\"#model\"` a component of the own object. Messages the runtime handles: `acquire_input_focus`, `release_input_focus`, `set_parent`, `enable`, `disable`.",
    },
    Namespace {
        name: "vmath",
        doc: "Vectors, quaternions and matrices (`vector3`, `vector4`, `quat`, `matrix4`, `vector`).",
        examples: &["../scripting.md#vmath-operators-rotations-matrices"],
        notes: "Operators: `+`, `-` and unary `-` on vectors; `*` and `/` by a number (either side for `*`); `quat * quat`; `matrix4 * matrix4`, `matrix4 * vector4`, `matrix4 * number`; `==` by value. Angles are radians except `euler_to_quat`/`quat_to_euler` (degrees).",
    },
    Namespace {
        name: "timer",
        doc: "Timers that call back a script after a delay.",
        examples: &["../formats.md#factory-collectionfactory"],
        notes: "Callbacks run once per frame after every script's `update`; a repeating timer fires at most once a frame and carries the remainder.",
    },
    Namespace {
        name: "factory",
        doc: "Spawning game objects from a `.go` prototype.",
        examples: &["../formats.md#factory-collectionfactory"],
        notes: "",
    },
    Namespace { name: "collectionfactory", doc: "Spawning a whole `.collection` prototype.", examples: &[], notes: "" },
    Namespace {
        name: "collectionproxy",
        doc: "Collection proxies' LiveUpdate queries (the proxies themselves answer messages: `load`, `enable`, ...).",
        examples: &["../proxies.md"],
        notes: "Sinew loads every collection from the project or the bundle, so no proxy misses a resource.",
    },
    Namespace { name: "label", doc: "Label components: text drawn in the world.", examples: &[], notes: "" },
    Namespace {
        name: "camera",
        doc: "Camera components: their settings, matrices, and picking between the window and the world.",
        examples: &[],
        notes: "A nil `camera` means the camera drawn now (the last enabled camera to get `acquire_camera_focus`, else the first enabled one). Camera properties for `go.get`/`go.set`/`go.animate`: `fov`, `near_z`, `far_z`, `orthographic_zoom`, `orthographic_mode` (numbers), `aspect_ratio` (read only: the window's), `view` and `projection` (read-only matrix4s, as `get_view`/`get_projection`). A light component's `color` (vector3) and `intensity` (number) are properties too. Screen positions are window pixels with the origin at the bottom left, as `action.screen_x`/`screen_y`.",
    },
    Namespace {
        name: "render",
        doc: "A project's own render script (game.project's `[bootstrap] render`): what each frame draws, and through which view and projection.",
        examples: &["../porting-from-defold.md#render-scripts"],
        notes: "Each call records a command of the frame, carried out in order after the script's `update`; a frame whose `update` fails is drawn as the last good one. `render.draw` draws the passes its predicate's tags name: models by their material's tags (`model` for a material without), `tile` sprites and tile maps, `particle` particles, `text` labels, `gui` the GUI (with its own window projection). Render states (blend, depth, stencil, culling, colour mask) are checked and left: each pass sets its own. Render targets are drawn into and sampled by model draws (`render.enable_texture`); a model's `material` property (`go.set` with `resource.material`) switches what draws it, as a post-processing quad does. A draw's constant buffer gives model materials its vector4s. Texture resources in `enable_texture`, `render.enable_material` and matrix constants are not supported. In a render script `sys.get_config` gives a number for a number's text (Sinew's vector fields take numbers only).",
    },
    Namespace {
        name: "gui",
        doc: "The nodes of a gui component, from its .gui_script.",
        examples: &["../gui.md"],
        notes: "Callable only from a `.gui_script`; nodes are the script's own scene's. Gui properties for `go.get`/`go.set` with `{ key = name }`: `fonts`, `textures` and `materials` (hashes of files: `resource.font`, `resource.atlas`, `resource.material`).",
    },
    Namespace {
        name: "resource",
        doc: "Resource properties (the path of an atlas, tile source, font, material or texture for `go.property`), and textures and atlases made at run time.",
        examples: &["../sprites.md#from-lua"],
        notes: "The property constructors return the hash of their path; `go.set(url, \"image\", v)` of a sprite takes it and loads the atlas or tile source if no sprite has used it. A texture made by `create_texture` counts rows from the bottom, as Defold's: `set_texture`'s `x`, `y` and its buffer's first row are the bottom's; `create_atlas`'s `uvs` are texture pixels from the top left (as Defold's), each geometry one frame (the bounding box of its uvs). Constants: `graphics`'s `TEXTURE_TYPE_2D`, `TEXTURE_FORMAT_LUMINANCE`, `_RGB`, `_RGBA`, `COMPRESSION_TYPE_DEFAULT`. `set_texture` on an atlas's page (`get_atlas`'s `texture`) changes the file atlas's pixels for the sprites drawing it (a gui keeps its own copy). The rest of Defold's `resource` functions (`set_atlas`, `load`, ...) raise \"not supported\".",
    },
    Namespace {
        name: "buffer",
        doc: "Buffers: elements of named streams of numbers, for `resource.set_texture`.",
        examples: &[],
        notes: "A buffer and its streams are userdata. A stream is read and written like an array, 1 to `#stream` (every value of every element, element after element); an index outside it or a value that is not a number raises. Constants: `VALUE_TYPE_UINT8`, `_UINT16`, `_UINT32`, `_UINT64`, `_INT8`, `_INT16`, `_INT32`, `_INT64`, `_FLOAT32`. A buffer holds at most 256 MiB. The rest of Defold's `buffer` functions (`copy_stream`, metadata, ...) raise \"not supported\".",
    },
    Namespace {
        name: "image",
        doc: "Decoding PNG and JPEG images held in strings.",
        examples: &[],
        notes: "`image.load` always answers RGBA (`image.TYPE_RGBA`), four bytes a pixel, whatever the file's channels. Constants: `TYPE_RGB`, `TYPE_RGBA`, `TYPE_LUMINANCE`, `TYPE_LUMINANCE_ALPHA`.",
    },
    Namespace {
        name: "graphics",
        doc: "Texture constants for `resource.create_texture` and `resource.set_texture`.",
        examples: &[],
        notes: "`TEXTURE_TYPE_2D`, `TEXTURE_FORMAT_LUMINANCE`, `TEXTURE_FORMAT_RGB`, `TEXTURE_FORMAT_RGBA`, `COMPRESSION_TYPE_DEFAULT`; any other field raises \"not supported\".",
    },
    Namespace {
        name: "types",
        doc: "Which of Defold's value types a value is.",
        examples: &[],
        notes: "As in Defold, `type()` of a hash, URL or vmath value is `\"userdata\"` (they are FFI values inside Sinew).",
    },
    Namespace {
        name: "physics",
        doc: "Collision objects: ray casts, gravity, groups and masks.",
        examples: &["../physics.md"],
        notes: "Collision object properties for `go.get`/`go.set`/`go.animate`: `linear_velocity`, `angular_velocity` (vector3, with `.x`/`.y`/`.z`), `mass` (read only), `linear_damping`, `angular_damping`. Messages: `collision_response`, `contact_point_response`, `trigger_response` to the object's scripts; `apply_force`, `enable`, `disable` to the component.",
    },
    Namespace {
        name: "sys",
        doc: "Project settings, engine and system information, resources, exit.",
        examples: &["../scripting.md#sys-json-settings-and-data"],
        notes: "",
    },
    Namespace { name: "window", doc: "The game window.", examples: &[], notes: "" },
    Namespace {
        name: "json",
        doc: "JSON text to and from Lua tables.",
        examples: &["../scripting.md#sys-json-settings-and-data"],
        notes: "",
    },
    Namespace { name: "socket", doc: "The part of LuaSocket games use for timing.", examples: &[], notes: "" },
    Namespace {
        name: "zlib",
        doc: "Compressing Lua strings: zlib streams, as Defold's `zlib` makes and reads them.",
        examples: &[],
        notes: "",
    },
    Namespace {
        name: "b2d",
        doc: "Box2D's own API (Defold's 2D physics extension, its Box2D 3 form) over Sinew's 2D world: bodies, shapes, joints and queries by handle.",
        examples: &["../physics.md#box2ds-own-api-b2d"],
        notes: "Needs a 2D physics world (`physics.type 2D`); in a 3D one every call raises an error. Handles are small tables (`==` compares them). Lengths, positions and velocities are in world units, scaled by `physics.scale` on the way in and out as in Defold; angles, masses and densities are not. See [physics.md](../physics.md#box2ds-own-api-b2d) for what differs from Box2D.",
    },
    Namespace {
        name: "b2d.body",
        doc: "A collision object's body: velocities, transform, shapes, impulses.",
        examples: &["../physics.md#box2ds-own-api-b2d"],
        notes: "Constants: `B2_STATIC_BODY`, `B2_KINEMATIC_BODY`, `B2_DYNAMIC_BODY` (0 to 2, `get_type`'s answers). A shape info table (`get_shapes`, `create_shape`, queries): `{shape_id, index, type, sensor, density, friction, restitution, material, child_count, is_chain_segment}`.",
    },
    Namespace {
        name: "b2d.shape",
        doc: "A body's shapes, by handle (`shape_id`) or as `(body, index)`: geometry, material, sensors.",
        examples: &["../physics.md#box2ds-own-api-b2d"],
        notes: "Constants: `SHAPE_TYPE_CIRCLE` 0, `SHAPE_TYPE_CAPSULE` 1, `SHAPE_TYPE_SEGMENT` (and `SHAPE_TYPE_EDGE`) 2, `SHAPE_TYPE_POLYGON` (and `SHAPE_TYPE_BOX`) 3. A geometry table: `{type, radius, center}`, `{type, center1, center2, radius}`, `{type, v1, v2}`, `{type, hx, hy, center?, angle?}` (a box) or `{type, vertices}` (3 to 8).",
    },
    Namespace {
        name: "b2d.joint",
        doc: "Joints made from Lua: revolute, prismatic, weld and mouse joints, their motors and targets.",
        examples: &["../physics.md#box2ds-own-api-b2d"],
        notes: "Definition keys: `local_anchor_a`, `local_anchor_b`, `collide_connected`, `reference_angle`, `local_axis_a`, `enable_limit`, `lower_translation`/`upper_translation` (or `lower_angle`/`upper_angle`), `enable_motor`, `motor_speed`, `max_motor_force`/`max_motor_torque`, and for a mouse joint `target`, `hertz` (`frequency`), `damping_ratio` (`damping`), `max_force`.",
    },
    Namespace {
        name: "b2d.world",
        doc: "The caller's 2D world: gravity, joint tuning, AABB, shape and ray queries.",
        examples: &["../physics.md#box2ds-own-api-b2d"],
        notes: "Queries take an optional filter `{mask_bits}` (Sinew's group bits, in the order groups were first met) and `max_results`, and return `hits, stats`.",
    },
    Namespace {
        name: "tilemap",
        doc: "Tile map components: tiles by layer and coordinates, bounds, layer visibility.",
        examples: &["../sprites.md#tile-maps"],
        notes: "Tiles are numbered from 1 in their tile source (0: no tile); tile coordinates from 1 at the tile just above and right of the component's origin, as in Defold. `set_tile` and `get_tile` stay inside the bounds the map was loaded with; outside them, or on a layer the map lacks, they log an error and answer false / nil, as Defold does. Transform constants for `set_tile` and `get_tile_info`: `H_FLIP` 1, `V_FLIP` 2, `ROTATE_90` 4, `ROTATE_180` 3, `ROTATE_270` 7 (flips first, then quarter turns clockwise). See [sprites.md](../sprites.md#tile-maps).",
    },
    Namespace {
        name: "particlefx",
        doc: "Particle effect components: playing and stopping their emitters.",
        examples: &["../particles.md"],
        notes: "A game object's URL (no component) reaches every particle effect of the object, as Defold's messages reach every component. Constants: `EMITTER_STATE_SLEEPING`, `EMITTER_STATE_PRESPAWN`, `EMITTER_STATE_SPAWNING`, `EMITTER_STATE_POSTSPAWN` (0 to 3). Emitter properties for `go.get`/`go.set` with `{ keys = { emitter_id } }`: `image`, `animation`, `material` (hashes). See [particles.md](../particles.md).",
    },
    Namespace {
        name: "sound",
        doc: "Sound components: plays, gain and pan, groups and their levels, the listener of positional sound.",
        examples: &["../sound.md"],
        notes: "Sound properties for `go.get`/`go.set`: `gain` (0..16), `pan` (-1..1), `speed` (1/16..16), numbers; a change reaches the plays already sounding. Mixing, the pan law, groups and positional sound: [sound.md](../sound.md).",
    },
    Namespace {
        name: "sprite",
        doc: "Sprite components: flipbooks from an atlas or tile source.",
        examples: &["../sprites.md"],
        notes: "Sprite properties for `go.get`/`go.set`/`go.animate`: `tint` (vector4), `size` and `scale` (vector3; setting `size` makes the size manual), `slice9` (vector4: left, top, right, bottom), `cursor` and `playback_rate` (numbers), `animation` (hash, read only), `image` (hash: set it to the path hash, or path, of an atlas the game has loaded), `texture0` (hash, read only: its atlas page's texture, which `resource.set_texture` draws into), and a custom material's constants (vector4s). Messages: `play_animation {id, offset, playback_rate}`, `set_flip_horizontal/vertical {flip}`, `enable`, `disable`; sent: `animation_done {current_tile, id}`.",
    },
];

pub const FUNCS: &[Func] = &[
    // ---------------------------------------------------------------- globals
    f(
        "",
        "hash",
        "s: string",
        "hash",
        "The 64-bit hash of a string (Defold's MurmurHash2A); ids and message names are hashes.",
    ),
    f("", "hash_to_hex", "h: hash", "string", "The 16 lowercase hex digits of a hash."),
    f("", "pprint", "...: any", "", "Prints values readably, tables recursively (vectors, hashes and URLs too)."),
    // ---------------------------------------------------------------- go
    f(
        "go",
        "get_position",
        "id?: url_like",
        "vector3",
        "Local (parent-relative) position; `id` omitted: the calling script's game object.",
    ),
    f("go", "set_position", "position: vector3, id?: url_like", "", "Sets the local position."),
    f("go", "get_rotation", "id?: url_like", "quat", "Local rotation."),
    f("go", "set_rotation", "rotation: quat, id?: url_like", "", "Sets the local rotation."),
    f("go", "get_scale", "id?: url_like", "vector3", "Local scale."),
    f("go", "get_scale_vector", "id?: url_like", "vector3", "Deprecated alias of `go.get_scale`."),
    f("go", "get_scale_uniform", "id?: url_like", "number", "The smallest component of the local scale."),
    f(
        "go",
        "set_scale",
        "scale: number|vector3, id?: url_like",
        "",
        "Sets the local scale (a number scales all axes); components must be > 0.",
    ),
    f("go", "set_scale_xy", "scale: number|vector3, id?: url_like", "", "Sets the x and y of the local scale only."),
    f(
        "go",
        "get_world_position",
        "id?: url_like",
        "vector3",
        "World position as of the end of the last frame (or the last `go.update_world_transform`).",
    ),
    f("go", "get_world_rotation", "id?: url_like", "quat", "World rotation (last frame's)."),
    f("go", "get_world_scale", "id?: url_like", "vector3", "World scale (last frame's)."),
    f("go", "get_world_scale_uniform", "id?: url_like", "number", "Smallest component of the world scale."),
    f("go", "get_world_transform", "id?: url_like", "matrix4", "World transform matrix (last frame's)."),
    f(
        "go",
        "update_world_transform",
        "id?: url_like",
        "",
        "Recomputes the world transform of the object and its ancestors now.",
    ),
    f(
        "go",
        "world_to_local_position",
        "position: vector3, id: url_like",
        "vector3",
        "A world position in the local space of `id`.",
    ),
    f(
        "go",
        "world_to_local_transform",
        "transform: matrix4, id: url_like",
        "matrix4",
        "A world transform in the local space of `id`.",
    ),
    f(
        "go",
        "get_id",
        "path?: string",
        "hash",
        "The id of a game object: own id without argument; `path` is absolute (`/a`) or relative to the caller's collection.",
    ),
    f("go", "exists", "id: url_like", "boolean", "Whether the game object exists."),
    f("go", "get_parent", "id?: url_like", "hash|nil", "The parent's id, or nil."),
    f(
        "go",
        "set_parent",
        "id?: url_like, parent_id?: url_like, keep_world_transform?: boolean",
        "",
        "Re-parents at the next message dispatch; `parent_id` nil detaches.",
    ),
    f(
        "go",
        "delete",
        "id?: url_like|url_like[]|boolean, recursive?: boolean",
        "",
        "Deletes at the end of the frame (`final` runs then); `go.delete(true)`: self and children.",
    ),
    f("go", "delete_all", "ids: url_like[]", "", "Deprecated: `go.delete(ids)`."),
    f(
        "go",
        "property",
        "name: string, default: number|boolean|string|hash|url|vector3|vector4|quat",
        "",
        "Declares a script property (top level only); collections and factories may override it; read as `self.<name>`.",
    ),
    f(
        "go",
        "get",
        "url: url_like|nil, property: hash_like, options?: table",
        "any",
        "A property value: `position`, `euler.z`, a script property, a model's `cursor`, a material constant like `tint`...",
    ),
    f(
        "go",
        "set",
        "url: url_like|nil, property: hash_like, value: any, options?: table",
        "",
        "Sets a property; the value's type must match.",
    ),
    f(
        "go",
        "animate",
        "url: url_like|nil, property: hash_like, playback: integer, to: number|vector3|vector4|quat, easing: integer|vector, duration: number, delay?: number, complete_function?: fun(self: table, url: url, property: hash)",
        "",
        "Tweens a numeric property from its current value to `to` (`go.PLAYBACK_*`, `go.EASING_*` or a `vmath.vector` curve).",
    ),
    f(
        "go",
        "cancel_animations",
        "url: url_like|nil, property?: hash_like",
        "",
        "Stops the tweens of one property, or every tween of the object (or component) `url` names; no callbacks.",
    ),
    // ---------------------------------------------------------------- model
    f(
        "model",
        "play_anim",
        "url: url_like, anim_id: hash_like, playback: integer, play_properties?: {blend_duration?: number, offset?: number, playback_rate?: number, layer?: integer, weight?: number, mask?: hash_like|hash_like[], additive?: boolean}, complete_function?: fun(self: table, message_id: hash, message: table, sender: url)",
        "",
        "Plays a clip of the model's animation set (at the next dispatch); ONCE_* modes call back or send `model_animation_done`. `layer` 1-7 plays over layer 0 with `weight`, a `.model` `mask` and `additive` blending (layers.md).",
    ),
    f(
        "model",
        "cancel",
        "url: url_like, layer?: integer",
        "",
        "Stops the animation (no callback); layer 0 stops where it is, a higher layer is emptied.",
    ),
    f(
        "model",
        "get_go",
        "url: url_like, bone_id: hash_like",
        "hash",
        "The game object that follows a joint (`create_go_bones`), for `go.set_parent` attachments.",
    ),
    f(
        "model",
        "set_mesh_enabled",
        "url: url_like, mesh_id: hash_like, enabled: boolean",
        "",
        "Shows or hides one mesh, named by its glTF node as in Defold (its glTF mesh name works too).",
    ),
    f("model", "get_mesh_enabled", "url: url_like, mesh_id: hash_like", "boolean", "Whether a mesh is shown."),
    f(
        "model",
        "get_aabb",
        "url: url_like",
        "{min: vector3, max: vector3}",
        "The model-space bounding box of the whole model.",
    ),
    f(
        "model",
        "get_mesh_aabb",
        "url: url_like",
        "table<hash, {min: vector3, max: vector3}>",
        "Model-space bounding boxes by mesh id.",
    ),
    f(
        "model",
        "get_blend_weights",
        "url: url_like",
        "number[]",
        "Morph target weights of the first morphed mesh, after animation and overrides.",
    ),
    f(
        "model",
        "set_blend_weights",
        "url: url_like, weights?: number[]",
        "",
        "Overrides morph weights every frame after animation; nil clears the override.",
    ),
    f(
        "model",
        "set_layer_weight",
        "url: url_like, layer: integer, weight: number, duration?: number",
        "",
        "How much an animation layer covers the layers below (fades over `duration` seconds).",
    ),
    f(
        "model",
        "get_layer",
        "url: url_like, layer: integer",
        "{animation: hash|nil, cursor: number, playback_rate: number, weight: number}",
        "The state of one animation layer.",
    ),
    f(
        "model",
        "set_ik_target",
        "url: url_like, chain: hash_like, target_id: url_like",
        "",
        "An IK chain of the `.model` follows a game object.",
    ),
    f(
        "model",
        "set_ik_target_position",
        "url: url_like, chain: hash_like, position: vector3",
        "",
        "An IK chain reaches for a world position.",
    ),
    f(
        "model",
        "set_ik_weight",
        "url: url_like, chain: hash_like, weight: number",
        "",
        "How much an IK chain overrides the animation (0-1).",
    ),
    f("model", "clear_ik_target", "url: url_like, chain: hash_like", "", "Turns an IK chain off."),
    // ---------------------------------------------------------------- msg
    f(
        "msg",
        "url",
        "socket?: hash_like|nil, path?: hash_like|nil, fragment?: hash_like|nil",
        "url",
        "A URL: own script without argument, parsed from `\"main:/hero#model\"`, or from its three parts.",
    ),
    f(
        "msg",
        "post",
        "receiver: url_like, message_id: hash_like, message?: table",
        "",
        "Queues a message (table of at most 2 KB, copied); `@render:` takes `draw_text`, `draw_line`, `clear_color`.",
    ),
    // ---------------------------------------------------------------- vmath
    Func {
        overloads: &[
            "(n: number) -> vector3",
            "(v: vector3) -> vector3",
            "(x: number, y: number, z: number) -> vector3",
        ],
        ..f("vmath", "vector3", "", "vector3", "A 3-component vector: zero, splat, copy or components.")
    },
    Func {
        overloads: &[
            "(n: number) -> vector4",
            "(v: vector4) -> vector4",
            "(x: number, y: number, z: number, w: number) -> vector4",
        ],
        ..f("vmath", "vector4", "", "vector4", "A 4-component vector: zero, splat, copy or components.")
    },
    Func {
        overloads: &["(q: quat) -> quat", "(x: number, y: number, z: number, w: number) -> quat"],
        ..f("vmath", "quat", "", "quat", "A quaternion: identity, copy or components.")
    },
    Func {
        overloads: &["(m: matrix4) -> matrix4"],
        ..f("vmath", "matrix4", "", "matrix4", "A 4x4 matrix: identity or copy.")
    },
    f("vmath", "vector", "t: number[]", "vector", "A float array of any length (custom easing curves)."),
    f("vmath", "dot", "a: vector3|vector4, b: vector3|vector4", "number", "Dot product."),
    f("vmath", "cross", "a: vector3, b: vector3", "vector3", "Cross product."),
    f("vmath", "length", "v: vector3|vector4|quat", "number", "Length."),
    f("vmath", "length_sqr", "v: vector3|vector4|quat", "number", "Squared length."),
    f("vmath", "normalize", "v: vector3|vector4|quat", "vector3|vector4|quat", "Unit vector or quaternion."),
    f(
        "vmath",
        "lerp",
        "t: number, a: number|vector3|vector4|quat, b: number|vector3|vector4|quat",
        "number|vector3|vector4|quat",
        "Linear interpolation (not clamped).",
    ),
    f(
        "vmath",
        "slerp",
        "t: number, a: vector3|vector4|quat, b: vector3|vector4|quat",
        "vector3|vector4|quat",
        "Spherical interpolation (not clamped).",
    ),
    f("vmath", "rotate", "q: quat, v: vector3", "vector3", "Rotates a vector by a quaternion."),
    f("vmath", "project", "a: vector3, b: vector3", "number", "Scalar projection of `a` on `b`, |a|cos(angle)/|b|."),
    f("vmath", "mul_per_elem", "a: vector3|vector4, b: vector3|vector4", "vector3|vector4", "Component-wise product."),
    f(
        "vmath",
        "clamp",
        "v: number|vector3|vector4, min: number|vector3|vector4, max: number|vector3|vector4",
        "number|vector3|vector4",
        "Clamps a number, or each component.",
    ),
    f("vmath", "conj", "q: quat", "quat", "Quaternion conjugate."),
    f("vmath", "quat_axis_angle", "axis: vector3, angle: number", "quat", "Rotation about an axis (radians)."),
    f("vmath", "quat_basis", "x: vector3, y: vector3, z: vector3", "quat", "Rotation from basis vectors."),
    f("vmath", "quat_from_to", "v1: vector3, v2: vector3", "quat", "Rotation that takes unit `v1` to unit `v2`."),
    f("vmath", "quat_rotation_x", "angle: number", "quat", "Rotation about X (radians)."),
    f("vmath", "quat_rotation_y", "angle: number", "quat", "Rotation about Y (radians)."),
    f("vmath", "quat_rotation_z", "angle: number", "quat", "Rotation about Z (radians)."),
    f("vmath", "quat_matrix4", "m: matrix4", "quat", "The rotation of a matrix."),
    f("vmath", "quat_to_euler", "q: quat", "x: number, y: number, z: number", "Euler angles in degrees (YZX order)."),
    Func {
        overloads: &["(v: vector3) -> quat"],
        ..f(
            "vmath",
            "euler_to_quat",
            "x: number, y: number, z: number",
            "quat",
            "Quaternion from Euler angles in degrees (YZX order).",
        )
    },
    f(
        "vmath",
        "matrix4_axis_angle",
        "axis: vector3, angle: number",
        "matrix4",
        "Rotation matrix about an axis (radians).",
    ),
    f(
        "vmath",
        "matrix4_compose",
        "translation: vector3|vector4, rotation: quat, scale: vector3",
        "matrix4",
        "Translation x rotation x scale.",
    ),
    f(
        "vmath",
        "matrix4_frustum",
        "left: number, right: number, bottom: number, top: number, near: number, far: number",
        "matrix4",
        "Frustum projection.",
    ),
    f("vmath", "matrix4_look_at", "eye: vector3, target: vector3, up: vector3", "matrix4", "View matrix."),
    f(
        "vmath",
        "matrix4_orthographic",
        "left: number, right: number, bottom: number, top: number, near: number, far: number",
        "matrix4",
        "Orthographic projection.",
    ),
    f(
        "vmath",
        "matrix4_perspective",
        "fov: number, aspect: number, near: number, far: number",
        "matrix4",
        "Perspective projection (vertical fov in radians).",
    ),
    f("vmath", "matrix4_quat", "q: quat", "matrix4", "Rotation matrix of a quaternion."),
    f("vmath", "matrix4_from_quat", "q: quat", "matrix4", "Alias of `vmath.matrix4_quat`."),
    f("vmath", "matrix4_rotation_x", "angle: number", "matrix4", "Rotation matrix about X (radians)."),
    f("vmath", "matrix4_rotation_y", "angle: number", "matrix4", "Rotation matrix about Y (radians)."),
    f("vmath", "matrix4_rotation_z", "angle: number", "matrix4", "Rotation matrix about Z (radians)."),
    Func {
        overloads: &["(x: number, y: number, z: number) -> matrix4"],
        ..f("vmath", "matrix4_scale", "s: number|vector3", "matrix4", "Scale matrix.")
    },
    f("vmath", "matrix4_translation", "v: vector3|vector4", "matrix4", "Translation matrix."),
    f("vmath", "inv", "m: matrix4", "matrix4", "General inverse."),
    f("vmath", "ortho_inv", "m: matrix4", "matrix4", "Inverse of an orthonormal (rotation + translation) matrix."),
    // ---------------------------------------------------------------- timer
    f(
        "timer",
        "delay",
        "delay: number, repeating: boolean, callback: fun(self: table, handle: integer, time_elapsed: number)",
        "integer",
        "Calls `callback` after `delay` seconds (every `delay` when repeating); returns a handle.",
    ),
    f("timer", "cancel", "handle: integer", "boolean", "Stops a timer; false when it had already ended."),
    f("timer", "trigger", "handle: integer", "boolean", "Fires a timer now."),
    f(
        "timer",
        "get_info",
        "handle: integer",
        "{time_remaining: number, delay: number, repeating: boolean}|nil",
        "A timer's state, nil when it has ended.",
    ),
    // ---------------------------------------------------------------- factory
    f(
        "factory",
        "create",
        "url: url_like, position?: vector3, rotation?: quat, properties?: table<string, any>, scale?: number|vector3",
        "hash",
        "Spawns the prototype; returns the new object's id (`/instanceN`).",
    ),
    f(
        "factory",
        "get_status",
        "url?: url_like",
        "integer",
        "Always `factory.STATUS_LOADED` (everything loads up front).",
    ),
    f(
        "factory",
        "load",
        "url?: url_like, complete_function?: fun(self: table, url: url, result: boolean)",
        "",
        "Calls back at once (everything loads up front).",
    ),
    f("factory", "unload", "url?: url_like", "", "Does nothing (everything loads up front)."),
    f(
        "factory",
        "set_prototype",
        "url?: url_like, prototype: string",
        "",
        "Makes the factory spawn the `.go` at `prototype` from now on (loaded and checked now; Defold's `.goc` name is taken too).",
    ),
    f(
        "collectionfactory",
        "create",
        "url: url_like, position?: vector3, rotation?: quat, properties?: table<hash|string, table<string, any>>, scale?: number|vector3",
        "table<hash, hash>",
        "Spawns the prototype collection; returns prototype id path -> new id.",
    ),
    f("collectionfactory", "get_status", "url?: url_like", "integer", "Always `collectionfactory.STATUS_LOADED`."),
    f(
        "collectionfactory",
        "load",
        "url?: url_like, complete_function?: fun(self: table, url: url, result: boolean)",
        "",
        "Calls back at once.",
    ),
    f("collectionfactory", "unload", "url?: url_like", "", "Does nothing."),
    f(
        "collectionfactory",
        "set_prototype",
        "url?: url_like, prototype: string",
        "",
        "Makes the collection factory spawn the `.collection` at `prototype` from now on.",
    ),
    f(
        "collectionproxy",
        "missing_resources",
        "collectionproxy: url_like",
        "string[]",
        "The resources LiveUpdate has yet to fetch for the proxy's collection: always empty (the proxy must exist).",
    ),
    // ---------------------------------------------------------------- label
    f("label", "set_text", "url: url_like, text: string", "", "Sets a label's text."),
    f("label", "get_text", "url: url_like", "string", "A label's text."),
    // ---------------------------------------------------------------- render
    f(
        "render",
        "predicate",
        "tags: (string|hash)[]",
        "predicate",
        "A predicate of 1 to 32 material tags, for `render.draw`.",
    ),
    f(
        "render",
        "draw",
        "predicate: predicate, options?: table",
        "",
        "Draws what the predicate's tags name, through the view, projection and viewport set last. `options.constants` (a `render.constant_buffer` filled by name with vector4s, at most 64) gives the models' materials those values over their own; the rest of `options` is read and left.",
    ),
    f(
        "render",
        "draw_debug3d",
        "options?: table",
        "",
        "Draws the debug lines and texts (`draw_line`, `draw_text`, the physics debug view).",
    ),
    f("render", "draw_debug2d", "options?: table", "", "Defold's older name of `draw_debug3d`."),
    f(
        "render",
        "clear",
        "buffers: table",
        "",
        "Clears the buffers the table's keys name (`render.BUFFER_COLOR_BIT`: a vector4; `BUFFER_DEPTH_BIT`, `BUFFER_STENCIL_BIT`: numbers).",
    ),
    f(
        "render",
        "set_viewport",
        "x: number, y: number, width: number, height: number",
        "",
        "The window pixels the next draws land in.",
    ),
    f("render", "set_view", "view: matrix4", "", "The view matrix of the next draws."),
    f("render", "set_projection", "projection: matrix4", "", "The projection matrix of the next draws."),
    f(
        "render",
        "set_camera",
        "camera: url_like|nil, options?: table",
        "",
        "The next draws are seen through a camera component's view and projection; nil goes back to `set_view`'s and `set_projection`'s (`options` is read and left).",
    ),
    f(
        "render",
        "constant_buffer",
        "",
        "table",
        "A table to fill with named vector4 constants, for `render.draw`'s `options.constants` (other kinds of value are not supported).",
    ),
    f("render", "get_width", "", "number", "game.project's display width."),
    f("render", "get_height", "", "number", "game.project's display height."),
    f("render", "get_window_width", "", "number", "The window's width in pixels."),
    f("render", "get_window_height", "", "number", "The window's height in pixels."),
    f("render", "enable_state", "state: number", "", "Checked and left: each pass sets its own states."),
    f("render", "disable_state", "state: number", "", "Checked and left: each pass sets its own states."),
    f(
        "render",
        "set_blend_func",
        "source: number, destination: number",
        "",
        "Checked and left: each pass sets its own blending.",
    ),
    f("render", "set_depth_mask", "write: boolean", "", "Checked and left: each pass sets its own depth writes."),
    f("render", "set_depth_func", "func: number", "", "Checked and left."),
    f("render", "set_cull_face", "face: number", "", "Checked and left."),
    f(
        "render",
        "set_color_mask",
        "red: boolean, green: boolean, blue: boolean, alpha: boolean",
        "",
        "Checked and left.",
    ),
    f("render", "set_stencil_mask", "mask: number", "", "Checked and left."),
    f("render", "set_stencil_func", "func: number, ref: number, mask: number", "", "Checked and left."),
    f("render", "set_stencil_op", "sfail: number, dpfail: number, dppass: number", "", "Checked and left."),
    f("render", "set_polygon_offset", "factor: number, units: number", "", "Checked and left."),
    f(
        "render",
        "render_target",
        "name: string|nil, buffers: table",
        "render_target",
        "A render target: `buffers` maps buffer types (`graphics.BUFFER_TYPE_COLOR0_BIT` to `COLOR3_BIT`, `DEPTH_BIT`, `STENCIL_BIT`) to tables of `format`, `width`, `height` (1 to 8192, one size for all), `min_filter`, `mag_filter`, `u_wrap`, `v_wrap` (`flags` is taken and left). The name may be left out. At most 64 at once, taking 1 GiB of texture memory together.",
    ),
    f("render", "delete_render_target", "target: render_target", "", "Deletes a render target."),
    f(
        "render",
        "set_render_target",
        "target: render_target|nil, options?: table",
        "",
        "The next clears and draws go into the target; `render.RENDER_TARGET_DEFAULT` (or nil) is the window. The viewport is the script's to set.",
    ),
    f("render", "enable_render_target", "target: render_target", "", "Defold's older `set_render_target(target)`."),
    f(
        "render",
        "disable_render_target",
        "target?: render_target",
        "",
        "Defold's older `set_render_target(render.RENDER_TARGET_DEFAULT)`.",
    ),
    f(
        "render",
        "set_render_target_size",
        "target: render_target, width: number, height: number",
        "",
        "Makes every buffer of the target again at the new size (their pictures are lost).",
    ),
    f(
        "render",
        "get_render_target_width",
        "target: render_target, buffer: number",
        "number",
        "The width of one of the target's buffers.",
    ),
    f(
        "render",
        "get_render_target_height",
        "target: render_target, buffer: number",
        "number",
        "The height of one of the target's buffers.",
    ),
    f(
        "render",
        "enable_texture",
        "binding: number|string|hash, target: render_target, buffer?: number",
        "",
        "Model draws sample the target's buffer (colour 0 if left out) through the sampler at texture unit `binding` (a material's samplers take units in the order it declares them) or of that name, over their own texture. Texture resources are not supported.",
    ),
    f("render", "disable_texture", "binding: number|string|hash", "", "Undoes `enable_texture` for that binding."),
    // ---------------------------------------------------------------- camera
    f("camera", "get_cameras", "", "url[]", "Every camera component, in the order they were made."),
    f(
        "camera",
        "get_enabled",
        "camera?: url_like",
        "boolean",
        "Whether the camera component is enabled (`enable` and `disable` messages).",
    ),
    f("camera", "get_fov", "camera?: url_like", "number", "Vertical field of view (radians)."),
    f("camera", "set_fov", "camera: url_like|nil, fov: number", "", "Sets the field of view (0 < fov < pi)."),
    f("camera", "get_near_z", "camera?: url_like", "number", "Near plane distance."),
    f(
        "camera",
        "set_near_z",
        "camera: url_like|nil, z: number",
        "",
        "Sets the near plane (> 0 for perspective, < far).",
    ),
    f("camera", "get_far_z", "camera?: url_like", "number", "Far plane distance."),
    f("camera", "set_far_z", "camera: url_like|nil, z: number", "", "Sets the far plane (> near)."),
    f(
        "camera",
        "get_orthographic_zoom",
        "camera?: url_like",
        "number",
        "Orthographic zoom (the view shows `ortho_height / zoom`).",
    ),
    f("camera", "set_orthographic_zoom", "camera: url_like|nil, zoom: number", "", "Sets the orthographic zoom (> 0)."),
    f(
        "camera",
        "get_orthographic_mode",
        "camera?: url_like",
        "number",
        "How the orthographic zoom is found: `camera.ORTHO_MODE_FIXED` (the zoom as set), `_AUTO_FIT` or `_AUTO_COVER`.",
    ),
    f(
        "camera",
        "set_orthographic_mode",
        "camera: url_like|nil, mode: number",
        "",
        "Sets the mode: the auto modes fit the design area (a Defold camera's: the display size) inside the window or cover the window with it, and ignore the zoom.",
    ),
    f(
        "camera",
        "get_aspect_ratio",
        "camera?: url_like",
        "number",
        "The window's width / height, which the camera uses.",
    ),
    f(
        "camera",
        "get_view",
        "camera?: url_like",
        "matrix4",
        "The view matrix (the inverse of the camera's world transform).",
    ),
    f("camera", "get_projection", "camera?: url_like", "matrix4", "The projection matrix (OpenGL clip space)."),
    f(
        "camera",
        "screen_to_world",
        "pos: vector3, camera?: url_like",
        "vector3",
        "Beyond Defold: the world point under window pixel `pos.x, pos.y` at `pos.z` in front of the camera.",
    ),
    f(
        "camera",
        "world_to_screen",
        "pos: vector3, camera?: url_like",
        "vector3",
        "Beyond Defold: the window pixel of a world point, and its distance in front of the camera as z.",
    ),
    // ---------------------------------------------------------------- gui
    f("gui", "get_node", "id: string|hash", "node", "The node of that id (raises when there is none)."),
    f("gui", "get_position", "node: node", "vector3", "The node's position in its parent's space."),
    f("gui", "set_position", "node: node, position: vector3", "", "Moves the node."),
    f("gui", "get_euler", "node: node", "vector3", "The node's rotation in degrees about x, y, z."),
    f("gui", "set_euler", "node: node, euler: vector3", "", "Turns the node (degrees)."),
    f("gui", "get_scale", "node: node", "vector3", "The node's scale."),
    f("gui", "set_scale", "node: node, scale: number|vector3", "", "Scales the node."),
    f("gui", "get_size", "node: node", "vector3", "The node's size."),
    f("gui", "set_size", "node: node, size: vector3", "", "Resizes the node."),
    f("gui", "get_color", "node: node", "vector4", "The node's colour and alpha."),
    f("gui", "set_color", "node: node, color: vector3|vector4", "", "Sets the colour (a vector3 keeps the alpha)."),
    f("gui", "get_outline", "node: node", "vector4", "A text node's outline colour."),
    f("gui", "set_outline", "node: node, color: vector3|vector4", "", "Sets a text node's outline colour."),
    f("gui", "get_shadow", "node: node", "vector4", "A text node's shadow colour."),
    f("gui", "set_shadow", "node: node, color: vector3|vector4", "", "Sets a text node's shadow colour."),
    f("gui", "get_alpha", "node: node", "number", "The node's alpha."),
    f("gui", "set_alpha", "node: node, alpha: number", "", "Sets the node's alpha."),
    f("gui", "is_enabled", "node: node", "boolean", "Whether the node (and so its children) is enabled."),
    f("gui", "set_enabled", "node: node, enabled: boolean", "", "Enables or disables the node and its children."),
    f("gui", "get_visible", "node: node", "boolean", "Whether the node itself is drawn."),
    f("gui", "set_visible", "node: node, visible: boolean", "", "Shows or hides the node (not its children)."),
    f("gui", "get_inherit_alpha", "node: node", "boolean", "Whether the node takes its parent's alpha."),
    f("gui", "set_inherit_alpha", "node: node, inherit: boolean", "", "Makes the node take its parent's alpha or not."),
    f("gui", "get_line_break", "node: node", "boolean", "Whether a text node wraps at its width."),
    f("gui", "set_line_break", "node: node, line_break: boolean", "", "Makes a text node wrap at its width or not."),
    f("gui", "get_text", "node: node", "string", "A text node's text."),
    f("gui", "set_text", "node: node, text: string|number", "", "Sets a text node's text."),
    f(
        "gui",
        "get_text_metrics_from_node",
        "node: node",
        "{width: number, height: number, max_ascent: number, max_descent: number}",
        "The text's measures with the node's font, from the font's own advances.",
    ),
    f(
        "gui",
        "get_text_metrics",
        "font: string|hash, text: string, width: number|nil, line_break: boolean|nil, leading: number|nil, tracking: number|nil",
        "{width: number, height: number, max_ascent: number, max_descent: number}",
        "The text's measures in one of the scene's fonts (wrapped at `width` with `line_break`), as a text node lays it out; deprecated in Defold, still there.",
    ),
    f(
        "gui",
        "pick_node",
        "node: node, x: number, y: number",
        "boolean",
        "Whether the screen point is on the node as drawn (rotation and clipping included).",
    ),
    f("gui", "get_screen_position", "node: node", "vector3", "The node's pivot point in screen pixels."),
    f(
        "gui",
        "set_screen_position",
        "node: node, position: vector3",
        "",
        "Moves the node so that its pivot point is at this point in screen pixels (through its parent, or a root's anchors).",
    ),
    f("gui", "new_box_node", "position: vector3, size?: vector3", "node", "Adds a box node."),
    f("gui", "new_text_node", "position: vector3, text: string", "node", "Adds a text node in the built-in font."),
    f("gui", "new_pie_node", "position: vector3, size?: vector3", "node", "Adds a pie node."),
    f(
        "gui",
        "move_above",
        "node: node, reference?: node",
        "",
        "Makes the node a sibling of `reference` drawn right after it (nil: the last root).",
    ),
    f(
        "gui",
        "move_below",
        "node: node, reference?: node",
        "",
        "Makes the node a sibling of `reference` drawn right before it (nil: the first root).",
    ),
    f("gui", "get_leading", "node: node", "number", "A text node's line spacing (1: the font's)."),
    f("gui", "set_leading", "node: node, leading: number", "", "Sets a text node's line spacing."),
    f("gui", "get_tracking", "node: node", "number", "A text node's letter spacing (a share of the font size)."),
    f("gui", "set_tracking", "node: node, tracking: number", "", "Sets a text node's letter spacing."),
    f(
        "gui",
        "get_slice9",
        "node: node",
        "vector4",
        "The unstretched borders: left, top, right, bottom (texture pixels).",
    ),
    f("gui", "set_slice9", "node: node, borders: vector4", "", "Sets the unstretched borders (negative: none)."),
    f("gui", "get_rotation", "node: node", "quat", "The node's rotation as a quaternion."),
    f(
        "gui",
        "set_rotation",
        "node: node, rotation: quat|vector4|vector3",
        "",
        "Turns the node (normalised; not zero); a vector3 is Euler angles in degrees, as `gui.set_euler`.",
    ),
    f("gui", "get_outer_bounds", "node: node", "integer", "A pie node's bounds (`gui.PIEBOUNDS_*`)."),
    f(
        "gui",
        "set_outer_bounds",
        "node: node, bounds: integer",
        "",
        "Sets a pie node's bounds: an ellipse or the rectangle.",
    ),
    f(
        "gui",
        "screen_to_local",
        "node: node, position: vector3",
        "vector3",
        "The position that puts the node's pivot at a screen point (the node stays).",
    ),
    f("gui", "get_width", "", "number", "The scene's width: the project's display width, or its layout's profile's."),
    f(
        "gui",
        "get_height",
        "",
        "number",
        "The scene's height: the project's display height, or its layout's profile's.",
    ),
    f(
        "gui",
        "get_layout",
        "",
        "hash",
        "The layout the scene shows: its display profile's name (`Default`: the scene's own nodes).",
    ),
    f(
        "gui",
        "set_layout",
        "layout: string|hash",
        "boolean",
        "Shows the scene's layout of that name (its nodes back as the layout has them, `layout_changed` posted): true; false when the scene has no such layout.",
    ),
    f(
        "gui",
        "get_layouts",
        "",
        "table<hash, vector3>",
        "Each layout's id to its display profile's size (the default layout: the scene's size now; 0, 0 for a layout no profile names).",
    ),
    f("gui", "get_font_resource", "font: string|hash", "hash", "The file the scene's font of that name was read from."),
    f(
        "gui",
        "show_keyboard",
        "type: integer, autoclose: boolean",
        "",
        "No on-screen keyboard on a desktop: checks its arguments, does nothing.",
    ),
    f("gui", "hide_keyboard", "", "", "Does nothing on a desktop."),
    f("gui", "reset_keyboard", "", "", "Does nothing on a desktop."),
    f(
        "gui",
        "new_particlefx_node",
        "position: vector3, particlefx: string|hash",
        "node",
        "Adds a particle node showing one of the scene's `particlefxs`.",
    ),
    f(
        "gui",
        "play_particlefx",
        "node: node, emitter_state_function?: fun(self: table, node: node, emitter: hash, state: integer)",
        "",
        "Starts the node's effect at the node; the function hears each emitter's `particlefx.EMITTER_STATE_*`.",
    ),
    f(
        "gui",
        "stop_particlefx",
        "node: node, options?: table",
        "",
        "Stops the node's effect spawning; `{ clear = true }` also removes its particles.",
    ),
    f("gui", "get_particlefx", "node: node", "hash", "The name of the effect a particle node shows."),
    f(
        "gui",
        "set_particlefx",
        "node: node, particlefx: string|hash",
        "",
        "Shows another of the scene's `particlefxs` (from its next play).",
    ),
    f(
        "gui",
        "get_material",
        "node: node",
        "hash",
        "The name of the material (in the scene's `materials`) a box or pie node draws with; empty for the scene's own.",
    ),
    f(
        "gui",
        "set_material",
        "node: node, material: string|hash",
        "",
        "Draws a box or pie node with another of the scene's `materials` (text nodes draw built-in).",
    ),
    f("gui", "reset_material", "node: node", "", "The node draws with the scene's own material again."),
    f("gui", "reset_nodes", "", "", "Every node back as the scene has it; new nodes are dropped."),
    f(
        "gui",
        "set_render_order",
        "order: integer",
        "",
        "Draws this scene after those of lower order (0 to 15; another integer is clamped with a warning, as in Defold).",
    ),
    f(
        "gui",
        "animate",
        "node: node, property: string|hash, to: number|vector3|vector4, easing: integer, duration: number, delay?: number, complete_function?: fun(self: table, node: node), playback?: integer",
        "",
        "Tweens a node property (position, scale, size, euler, color, outline, shadow, a pie's fill_angle and inner_radius, or one element) in go.animate's kernel: the same easings, playback modes and callbacks. `rotation` tweens the Euler angles in degrees, as Defold's rotation was before nodes kept a quaternion (a vector3 of `(0, 0, -360)` is a whole turn).",
    ),
    f(
        "gui",
        "cancel_animation",
        "node: node, property: string|hash",
        "",
        "Stops a node property's tweens (no callback).",
    ),
    f(
        "gui",
        "delete_node",
        "node: node",
        "",
        "Deletes the node and the nodes under it; their handles raise from then on.",
    ),
    f(
        "gui",
        "clone",
        "node: node",
        "node",
        "A copy of the node (not its children) under the same parent, with an empty id.",
    ),
    f(
        "gui",
        "clone_tree",
        "node: node",
        "table<hash, node>",
        "Copies the node and the nodes under it; the table maps each original's id to its copy.",
    ),
    f("gui", "get_parent", "node: node", "node|nil", "The node's parent, nil for a root."),
    f(
        "gui",
        "get_tree",
        "node: node",
        "table<hash, node>",
        "The node and the nodes under it, by id (nodes without an id share the key hash(\"\")).",
    ),
    f(
        "gui",
        "set_parent",
        "node: node, parent?: node, keep_scene_transform?: boolean",
        "",
        "Moves the node under `parent` (nil: a root); with `keep_scene_transform` it stays where it is on screen.",
    ),
    f("gui", "get_index", "node: node", "integer", "The node's place among its siblings in draw order (0 first)."),
    f("gui", "get_id", "node: node", "hash", "The node's id (new and cloned nodes: hash(\"\"))."),
    f("gui", "set_id", "node: node, id: string|hash", "", "Renames the node (an id another node has is refused)."),
    f("gui", "get_pivot", "node: node", "integer", "The node's pivot (`gui.PIVOT_*`)."),
    f("gui", "set_pivot", "node: node, pivot: integer", "", "Sets the pivot (`gui.PIVOT_*`)."),
    f("gui", "get_xanchor", "node: node", "integer", "`gui.ANCHOR_NONE`, `ANCHOR_LEFT` or `ANCHOR_RIGHT`."),
    f("gui", "set_xanchor", "node: node, anchor: integer", "", "Sets the x anchor."),
    f("gui", "get_yanchor", "node: node", "integer", "`gui.ANCHOR_NONE`, `ANCHOR_TOP` or `ANCHOR_BOTTOM`."),
    f("gui", "set_yanchor", "node: node, anchor: integer", "", "Sets the y anchor."),
    f("gui", "get_adjust_mode", "node: node", "integer", "`gui.ADJUST_FIT`, `ADJUST_ZOOM` or `ADJUST_STRETCH`."),
    f("gui", "set_adjust_mode", "node: node, mode: integer", "", "Sets how a root scales with the window."),
    f("gui", "get_blend_mode", "node: node", "integer", "The node's blend mode (`gui.BLEND_*`)."),
    f(
        "gui",
        "set_blend_mode",
        "node: node, mode: integer",
        "",
        "Sets the blend mode (`BLEND_ADD_ALPHA` draws as `BLEND_ADD`).",
    ),
    f("gui", "get_clipping_mode", "node: node", "integer", "`gui.CLIPPING_MODE_NONE` or `CLIPPING_MODE_STENCIL`."),
    f("gui", "set_clipping_mode", "node: node, mode: integer", "", "Makes the node clip its children or not."),
    f("gui", "get_clipping_visible", "node: node", "boolean", "Whether a clipping node is drawn itself."),
    f("gui", "set_clipping_visible", "node: node, visible: boolean", "", "Draws a clipping node itself or not."),
    f(
        "gui",
        "get_clipping_inverted",
        "node: node",
        "boolean",
        "The node's inverted clipping flag (kept, not drawn yet).",
    ),
    f("gui", "set_clipping_inverted", "node: node, inverted: boolean", "", "Sets the inverted clipping flag."),
    f("gui", "get_size_mode", "node: node", "integer", "`gui.SIZE_MODE_MANUAL` or `SIZE_MODE_AUTO`."),
    f("gui", "set_size_mode", "node: node, mode: integer", "", "Sizes the node by hand or by its texture."),
    f("gui", "get_font", "node: node", "hash", "The name of a text node's font (hash(\"\") for the built-in one)."),
    f(
        "gui",
        "set_font",
        "node: node, font: string|hash",
        "",
        "Sets a text node's font, a name from the scene's `fonts`.",
    ),
    f("gui", "get_texture", "node: node", "hash", "The name of the node's texture (an image or an atlas)."),
    f(
        "gui",
        "set_texture",
        "node: node, texture: string|hash",
        "",
        "Sets the texture, a name from the scene's `textures` (\"\": none).",
    ),
    f("gui", "get_layer", "node: node", "hash", "The name of the node's layer (hash(\"\"): none)."),
    f("gui", "get_fill_angle", "node: node", "number", "A pie node's fill angle in degrees (360: whole)."),
    f(
        "gui",
        "set_fill_angle",
        "node: node, angle: number",
        "",
        "Sets a pie node's fill angle (degrees; `gui.animate` of `fill_angle` too).",
    ),
    f("gui", "get_inner_radius", "node: node", "number", "A pie node's inner radius (0: a full fan)."),
    f(
        "gui",
        "set_inner_radius",
        "node: node, radius: number",
        "",
        "Sets a pie node's inner radius (>= 0; `gui.animate` of `inner_radius` too).",
    ),
    f("gui", "get_perimeter_vertices", "node: node", "integer", "How many vertices a pie node's whole perimeter has."),
    f(
        "gui",
        "set_perimeter_vertices",
        "node: node, count: integer",
        "",
        "Sets a pie node's perimeter vertices (2 to 1024).",
    ),
    f(
        "gui",
        "set_layer",
        "node: node, layer: string|hash",
        "",
        "Sets the layer, a name from the scene's `layers` (\"\": none).",
    ),
    f(
        "gui",
        "play_flipbook",
        "node: node, animation: string|hash, complete_function?: fun(self: table, node: node), play_properties?: { offset?: number, playback_rate?: number }",
        "",
        "Plays an animation of the node's atlas frame by frame (its fps and playback from the atlas); a once-animation calls `complete_function(self, node)` when it ends, a loop never.",
    ),
    f(
        "gui",
        "get_flipbook",
        "node: node",
        "hash",
        "The atlas animation the node shows (hash(\"\") for a plain image or a whole atlas).",
    ),
    f("gui", "cancel_flipbook", "node: node", "", "Stops the node's flipbook on its frame: its callback does not run."),
    f("gui", "get_flipbook_cursor", "node: node", "number", "How far the node's flipbook is, 0 to 1 (0 without one)."),
    f(
        "gui",
        "set_flipbook_cursor",
        "node: node, cursor: number",
        "",
        "Moves the node's flipbook to `cursor` (0 to 1) and shows that frame.",
    ),
    f(
        "gui",
        "get_flipbook_playback_rate",
        "node: node",
        "number",
        "The node's flipbook's playback rate (1 without one).",
    ),
    f(
        "gui",
        "set_flipbook_playback_rate",
        "node: node, playback_rate: number",
        "",
        "Sets the node's flipbook's playback rate (negative: 0).",
    ),
    // ---------------------------------------------------------------- types
    f("resource", "atlas", "path: string", "hash", "An atlas for a script property (`go.property`)."),
    f("resource", "tile_source", "path: string", "hash", "A tile source for a script property."),
    f("resource", "font", "path: string", "hash", "A font for a script property."),
    f("resource", "material", "path: string", "hash", "A material for a script property."),
    f("resource", "texture", "path: string", "hash", "A texture for a script property."),
    f(
        "resource",
        "get_atlas",
        "path: string|hash",
        "table",
        "An atlas's table (`texture`, `animations` with their `frames`, `geometries` with `vertices`, `uvs` from the top left, `indices`), by Defold's built name (`.a.texturesetc`) or the file's; a file no sprite used is read now.",
    ),
    f(
        "resource",
        "get_texture_info",
        "path: string|hash",
        "table",
        "`{ handle, width, height, depth, mipmaps, type, page_count, flags }` of a texture `create_texture` made or an atlas's page (`.a.texturec`).",
    ),
    f(
        "image",
        "load",
        "data: string, options?: table",
        "table|nil",
        "A PNG or JPEG's `{ width, height, type, buffer }` (RGBA rows top first; `premultiply_alpha`, `flip_vertically`), nil for bytes that are no image.",
    ),
    f(
        "resource",
        "create_texture",
        "path: string, params: table",
        "hash",
        "A transparent texture of `params.width` x `params.height` (1 to 8192), `type` and `format` as `graphics.*`; its path's hash.",
    ),
    f(
        "resource",
        "set_texture",
        "path: string|hash, params: table, buffer: buffer",
        "",
        "Writes the buffer's first stream into the region `params.width` x `height` at (`x`, `y`) of a texture `create_texture` made, in `params.format`; atlases over it follow.",
    ),
    f(
        "resource",
        "create_atlas",
        "path: string, params: table",
        "hash",
        "An atlas over `params.texture` with `geometries` (`uvs`) and `animations` (`id`, `frame_start`, `frame_end` not included, `fps`, `playback`, `flip_horizontal`/`flip_vertical`); sprites and guis take its hash.",
    ),
    f(
        "buffer",
        "create",
        "count: integer, declaration: table",
        "buffer",
        "A zero-filled buffer of `count` elements of the streams `{ name, type, count }` declared.",
    ),
    f(
        "buffer",
        "get_stream",
        "buffer: buffer, name: string|hash",
        "bufferstream",
        "The stream of that name, read and written as an array.",
    ),
    f(
        "buffer",
        "get_bytes",
        "buffer: buffer, name?: string|hash",
        "string",
        "The stream's bytes (every stream's, one after another, without a name).",
    ),
    f("types", "is_hash", "v: any", "boolean", "Whether `v` is a hash."),
    f("types", "is_url", "v: any", "boolean", "Whether `v` is a URL (`msg.url`)."),
    f("types", "is_vector", "v: any", "boolean", "Whether `v` is a `vmath.vector` (any length)."),
    f("types", "is_vector3", "v: any", "boolean", "Whether `v` is a `vmath.vector3`."),
    f("types", "is_vector4", "v: any", "boolean", "Whether `v` is a `vmath.vector4`."),
    f("types", "is_quat", "v: any", "boolean", "Whether `v` is a `vmath.quat`."),
    f("types", "is_matrix4", "v: any", "boolean", "Whether `v` is a `vmath.matrix4`."),
    // ---------------------------------------------------------------- physics
    f(
        "physics",
        "raycast",
        "from: vector3, to: vector3, groups: hash_like[], options?: { all?: boolean }",
        "table|nil",
        "The nearest hit (`fraction`, `position`, `normal`, `id`, `group`) of the objects in `groups`; with `options` a list of it, or with `all` of every hit nearest first; nil when nothing is hit.",
    ),
    f(
        "physics",
        "set_event_listener",
        "callback: fun(self: table, events: table[])|nil",
        "",
        "The caller's world's `collision_event`, `contact_point_event`, `trigger_event`, `ray_cast_response` and `ray_cast_missed` events of each frame reach `callback` in one array (each with `type` and Defold's fields, both objects as `a` and `b`) instead of messages; nil: messages again.",
    ),
    f(
        "physics",
        "set_listener",
        "callback: fun(self: table, event: hash, data: table)|nil",
        "",
        "Defold 1.6.4's form of `set_event_listener`: `callback` once per event.",
    ),
    f(
        "physics",
        "raycast_async",
        "from: vector3, to: vector3, groups: hash_like[], request_id?: integer",
        "",
        "Casts after the next physics step; answers `ray_cast_response` or `ray_cast_missed` with `request_id` (0-255).",
    ),
    f(
        "physics",
        "ray_cast",
        "from: vector3, to: vector3, groups: hash_like[], request_id?: integer",
        "",
        "Deprecated alias of `raycast_async`, kept by Defold.",
    ),
    f("physics", "set_gravity", "gravity: vector3", "", "The world's gravity, in physics units."),
    f("physics", "get_gravity", "", "vector3", "The world's gravity."),
    f("physics", "get_group", "url: url_like", "hash", "A collision object's group."),
    f("physics", "set_group", "url: url_like, group: hash_like", "", "Moves a collision object to another group."),
    f(
        "physics",
        "get_maskbit",
        "url: url_like, group: hash_like",
        "boolean",
        "Whether a collision object collides with `group`.",
    ),
    f(
        "physics",
        "set_maskbit",
        "url: url_like, group: hash_like, maskbit: boolean",
        "",
        "Adds `group` to a collision object's mask or takes it out.",
    ),
    f("physics", "wakeup", "url: url_like", "", "Wakes a sleeping collision object."),
    f(
        "physics",
        "update_mass",
        "url: url_like, mass: number",
        "",
        "A dynamic object's new mass (kg, above 0), shared by its shapes as before; taken at once.",
    ),
    f(
        "physics",
        "set_hflip",
        "url: url_like, flip: boolean",
        "",
        "Mirrors a 2D collision object's shapes left to right (a Lua error in a 3D world).",
    ),
    f(
        "physics",
        "set_vflip",
        "url: url_like, flip: boolean",
        "",
        "Mirrors a 2D collision object's shapes top to bottom (a Lua error in a 3D world).",
    ),
    f(
        "physics",
        "create_joint",
        "joint_type: integer, collisionobject_a: url_like, joint_id: hash_like, position_a: vector3, collisionobject_b: url_like, position_b: vector3, properties?: table",
        "",
        "Joins two collision objects at anchors in their own space (`physics.JOINT_TYPE_*`).",
    ),
    f("physics", "destroy_joint", "collisionobject: url_like, joint_id: hash_like", "", "Removes a joint."),
    f(
        "physics",
        "get_joint_properties",
        "collisionobject: url_like, joint_id: hash_like",
        "table",
        "A joint's properties.",
    ),
    f(
        "physics",
        "set_joint_properties",
        "collisionobject: url_like, joint_id: hash_like, properties: table",
        "",
        "Changes some of a joint's properties.",
    ),
    f(
        "physics",
        "get_joint_reaction_force",
        "collisionobject: url_like, joint_id: hash_like",
        "vector3",
        "The force the joint applied in the last step.",
    ),
    f(
        "physics",
        "get_joint_reaction_torque",
        "collisionobject: url_like, joint_id: hash_like",
        "number",
        "The torque the joint applied in the last step.",
    ),
    f(
        "physics",
        "get_shape",
        "url: url_like, shape: hash_like",
        "table",
        "A shape's `type` (`physics.SHAPE_TYPE_*`) and sizes: `diameter`; `dimensions`; `diameter`, `height`.",
    ),
    f(
        "physics",
        "set_shape",
        "url: url_like, shape: hash_like, table: table",
        "",
        "Resizes a sphere, box or capsule shape (the table as `get_shape` gives it).",
    ),
    // ---------------------------------------------------------------- sys
    f("sys", "exit", "code?: integer", "", "Ends the run after this frame with exit status `code`."),
    f(
        "sys",
        "get_config_string",
        "key: string, default?: string",
        "string|nil",
        "A `project.json` value by dotted key (`\"custom.name\"`), as text.",
    ),
    f(
        "sys",
        "get_config_int",
        "key: string, default?: integer",
        "integer",
        "A `project.json` value as an integer (toward zero).",
    ),
    f("sys", "get_config_number", "key: string, default?: number", "number", "A `project.json` value as a number."),
    f(
        "sys",
        "get_engine_info",
        "",
        "{version: string, version_sha1: string, is_debug: boolean}",
        "The runtime's version.",
    ),
    f(
        "sys",
        "get_sys_info",
        "",
        "{system_name: string, system_version: string, language: string, territory: string, device_language: string}",
        "The operating system and locale.",
    ),
    f(
        "sys",
        "load_resource",
        "path: string",
        "string|nil, string|nil",
        "A project file's bytes, or nil and the reason.",
    ),
    f(
        "sys",
        "load_buffer",
        "path: string",
        "buffer",
        "A project file's bytes as a buffer with one uint8 stream `data`; a missing file raises an error.",
    ),
    f(
        "sys",
        "load_buffer_async",
        "path: string, callback: fun(self: table, request_id: integer, result: table)",
        "integer",
        "`sys.load_buffer` answered on the next frame: `result.status` is a `sys.REQUEST_STATUS_*` (`FINISHED`, `ERROR_NOT_FOUND`, `ERROR_IO_ERROR`), `result.buffer` the buffer when found.",
    ),
    f(
        "sys",
        "get_save_file",
        "application_id: string, file_name: string",
        "string",
        "`$XDG_DATA_HOME/<application_id>/<file_name>` (else under `~/.local/share`); makes the folder. Names with `/`, `..` or NUL are refused.",
    ),
    f(
        "sys",
        "save",
        "filename: string, table: table",
        "boolean",
        "Writes `table` (what a message may hold, up to 16 MiB) through a temporary file, so a crash keeps the previous save.",
    ),
    f(
        "sys",
        "load",
        "filename: string",
        "table",
        "A table `sys.save` wrote; an empty table when there is no such file.",
    ),
    f("sys", "get_config", "key: string, default?: string", "string|nil", "`get_config_string`'s older name."),
    f("sys", "get_connectivity", "", "integer", "`sys.NETWORK_CONNECTED`: Sinew does not probe the network."),
    f("sys", "set_connectivity_host", "host: string", "", "Checks its argument (no network probe to aim)."),
    f(
        "sys",
        "serialize",
        "table: table",
        "string",
        "The bytes of `table` as `sys.save` writes it (what a message may hold).",
    ),
    f("sys", "deserialize", "data: string", "table", "The table `sys.serialize` made of `data`."),
    f(
        "sys",
        "exists",
        "path: string",
        "boolean",
        "Whether a path exists on disk (absolute, or from the working directory).",
    ),
    f(
        "sys",
        "get_application_path",
        "",
        "string",
        "The project folder (`sinew run DIR`), or the folder of a bundled game's executable.",
    ),
    f(
        "sys",
        "get_application_info",
        "app_string: string",
        "{installed: boolean}",
        "`installed` is false: a desktop has no app registry to ask.",
    ),
    f(
        "sys",
        "set_error_handler",
        "handler?: fun(source: string, message: string, traceback: string)",
        "",
        "Called with `\"lua\"`, the message and the traceback for each script error after it is logged (nil: none).",
    ),
    // ---------------------------------------------------------------- window, json, socket
    f("window", "get_dim_mode", "", "integer", "`window.DIMMING_UNKNOWN`: a desktop screen does not dim."),
    f(
        "window",
        "set_dim_mode",
        "mode: integer",
        "",
        "Checks `window.DIMMING_ON`/`OFF`; nothing to change on a desktop.",
    ),
    f("window", "get_display_scale", "", "number", "1: Sinew draws in window pixels."),
    f("window", "get_size", "", "width: number, height: number", "The window's size in pixels (headless too)."),
    f(
        "window",
        "set_mouse_lock",
        "flag: boolean",
        "",
        "Hides the cursor and holds it in the window; mouse motion still gives `action.dx`/`dy` (headless: only the state).",
    ),
    f("window", "get_mouse_lock", "", "boolean", "Whether the mouse is locked."),
    f(
        "window",
        "set_listener",
        "callback: fun(self: table, event: integer, data: table)|nil",
        "",
        "Calls `callback` with `window.WINDOW_EVENT_*` on focus changes, minimising and resizes (`data.width`/`height`), with the setting script's `self`; nil removes it.",
    ),
    f("json", "encode", "t: table", "string", "JSON text of a table (arrays are tables with keys 1..n)."),
    f("json", "decode", "s: string", "any", "A Lua value from JSON text (`null` is nil)."),
    f("zlib", "deflate", "buf: string", "string", "`buf` compressed as a zlib stream (header and checksum)."),
    f(
        "zlib",
        "inflate",
        "buf: string",
        "string",
        "The bytes of a zlib stream; data that is not one, or that inflates past 64 MiB, raises an error.",
    ),
    f("socket", "gettime", "", "number", "Seconds since the epoch, never going backwards."),
    // ---------------------------------------------------------------- b2d
    f(
        "b2d",
        "get_version",
        "",
        "table",
        "`{version, major, middle, minor}` of the Box2D API Sinew follows (3.1.0); Defold's examples pick their script by `major`.",
    ),
    f("b2d", "get_world", "", "table|nil", "The caller's physics world, nil before it has a body."),
    f("b2d", "get_body", "url: url_like", "table", "The body of a collision object component."),
    f(
        "b2d.body",
        "set_linear_velocity",
        "body: table, velocity: vector3",
        "",
        "Sets a dynamic body's velocity (world units per second).",
    ),
    f("b2d.body", "get_linear_velocity", "body: table", "vector3", "The body's velocity (world units per second)."),
    f(
        "b2d.body",
        "set_angular_velocity",
        "body: table, omega: number",
        "",
        "Sets a dynamic body's turn rate (radians per second).",
    ),
    f("b2d.body", "get_angular_velocity", "body: table", "number", "The body's turn rate (radians per second)."),
    f("b2d.body", "set_awake", "body: table, awake: boolean", "", "Wakes the body or puts it to sleep."),
    f("b2d.body", "is_awake", "body: table", "boolean", "Whether the body is awake."),
    f(
        "b2d.body",
        "set_active",
        "body: table, active: boolean",
        "",
        "Takes the body out of the simulation or puts it back (as `disable`/`enable`).",
    ),
    f("b2d.body", "is_active", "body: table", "boolean", "Whether the body is in the simulation."),
    f(
        "b2d.body",
        "set_transform",
        "body: table, position: vector3, angle: number",
        "",
        "Moves the body there, keeping its velocities; a body that is not dynamic moves its game object too.",
    ),
    f("b2d.body", "get_position", "body: table", "vector3", "The body's origin in the world."),
    f("b2d.body", "get_angle", "body: table", "number", "The body's turn about z (radians)."),
    f("b2d.body", "get_world_center", "body: table", "vector3", "The body's centre of mass in the world."),
    f("b2d.body", "get_local_point", "body: table, point: vector3", "vector3", "A world point in the body's frame."),
    f(
        "b2d.body",
        "get_world_point",
        "body: table, point: vector3",
        "vector3",
        "A point of the body's frame in the world.",
    ),
    f(
        "b2d.body",
        "set_gravity_scale",
        "body: table, scale: number",
        "",
        "How much gravity pulls the body (0: not at all).",
    ),
    f("b2d.body", "get_gravity_scale", "body: table", "number", "How much gravity pulls the body."),
    f("b2d.body", "set_linear_damping", "body: table, damping: number", "", "The body's linear damping."),
    f("b2d.body", "get_linear_damping", "body: table", "number", "The body's linear damping."),
    f("b2d.body", "set_angular_damping", "body: table, damping: number", "", "The body's angular damping."),
    f("b2d.body", "set_fixed_rotation", "body: table, fixed: boolean", "", "Stops the body turning, or lets it turn."),
    f(
        "b2d.body",
        "reset_mass_data",
        "body: table",
        "",
        "Works the mass out from the shapes (Sinew does so whenever they change; kept for Defold's scripts).",
    ),
    f("b2d.body", "get_mass", "body: table", "number", "The body's mass (kg, unscaled)."),
    f("b2d.body", "get_type", "body: table", "number", "`b2d.body.B2_*_BODY`."),
    f(
        "b2d.body",
        "apply_linear_impulse",
        "body: table, impulse: vector3, point: vector3",
        "",
        "An impulse at a world point of a dynamic body.",
    ),
    f(
        "b2d.body",
        "apply_force",
        "body: table, force: vector3, point: vector3",
        "",
        "A force at a world point of a dynamic body, for the next step.",
    ),
    f(
        "b2d.body",
        "get_shapes",
        "body: table",
        "table[]",
        "The body's shapes as info tables, `index` from 1 in this order.",
    ),
    f(
        "b2d.body",
        "create_shape",
        "body: table, def: table",
        "table",
        "A new shape (`def` a geometry table, or `{shape = geometry}`, with `friction`, `restitution`, `density`, `sensor`) in the body's collision groups; its info table.",
    ),
    f("b2d.body", "destroy_shape", "body: table, index: integer", "", "Removes the body's shape `index`."),
    f(
        "b2d.body",
        "create_chain",
        "body: table, def: table",
        "table, table[]",
        "Segments through `def.vertices` (`loop` closes them; `friction`, `restitution`): the chain and its shape's info table.",
    ),
    f("b2d.shape", "get_body", "shape: table", "table", "The body a shape is on."),
    f("b2d.shape", "get_type", "shape: table", "number", "`b2d.shape.SHAPE_TYPE_*` (a chain's is a segment)."),
    f(
        "b2d.shape",
        "get_shape",
        "shape: table",
        "table",
        "The shape's geometry in its body's frame (a box is its four `vertices`).",
    ),
    f(
        "b2d.shape",
        "set_shape",
        "shape: table, def: table, update_mass?: boolean",
        "",
        "Gives the shape new geometry; with `update_mass` the body's mass follows its density.",
    ),
    f("b2d.shape", "set_friction", "shape: table, friction: number", "", "The shape's friction."),
    f("b2d.shape", "get_friction", "shape: table", "number", "The shape's friction."),
    f("b2d.shape", "set_restitution", "shape: table, restitution: number", "", "The shape's restitution."),
    f("b2d.shape", "get_restitution", "shape: table", "number", "The shape's restitution."),
    f(
        "b2d.shape",
        "set_density",
        "shape: table, density: number",
        "",
        "The shape's density (kg per square physics unit); the body's mass follows.",
    ),
    f("b2d.shape", "get_density", "shape: table", "number", "The shape's density."),
    f("b2d.shape", "is_sensor", "shape: table", "boolean", "Whether the shape is a sensor."),
    f(
        "b2d.shape",
        "enable_sensor_events",
        "shape: table, enable: boolean",
        "",
        "Lets a sensor shape report what overlaps it.",
    ),
    f(
        "b2d.shape",
        "get_sensor_overlaps",
        "shape: table",
        "table[]",
        "The shapes overlapping a sensor shape (none while its sensor events are off), as info tables.",
    ),
    f(
        "b2d.joint",
        "create_revolute",
        "a: table, b: table, def?: table",
        "table",
        "A hinge at the anchors, with limits and a motor.",
    ),
    f(
        "b2d.joint",
        "create_prismatic",
        "a: table, b: table, def?: table",
        "table",
        "A slider along `local_axis_a`, with limits and a motor.",
    ),
    f(
        "b2d.joint",
        "create_weld",
        "a: table, b: table, def?: table",
        "table",
        "Holds `b` at `a`'s anchor, turned `reference_angle` from it.",
    ),
    f(
        "b2d.joint",
        "create_mouse",
        "a: table, b: table, def?: table",
        "table",
        "Pulls `b`'s point under `target` towards `target` as a spring (`hertz`, `damping_ratio`, at most `max_force`).",
    ),
    f("b2d.joint", "destroy", "joint: table", "", "Removes a joint made from Lua."),
    f(
        "b2d.joint",
        "set_motor_speed",
        "joint: table, speed: number",
        "",
        "A revolute (radians per second) or prismatic (world units per second) joint's motor speed.",
    ),
    f("b2d.joint", "set_mouse_target", "joint: table, target: vector3", "", "Where a mouse joint pulls."),
    f(
        "b2d.joint",
        "get_joint_translation",
        "joint: table",
        "number",
        "How far a prismatic joint's second anchor is along its axis (world units).",
    ),
    f("b2d.joint", "wake_bodies", "joint: table", "", "Wakes both bodies of the joint."),
    f(
        "b2d.world",
        "set_gravity",
        "world: table, gravity: vector3",
        "",
        "The world's gravity (world units per second squared).",
    ),
    f("b2d.world", "get_gravity", "world: table", "vector3", "The world's gravity."),
    f(
        "b2d.world",
        "set_joint_tuning",
        "world: table, hertz: number, damping_ratio: number",
        "",
        "How soft the world's `b2d` joints are (Box2D 3's joint hertz and damping ratio; 60 and 2 by default).",
    ),
    f(
        "b2d.world",
        "overlap_aabb",
        "world: table, aabb: table, filter?: table, max_results?: integer",
        "table[], table",
        "The shapes whose bounding boxes meet `{lower, upper}`, as info tables, and `{node_visits, leaf_visits}`.",
    ),
    f(
        "b2d.world",
        "overlap_shape",
        "world: table, def: table, filter?: table, max_results?: integer",
        "table[], table",
        "The shapes that overlap a geometry table in world coordinates.",
    ),
    f(
        "b2d.world",
        "cast_ray",
        "world: table, origin: vector3, translation: vector3, filter?: table, max_results?: integer",
        "table[], table",
        "Every solid shape the segment from `origin` along `translation` hits: `{shape, point, normal, fraction}` each.",
    ),
    // ---------------------------------------------------------------- tilemap
    f(
        "tilemap",
        "get_bounds",
        "url: url_like",
        "x: integer, y: integer, w: integer, h: integer",
        "The lowest tile (from 1) and the size in tiles of every layer together, as the map was loaded.",
    ),
    f(
        "tilemap",
        "get_tile",
        "url: url_like, layer: hash_like, x: integer, y: integer",
        "integer|nil",
        "The tile (from 1; 0 for none) at tile `x`, `y` of a layer.",
    ),
    f(
        "tilemap",
        "get_tile_info",
        "url: url_like, layer: hash_like, x: integer, y: integer",
        "table|nil",
        "`{index, h_flip, v_flip, rotate_90}` of the tile at `x`, `y`.",
    ),
    Func {
        ns: "tilemap",
        name: "set_tile",
        params: "url: url_like, layer: hash_like, x: integer, y: integer, tile: integer, transform?: integer",
        returns: "boolean",
        doc: "Puts tile `tile` (0: none) at `x`, `y`, turned as `transform` says (a sum of `tilemap.H_FLIP`, `V_FLIP` and a `ROTATE_*`); false outside the map.",
        overloads: &[
            "(url: url_like, layer: hash_like, x: integer, y: integer, tile: integer, h_flip: boolean, v_flip?: boolean) -> boolean",
        ],
    },
    f(
        "tilemap",
        "get_tiles",
        "url: url_like, layer: hash_like",
        "table|nil",
        "Every tile of a layer inside the bounds: rows by y, each a table of tiles (0 for none) by x.",
    ),
    f("tilemap", "set_visible", "url: url_like, layer: hash_like, visible: boolean", "", "Shows or hides a layer."),
    // ---------------------------------------------------------------- particlefx
    f(
        "particlefx",
        "play",
        "url: url_like, emitter_state_function?: fun(self: table, id: hash, emitter: hash, state: number)",
        "",
        "Starts every emitter of a particle effect component (after its start delay); its living particles stay. The function is told each emitter's state changes (`particlefx.EMITTER_STATE_*`) until all sleep.",
    ),
    f(
        "particlefx",
        "set_constant",
        "url: url_like, emitter: hash_like, constant: hash_like, value: vector4",
        "",
        "Sets an emitter's `tint` (the built-in particle material's constant), multiplying its particles' colour.",
    ),
    f(
        "particlefx",
        "reset_constant",
        "url: url_like, emitter: hash_like, constant: hash_like",
        "",
        "Resets an emitter's `tint` to white.",
    ),
    f(
        "particlefx",
        "stop",
        "url: url_like, options?: {clear?: boolean}",
        "",
        "Stops spawning; the living particles finish their lives, or with `clear` are removed at once.",
    ),
    // ---------------------------------------------------------------- sound
    f(
        "sound",
        "play",
        "url: url_like, play_properties?: {delay?: number, gain?: number, pan?: number, speed?: number}, complete_function?: fun(self: table, message_id: hash, message: {play_id: number}, sender: url)",
        "number",
        "Plays a sound component (of any loaded collection) now; returns the play id. The callback gets `sound_done` or `sound_stopped`.",
    ),
    f(
        "sound",
        "stop",
        "url: url_like, stop_properties?: {play_id: number}",
        "",
        "Stops a component's plays (one with `play_id`); an object's URL: each of its sounds.",
    ),
    f(
        "sound",
        "pause",
        "url: url_like, pause: boolean",
        "",
        "Pauses or resumes a component's plays (an object's URL: each of its sounds).",
    ),
    f(
        "sound",
        "set_gain",
        "url: url_like, gain?: number",
        "",
        "Sets a component's gain (0..16), its plays now included (an object's URL: each of its sounds).",
    ),
    f(
        "sound",
        "set_pan",
        "url: url_like, pan?: number",
        "",
        "Sets a component's pan (-1 left .. 1 right; an object's URL: each of its sounds).",
    ),
    f("sound", "get_groups", "", "hash[]", "The mixer groups (`master` first)."),
    f("sound", "get_group_name", "group: hash_like", "string", "A group's name."),
    f("sound", "set_group_gain", "group: hash_like, gain: number", "", "Sets a group's gain; `master` scales all."),
    f("sound", "get_group_gain", "group: hash_like", "number", "A group's gain."),
    f(
        "sound",
        "get_rms",
        "group: hash_like, window: number",
        "left: number, right: number",
        "RMS level of a group over the last `window` seconds.",
    ),
    f(
        "sound",
        "get_peak",
        "group: hash_like, window: number",
        "left: number, right: number",
        "Peak level of a group over the last `window` seconds.",
    ),
    f("sound", "is_music_playing", "", "boolean", "Whether another app plays music on the device: always false."),
    f("sound", "is_phone_call_active", "", "boolean", "Whether a phone call is active: always false."),
    f(
        "sound",
        "set_listener",
        "id?: url_like",
        "",
        "Sinew: the game object positional sounds are heard from (nil: the active camera).",
    ),
    // ---------------------------------------------------------------- sprite
    f(
        "sprite",
        "play_flipbook",
        "url: url_like, id: hash_like, complete_function?: fun(self: table, message_id: hash, message: table, sender: url), play_properties?: {offset?: number, playback_rate?: number}",
        "",
        "Plays a flipbook of the sprite's atlas (at the next dispatch); a once-flipbook calls back or sends `animation_done` when it ends.",
    ),
    f("sprite", "set_hflip", "url: url_like, flip: boolean", "", "Mirrors the sprite left to right."),
    f("sprite", "set_vflip", "url: url_like, flip: boolean", "", "Mirrors the sprite top to bottom."),
    f(
        "sprite",
        "set_constant",
        "url: url_like, constant: hash_like, value: vector4",
        "",
        "Defold's older call: sets `tint` or a constant of the sprite's material, as `go.set` does.",
    ),
    f(
        "sprite",
        "reset_constant",
        "url: url_like, constant: hash_like",
        "",
        "Defold's older call: `tint` back to white, a material constant back to the material's value.",
    ),
];

pub const CALLBACKS: &[Callback] = &[
    Callback { name: "init", params: "self: table", returns: "", doc: "Once, after the object is created." },
    Callback {
        name: "fixed_update",
        params: "self: table, dt: number",
        returns: "",
        doc: "0..5 times per frame at `fixed_update_frequency`.",
    },
    Callback { name: "update", params: "self: table, dt: number", returns: "", doc: "Once per frame." },
    Callback {
        name: "late_update",
        params: "self: table, dt: number",
        returns: "",
        doc: "Once per frame, after every update and the animations.",
    },
    Callback {
        name: "on_message",
        params: "self: table, message_id: hash, message: table, sender: url",
        returns: "",
        doc: "A message arrived.",
    },
    Callback {
        name: "on_input",
        params: "self: table, action_id: hash|nil, action: sinew.action",
        returns: "boolean|nil",
        doc: "An input action, for objects that acquired input focus; return true to consume it.",
    },
    Callback { name: "on_reload", params: "self: table", returns: "", doc: "After a hot reload of the script." },
    Callback { name: "final", params: "self: table", returns: "", doc: "When the object is deleted." },
];

/// Names of `go.PLAYBACK_*` in value order (the runtime sets them from this list).
pub const PLAYBACK: [&str; 7] =
    ["NONE", "ONCE_FORWARD", "ONCE_BACKWARD", "ONCE_PINGPONG", "LOOP_FORWARD", "LOOP_BACKWARD", "LOOP_PINGPONG"];

/// Names of `go.EASING_*` in value order (Defold's `dmEasing::Type`).
pub const EASING: [&str; 41] = [
    "LINEAR",
    "INQUAD",
    "OUTQUAD",
    "INOUTQUAD",
    "OUTINQUAD",
    "INCUBIC",
    "OUTCUBIC",
    "INOUTCUBIC",
    "OUTINCUBIC",
    "INQUART",
    "OUTQUART",
    "INOUTQUART",
    "OUTINQUART",
    "INQUINT",
    "OUTQUINT",
    "INOUTQUINT",
    "OUTINQUINT",
    "INSINE",
    "OUTSINE",
    "INOUTSINE",
    "OUTINSINE",
    "INEXPO",
    "OUTEXPO",
    "INOUTEXPO",
    "OUTINEXPO",
    "INCIRC",
    "OUTCIRC",
    "INOUTCIRC",
    "OUTINCIRC",
    "INELASTIC",
    "OUTELASTIC",
    "INOUTELASTIC",
    "OUTINELASTIC",
    "INBACK",
    "OUTBACK",
    "INOUTBACK",
    "OUTINBACK",
    "INBOUNCE",
    "OUTBOUNCE",
    "INOUTBOUNCE",
    "OUTINBOUNCE",
];

/// Defold's `gui.PROP_*`: each is `hash(name)` (gui_script.cpp), set from this list.
pub const GUI_PROPS: &[&str] = &[
    "position",
    "rotation",
    "euler",
    "scale",
    "color",
    "outline",
    "shadow",
    "size",
    "fill_angle",
    "inner_radius",
    "leading",
    "tracking",
    "slice9",
];

/// Every constant, with its value.
pub fn constants() -> Vec<Const> {
    let mut v = Vec::new();
    let mut push = |ns: &'static str, name: String, value: f64, doc: String| {
        v.push(Const { ns, name, value: ConstValue::Number(value), doc })
    };
    for (i, n) in PLAYBACK.iter().enumerate() {
        push("go", format!("PLAYBACK_{n}"), i as f64, format!("Playback mode {i} (`go.animate`, `model.play_anim`)."));
    }
    for m in crate::project::types::OrthoMode::ALL {
        let doc = match m {
            crate::project::types::OrthoMode::Fixed => "The orthographic zoom as set.",
            crate::project::types::OrthoMode::AutoFit => "The zoom that fits the design area inside the window.",
            crate::project::types::OrthoMode::AutoCover => "The zoom that covers the window with the design area.",
        };
        push("camera", format!("ORTHO_MODE_{}", m.name().to_uppercase()), f64::from(m as i32), doc.to_string());
    }
    for (n, v) in super::api::render::constants() {
        if let Some(name) = n.strip_prefix("RENDER_") {
            push("render", name.to_string(), v, "Defold's render constant of that name.".to_string());
        }
        if let Some(name) = n.strip_prefix("GRAPHICS_") {
            push(
                "graphics",
                name.to_string(),
                v,
                "Defold 1.9's name of a render script's constant (`render.*`).".to_string(),
            );
        }
    }
    for &(n, v) in super::api::resource::IMAGE_TYPES {
        let doc = if n == "TYPE_RGBA" {
            "RGBA, four bytes a pixel: what `image.load` answers."
        } else {
            "Defold's image type (`image.load` answers RGBA)."
        };
        push("image", n.to_string(), v, doc.to_string());
    }
    for &(n, v, ctype) in super::api::resource::VALUE_TYPES {
        push("buffer", n.to_string(), f64::from(v), format!("A stream of `{ctype}` values (`buffer.create`)."));
    }
    for (n, v) in super::api::resource::graphics_constants() {
        let doc = format!("`resource.create_texture` / `set_texture` parameter value (`{}`).", n.to_lowercase());
        push("graphics", n.to_string(), v, doc.clone());
        push("resource", n.to_string(), v, doc);
    }
    {
        use super::api::tilemap::flag;
        for (n, v, d) in [
            ("H_FLIP", flag::H_FLIP, "Flip the tile horizontally."),
            ("V_FLIP", flag::V_FLIP, "Flip the tile vertically."),
            ("ROTATE_90", flag::ROTATE_90, "Turn the tile a quarter clockwise."),
            ("ROTATE_180", flag::ROTATE_180, "Turn the tile half a turn (both flips)."),
            ("ROTATE_270", flag::ROTATE_270, "Turn the tile three quarters clockwise."),
        ] {
            push("tilemap", n.to_string(), f64::from(v), d.to_string());
        }
    }
    {
        use super::api::b2d::{body_type, shape_type};
        for (n, v) in
            [("STATIC", body_type::STATIC), ("KINEMATIC", body_type::KINEMATIC), ("DYNAMIC", body_type::DYNAMIC)]
        {
            push(
                "b2d.body",
                format!("B2_{n}_BODY"),
                f64::from(v),
                format!("A {} body (`b2d.body.get_type`).", n.to_lowercase()),
            );
        }
        for (n, v) in [
            ("CIRCLE", shape_type::CIRCLE),
            ("CAPSULE", shape_type::CAPSULE),
            ("SEGMENT", shape_type::SEGMENT),
            ("EDGE", shape_type::SEGMENT),
            ("POLYGON", shape_type::POLYGON),
            ("BOX", shape_type::POLYGON),
        ] {
            push("b2d.shape", format!("SHAPE_TYPE_{n}"), f64::from(v), format!("A {} shape.", n.to_lowercase()));
        }
    }
    {
        use crate::game::particles::EmitterState;
        for (state, n) in [
            (EmitterState::Sleeping, "SLEEPING"),
            (EmitterState::Prespawn, "PRESPAWN"),
            (EmitterState::Spawning, "SPAWNING"),
            (EmitterState::Postspawn, "POSTSPAWN"),
        ] {
            let doc = format!("An emitter's state {} (`particlefx.play`'s emitter state function).", state as u32);
            push("particlefx", format!("EMITTER_STATE_{n}"), f64::from(state as u32), doc);
        }
    }
    for (i, n) in EASING.iter().enumerate() {
        push("go", format!("EASING_{n}"), i as f64, format!("Easing curve {i}."));
    }
    for (i, n) in PLAYBACK.iter().enumerate() {
        push("gui", format!("PLAYBACK_{n}"), i as f64, format!("Playback mode {i} (`gui.animate`), as go's."));
    }
    for (i, n) in EASING.iter().enumerate() {
        push("gui", format!("EASING_{n}"), i as f64, format!("Easing curve {i} (`gui.animate`), as go's."));
    }
    for (i, n) in ["CENTER", "N", "NE", "E", "SE", "S", "SW", "W", "NW"].iter().enumerate() {
        push("gui", format!("PIVOT_{n}"), i as f64, format!("Pivot {i} (`gui.set_pivot`)."));
    }
    // Values from the one list the runtime reads (api::gui::CONSTANTS).
    for (n, doc) in [
        ("ANCHOR_NONE", "No anchor: the node keeps its distance to the centre."),
        ("ANCHOR_LEFT", "x anchor: the left edge."),
        ("ANCHOR_RIGHT", "x anchor: the right edge."),
        ("ANCHOR_TOP", "y anchor: the top edge."),
        ("ANCHOR_BOTTOM", "y anchor: the bottom edge."),
        ("ADJUST_FIT", "Adjust mode: the smaller window/display ratio."),
        ("ADJUST_ZOOM", "Adjust mode: the larger window/display ratio."),
        ("ADJUST_STRETCH", "Adjust mode: each axis by its own ratio."),
        ("BLEND_ALPHA", "Blend mode: alpha."),
        ("BLEND_ADD", "Blend mode: additive."),
        ("BLEND_ADD_ALPHA", "Blend mode: Defold's add-alpha (drawn additively)."),
        ("BLEND_MULT", "Blend mode: multiply."),
        ("BLEND_SCREEN", "Blend mode: screen (drawn additively)."),
        ("CLIPPING_MODE_NONE", "The node does not clip."),
        ("CLIPPING_MODE_STENCIL", "The node clips its children to its shape."),
        ("SIZE_MODE_MANUAL", "The node has the size it is given."),
        ("SIZE_MODE_AUTO", "The node takes its texture's size."),
        ("PIEBOUNDS_RECTANGLE", "A pie fills to its node's rectangle."),
        ("PIEBOUNDS_ELLIPSE", "A pie fills to the ellipse in its node's rectangle."),
        ("KEYBOARD_TYPE_DEFAULT", "`gui.show_keyboard`: a text keyboard (none on a desktop)."),
        ("KEYBOARD_TYPE_NUMBER_PAD", "`gui.show_keyboard`: a number pad (none on a desktop)."),
        ("KEYBOARD_TYPE_EMAIL", "`gui.show_keyboard`: an e-mail keyboard (none on a desktop)."),
        ("KEYBOARD_TYPE_PASSWORD", "`gui.show_keyboard`: a password keyboard (none on a desktop)."),
    ] {
        let v = crate::script::api::gui::CONSTANTS.iter().find(|(k, _)| *k == n).map_or(-1, |(_, v)| *v);
        push("gui", n.into(), f64::from(v), doc.into());
    }
    push("timer", "INVALID_TIMER_HANDLE".into(), u32::MAX as f64, "A handle no timer has.".into());
    // Values from the one list the runtime reads (script::system::constants).
    let k = crate::script::system_constants();
    let value = |name: &str| k.iter().find(|(n, _)| *n == name).map_or(-1.0, |(_, v)| *v);
    for (n, doc) in [
        ("DISCONNECTED", "`sys.get_connectivity`: no network."),
        ("CONNECTED", "`sys.get_connectivity`: online (what Sinew answers)."),
        ("CONNECTED_CELLULAR", "`sys.get_connectivity`: online through a phone network."),
    ] {
        push("sys", format!("NETWORK_{n}"), value(&format!("SYS_NETWORK_{n}")), doc.into());
    }
    for (n, doc) in [
        ("FINISHED", "`sys.load_buffer_async`: the file was read; `result.buffer` holds it."),
        ("ERROR_NOT_FOUND", "`sys.load_buffer_async`: no such file."),
        ("ERROR_IO_ERROR", "`sys.load_buffer_async`: the file could not be read."),
    ] {
        push("sys", format!("REQUEST_STATUS_{n}"), value(&format!("SYS_REQUEST_STATUS_{n}")), doc.into());
    }
    for (n, doc) in [
        ("UNKNOWN", "`window.get_dim_mode`: not known (a desktop's answer)."),
        ("ON", "`window.set_dim_mode`: the screen may dim."),
        ("OFF", "`window.set_dim_mode`: the screen stays lit."),
    ] {
        push("window", format!("DIMMING_{n}"), value(&format!("WINDOW_DIMMING_{n}")), doc.into());
    }
    for (c, n) in crate::game::input::raw::WindowChange::ALL {
        let name = format!("WINDOW_EVENT_{}", n.to_uppercase());
        push("window", name, c as u32 as f64, format!("`window.set_listener` event: {}.", n.replace('_', " ")));
    }
    push(
        "window",
        "WINDOW_EVENT_ICONFIED".into(),
        crate::game::input::raw::WindowChange::Iconified as u32 as f64,
        "Defold's spelling of `WINDOW_EVENT_ICONIFIED`.".into(),
    );
    for ns in ["factory", "collectionfactory"] {
        for (i, n) in ["UNLOADED", "LOADING", "LOADED"].iter().enumerate() {
            push(ns, format!("STATUS_{n}"), i as f64, format!("`{ns}.get_status` result."));
        }
    }
    for (i, (n, _)) in crate::game::physics::shapes::ShapeType::ALL.iter().enumerate() {
        push("physics", n.to_string(), i as f64, format!("Shape type {i} (`physics.get_shape`, `physics.set_shape`)."));
    }
    for (i, (n, _)) in crate::game::physics::joints::JointType::ALL.iter().enumerate() {
        push("physics", n.to_string(), i as f64, format!("Joint type {i} (`physics.create_joint`)."));
    }
    for n in GUI_PROPS {
        let animated = match *n {
            "leading" | "tracking" | "slice9" => "`gui.animate` refuses it in Sinew",
            "rotation" => "for `gui.animate`, as Euler angles in degrees",
            _ => "for `gui.animate`",
        };
        v.push(Const {
            ns: "gui",
            name: format!("PROP_{}", n.to_uppercase()),
            value: ConstValue::Hash(n),
            doc: format!("The `{n}` property, as Defold's hash of its name ({animated})."),
        });
    }
    v.push(Const {
        ns: "json",
        name: "null".into(),
        value: ConstValue::Sentinel,
        doc: "JSON's null: `json.encode` writes it as `null`; `json.decode(s, { decode_null_as_userdata = true })` returns it for `null`.".into(),
    });
    v.push(Const {
        ns: "render",
        name: "RENDER_TARGET_DEFAULT".into(),
        value: ConstValue::Sentinel,
        doc: "The window, as a render target (`render.set_render_target`).".into(),
    });
    v
}

/// One parameter or return value, split from signature text.
pub struct Item<'a> {
    pub name: &'a str,
    pub ty: &'a str,
    pub optional: bool,
}

/// Splits `a: number, b?: fun(x: y, z: w)` at the commas outside brackets.
pub fn items(sig: &str) -> Vec<Item<'_>> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    let bytes = sig.as_bytes();
    for i in 0..=bytes.len() {
        let c = bytes.get(i).copied().unwrap_or(b',');
        match c {
            b'(' | b'{' | b'<' | b'[' => depth += 1,
            b')' | b'}' | b'>' | b']' => depth -= 1,
            b',' if depth == 0 => {
                let part = sig[start..i].trim();
                start = i + 1;
                if part.is_empty() {
                    continue;
                }
                let (name, ty) = match part.split_once(':') {
                    Some((n, t)) if !n.contains(['(', '{', '<', '|']) => (n.trim(), t.trim()),
                    _ => ("", part),
                };
                let (name, optional) = match name.strip_suffix('?') {
                    Some(n) => (n, true),
                    None => (name, false),
                };
                out.push(Item { name, ty, optional });
            }
            _ => {}
        }
    }
    out
}

/// `(params) -> returns` of an overload.
fn split_overload(o: &str) -> (&str, &str) {
    let (p, r) = o.split_once(" -> ").unwrap_or((o, ""));
    (p.trim().trim_start_matches('(').trim_end_matches(')'), r.trim())
}

/// The qualified name (`go.get_position`, or `hash` for a global).
pub fn qualified(ns: &str, name: &str) -> String {
    if ns.is_empty() { name.to_string() } else { format!("{ns}.{name}") }
}

fn fun_type(params: &str, returns: &str) -> String {
    let ps: Vec<String> = items(params)
        .iter()
        .map(|p| {
            if p.name.is_empty() {
                p.ty.to_string()
            } else {
                format!("{}{}: {}", p.name, if p.optional { "?" } else { "" }, p.ty)
            }
        })
        .collect();
    let rs: Vec<&str> = items(returns).iter().map(|r| r.ty).collect();
    if rs.is_empty() { format!("fun({})", ps.join(", ")) } else { format!("fun({}): {}", ps.join(", "), rs.join(", ")) }
}

const LUALS_TYPES: &str = r#"---@meta
-- Sinew's Lua API: types, global functions and script callbacks (generated by `sinew api --lua`).

---@alias url_like string|hash|url
---@alias hash_like string|hash

---@class hash
---@field h integer the 64-bit value

---@class url
---@field socket hash
---@field path hash
---@field fragment hash

---@class vector3
---@field x number
---@field y number
---@field z number
---@operator add(vector3): vector3
---@operator sub(vector3): vector3
---@operator unm: vector3
---@operator mul(number): vector3
---@operator div(number): vector3

---@class vector4
---@field x number
---@field y number
---@field z number
---@field w number
---@operator add(vector4): vector4
---@operator sub(vector4): vector4
---@operator unm: vector4
---@operator mul(number): vector4
---@operator div(number): vector4

---@class quat
---@field x number
---@field y number
---@field z number
---@field w number
---@operator mul(quat): quat

---A float array of any length (`vmath.vector`), 1-based.
---@class vector
---@field [integer] number

---A node of the calling .gui_script's scene (`gui.get_node`).
---@class node

---Material tags a render script draws (`render.predicate`).
---@class predicate

---A render script's render target (`render.render_target`).
---@class render_target

---Elements of named streams (`buffer.create`).
---@class buffer

---A buffer's stream, read and written as an array, 1 to `#stream` (`buffer.get_stream`).
---@class bufferstream
---@field [integer] number

---@class matrix4
---@field c0 vector4
---@field c1 vector4
---@field c2 vector4
---@field c3 vector4
{M_FIELDS}---@operator mul(matrix4): matrix4
---@operator mul(vector4): vector4
---@operator mul(number): matrix4
"#;

const LUALS_ACTION: &str = r#"
---@class sinew.action
---@field value number 1 while a key or button is held, the analog value of sticks and triggers
---@field pressed boolean
---@field released boolean
---@field repeated boolean
---@field x number logical pointer x (origin bottom-left)
---@field y number
---@field screen_x number
---@field screen_y number
---@field dx number
---@field dy number
---@field screen_dx number
---@field screen_dy number
---@field gamepad integer|nil
---@field text string|nil
---@field gamepad_name string|nil
"#;

fn luals_function(out: &mut String, func: &Func) {
    use std::fmt::Write;
    let _ = writeln!(out, "---{}", func.doc);
    let params = items(func.params);
    for p in &params {
        let name = if p.name == "..." { "..." } else { p.name };
        let _ = writeln!(out, "---@param {}{} {}", name, if p.optional { "?" } else { "" }, p.ty);
    }
    for r in items(func.returns) {
        if r.name.is_empty() {
            let _ = writeln!(out, "---@return {}", r.ty);
        } else {
            let _ = writeln!(out, "---@return {} {}", r.ty, r.name);
        }
    }
    for o in func.overloads {
        let (p, r) = split_overload(o);
        let _ = writeln!(out, "---@overload {}", fun_type(p, r));
    }
    let names: Vec<&str> = params.iter().map(|p| p.name).collect();
    let _ = writeln!(out, "function {}({}) end\n", qualified(func.ns, func.name), names.join(", "));
}

fn lua_number(v: f64) -> String {
    if v.fract() == 0.0 { format!("{}", v as i64) } else { format!("{v}") }
}

/// `(file name, text)` of every annotation file: `sinew.lua` (types, globals, callbacks) and one
/// per namespace. Each is a `---@meta` file that is also valid Lua.
pub fn luals_files() -> Vec<(String, String)> {
    use std::fmt::Write;
    let consts = constants();
    let mut files = Vec::new();
    let m_fields: String =
        (0..16).map(|i| format!("---@field m{}{} number row {}, column {}\n", i / 4, i % 4, i / 4, i % 4)).collect();
    let mut base = LUALS_TYPES.replace("{M_FIELDS}", &m_fields);
    base.push_str(LUALS_ACTION);
    base.push_str("\n-- Script callbacks: define them as global functions in a .script file.\n\n");
    for c in CALLBACKS {
        let _ = writeln!(base, "---{}\n---@alias sinew.{} {}\n", c.doc, c.name, fun_type(c.params, c.returns));
    }
    for func in FUNCS.iter().filter(|f| f.ns.is_empty()) {
        luals_function(&mut base, func);
    }
    files.push(("sinew.lua".to_string(), base));
    for ns in NAMESPACES.iter().filter(|n| !n.name.is_empty()) {
        let mut t = String::from("---@meta\n");
        let _ = writeln!(t, "-- {} (generated by `sinew api --lua`)\n", ns.doc);
        let _ = writeln!(t, "---@class {}_ns\n{} = {{}}\n", ns.name, ns.name);
        for c in consts.iter().filter(|c| c.ns == ns.name) {
            match c.value {
                ConstValue::Sentinel => {
                    let _ = writeln!(t, "---{}\n---@type userdata\n{}.{} = nil\n", c.doc, ns.name, c.name);
                }
                ConstValue::Hash(_) => {
                    let _ = writeln!(t, "---{}\n---@type hash\n{}.{} = nil\n", c.doc, ns.name, c.name);
                }
                ConstValue::Number(v) => {
                    let _ = writeln!(t, "---{}\n{}.{} = {}\n", c.doc, ns.name, c.name, lua_number(v));
                }
            }
        }
        for func in FUNCS.iter().filter(|f| f.ns == ns.name) {
            luals_function(&mut t, func);
        }
        files.push((format!("{}.lua", ns.name), t));
    }
    let mut t = String::from(
        "---@meta\n-- Defold namespaces Sinew does not have: any use raises \"<ns>.<name> is not supported by Sinew\".\n\n",
    );
    for ns in unsupported() {
        let _ = writeln!(t, "---Not supported by Sinew: every field raises an error.\n{ns} = {{}}\n");
    }
    files.push(("unsupported.lua".to_string(), t));
    files
}

/// The `.luarc.json` that points lua-language-server at annotations in `dir` (relative). Which
/// extensions are Lua is the editor's setting (`files.associations`), not the server's.
pub fn luarc_json(dir: &str) -> String {
    let globals: Vec<String> = CALLBACKS.iter().map(|c| format!("\"{}\"", c.name)).collect();
    format!(
        "{{\n  \"$schema\": \"https://raw.githubusercontent.com/LuaLS/vscode-lua/master/setting/schema.json\",\n  \"runtime.version\": \"LuaJIT\",\n  \"workspace.library\": [\"{dir}\"],\n  \"workspace.ignoreDir\": [\"{dir}\"],\n  \"diagnostics.globals\": [{}]\n}}\n",
        globals.join(", ")
    )
}

fn md_sig(func: &Func) -> String {
    let ps: Vec<String> = items(func.params)
        .iter()
        .map(|p| if p.optional { format!("[{}]", p.name) } else { p.name.to_string() })
        .collect();
    let call = format!("{}({})", qualified(func.ns, func.name), ps.join(", "));
    if func.returns.is_empty() { call } else { format!("{call} → {}", func.returns) }
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// `(file name, markdown)` of the API reference pages under docs/api/, one per namespace.
pub fn markdown_pages() -> Vec<(String, String)> {
    use std::fmt::Write;
    let consts = constants();
    let mut pages = Vec::new();
    let mut index = String::from(
        "# Lua API\n\nGenerated from `src/script/api_docs.rs` (`cargo test --test api_docs` checks it against the runtime; \
         `SINEW_UPDATE_DOCS=1` rewrites these pages). Types: `url_like` = string, hash or `msg.url`; `hash_like` = string or hash.\n\n\
         | namespace | |\n| --- | --- |\n",
    );
    for ns in NAMESPACES {
        let file = if ns.name.is_empty() { "globals".to_string() } else { ns.name.to_string() };
        let title = if ns.name.is_empty() { "globals and callbacks".to_string() } else { format!("`{}`", ns.name) };
        let _ = writeln!(index, "| [{title}]({file}.md) | {} |", ns.doc);
        let mut p = format!("# {title}\n\n{}\n\n", ns.doc);
        let pending: Vec<&Func> =
            FUNCS.iter().filter(|f| f.ns == ns.name && PENDING.contains(&qualified(f.ns, f.name).as_str())).collect();
        if !ns.notes.is_empty() {
            let _ = writeln!(p, "{}\n", ns.notes);
        }
        if !ns.examples.is_empty() {
            let links: Vec<String> = ns
                .examples
                .iter()
                .map(|e| format!("[{}]({e})", e.trim_start_matches("../").split('#').next().unwrap_or(e)))
                .collect();
            let _ = writeln!(p, "Runnable examples: {}.\n", links.join(", "));
        }
        if !pending.is_empty() {
            let names: Vec<String> = pending.iter().map(|f| format!("`{}`", qualified(f.ns, f.name))).collect();
            let _ = writeln!(p, "Not in this build yet (being added): {}.\n", names.join(", "));
        }
        p.push_str("| function | parameters | |\n| --- | --- | --- |\n");
        for func in FUNCS.iter().filter(|f| f.ns == ns.name) {
            let params: Vec<String> = items(func.params)
                .iter()
                .map(|i| format!("`{}{}`: {}", i.name, if i.optional { "?" } else { "" }, md_cell(i.ty)))
                .collect();
            let mut sig = md_cell(&md_sig(func));
            for o in func.overloads {
                let (ps, r) = split_overload(o);
                let names: Vec<&str> = items(ps).iter().map(|i| i.name).collect();
                let _ = write!(sig, "<br>{}({}) → {}", qualified(func.ns, func.name), names.join(", "), md_cell(r));
            }
            let _ = writeln!(
                p,
                "| `{}` | {} | {} |",
                sig.replace("<br>", "`<br>`"),
                params.join("<br>"),
                md_cell(func.doc)
            );
        }
        let cs: Vec<&Const> = consts.iter().filter(|c| c.ns == ns.name).collect();
        if !cs.is_empty() {
            p.push_str("\n| constant | value | |\n| --- | --- | --- |\n");
            for c in cs {
                let value = match c.value {
                    ConstValue::Sentinel => "(light userdata)".to_string(),
                    ConstValue::Hash(text) => format!("`hash(\"{text}\")`"),
                    ConstValue::Number(v) => lua_number(v),
                };
                let _ = writeln!(p, "| `{}.{}` | {} | {} |", c.ns, c.name, value, c.doc);
            }
        }
        if ns.name.is_empty() {
            p.push_str("\n## Script callbacks\n\n| callback | |\n| --- | --- |\n");
            for c in CALLBACKS {
                let ret = if c.returns.is_empty() { String::new() } else { format!(" → {}", md_cell(c.returns)) };
                let _ = writeln!(p, "| `{}({}){}` | {} |", c.name, md_cell(c.params), ret, c.doc);
            }
            p.push_str("\nNot supported (every field raises an error naming it): ");
            let names: Vec<String> = unsupported().iter().map(|n| format!("`{n}`")).collect();
            p.push_str(&names.join(", "));
            p.push_str(".\n");
        }
        pages.push((format!("{file}.md"), p));
    }
    pages.push(("README.md".to_string(), index));
    pages
}
