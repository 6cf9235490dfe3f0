-- The `render` namespace of a project's own render script (Defold's `[bootstrap] render`).
-- Each call records a command of the frame (api/render.rs, game/render_script.rs), which the
-- renderer carries out after the script's `update`. Of the render states, model draws take the
-- cull face and the depth function; the others (blend, stencil, masks) are checked and left:
-- each of Sinew's passes sets its own.
local ffi = require("ffi")
local S = ...
local F, ctx, vm, K = S.F, S.ctx, S.vm, S.K
local fail, argerr = S.fail, S.argerr

local render = {}
-- Defold's constants: the runtime's RENDER_* (one list, in Rust; its RS_* are this file's own).
for name, v in pairs(K) do
  local k = name:match("^RENDER_(.+)$")
  if k then render[k] = v end
end

local function check(fname, rc) if rc ~= 0 then fail(fname .. ": " .. ffi.string(F.last_error())) end end

local predicate_mt = { __tostring = function(p) return "predicate: " .. p.n end }
local tags = ffi.new("uint64_t[?]", K.RS_MAX_TAGS)

function render.predicate(list)
  if type(list) ~= "table" then argerr("render.predicate", 1, "table", list) end
  local n = #list
  if n == 0 or n > ffi.sizeof(tags) / 8 then
    fail(string.format("render.predicate: a predicate needs 1 to %d tags, not %d", ffi.sizeof(tags) / 8, n))
  end
  for i = 1, n do
    local t = list[i]
    if type(t) == "string" then t = S.hash(t)
    elseif S.value_kind(t) ~= "hash" then
      fail(string.format("render.predicate: tag %d must be a string or a hash, not %s", i, S.type_name(t)))
    end
    tags[i - 1] = t.h
  end
  local p = F.render_predicate(ctx, tags, n)
  if p < 0 then fail("render.predicate: " .. ffi.string(F.last_error())) end
  return setmetatable({ n = p }, predicate_mt)
end

local function predicate_of(fname, p)
  if getmetatable(p) ~= predicate_mt then argerr(fname, 1, "predicate (render.predicate)", p) end
  return p.n
end

local function options_ok(fname, n, options)
  if options ~= nil and type(options) ~= "table" then argerr(fname, n, "table or nil", options) end
end

-- A draw's `constants` (a table from render.constant_buffer, filled by name): vector4s, which
-- the draw's materials take over their own values of those names.
local MAX_CONSTANTS = K.RS_DRAW_CONSTANTS
local constant_names = ffi.new("uint64_t[?]", MAX_CONSTANTS)
local constant_values = ffi.new("float[?]", 4 * MAX_CONSTANTS)
local function constants_of(fname, options)
  local cb = options and options.constants
  if cb == nil then return 0 end
  if type(cb) ~= "table" then
    fail(fname .. ": options.constants must be a table (render.constant_buffer), not " .. S.type_name(cb))
  end
  local n = 0
  for name, v in pairs(cb) do
    if n == MAX_CONSTANTS then fail(string.format("%s: a draw carries at most %d constants", fname, MAX_CONSTANTS)) end
    local h
    if type(name) == "string" then h = S.hash(name).h
    elseif S.value_kind(name) == "hash" then h = name.h
    else fail(fname .. ": a constant's name must be a string or a hash, not " .. S.type_name(name)) end
    local kind = S.value_kind(v)
    if kind ~= "vector4" then
      if kind == "matrix4" or type(v) == "table" then
        fail(string.format("%s: constant '%s' is a %s; constants other than vector4s are not supported by Sinew",
          fname, tostring(name), S.type_name(v)))
      end
      fail(string.format("%s: constant '%s' must be a vector4, not %s", fname, tostring(name), S.type_name(v)))
    end
    constant_names[n] = h
    local at = 4 * n
    constant_values[at], constant_values[at + 1], constant_values[at + 2], constant_values[at + 3] = v.x, v.y, v.z, v.w
    n = n + 1
  end
  return n
end

function render.draw(p, options)
  local n = predicate_of("render.draw", p)
  options_ok("render.draw", 2, options)
  local c = constants_of("render.draw", options)
  check("render.draw", F.render_draw(ctx, n, constant_names, constant_values, c))
end

function render.draw_debug3d(options)
  options_ok("render.draw_debug3d", 1, options)
  check("render.draw_debug3d", F.render_draw_debug3d(ctx))
end

-- Defold's older name, still in the render scripts of many games.
function render.draw_debug2d(options)
  options_ok("render.draw_debug2d", 1, options)
  check("render.draw_debug2d", F.render_draw_debug3d(ctx))
end

local COLOR, DEPTH, STENCIL = K.RENDER_BUFFER_COLOR_BIT, K.RENDER_BUFFER_DEPTH_BIT, K.RENDER_BUFFER_STENCIL_BIT
local OTHER_COLORS = { [K.GRAPHICS_BUFFER_TYPE_COLOR1_BIT] = true, [K.GRAPHICS_BUFFER_TYPE_COLOR2_BIT] = true,
  [K.GRAPHICS_BUFFER_TYPE_COLOR3_BIT] = true }

function render.clear(buffers)
  if type(buffers) ~= "table" then argerr("render.clear", 1, "table", buffers) end
  local has, c, depth, stencil = 0, nil, 0, 0
  for k, v in pairs(buffers) do
    if k == COLOR then
      local kind = S.value_kind(v)
      if kind ~= "vector4" then
        fail("render.clear: the colour buffer's value must be a vector4, not " .. S.type_name(v))
      end
      has, c = has + COLOR, v
    elseif OTHER_COLORS[k] then
      -- a render target's other colour buffers: the window has none
    elseif k == DEPTH or k == STENCIL then
      if type(v) ~= "number" then
        fail("render.clear: the " .. (k == DEPTH and "depth" or "stencil") .. " buffer's value must be a number, not "
          .. S.type_name(v))
      end
      if k == DEPTH then has, depth = has + DEPTH, v else has, stencil = has + STENCIL, v end
    else
      fail("render.clear: unknown buffer " .. tostring(k) .. " (render.BUFFER_COLOR_BIT, BUFFER_DEPTH_BIT or BUFFER_STENCIL_BIT)")
    end
  end
  local r, g, b, a = 0, 0, 0, 0
  if c then r, g, b, a = c.x, c.y, c.z, c.w end
  check("render.clear", F.render_clear(ctx, has, r, g, b, a, depth, stencil))
end

function render.set_viewport(x, y, w, h)
  local args = { x, y, w, h }
  for i = 1, 4 do
    if type(args[i]) ~= "number" or not S.finite(args[i]) then argerr("render.set_viewport", i, "number", args[i]) end
  end
  check("render.set_viewport", F.render_viewport(ctx, x, y, w, h))
end

-- The view and projection the script set itself, which `render.set_camera(nil)` goes back to.
local own = { [K.RS_MATRIX_VIEW] = vmath.matrix4(), [K.RS_MATRIX_PROJECTION] = vmath.matrix4() }
local function matrix_setter(fname, which)
  return function(m)
    if S.value_kind(m) ~= "matrix4" then argerr(fname, 1, "matrix4", m) end
    check(fname, F.render_matrix(ctx, which, m))
    own[which] = vmath.matrix4(m)
  end
end
render.set_view = matrix_setter("render.set_view", K.RS_MATRIX_VIEW)
render.set_projection = matrix_setter("render.set_projection", K.RS_MATRIX_PROJECTION)

-- Defold 1.9's: the next draws are seen through a camera component (its view and projection),
-- or, with nil, through what set_view and set_projection gave again. `options` (`use_frustum`)
-- is read and left.
function render.set_camera(url, options)
  options_ok("render.set_camera", 2, options)
  local view, projection
  if url == nil then
    view, projection = own[K.RS_MATRIX_VIEW], own[K.RS_MATRIX_PROJECTION]
  else
    view, projection = camera.get_view(url), camera.get_projection(url)
  end
  check("render.set_camera", F.render_matrix(ctx, K.RS_MATRIX_VIEW, view))
  check("render.set_camera", F.render_matrix(ctx, K.RS_MATRIX_PROJECTION, projection))
end

-- Constants a draw would hand its materials: a table to fill, which draws read and leave.
function render.constant_buffer() return {} end

local size = ffi.new("float[1]")
local function getter(fname, which)
  return function()
    check(fname, F.render_size(ctx, which, size))
    return size[0]
  end
end
render.get_width = getter("render.get_width", K.RS_SIZE_WIDTH)
render.get_height = getter("render.get_height", K.RS_SIZE_HEIGHT)
render.get_window_width = getter("render.get_window_width", K.RS_SIZE_WINDOW_WIDTH)
render.get_window_height = getter("render.get_window_height", K.RS_SIZE_WINDOW_HEIGHT)

---------------------------------------------------------------- render targets
-- A render target is a handle to its number in Rust (game/render_targets.rs), whose frame
-- buffer the renderer makes; RENDER_TARGET_DEFAULT is the window.
local target_mt = { __tostring = function(t) return "render_target: " .. (t.name or t.n) end }
local DEFAULT = newproxy(true)
getmetatable(DEFAULT).__tostring = function() return "render_target: default" end
render.RENDER_TARGET_DEFAULT = DEFAULT

local STRIDE, BUFFERS = K.RS_TARGET_STRIDE, K.RS_TARGET_BUFFERS
local FIELDS = S.R.render_target_fields
local params = ffi.new("double[?]", STRIDE * BUFFERS)

-- render.render_target([name,] params): `params` maps buffer types to tables of format, size,
-- filters and wraps (other fields, such as `flags`, are taken and left).
function render.render_target(name, buffers)
  local fname = "render.render_target"
  if buffers == nil and type(name) == "table" then name, buffers = nil, name end
  if name ~= nil and type(name) ~= "string" and S.value_kind(name) ~= "hash" then
    argerr(fname, 1, "string", name)
  end
  if type(buffers) ~= "table" then argerr(fname, 2, "table", buffers) end
  local n = 0
  for bit, p in pairs(buffers) do
    if n == BUFFERS then fail(string.format("%s: a render target has at most %d buffers", fname, BUFFERS)) end
    if type(bit) ~= "number" then
      fail(fname .. ": the table's keys are buffer types (graphics.BUFFER_TYPE_*_BIT), not " .. S.type_name(bit))
    end
    if type(p) ~= "table" then
      fail(string.format("%s: buffer %s must be given a table, not %s", fname, tostring(bit), S.type_name(p)))
    end
    local at = n * STRIDE
    params[at] = bit
    for i = 1, #FIELDS do
      local v = p[FIELDS[i]]
      if v == nil then v = 0 / 0
      elseif type(v) ~= "number" then
        fail(string.format("%s: %s of buffer %s must be a number, not %s", fname, FIELDS[i], tostring(bit), S.type_name(v)))
      end
      params[at + i] = v
    end
    n = n + 1
  end
  local t = F.render_target_make(ctx, params, n)
  if t < 0 then fail(fname .. ": " .. ffi.string(F.last_error())) end
  return setmetatable({ n = t, name = name and tostring(name) }, target_mt)
end

local function target_of(fname, i, t, default_ok)
  if t == DEFAULT and default_ok then return -1 end
  if getmetatable(t) ~= target_mt then argerr(fname, i, "render target (render.render_target)", t) end
  return t.n
end

function render.delete_render_target(t)
  check("render.delete_render_target", F.render_target_delete(ctx, target_of("render.delete_render_target", 1, t)))
end

function render.set_render_target(t, options)
  options_ok("render.set_render_target", 2, options)
  local n = t == nil and -1 or target_of("render.set_render_target", 1, t, true)
  check("render.set_render_target", F.render_target_set(ctx, n))
end

-- Defold's older pair.
function render.enable_render_target(t)
  check("render.enable_render_target", F.render_target_set(ctx, target_of("render.enable_render_target", 1, t)))
end
function render.disable_render_target(t)
  if t ~= nil then target_of("render.disable_render_target", 1, t) end
  check("render.disable_render_target", F.render_target_set(ctx, -1))
end

function render.set_render_target_size(t, w, h)
  local fname = "render.set_render_target_size"
  local n = target_of(fname, 1, t)
  if type(w) ~= "number" then argerr(fname, 2, "number", w) end
  if type(h) ~= "number" then argerr(fname, 3, "number", h) end
  check(fname, F.render_target_resize(ctx, n, w, h))
end

local target_size = ffi.new("float[2]")
local function target_getter(fname, i)
  return function(t, buffer)
    local n = target_of(fname, 1, t)
    if type(buffer) ~= "number" then argerr(fname, 2, "number", buffer) end
    check(fname, F.render_target_size(ctx, n, buffer, target_size))
    return target_size[i]
  end
end
render.get_render_target_width = target_getter("render.get_render_target_width", 0)
render.get_render_target_height = target_getter("render.get_render_target_height", 1)

-- The sampler a texture binding names: a unit number, or a sampler's name (string or hash).
local function binding_of(fname, b)
  if type(b) == "number" then
    if b < 0 or b % 1 ~= 0 then argerr(fname, 1, "texture unit (a whole number from 0)", b) end
    return b, 0
  elseif type(b) == "string" then return -1, S.hash(b).h
  elseif S.value_kind(b) == "hash" then return -1, b.h
  end
  argerr(fname, 1, "number, string or hash", b)
end

function render.enable_texture(binding, t, buffer)
  local fname = "render.enable_texture"
  local unit, sampler = binding_of(fname, binding)
  if getmetatable(t) ~= target_mt then
    if type(t) == "string" or S.value_kind(t) == "hash" then
      fail(fname .. ": a texture resource is not supported by Sinew (see README, API coverage); render targets are")
    end
    argerr(fname, 2, "render target", t)
  end
  local n = target_of(fname, 2, t)
  if buffer == nil then buffer = K.RENDER_BUFFER_COLOR_BIT
  elseif type(buffer) ~= "number" then argerr(fname, 3, "number", buffer) end
  check(fname, F.render_texture(ctx, 1, unit, sampler, n, buffer))
end

-- Defold's older form passes the render target second too; it is not needed.
function render.disable_texture(binding)
  local unit, sampler = binding_of("render.disable_texture", binding)
  check("render.disable_texture", F.render_texture(ctx, 0, unit, sampler, 0, 0))
end

-- Render states: their arguments are checked, and each of Sinew's passes sets its own states.
local function numbers(fname, count)
  return function(...)
    for i = 1, count do
      local v = select(i, ...)
      if type(v) ~= "number" then argerr(fname, i, "number", v) end
    end
  end
end
render.enable_state = numbers("render.enable_state", 1)
render.disable_state = numbers("render.disable_state", 1)
render.set_blend_func = numbers("render.set_blend_func", 2)
-- The two a model draw takes from the script (front faces culled and a less-or-equal depth
-- test draw a sky box from inside).
local function state_setter(fname, which)
  return function(v)
    if type(v) ~= "number" then argerr(fname, 1, "number", v) end
    check(fname, F.render_state(ctx, which, v))
  end
end
render.set_depth_func = state_setter("render.set_depth_func", K.RS_STATE_DEPTH_FUNC)
render.set_cull_face = state_setter("render.set_cull_face", K.RS_STATE_CULL_FACE)
render.set_stencil_mask = numbers("render.set_stencil_mask", 1)
render.set_stencil_func = numbers("render.set_stencil_func", 3)
render.set_stencil_op = numbers("render.set_stencil_op", 3)
render.set_polygon_offset = numbers("render.set_polygon_offset", 2)

function render.set_depth_mask(on)
  if type(on) ~= "boolean" then argerr("render.set_depth_mask", 1, "boolean", on) end
end

function render.set_color_mask(r, g, b, a)
  local args = { r, g, b, a }
  for i = 1, 4 do
    if type(args[i]) ~= "boolean" then argerr("render.set_color_mask", i, "boolean", args[i]) end
  end
end

return render
