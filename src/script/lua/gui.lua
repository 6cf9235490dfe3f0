-- The `gui` namespace for .gui_script files: nodes of the script's own gui component, their
-- properties, text metrics, picking, new nodes, render order. Arguments are checked here; Rust
-- does the work (api/gui.rs). A node is a handle table {i = instance, n = node index}.
local ffi = require("ffi")
local S = ...
local F, ctx, vm = S.F, S.ctx, S.vm
local fail, argerr, current, hash_t = S.fail, S.argerr, S.current, S.hash_t
local istype = ffi.istype
local v3_t, v4_t = vm.vector3_t, vm.vector4_t

-- The `which` numbers of api/gui.rs (`which`, `flag`).
local K = S.K
local POSITION, EULER, SCALE, SIZE = K.GUI_POSITION, K.GUI_EULER, K.GUI_SCALE, K.GUI_SIZE
local COLOR, OUTLINE, SHADOW, PIE = K.GUI_COLOR, K.GUI_OUTLINE, K.GUI_SHADOW, K.GUI_PIE
local ENABLED, VISIBLE = K.GUI_ENABLED, K.GUI_VISIBLE
local INHERIT_ALPHA, LINE_BREAK = K.GUI_INHERIT_ALPHA, K.GUI_LINE_BREAK

local gui = {}
local NODE = {}
NODE.__index = NODE
NODE.__tostring = function(h) return string.format("box@%d:%d", h.i, h.n) end
local handles = setmetatable({}, { __mode = "v" })

local function handle(i, n)
  local key = i * 65536 * 65536 + n
  local h = handles[key]
  if h == nil then
    h = setmetatable({ i = i, n = n }, NODE)
    handles[key] = h
  end
  return h
end

-- The gui function now running: Rust's errors (a deleted node, an unknown name) are raised
-- with its name in front.
local fname_now = "gui"
local function fail_last()
  fail(fname_now .. ": " .. ffi.string(F.last_error()))
end
local function check(rc) if rc ~= 0 then fail_last() end end

-- The calling script's gui instance; raises Defold's message outside a gui script.
local function instance(fname)
  fname_now = fname
  local r = current()
  local i = r and r.gui_instance
  if i == nil and r then
    i = F.gui_instance(ctx, r.slot, r.comp.h)
    r.gui_instance = i
  end
  if i == nil or i < 0 then fail(fname .. ": gui functions can only be called from a gui script (.gui_script)") end
  return i
end

local function node_arg(fname, h, n)
  if getmetatable(h) ~= NODE then argerr(fname, n or 1, "node", h) end
  instance(fname)
  return h
end

function gui.get_node(id)
  local i = instance("gui.get_node")
  local name = id
  if istype(hash_t, id) then name = S.hash_text(id.h) end
  if type(name) ~= "string" then argerr("gui.get_node", 1, "string or hash", id) end
  local n = F.gui_find(ctx, i, name, #name)
  if n == -2 then fail_last() end
  if n < 0 then fail(string.format("gui.get_node: No such node: %s", tostring(name))) end
  return handle(i, n)
end

local out = vm.vector4_t()
local function getter(fname, which, make)
  return function(h)
    h = node_arg(fname, h)
    check(F.gui_get(ctx, h.i, h.n, which, out))
    return make(out)
  end
end
local function as_v3(o) return vm.vector3(o.x, o.y, o.z) end
local function as_v4(o) return vm.vector4(o.x, o.y, o.z, o.w) end

-- Every vector setter takes a vector3 or a vector4, as Defold's (gui_script.cpp, LUASET); `with_w`:
-- the property keeps a fourth value (a colour's alpha), which a vector3 leaves as it was and a
-- vector4 sets; the others take x, y and z of a vector4.
local function setter(fname, which, with_w)
  return function(h, v)
    h = node_arg(fname, h)
    if istype(v3_t, v) then
      local w = 0
      if with_w then
        check(F.gui_get(ctx, h.i, h.n, which, out))
        w = out.w
      end
      check(F.gui_set(ctx, h.i, h.n, which, v.x, v.y, v.z, w))
    elseif istype(v4_t, v) then
      check(F.gui_set(ctx, h.i, h.n, which, v.x, v.y, v.z, with_w and v.w or 0))
    else
      argerr(fname, 2, "vector3 or vector4", v)
    end
  end
end

gui.get_position = getter("gui.get_position", POSITION, as_v3)
gui.set_position = setter("gui.set_position", POSITION, false)
gui.get_euler = getter("gui.get_euler", EULER, as_v3)
gui.set_euler = setter("gui.set_euler", EULER, false)
gui.get_scale = getter("gui.get_scale", SCALE, as_v3)
gui.get_size = getter("gui.get_size", SIZE, as_v3)
gui.set_size = setter("gui.set_size", SIZE, false)
gui.get_color = getter("gui.get_color", COLOR, as_v4)
gui.set_color = setter("gui.set_color", COLOR, true)
gui.get_outline = getter("gui.get_outline", OUTLINE, as_v4)
gui.set_outline = setter("gui.set_outline", OUTLINE, true)
gui.get_shadow = getter("gui.get_shadow", SHADOW, as_v4)
gui.set_shadow = setter("gui.set_shadow", SHADOW, true)

function gui.set_scale(h, v)
  h = node_arg("gui.set_scale", h)
  if type(v) == "number" then v = vm.vector3(v, v, v) end
  if not istype(v3_t, v) and not istype(v4_t, v) then argerr("gui.set_scale", 2, "number, vector3 or vector4", v) end
  check(F.gui_set(ctx, h.i, h.n, SCALE, v.x, v.y, v.z, 0))
end

-- Numbers kept together in one vector property (`which`): a pie node's [fill_angle,
-- inner_radius, perimeter_vertices] and a text node's [leading, tracking]; `k` picks one.
local function packed_get(fname, which, k)
  return function(h)
    h = node_arg(fname, h)
    check(F.gui_get(ctx, h.i, h.n, which, out))
    return ({ out.x, out.y, out.z })[k]
  end
end
local function packed_set(fname, which, k)
  return function(h, v)
    h = node_arg(fname, h)
    if type(v) ~= "number" then argerr(fname, 2, "number", v) end
    check(F.gui_get(ctx, h.i, h.n, which, out))
    local p = { out.x, out.y, out.z }
    p[k] = v
    check(F.gui_set(ctx, h.i, h.n, which, p[1], p[2], p[3], 0))
  end
end
local function pie_get(fname, k) return packed_get(fname, PIE, k) end
local function pie_set(fname, k) return packed_set(fname, PIE, k) end
gui.get_fill_angle = pie_get("gui.get_fill_angle", 1)
gui.set_fill_angle = pie_set("gui.set_fill_angle", 1)
gui.get_inner_radius = pie_get("gui.get_inner_radius", 2)
gui.set_inner_radius = pie_set("gui.set_inner_radius", 2)
gui.get_perimeter_vertices = pie_get("gui.get_perimeter_vertices", 3)
gui.set_perimeter_vertices = pie_set("gui.set_perimeter_vertices", 3)

local function spacing_get(fname, k) return packed_get(fname, K.GUI_SPACING, k) end
local function spacing_set(fname, k) return packed_set(fname, K.GUI_SPACING, k) end
gui.get_leading = spacing_get("gui.get_leading", 1)
gui.set_leading = spacing_set("gui.set_leading", 1)
gui.get_tracking = spacing_get("gui.get_tracking", 2)
gui.set_tracking = spacing_set("gui.set_tracking", 2)

gui.get_slice9 = getter("gui.get_slice9", K.GUI_SLICE9, as_v4)
function gui.set_slice9(h, v)
  h = node_arg("gui.set_slice9", h)
  if not istype(v4_t, v) then argerr("gui.set_slice9", 2, "vector4", v) end
  check(F.gui_set(ctx, h.i, h.n, K.GUI_SLICE9, v.x, v.y, v.z, v.w))
end

gui.get_rotation = getter("gui.get_rotation", K.GUI_ROTATION, function(o) return vm.quat(o.x, o.y, o.z, o.w) end)
function gui.set_rotation(h, q)
  h = node_arg("gui.set_rotation", h)
  -- A vector3 is Euler angles in degrees, as gui.set_rotation took before quaternions and
  -- Defold still accepts (games ship `gui.set_rotation(node, vmath.vector3(0, 0, 90))`).
  if istype(v3_t, q) then
    check(F.gui_set(ctx, h.i, h.n, EULER, q.x, q.y, q.z, 0))
    return
  end
  if not (istype(vm.quat_t, q) or istype(v4_t, q)) then
    argerr("gui.set_rotation", 2, "quat, vector4 or vector3 (Euler degrees)", q)
  end
  check(F.gui_set(ctx, h.i, h.n, K.GUI_ROTATION, q.x, q.y, q.z, q.w))
end

function gui.get_alpha(h)
  return gui.get_color(h).w
end

function gui.set_alpha(h, a)
  h = node_arg("gui.set_alpha", h)
  if type(a) ~= "number" then argerr("gui.set_alpha", 2, "number", a) end
  check(F.gui_get(ctx, h.i, h.n, COLOR, out))
  check(F.gui_set(ctx, h.i, h.n, COLOR, out.x, out.y, out.z, a))
end

local function flag_get(fname, which)
  return function(h)
    h = node_arg(fname, h)
    local v = F.gui_get_flag(ctx, h.i, h.n, which)
    if v < 0 then fail_last() end
    return v == 1
  end
end
local function flag_set(fname, which)
  return function(h, on)
    h = node_arg(fname, h)
    if type(on) ~= "boolean" then argerr(fname, 2, "boolean", on) end
    check(F.gui_set_flag(ctx, h.i, h.n, which, on and 1 or 0))
  end
end
gui.is_enabled = flag_get("gui.is_enabled", ENABLED)
gui.set_enabled = flag_set("gui.set_enabled", ENABLED)
gui.get_visible = flag_get("gui.get_visible", VISIBLE)
gui.set_visible = flag_set("gui.set_visible", VISIBLE)
gui.get_inherit_alpha = flag_get("gui.get_inherit_alpha", INHERIT_ALPHA)
gui.set_inherit_alpha = flag_set("gui.set_inherit_alpha", INHERIT_ALPHA)
gui.get_line_break = flag_get("gui.get_line_break", LINE_BREAK)
gui.set_line_break = flag_set("gui.set_line_break", LINE_BREAK)

local textbuf_cap = 256
local textbuf = ffi.new("char[?]", textbuf_cap)

function gui.get_text(h)
  h = node_arg("gui.get_text", h)
  local n = F.gui_get_text(ctx, h.i, h.n, textbuf, textbuf_cap)
  if n < 0 then fail_last() end
  if n > textbuf_cap then
    textbuf_cap = n
    textbuf = ffi.new("char[?]", textbuf_cap)
    n = F.gui_get_text(ctx, h.i, h.n, textbuf, textbuf_cap)
    if n < 0 then fail_last() end
  end
  return ffi.string(textbuf, n)
end

function gui.set_text(h, text)
  h = node_arg("gui.set_text", h)
  if type(text) == "number" then text = tostring(text) end
  if type(text) ~= "string" then argerr("gui.set_text", 2, "string", text) end
  check(F.gui_set_text(ctx, h.i, h.n, text, #text))
end

function gui.get_text_metrics_from_node(h)
  h = node_arg("gui.get_text_metrics_from_node", h)
  check(F.gui_text_metrics(ctx, h.i, h.n, out))
  return { width = out.x, height = out.y, max_ascent = out.z, max_descent = out.w }
end

function gui.pick_node(h, x, y)
  h = node_arg("gui.pick_node", h)
  if type(x) ~= "number" then argerr("gui.pick_node", 2, "number", x) end
  if type(y) ~= "number" then argerr("gui.pick_node", 3, "number", y) end
  local v = F.gui_pick(ctx, h.i, h.n, x, y)
  if v < 0 then fail_last() end
  return v == 1
end

function gui.get_screen_position(h)
  h = node_arg("gui.get_screen_position", h)
  check(F.gui_screen_position(ctx, h.i, h.n, out))
  return vm.vector3(out.x, out.y, out.z)
end

function gui.set_screen_position(h, pos)
  h = node_arg("gui.set_screen_position", h)
  if not (istype(v3_t, pos) or istype(v4_t, pos)) then argerr("gui.set_screen_position", 2, "vector3", pos) end
  check(F.gui_set_screen_position(ctx, h.i, h.n, pos.x, pos.y, pos.z))
end

function gui.screen_to_local(h, pos)
  h = node_arg("gui.screen_to_local", h)
  if not (istype(v3_t, pos) or istype(v4_t, pos)) then argerr("gui.screen_to_local", 2, "vector3", pos) end
  check(F.gui_screen_to_local(ctx, h.i, h.n, pos.x, pos.y, pos.z, out))
  return vm.vector3(out.x, out.y, out.z)
end

-- The scene's size: the project's display size, which the layout adjusts from.
function gui.get_width()
  local i = instance("gui.get_width")
  check(F.gui_scene_size(ctx, i, out))
  return out.x
end
function gui.get_height()
  local i = instance("gui.get_height")
  check(F.gui_scene_size(ctx, i, out))
  return out.y
end

-- A desktop has no on-screen keyboard: as Defold there, these check their arguments and do
-- nothing (text input arrives through `on_input` as `text` actions either way).
function gui.show_keyboard(keyboard_type, autoclose)
  instance("gui.show_keyboard")
  if type(keyboard_type) ~= "number" then argerr("gui.show_keyboard", 1, "number", keyboard_type) end
  if type(autoclose) ~= "boolean" then argerr("gui.show_keyboard", 2, "boolean", autoclose) end
end
function gui.hide_keyboard() instance("gui.hide_keyboard") end
function gui.reset_keyboard() instance("gui.reset_keyboard") end

local function new_node(fname, kind, pos, size, text)
  local i = instance(fname)
  if not (istype(v3_t, pos) or istype(v4_t, pos)) then argerr(fname, 1, "vector3", pos) end
  local sx, sy = 100, 100
  if size ~= nil then
    if not istype(v3_t, size) then argerr(fname, 2, "vector3", size) end
    sx, sy = size.x, size.y
  end
  text = text or ""
  local n = F.gui_new_node(ctx, i, kind, pos.x, pos.y, sx, sy, text, #text)
  if n < 0 then fail_last() end
  return handle(i, n)
end

function gui.new_box_node(pos, size) return new_node("gui.new_box_node", K.GUI_NEW_BOX, pos, size) end
function gui.new_pie_node(pos, size) return new_node("gui.new_pie_node", K.GUI_NEW_PIE, pos, size) end
function gui.new_text_node(pos, text)
  if type(text) ~= "string" then argerr("gui.new_text_node", 2, "string", text) end
  return new_node("gui.new_text_node", K.GUI_NEW_TEXT, pos, nil, text)
end

function gui.reset_nodes()
  check(F.gui_reset_nodes(ctx, instance("gui.reset_nodes")))
end

function gui.set_render_order(order)
  if type(order) ~= "number" or order % 1 ~= 0 then
    argerr("gui.set_render_order", 1, "integer", order)
  end
  -- Defold takes any integer, warns and clamps to the orders its render keys hold; games ship
  -- orders such as 16 and 17 (they draw last).
  local top = K.GUI_MAX_RENDER_ORDER
  if order < 0 or order > top then
    local clamped = order < 0 and 0 or top
    S.R.log_warn(string.format("%sgui.set_render_order: %s is outside 0 to %d; %d is used", S.where(), order, top, clamped))
    order = clamped
  end
  check(F.gui_set_render_order(ctx, instance("gui.set_render_order"), order))
end

-- gui.animate: a property name (or `name.x` …) → (which, first element, count, whole type).
-- `rotation` is the Euler angles in degrees, as a node's rotation was in Defold before nodes
-- kept a quaternion: games spin nodes with `gui.animate(node, gui.PROP_ROTATION,
-- vmath.vector3(0, 0, -360), …)`, and a quaternion has no way to say a whole turn.
local ANIM = {
  position = { POSITION, 0, 3, "vector3" }, scale = { SCALE, 0, 3, "vector3" }, size = { SIZE, 0, 3, "vector3" },
  euler = { EULER, 0, 3, "vector3" }, rotation = { EULER, 0, 3, "vector3" },
  color = { COLOR, 0, 4, "vector4" }, outline = { OUTLINE, 0, 4, "vector4" }, shadow = { SHADOW, 0, 4, "vector4" },
  fill_angle = { PIE, 0, 1, "number" }, inner_radius = { PIE, 1, 1, "number" },
}

local AXES = { x = 0, y = 1, z = 2, w = 3 }
local anim_to = vm.vector4_t()

local function anim_property(fname, property)
  local name = property
  if istype(hash_t, property) then name = S.hash_text(property.h) end
  if type(name) ~= "string" then argerr(fname, 2, "string or hash", property) end
  local base, c = name:match("^(.-)%.([xyzw])$")
  local p = ANIM[base or name]
  if p == nil or (c == "w" and p[4] == "vector3") then
    fail(string.format("%s: property '%s' cannot be animated", fname, tostring(name)))
  end
  if c then return p[1], AXES[c], 1, "number" end
  return p[1], p[2], p[3], p[4]
end

function gui.animate(h, property, to, easing, duration, delay, complete_function, playback)
  h = node_arg("gui.animate", h)
  local which, first, count, kind = anim_property("gui.animate", property)
  -- Defold reads a number with lua_isnumber, which takes a numeric string ("-90") too.
  if type(to) == "string" then to = tonumber(to) or to end
  if kind == "number" then
    if type(to) ~= "number" then argerr("gui.animate", 3, "number", to) end
    anim_to.x = to
  elseif istype(v3_t, to) or istype(v4_t, to) then
    anim_to.x, anim_to.y, anim_to.z = to.x, to.y, to.z
    if kind == "vector4" then
      if istype(v4_t, to) then
        anim_to.w = to.w
      else
        check(F.gui_get(ctx, h.i, h.n, which, out))
        anim_to.w = out.w
      end
    end
  elseif type(to) == "number" and kind == "vector3" then
    anim_to.x, anim_to.y, anim_to.z = to, to, to
  else
    argerr("gui.animate", 3, kind, to)
  end
  if type(easing) ~= "number" then argerr("gui.animate", 4, "easing constant", easing) end
  easing = math.floor(easing)
  if not (easing >= 0 and easing < K.EASING_COUNT) then fail("invalid easing constant") end
  if type(duration) ~= "number" or not (duration >= 0 and duration < math.huge) then
    argerr("gui.animate", 5, "finite number >= 0", duration)
  end
  if delay ~= nil and (type(delay) ~= "number" or not (delay > -math.huge and delay < math.huge)) then
    argerr("gui.animate", 6, "finite number", delay)
  end
  if complete_function ~= nil and type(complete_function) ~= "function" then
    argerr("gui.animate", 7, "function", complete_function)
  end
  playback = playback or 1
  if type(playback) ~= "number" or not (playback >= 0 and playback < K.PLAYBACK_COUNT) then
    fail("invalid playback mode when starting an animation")
  end
  local cb = 0
  if complete_function then cb = S.register_anim_callback(complete_function, current(), h, nil) end
  check(F.gui_animate(ctx, h.i, h.n, which, first, count, anim_to, math.floor(playback), easing, duration, delay or 0, cb))
end

function gui.cancel_animation(h, property)
  h = node_arg("gui.cancel_animation", h)
  local which = anim_property("gui.cancel_animation", property)
  check(F.gui_cancel_animation(ctx, h.i, h.n, which))
end


-- go.get / go.set of a gui component's `fonts`, `textures` and `materials` by `{ key = name }`
-- (Defold's resource properties of a gui): the hash of the file, and a font, atlas or
-- material to use instead.
local RESOURCES = { fonts = K.GUI_FONTS, textures = K.GUI_TEXTURES, materials = K.GUI_MATERIALS }
local gui_props = {}
S.component_kinds[K.COMPONENT_GUI] = gui_props
function gui_props.kind(slot, comp, name) return RESOURCES[name] ~= nil and "hash" or nil end
local function gui_resource(slot, comp, name, where_text, options)
  local which = RESOURCES[name]
  if which == nil then fail(string.format("'%s' does not have any property called '%s'", where_text, name)) end
  local key = type(options) == "table" and options.key or nil
  if key == nil then fail(string.format("the property '%s' of '%s' needs a key: { key = name }", name, where_text)) end
  local inst = F.gui_instance(ctx, slot, comp)
  if inst < 0 then fail(string.format("'%s' is not a gui component", where_text)) end
  return inst, which, S.to_hash(key, "key", 1).h
end
function gui_props.get(slot, comp, name, where_text, options)
  local inst, which, key = gui_resource(slot, comp, name, where_text, options)
  local h = F.gui_resource_get(ctx, inst, which, key)
  if h == 0 then S.fail_last() end
  return S.hash_of_u64(h)
end
function gui_props.set(slot, comp, name, value, where_text, options)
  local inst, which, key = gui_resource(slot, comp, name, where_text, options)
  check(F.gui_resource_set(ctx, inst, which, key, S.to_hash(value, "go.set", 3).h))
end

-- Defold's constants (gui_ddf.proto's enums, as `gui.*` numbers), from Rust (api/gui.rs CONSTANTS).
for k, v in pairs(S.R.gui_constants) do gui[k] = v end

-- get/set of an enum property; Rust says which values it takes (`expected` names them).
local function enum_pair(prop, which, expected)
  gui["get_" .. prop] = function(h)
    local fname = "gui.get_" .. prop
    h = node_arg(fname, h)
    local v = F.gui_get_enum(ctx, h.i, h.n, which)
    if v < 0 then fail_last() end
    return v
  end
  gui["set_" .. prop] = function(h, v)
    local fname = "gui.set_" .. prop
    h = node_arg(fname, h)
    if type(v) ~= "number" or v % 1 ~= 0 or v < 0 or v > 255 or F.gui_enum_accepts(which, v) == 0 then
      argerr(fname, 2, expected, v)
    end
    check(F.gui_set_enum(ctx, h.i, h.n, which, v))
  end
end
enum_pair("pivot", K.GUI_PIVOT, "gui.PIVOT_*")
enum_pair("xanchor", K.GUI_XANCHOR, "gui.ANCHOR_NONE, ANCHOR_LEFT or ANCHOR_RIGHT")
enum_pair("yanchor", K.GUI_YANCHOR, "gui.ANCHOR_NONE, ANCHOR_TOP or ANCHOR_BOTTOM")
enum_pair("adjust_mode", K.GUI_ADJUST_MODE, "gui.ADJUST_*")
enum_pair("blend_mode", K.GUI_BLEND_MODE, "gui.BLEND_*")
enum_pair("clipping_mode", K.GUI_CLIPPING_MODE, "gui.CLIPPING_MODE_*")
enum_pair("size_mode", K.GUI_SIZE_MODE, "gui.SIZE_MODE_*")
enum_pair("outer_bounds", K.GUI_OUTER_BOUNDS, "gui.PIEBOUNDS_*")
gui.get_clipping_visible = flag_get("gui.get_clipping_visible", K.GUI_CLIPPING_VISIBLE)
gui.set_clipping_visible = flag_set("gui.set_clipping_visible", K.GUI_CLIPPING_VISIBLE)
gui.get_clipping_inverted = flag_get("gui.get_clipping_inverted", K.GUI_CLIPPING_INVERTED)
gui.set_clipping_inverted = flag_set("gui.set_clipping_inverted", K.GUI_CLIPPING_INVERTED)

local namebuf = ffi.new("char[?]", 256)
-- The text a Rust call copies out: `read(buf, cap)` returns its whole length (-1 on error), so
-- a text longer than the buffer is read again into one that fits.
local function read_text(read)
  local n = read(namebuf, 256)
  if n < 0 then fail_last() end
  if n > 256 then
    local big = ffi.new("char[?]", n)
    n = read(big, n)
    if n < 0 then fail_last() end
    return ffi.string(big, n)
  end
  return ffi.string(namebuf, n)
end

local function get_name(h, which)
  return read_text(function(buf, cap) return F.gui_get_name(ctx, h.i, h.n, which, buf, cap) end)
end

-- A string or a hash whose text is known, as a string (`what` names the argument).
local function name_arg(fname, n, v, what)
  if istype(hash_t, v) then
    local text = S.hash_text(v.h)
    if text == nil or text:match("^hash: %[") then
      fail(string.format("%s: the %s %s has no known text; pass a string", fname, what, tostring(v)))
    end
    return text
  end
  if type(v) ~= "string" then argerr(fname, n, "string or hash", v) end
  return v
end

-- get/set of a name (id, font, texture, layer): read as a hash, set by string or hash.
local function name_pair(prop, which)
  gui["get_" .. prop] = function(h)
    h = node_arg("gui.get_" .. prop, h)
    return S.hash(get_name(h, which))
  end
  gui["set_" .. prop] = function(h, v)
    local fname = "gui.set_" .. prop
    h = node_arg(fname, h)
    local text = name_arg(fname, 2, v, prop)
    check(F.gui_set_name(ctx, h.i, h.n, which, text, #text))
  end
end
name_pair("id", K.GUI_ID)
name_pair("font", K.GUI_FONT)
name_pair("texture", K.GUI_TEXTURE)
name_pair("layer", K.GUI_LAYER)
name_pair("particlefx", K.GUI_PARTICLEFX)
name_pair("material", K.GUI_MATERIAL)
function gui.reset_material(h)
  h = node_arg("gui.reset_material", h)
  check(F.gui_set_name(ctx, h.i, h.n, K.GUI_MATERIAL, "", 0))
end

function gui.get_font_resource(font)
  local i = instance("gui.get_font_resource")
  local text = name_arg("gui.get_font_resource", 1, font, "font")
  return S.hash(read_text(function(buf, cap) return F.gui_font_resource(ctx, i, text, #text, buf, cap) end))
end

-- Deprecated in Defold for resource.get_text_metrics, still called (deftest's gui mock): the
-- measures of `text` in the scene's font `font`, wrapped at `width` when `line_break`.
function gui.get_text_metrics(font, text, width, line_break, leading, tracking)
  local fname = "gui.get_text_metrics"
  local i = instance(fname)
  local name = name_arg(fname, 1, font, "font")
  if type(text) == "number" then text = tostring(text) end
  if type(text) ~= "string" then argerr(fname, 2, "string", text) end
  if width ~= nil and type(width) ~= "number" then argerr(fname, 3, "number", width) end
  if line_break ~= nil and type(line_break) ~= "boolean" then argerr(fname, 4, "boolean", line_break) end
  if leading ~= nil and type(leading) ~= "number" then argerr(fname, 5, "number", leading) end
  if tracking ~= nil and type(tracking) ~= "number" then argerr(fname, 6, "number", tracking) end
  check(F.gui_font_text_metrics(ctx, i, name, #name, text, #text, width or 0, line_break and 1 or 0,
    leading or K.GUI_DEFAULT_TEXT_LEADING, tracking or 0, out))
  return { width = out.x, height = out.y, max_ascent = out.z, max_descent = out.w }
end

-- Layouts (game/gui/display_layouts.rs): the one the scene shows, by the name of its display
-- profile; setting one resets the nodes to it and posts `layout_changed`, as a resize does.
function gui.get_layout()
  local i = instance("gui.get_layout")
  return S.hash(read_text(function(buf, cap) return F.gui_layout(ctx, i, buf, cap) end))
end

-- As Defold's: true when the scene has the layout (shown now), false when not.
function gui.set_layout(layout)
  local i = instance("gui.set_layout")
  local text = name_arg("gui.set_layout", 1, layout, "layout")
  local found = F.gui_set_layout(ctx, i, text, #text)
  if found < 0 then fail_last() end
  return found == 1
end

-- Each layout's id (hash) to its display profile's size, vector3(width, height, 0).
local layout_size = vm.vector4_t()
function gui.get_layouts()
  local i = instance("gui.get_layouts")
  local n = F.gui_layout_count(ctx, i)
  if n < 0 then fail_last() end
  local layouts = {}
  for k = 0, n - 1 do
    local name = read_text(function(buf, cap) return F.gui_layout_at(ctx, i, k, buf, cap, layout_size) end)
    layouts[S.hash(name)] = vm.vector3(layout_size.x, layout_size.y, 0)
  end
  return layouts
end

-- Particle nodes: the effect runs in Rust at the node (game/gui/effects.rs); an emitter state
-- function is a play callback of the calling script, called with the node it was given.
function gui.new_particlefx_node(pos, particlefx)
  local text = name_arg("gui.new_particlefx_node", 2, particlefx, "particlefx")
  return new_node("gui.new_particlefx_node", K.GUI_NEW_PARTICLEFX, pos, nil, text)
end

function gui.play_particlefx(h, emitter_state_function)
  h = node_arg("gui.play_particlefx", h)
  if emitter_state_function ~= nil and type(emitter_state_function) ~= "function" then
    argerr("gui.play_particlefx", 2, "function", emitter_state_function)
  end
  local r, cb = current(), 0
  if emitter_state_function then
    cb = S.add_play_callback(function(self, _, m) emitter_state_function(self, h, m.emitter, m.state) end, r)
  end
  local rc = F.gui_play_particlefx(ctx, h.i, h.n, r.index, cb)
  if rc ~= 0 then
    if cb ~= 0 then S.take_play_callback(cb) end
    fail_last()
  end
end

function gui.stop_particlefx(h, options)
  h = node_arg("gui.stop_particlefx", h)
  local clear = 0
  if options ~= nil then
    if type(options) ~= "table" then argerr("gui.stop_particlefx", 2, "table", options) end
    clear = options.clear and 1 or 0
  end
  check(F.gui_stop_particlefx(ctx, h.i, h.n, clear))
end

function gui.delete_node(h)
  h = node_arg("gui.delete_node", h)
  check(F.gui_delete_node(ctx, h.i, h.n))
end

local pairbuf_cap = 64
local pairbuf = ffi.new("uint32_t[?]", pairbuf_cap)
local function clone(fname, h, tree)
  h = node_arg(fname, h)
  local need = 2
  if tree then need = 2 * (F.gui_subtree_size(ctx, h.i, h.n)) end
  if need <= 0 then fail_last() end
  if need > pairbuf_cap then
    pairbuf_cap = need
    pairbuf = ffi.new("uint32_t[?]", pairbuf_cap)
  end
  local count = F.gui_clone(ctx, h.i, h.n, tree and 1 or 0, pairbuf, pairbuf_cap)
  if count < 0 then fail_last() end
  return count
end

function gui.clone(h)
  clone("gui.clone", h, false)
  return handle(h.i, pairbuf[1])
end

-- The tables of gui.clone_tree and gui.get_tree are keyed by hashes and also answer an id's
-- string (and a number's text), as Defold's metatable does (gui_script.cpp, HashTableIndex):
-- `gui.clone_tree(n).heart` finds the copy of the node "heart".
local BY_ID = {
  __index = function(t, k)
    local kind = type(k)
    if kind == "string" or kind == "number" then return rawget(t, S.hash(tostring(k))) end
    return nil
  end,
}

-- A table from the ids of the original nodes (hashes) to their copies, as Defold's.
function gui.clone_tree(h)
  local count = clone("gui.clone_tree", h, true)
  local copies = {}
  for k = 0, count - 1 do copies[k] = { pairbuf[2 * k], pairbuf[2 * k + 1] } end
  local t = setmetatable({}, BY_ID)
  for k = 0, count - 1 do
    local orig = handle(h.i, copies[k][1])
    t[S.hash(get_name(orig, K.GUI_ID))] = handle(h.i, copies[k][2])
  end
  return t
end

-- A table from the ids of the node and every node under it (hashes) to their nodes.
function gui.get_tree(h)
  h = node_arg("gui.get_tree", h)
  local need = F.gui_subtree_size(ctx, h.i, h.n)
  if need <= 0 then fail_last() end
  if need > pairbuf_cap then
    pairbuf_cap = need
    pairbuf = ffi.new("uint32_t[?]", pairbuf_cap)
  end
  local count = F.gui_subtree(ctx, h.i, h.n, pairbuf, pairbuf_cap)
  if count < 0 then fail_last() end
  local nodes = {}
  for k = 0, count - 1 do nodes[k + 1] = handle(h.i, pairbuf[k]) end
  local t = setmetatable({}, BY_ID)
  for _, node in ipairs(nodes) do t[S.hash(get_name(node, K.GUI_ID))] = node end
  return t
end

function gui.get_parent(h)
  h = node_arg("gui.get_parent", h)
  local p = F.gui_get_parent(ctx, h.i, h.n)
  if p == -2 then fail_last() end
  if p < 0 then return nil end
  return handle(h.i, p)
end

function gui.set_parent(h, parent, keep_scene_transform)
  h = node_arg("gui.set_parent", h)
  local p = -1
  if parent ~= nil then
    if getmetatable(parent) ~= NODE then argerr("gui.set_parent", 2, "node or nil", parent) end
    if parent.i ~= h.i then fail("gui.set_parent: the parent is a node of another gui scene") end
    p = parent.n
  end
  if keep_scene_transform ~= nil and type(keep_scene_transform) ~= "boolean" then
    argerr("gui.set_parent", 3, "boolean", keep_scene_transform)
  end
  check(F.gui_set_parent(ctx, h.i, h.n, p, keep_scene_transform and 1 or 0))
end

local function move(fname, h, reference, above)
  h = node_arg(fname, h)
  local r = -1
  if reference ~= nil then
    if getmetatable(reference) ~= NODE then argerr(fname, 2, "node or nil", reference) end
    if reference.i ~= h.i then fail(fname .. ": the reference is a node of another gui scene") end
    r = reference.n
  end
  check(F.gui_move_node(ctx, h.i, h.n, r, above))
end
function gui.move_above(h, reference) move("gui.move_above", h, reference, 1) end
function gui.move_below(h, reference) move("gui.move_below", h, reference, 0) end

function gui.get_index(h)
  h = node_arg("gui.get_index", h)
  local v = F.gui_get_index(ctx, h.i, h.n)
  if v < 0 then fail_last() end
  return v
end

-- play_flipbook: the node's atlas animation runs in Rust on the sprites' flipbook clock
-- (game/gui/flipbook.rs); when a once-animation ends, Rust calls a play callback of the calling
-- script, which hands `complete_function` the script's self and the node.
local FLIP_CANCEL, FLIP_GET_CURSOR, FLIP_SET_CURSOR = K.GUI_FLIP_CANCEL, K.GUI_FLIP_GET_CURSOR, K.GUI_FLIP_SET_CURSOR
local FLIP_GET_RATE, FLIP_SET_RATE = K.GUI_FLIP_GET_RATE, K.GUI_FLIP_SET_RATE
local flipout = ffi.new("float[1]")

function gui.play_flipbook(h, animation, complete_function, play_properties)
  h = node_arg("gui.play_flipbook", h)
  local text = name_arg("gui.play_flipbook", 2, animation, "animation")
  if complete_function ~= nil and type(complete_function) ~= "function" then
    argerr("gui.play_flipbook", 3, "function", complete_function)
  end
  local offset, rate = 0, 1
  if play_properties ~= nil then
    if type(play_properties) ~= "table" then argerr("gui.play_flipbook", 4, "table", play_properties) end
    for k, v in pairs(play_properties) do
      if (k ~= "offset" and k ~= "playback_rate") or type(v) ~= "number" then
        fail(string.format("gui.play_flipbook: bad argument #4: unknown or non-number play property '%s'", tostring(k)))
      end
    end
    offset = play_properties.offset or 0
    rate = play_properties.playback_rate or 1
  end
  local r, cb = current(), 0
  if complete_function then
    cb = S.add_play_callback(function(self) complete_function(self, h) end, r)
  end
  local rc = F.gui_play_flipbook(ctx, h.i, h.n, text, #text, offset, rate, r.index, cb)
  if rc ~= 0 then
    if cb ~= 0 then S.take_play_callback(cb) end
    fail_last()
  end
end

function gui.get_flipbook(h)
  h = node_arg("gui.get_flipbook", h)
  return S.hash(get_name(h, K.GUI_FLIPBOOK))
end

local function flip_op(fname, h, op, value)
  h = node_arg(fname, h)
  check(F.gui_flipbook(ctx, h.i, h.n, op, value or 0, flipout))
  return flipout[0]
end

function gui.cancel_flipbook(h)
  flip_op("gui.cancel_flipbook", h, FLIP_CANCEL)
end

function gui.get_flipbook_cursor(h)
  return flip_op("gui.get_flipbook_cursor", h, FLIP_GET_CURSOR)
end

function gui.set_flipbook_cursor(h, cursor)
  if type(cursor) ~= "number" then argerr("gui.set_flipbook_cursor", 2, "number", cursor) end
  flip_op("gui.set_flipbook_cursor", h, FLIP_SET_CURSOR, cursor)
end

function gui.get_flipbook_playback_rate(h)
  return flip_op("gui.get_flipbook_playback_rate", h, FLIP_GET_RATE)
end

function gui.set_flipbook_playback_rate(h, rate)
  if type(rate) ~= "number" then argerr("gui.set_flipbook_playback_rate", 2, "number", rate) end
  flip_op("gui.set_flipbook_playback_rate", h, FLIP_SET_RATE, rate)
end

return S.unsupported_rest("gui", gui)
