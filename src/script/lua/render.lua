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

function render.draw(p, options)
  local n = predicate_of("render.draw", p)
  options_ok("render.draw", 2, options)
  check("render.draw", F.render_draw(ctx, n))
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
