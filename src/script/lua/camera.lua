-- The `camera` namespace (Defold's, plus screen_to_world / world_to_screen) and camera-component
-- properties for go.get/go.set (`fov`, `near_z`, `far_z`, `orthographic_zoom`, `aspect_ratio`, and
-- the read-only matrix4s `view` and `projection`).
-- Arguments are checked here; Rust does the work (api/camera.rs, game/camera.rs).
local ffi = require("ffi")
local S = ...
local F, ctx, vm = S.F, S.ctx, S.vm
local fail, argerr = S.fail, S.argerr

local K = S.K
local CAMERA = K.COMPONENT_CAMERA
local PROPS = {
  fov = K.CAMERA_FOV, near_z = K.CAMERA_NEAR_Z, far_z = K.CAMERA_FAR_Z,
  orthographic_zoom = K.CAMERA_ORTHOGRAPHIC_ZOOM, aspect_ratio = K.CAMERA_ASPECT_RATIO,
  orthographic_mode = K.CAMERA_ORTHOGRAPHIC_MODE,
}

local function check(rc) if rc ~= 0 then S.fail_last() end end
local f1 = ffi.new("float[1]")

local function prop(slot, comp, which, value)
  check(F.camera_prop(ctx, slot, comp, which, value ~= nil and 1 or 0, value or 0, f1))
  return f1[0]
end

---------------------------------------------------------------- go.get / go.set
local props = {}
S.component_kinds[CAMERA] = props

-- Read only, as camera.get_view / get_projection.
local MATRICES = { view = K.CAMERA_VIEW, projection = K.CAMERA_PROJECTION }

local function matrix_of(slot, comp, which)
  local m = vm.matrix4_t()
  check(F.camera_matrix(ctx, slot, comp, which, m))
  return m
end

function props.kind(slot, comp, name)
  if MATRICES[name] then return "matrix4" end
  return PROPS[name] and "number" or nil
end

local function which_of(name, where_text)
  local w = PROPS[name]
  if w == nil then fail(string.format("'%s' does not have any property called '%s'", where_text, name)) end
  return w
end

function props.get(slot, comp, name, where_text)
  if MATRICES[name] then return matrix_of(slot, comp, MATRICES[name]) end
  return prop(slot, comp, which_of(name, where_text))
end

function props.set(slot, comp, name, value, where_text)
  if MATRICES[name] then fail(string.format("could not perform unsupported operation on '%s'", name)) end
  local w = which_of(name, where_text)
  if type(value) ~= "number" then
    fail(string.format("the property '%s' of '%s' must be a number", name, where_text))
  end
  prop(slot, comp, w, value)
end

---------------------------------------------------------------- lights: go.get / go.set
-- `color` (vector3, and .x/.y/.z) and `intensity` (number) of a light component; an ambient
-- light's are the scene's ambient term, so go.animate can fade a scene's light in and out.
local lights = {}
S.component_kinds[K.COMPONENT_LIGHT] = lights
local v3 = vm.vector3_t()

local function light_which(name, where_text)
  local base, c = name:match("^(.-)%.([xyz])$")
  base = base or name
  if base == "color" then return K.LIGHT_COLOR, c end
  if base == "intensity" and c == nil then return K.LIGHT_INTENSITY end
  fail(string.format("'%s' does not have any property called '%s'", where_text, name))
end

function lights.kind(slot, comp, name)
  if name == "color" then return "vector3" end
  if name == "intensity" then return "number" end
  return nil
end

function lights.get(slot, comp, name, where_text)
  local which, c = light_which(name, where_text)
  check(F.light_prop(ctx, slot, comp, which, 0, 0, 0, 0, v3))
  if which == K.LIGHT_INTENSITY then return v3.x end
  if c then return v3[c] end
  return vm.vector3(v3.x, v3.y, v3.z)
end

function lights.set(slot, comp, name, value, where_text)
  local which, c = light_which(name, where_text)
  local function wrong(t) fail(string.format("the property '%s' of '%s' must be a %s", name, where_text, t)) end
  if which == K.LIGHT_INTENSITY or c then
    if type(value) ~= "number" then wrong("number") end
    if which == K.LIGHT_INTENSITY then
      check(F.light_prop(ctx, slot, comp, which, 1, value, 0, 0, v3))
      return
    end
    check(F.light_prop(ctx, slot, comp, which, 0, 0, 0, 0, v3))
    v3[c] = value
    check(F.light_prop(ctx, slot, comp, which, 1, v3.x, v3.y, v3.z, v3))
    return
  end
  if not ffi.istype(vm.vector3_t, value) then wrong("vector3") end
  check(F.light_prop(ctx, slot, comp, which, 1, value.x, value.y, value.z, v3))
end

---------------------------------------------------------------- camera.*
local camera = {}

-- The camera `url` names (nil: the one drawn now), as slot and component id.
local slot_out, comp_out = ffi.new("uint32_t[1]"), ffi.new("uint64_t[1]")
local function camera_of(fname, url, n)
  local r = S.caller("camera")
  if url == nil then
    local found = F.camera_active(ctx, slot_out, comp_out)
    if found < 0 then S.fail_last() end
    if found == 0 then fail(fname .. ": there is no enabled camera") end
    return slot_out[0], comp_out[0]
  end
  local slot, u = S.component_of(fname, url, r, CAMERA, n)
  return slot, u.f
end

for name, which in pairs(PROPS) do
  local getter = "get_" .. name
  camera[getter] = function(url)
    local slot, comp = camera_of("camera." .. getter, url, 1)
    return prop(slot, comp, which)
  end
  if name ~= "aspect_ratio" then
    local setter = "set_" .. name
    camera[setter] = function(url, value)
      local slot, comp = camera_of("camera." .. setter, url, 1)
      if type(value) ~= "number" then argerr("camera." .. setter, 2, "number", value) end
      prop(slot, comp, which, value)
    end
  end
end

-- Defold 1.9's: whether the camera is enabled (its render scripts draw only through those).
function camera.get_enabled(url)
  local slot, comp = camera_of("camera.get_enabled", url, 1)
  return prop(slot, comp, K.CAMERA_ENABLED) ~= 0
end

camera.ORTHO_MODE_FIXED = K.CAMERA_ORTHO_MODE_FIXED
camera.ORTHO_MODE_AUTO_FIT = K.CAMERA_ORTHO_MODE_AUTO_FIT
camera.ORTHO_MODE_AUTO_COVER = K.CAMERA_ORTHO_MODE_AUTO_COVER

function camera.get_cameras()
  local n = F.camera_list(ctx, nil, 0)
  if n < 0 then S.fail_last() end
  local out = ffi.new("sinew_url[?]", math.max(n, 1))
  n = F.camera_list(ctx, out, n)
  local list = {}
  for i = 0, n - 1 do list[i + 1] = S.url_t(out[i].s, out[i].p, out[i].f) end
  return list
end

local function matrix(fname, url, which)
  local slot, comp = camera_of(fname, url, 1)
  return matrix_of(slot, comp, which)
end
function camera.get_view(url) return matrix("camera.get_view", url, MATRICES.view) end
function camera.get_projection(url) return matrix("camera.get_projection", url, MATRICES.projection) end

local function convert(fname, p, url, to_world)
  if not ffi.istype(vm.vector3_t, p) then argerr(fname, 1, "vector3", p) end
  local slot, comp = camera_of(fname, url, 2)
  local out = vm.vector3_t()
  check(F.camera_convert(ctx, slot, comp, to_world, p.x, p.y, p.z, out))
  return out
end
-- Window pixel (x, y; origin bottom left, as action.screen_x/screen_y) and z, the distance in
-- front of the camera, to a world point.
function camera.screen_to_world(p, url) return convert("camera.screen_to_world", p, url, 1) end
-- A world point to window pixel (x, y) and its distance in front of the camera (z).
function camera.world_to_screen(p, url) return convert("camera.world_to_screen", p, url, 0) end

return camera
