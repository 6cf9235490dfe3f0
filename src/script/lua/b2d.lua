-- Box2D's own API (`b2d`, `b2d.body`, `b2d.shape`, `b2d.joint`, `b2d.world`): Defold's 2D physics
-- extension in its Box2D 3 form, over Sinew's 2D world. Handles are small tables (a body: its
-- collision object and serial; a shape: its world and collider; a joint: its slot and serial);
-- definition tables are read here into the C structs Rust declares. Rust does the work.
local ffi = require("ffi")
local S = ...
local F, ctx, vm = S.F, S.ctx, S.vm
local fail, argerr = S.fail, S.argerr
local istype = ffi.istype
local K = S.K

local check = S.check_in

---------------------------------------------------------------- handles
local BODY, SHAPE, JOINT, WORLD, CHAIN = {}, {}, {}, {}, {}
for name, mt in pairs({ b2body = BODY, b2shape = SHAPE, b2joint = JOINT, b2world = WORLD, b2chain = CHAIN }) do
  mt.__name = name
  mt.__tostring = function(h) return string.format("Box2D.%s = %s", name, table.concat(h, ":")) end
  mt.__eq = function(a, b)
    for i = 1, #a do if a[i] ~= b[i] then return false end end
    return true
  end
end

local function body_h(i, s) return setmetatable({ i, s }, BODY) end
local function shape_h(w, a, b) return setmetatable({ w, a, b }, SHAPE) end

local function want(fname, n, v, mt)
  if getmetatable(v) ~= mt then argerr(fname, n, mt.__name, v) end
  return v
end

local u2 = ffi.new("uint32_t[2]")
local u3 = ffi.new("uint32_t[3]")
local i1 = ffi.new("int32_t[1]")
local f1 = ffi.new("float[1]")
local f8 = ffi.new("float[8]")
local s4 = vm.vector4_t()

local function vec(fname, n, v)
  if not istype(vm.vector3_t, v) then argerr(fname, n, "vmath.vector3", v) end
  return v
end

local function num(fname, n, v)
  if type(v) ~= "number" then argerr(fname, n, "number", v) end
  return v
end

---------------------------------------------------------------- definition tables
local SHAPE_TYPE = {
  CIRCLE = K.B2D_SHAPE_CIRCLE, CAPSULE = K.B2D_SHAPE_CAPSULE, SEGMENT = K.B2D_SHAPE_SEGMENT,
  POLYGON = K.B2D_SHAPE_POLYGON,
}
local CHAIN_TYPE = K.B2D_SHAPE_CHAIN
local MAX_CHAIN = K.B2D_MAX_CHAIN_VERTICES
local sd = ffi.new("sinew_b2d_shape")
local verts = ffi.new("float[?]", 2 * MAX_CHAIN)
local NAN = 0 / 0

-- Field `key` of a definition table: a vmath.vector3 (`vector`) or a number; `need`: an error
-- when missing, else nil (a number: NaN, Rust's "not given").
local function field(fname, t, key, need, vector)
  local what = vector and "a vmath.vector3" or "a number"
  local v = t[key]
  if v == nil then
    if need then fail(string.format("%s: the shape needs '%s' (%s)", fname, key, what)) end
    return (not vector) and NAN or nil
  end
  if (vector and not istype(vm.vector3_t, v)) or (not vector and type(v) ~= "number") then
    fail(string.format("%s: '%s' must be %s", fname, key, what))
  end
  return v
end
local function field_vec(fname, t, key, need) return field(fname, t, key, need, true) end
local function field_num(fname, t, key, need) return field(fname, t, key, need, false) end

local function read_vertices(fname, list, cap)
  if type(list) ~= "table" then fail(fname .. ": 'vertices' must be a table of vmath.vector3") end
  local n = #list
  if n > cap then fail(string.format("%s: Expected at most %d vertices, got %d.", fname, cap, n)) end
  for k = 1, n do
    local p = list[k]
    if not istype(vm.vector3_t, p) then fail(string.format("%s: vertices[%d] must be a vmath.vector3", fname, k)) end
    verts[2 * k - 2], verts[2 * k - 1] = p.x, p.y
  end
  sd.vertices, sd.nvertices = verts, n
end

local function reset_def()
  ffi.fill(sd, ffi.sizeof(sd))
  sd.radius, sd.angle, sd.friction, sd.restitution, sd.density = NAN, 0, NAN, NAN, NAN
end

-- A geometry table (Defold's `type` with `radius`/`center`, `center1`/`center2`, `v1`/`v2`,
-- `hx`/`hy` or `vertices`) into `sd`.
local function read_geom(fname, n, t)
  if type(t) ~= "table" then argerr(fname, n, "table", t) end
  local ty = t.type
  if type(ty) ~= "number" then fail(fname .. ": the shape needs 'type' (b2d.shape.SHAPE_TYPE_*)") end
  sd.ty = ty
  if ty == SHAPE_TYPE.CIRCLE then
    sd.radius = field_num(fname, t, "radius", true)
    local c = field_vec(fname, t, "center")
    if c then sd.center[0], sd.center[1] = c.x, c.y end
  elseif ty == SHAPE_TYPE.CAPSULE then
    sd.radius = field_num(fname, t, "radius", true)
    local a, b = field_vec(fname, t, "center1", true), field_vec(fname, t, "center2", true)
    sd.a[0], sd.a[1], sd.b[0], sd.b[1] = a.x, a.y, b.x, b.y
  elseif ty == SHAPE_TYPE.SEGMENT then
    local a, b = field_vec(fname, t, "v1", true), field_vec(fname, t, "v2", true)
    sd.a[0], sd.a[1], sd.b[0], sd.b[1] = a.x, a.y, b.x, b.y
  elseif ty == SHAPE_TYPE.POLYGON then
    if t.hx ~= nil or t.hy ~= nil then
      if t.hx == nil or t.hy == nil then fail(fname .. ": Polygon box shape requires both hx and hy.") end
      sd.is_box = 1
      sd.half[0], sd.half[1] = field_num(fname, t, "hx", true), field_num(fname, t, "hy", true)
      local c = field_vec(fname, t, "center")
      if c then sd.center[0], sd.center[1] = c.x, c.y end
      if t.angle ~= nil then sd.angle = field_num(fname, t, "angle") end
    else
      read_vertices(fname, t.vertices, K.B2D_MAX_POLYGON_VERTICES)
    end
  else
    fail(string.format("%s: Unsupported shape type %s.", fname, tostring(ty)))
  end
end

-- The material keys of a create table.
local function read_material(fname, t)
  sd.friction = field_num(fname, t, "friction")
  sd.restitution = field_num(fname, t, "restitution")
  sd.density = field_num(fname, t, "density")
end

-- A shape handle, or a body and a shape index (Defold takes both): world, collider, generation
-- and the argument index of the value after them.
local function shape_arg(fname, a, b)
  local mt = getmetatable(a)
  if mt == SHAPE then return a[1], a[2], a[3], 2 end
  if mt == BODY then
    if type(b) ~= "number" then argerr(fname, 2, "number", b) end
    check(fname, F.b2d_shape_at(ctx, a[1], a[2], b, u3))
    return u3[0], u3[1], u3[2], 3
  end
  argerr(fname, 1, "b2shape", a)
end

local function shape_info(fname, w, a, b)
  check(fname, F.b2d_shape_info(ctx, w, a, b, f8))
  return {
    shape_id = shape_h(w, a, b), index = f8[5], type = f8[0], sensor = f8[1] ~= 0,
    density = f8[2], friction = f8[3], restitution = f8[4], material = 0, child_count = 1,
    is_chain_segment = f8[6] ~= 0,
  }
end

local MAX_RESULTS = K.B2D_MAX_RESULTS
local hbuf = ffi.new("uint32_t[?]", 3 * MAX_RESULTS)
local fbuf = ffi.new("float[?]", 5 * MAX_RESULTS)

local function infos(fname, count)
  if count < 0 then fail(fname .. ": " .. ffi.string(F.last_error())) end
  local out = {}
  for j = 0, count - 1 do out[j + 1] = shape_info(fname, hbuf[3 * j], hbuf[3 * j + 1], hbuf[3 * j + 2]) end
  return out
end

---------------------------------------------------------------- b2d
local b2d = { body = {}, shape = {}, joint = {}, world = {} }
local body, shape, joint, world = b2d.body, b2d.shape, b2d.joint, b2d.world

function b2d.get_version()
  local major, middle, minor = K.B2D_VERSION_MAJOR, K.B2D_VERSION_MINOR, K.B2D_VERSION_REVISION
  return { version = string.format("%d.%d.%d", major, middle, minor), major = major, middle = middle, minor = minor }
end

function b2d.get_world()
  local r = S.caller("b2d.get_world")
  check("b2d.get_world", F.b2d_get_world(ctx, r.url.s, i1))
  if i1[0] < 0 then return nil end
  return setmetatable({ i1[0] }, WORLD)
end

function b2d.get_body(url)
  local fname = "b2d.get_body"
  local r = S.caller(fname)
  local slot, u = S.component_of(fname, url, r, K.COMPONENT_COLLISION_OBJECT)
  check(fname, F.b2d_get_body(ctx, slot, u.f, u2))
  return body_h(u2[0], u2[1])
end

---------------------------------------------------------------- b2d.body
-- OP.set_linear_velocity is K.B2D_BODY_SET_LINEAR_VELOCITY: the numbers are Rust's.
local OP = setmetatable({}, { __index = function(t, name)
  local v = K["B2D_BODY_" .. name:upper()]
  if v == nil then error("no b2d body operation " .. name) end
  t[name] = v
  return v
end })

-- `op` on body `b` with up to four numbers; returns the out vector.
local function body_op(fname, b, op, x, y, z, w)
  want(fname, 1, b, BODY)
  check(fname, F.b2d_body(ctx, b[1], b[2], op, x or 0, y or 0, z or 0, w or 0, s4))
  return s4
end

local function flag(v) return (v and v ~= 0) and 1 or 0 end

function body.set_linear_velocity(b, v)
  vec("b2d.body.set_linear_velocity", 2, v)
  body_op("b2d.body.set_linear_velocity", b, OP.set_linear_velocity, v.x, v.y)
end
function body.set_angular_velocity(b, w)
  body_op("b2d.body.set_angular_velocity", b, OP.set_angular_velocity, num("b2d.body.set_angular_velocity", 2, w))
end
function body.set_awake(b, on) body_op("b2d.body.set_awake", b, OP.set_awake, flag(on)) end
function body.set_active(b, on) body_op("b2d.body.set_active", b, OP.set_active, flag(on)) end
function body.set_transform(b, p, angle)
  vec("b2d.body.set_transform", 2, p)
  body_op("b2d.body.set_transform", b, OP.set_transform, p.x, p.y, num("b2d.body.set_transform", 3, angle))
end
function body.set_gravity_scale(b, g)
  body_op("b2d.body.set_gravity_scale", b, OP.set_gravity_scale, num("b2d.body.set_gravity_scale", 2, g))
end
function body.set_linear_damping(b, d)
  body_op("b2d.body.set_linear_damping", b, OP.set_linear_damping, num("b2d.body.set_linear_damping", 2, d))
end
function body.set_angular_damping(b, d)
  body_op("b2d.body.set_angular_damping", b, OP.set_angular_damping, num("b2d.body.set_angular_damping", 2, d))
end
function body.set_fixed_rotation(b, on) body_op("b2d.body.set_fixed_rotation", b, OP.set_fixed_rotation, flag(on)) end
function body.reset_mass_data(b) body_op("b2d.body.reset_mass_data", b, OP.reset_mass_data) end
-- apply_linear_impulse / apply_force: a vector at a world point of a dynamic body.
for _, name in ipairs({ "apply_linear_impulse", "apply_force" }) do
  local fname, op = "b2d.body." .. name, OP[name]
  body[name] = function(b, v, point)
    vec(fname, 2, v)
    vec(fname, 3, point)
    body_op(fname, b, op, v.x, v.y, point.x, point.y)
  end
end

local function v3(o) return vm.vector3(o.x, o.y, 0) end
function body.get_position(b) return v3(body_op("b2d.body.get_position", b, OP.get_position)) end
function body.get_linear_velocity(b) return v3(body_op("b2d.body.get_linear_velocity", b, OP.get_linear_velocity)) end
function body.get_angular_velocity(b) return body_op("b2d.body.get_angular_velocity", b, OP.get_angular_velocity).x end
function body.get_world_center(b) return v3(body_op("b2d.body.get_world_center", b, OP.get_world_center)) end
function body.get_local_point(b, p)
  vec("b2d.body.get_local_point", 2, p)
  return v3(body_op("b2d.body.get_local_point", b, OP.get_local_point, p.x, p.y))
end
function body.get_world_point(b, p)
  vec("b2d.body.get_world_point", 2, p)
  return v3(body_op("b2d.body.get_world_point", b, OP.get_world_point, p.x, p.y))
end
function body.get_angle(b) return body_op("b2d.body.get_angle", b, OP.get_angle).x end
function body.get_mass(b) return body_op("b2d.body.get_mass", b, OP.get_mass).x end
function body.is_awake(b) return body_op("b2d.body.is_awake", b, OP.is_awake).x ~= 0 end
function body.is_active(b) return body_op("b2d.body.is_active", b, OP.is_active).x ~= 0 end
function body.get_type(b) return body_op("b2d.body.get_type", b, OP.get_type).x end
function body.get_gravity_scale(b) return body_op("b2d.body.get_gravity_scale", b, OP.get_gravity_scale).x end
function body.get_linear_damping(b) return body_op("b2d.body.get_linear_damping", b, OP.get_linear_damping).x end

function body.get_shapes(b)
  local fname = "b2d.body.get_shapes"
  want(fname, 1, b, BODY)
  return infos(fname, F.b2d_body_shapes(ctx, b[1], b[2], hbuf, MAX_RESULTS))
end

function body.create_shape(b, def)
  local fname = "b2d.body.create_shape"
  want(fname, 1, b, BODY)
  if type(def) ~= "table" then argerr(fname, 2, "table", def) end
  if def.user_data ~= nil then fail(fname .. ": Shape user_data is not supported.") end
  reset_def()
  read_geom(fname, 2, def.shape ~= nil and def.shape or def)
  read_material(fname, def)
  local sensor = def.sensor
  if sensor == nil then sensor = def.is_sensor end
  sd.sensor = sensor and 1 or 0
  check(fname, F.b2d_create_shape(ctx, b[1], b[2], sd, u3))
  return shape_info(fname, u3[0], u3[1], u3[2])
end

function body.destroy_shape(b, index)
  local fname = "b2d.body.destroy_shape"
  want(fname, 1, b, BODY)
  check(fname, F.b2d_destroy_shape(ctx, b[1], b[2], num(fname, 2, index)))
end

-- Box2D's chains: segments through `vertices` (`loop` back to the first); the ghost vertices
-- (`prev_vertex`, `next_vertex`) are accepted and not needed.
function body.create_chain(b, def)
  local fname = "b2d.body.create_chain"
  want(fname, 1, b, BODY)
  if type(def) ~= "table" then argerr(fname, 2, "table", def) end
  if def.loop and (def.prev_vertex ~= nil or def.next_vertex ~= nil) then
    fail(fname .. ": Loop chains do not use prev_vertex or next_vertex.")
  end
  reset_def()
  sd.ty, sd.closed = CHAIN_TYPE, def.loop and 1 or 0
  read_vertices(fname, def.vertices, MAX_CHAIN)
  read_material(fname, def)
  check(fname, F.b2d_create_shape(ctx, b[1], b[2], sd, u3))
  local chain = setmetatable({ u3[0], u3[1], u3[2] }, CHAIN)
  return chain, { shape_info(fname, u3[0], u3[1], u3[2]) }
end

body.B2_STATIC_BODY = K.B2D_TYPE_STATIC
body.B2_KINEMATIC_BODY = K.B2D_TYPE_KINEMATIC
body.B2_DYNAMIC_BODY = K.B2D_TYPE_DYNAMIC

---------------------------------------------------------------- b2d.shape
for _, name in ipairs({ "CIRCLE", "CAPSULE", "SEGMENT", "EDGE", "POLYGON", "BOX" }) do
  shape["SHAPE_TYPE_" .. name] = K["B2D_SHAPE_" .. name]
end

function shape.get_body(a, b)
  local fname = "b2d.shape.get_body"
  local w, x, y = shape_arg(fname, a, b)
  check(fname, F.b2d_shape_body(ctx, w, x, y, u2))
  return body_h(u2[0], u2[1])
end

function shape.get_type(a, b)
  local w, x, y = shape_arg("b2d.shape.get_type", a, b)
  return shape_info("b2d.shape.get_type", w, x, y).type
end

local gd = ffi.new("sinew_b2d_shape")
function shape.get_shape(a, b)
  local fname = "b2d.shape.get_shape"
  local w, x, y = shape_arg(fname, a, b)
  ffi.fill(gd, ffi.sizeof(gd))
  check(fname, F.b2d_shape_geom(ctx, w, x, y, gd, fbuf, MAX_CHAIN))
  local ty = gd.ty
  local function pts()
    local out = {}
    for k = 0, gd.nvertices - 1 do out[k + 1] = vm.vector3(fbuf[2 * k], fbuf[2 * k + 1], 0) end
    return out
  end
  if ty == SHAPE_TYPE.CIRCLE then
    return { type = ty, radius = gd.radius, center = vm.vector3(gd.center[0], gd.center[1], 0) }
  elseif ty == SHAPE_TYPE.CAPSULE then
    return { type = ty, radius = gd.radius, center1 = vm.vector3(gd.a[0], gd.a[1], 0), center2 = vm.vector3(gd.b[0], gd.b[1], 0) }
  elseif ty == SHAPE_TYPE.SEGMENT then
    return { type = ty, v1 = vm.vector3(gd.a[0], gd.a[1], 0), v2 = vm.vector3(gd.b[0], gd.b[1], 0) }
  elseif ty == CHAIN_TYPE then
    return { type = SHAPE_TYPE.SEGMENT, vertices = pts(), loop = gd.closed ~= 0 }
  end
  return { type = ty, vertices = pts() }
end

function shape.set_shape(a, b, c, d)
  local fname = "b2d.shape.set_shape"
  local w, x, y, vi = shape_arg(fname, a, b)
  local def, update_mass
  if vi == 2 then def, update_mass = b, c else def, update_mass = c, d end
  if type(def) ~= "table" then argerr(fname, vi, "table", def) end
  reset_def()
  read_geom(fname, vi, def.shape ~= nil and def.shape or def)
  check(fname, F.b2d_set_shape(ctx, w, x, y, sd, update_mass and 1 or 0))
end

-- set_density / set_friction / set_restitution and their getters.
for k, name in ipairs({ "friction", "restitution", "density" }) do
  local setter, getter = "b2d.shape.set_" .. name, "b2d.shape.get_" .. name
  shape["set_" .. name] = function(a, b, c)
    local w, x, y, vi = shape_arg(setter, a, b)
    local v = num(setter, vi, vi == 2 and b or c)
    local f, r, dn = NAN, NAN, NAN
    if k == 1 then f = v elseif k == 2 then r = v else dn = v end
    check(setter, F.b2d_shape_material(ctx, w, x, y, f, r, dn))
  end
  shape["get_" .. name] = function(a, b)
    local w, x, y = shape_arg(getter, a, b)
    return shape_info(getter, w, x, y)[name]
  end
end

function shape.is_sensor(a, b)
  local w, x, y = shape_arg("b2d.shape.is_sensor", a, b)
  return shape_info("b2d.shape.is_sensor", w, x, y).sensor
end

function shape.enable_sensor_events(a, b, c)
  local fname = "b2d.shape.enable_sensor_events"
  local w, x, y, vi = shape_arg(fname, a, b)
  local on = vi == 2 and b or c
  check(fname, F.b2d_sensor_events(ctx, w, x, y, on and 1 or 0))
end

function shape.get_sensor_overlaps(a, b)
  local fname = "b2d.shape.get_sensor_overlaps"
  local w, x, y = shape_arg(fname, a, b)
  return infos(fname, F.b2d_sensor_overlaps(ctx, w, x, y, hbuf, MAX_RESULTS))
end

---------------------------------------------------------------- b2d.joint
local jd = ffi.new("sinew_b2d_joint")
local JOINT_OP = {
  set_motor_speed = K.B2D_JOINT_SET_MOTOR_SPEED, set_mouse_target = K.B2D_JOINT_SET_MOUSE_TARGET,
  get_joint_translation = K.B2D_JOINT_GET_TRANSLATION, wake_bodies = K.B2D_JOINT_WAKE_BODIES,
}

local function jvec(fname, t, key, dst)
  local v = t[key]
  if v == nil then return end
  if not istype(vm.vector3_t, v) then fail(string.format("%s: '%s' must be a vmath.vector3", fname, key)) end
  dst[0], dst[1] = v.x, v.y
end

local function jnum(fname, t, key, alias)
  local v = t[key]
  if v == nil and alias then v = t[alias] end
  if v == nil then return NAN end
  if type(v) ~= "number" then fail(string.format("%s: '%s' must be a number", fname, key)) end
  return v
end

-- Defold's joint definition keys into `jd` (NaN or 0 where not given).
local function read_joint(fname, def)
  ffi.fill(jd, ffi.sizeof(jd))
  for _, a in ipairs({ jd.anchor_a, jd.anchor_b, jd.axis, jd.target }) do a[0], a[1] = NAN, NAN end
  if def == nil then
    jd.reference_angle, jd.lower, jd.upper, jd.max_motor, jd.motor_speed = NAN, NAN, NAN, NAN, NAN
    jd.hertz, jd.damping_ratio, jd.max_force = NAN, NAN, NAN
    return
  end
  if type(def) ~= "table" then argerr(fname, 3, "table", def) end
  jvec(fname, def, "local_anchor_a", jd.anchor_a)
  jvec(fname, def, "local_anchor_b", jd.anchor_b)
  jvec(fname, def, "local_axis_a", jd.axis)
  jvec(fname, def, "target", jd.target)
  jd.reference_angle = jnum(fname, def, "reference_angle")
  jd.lower = jnum(fname, def, "lower_translation", "lower_angle")
  jd.upper = jnum(fname, def, "upper_translation", "upper_angle")
  jd.max_motor = jnum(fname, def, "max_motor_torque", "max_motor_force")
  jd.motor_speed = jnum(fname, def, "motor_speed")
  jd.hertz = jnum(fname, def, "hertz", "frequency")
  jd.damping_ratio = jnum(fname, def, "damping_ratio", "damping")
  jd.max_force = jnum(fname, def, "max_force")
  jd.enable_limit = def.enable_limit and 1 or 0
  jd.enable_motor = def.enable_motor and 1 or 0
  jd.collide = def.collide_connected and 1 or 0
end

for name, ty in pairs({ revolute = K.B2D_JOINT_REVOLUTE, prismatic = K.B2D_JOINT_PRISMATIC,
  weld = K.B2D_JOINT_WELD, mouse = K.B2D_JOINT_MOUSE }) do
  local fname = "b2d.joint.create_" .. name
  joint["create_" .. name] = function(a, b, def)
    want(fname, 1, a, BODY)
    want(fname, 2, b, BODY)
    read_joint(fname, def)
    check(fname, F.b2d_joint_create(ctx, ty, a[1], a[2], b[1], b[2], jd, u2))
    return setmetatable({ u2[0], u2[1] }, JOINT)
  end
end

function joint.destroy(j)
  want("b2d.joint.destroy", 1, j, JOINT)
  check("b2d.joint.destroy", F.b2d_joint_destroy(ctx, j[1], j[2]))
end

function joint.set_motor_speed(j, speed)
  local fname = "b2d.joint.set_motor_speed"
  want(fname, 1, j, JOINT)
  check(fname, F.b2d_joint_op(ctx, j[1], j[2], JOINT_OP.set_motor_speed, num(fname, 2, speed), 0, f1))
end

function joint.set_mouse_target(j, target)
  local fname = "b2d.joint.set_mouse_target"
  want(fname, 1, j, JOINT)
  vec(fname, 2, target)
  check(fname, F.b2d_joint_op(ctx, j[1], j[2], JOINT_OP.set_mouse_target, target.x, target.y, f1))
end

function joint.get_joint_translation(j)
  local fname = "b2d.joint.get_joint_translation"
  want(fname, 1, j, JOINT)
  check(fname, F.b2d_joint_op(ctx, j[1], j[2], JOINT_OP.get_joint_translation, 0, 0, f1))
  return f1[0]
end

function joint.wake_bodies(j)
  want("b2d.joint.wake_bodies", 1, j, JOINT)
  check("b2d.joint.wake_bodies", F.b2d_joint_op(ctx, j[1], j[2], JOINT_OP.wake_bodies, 0, 0, f1))
end

---------------------------------------------------------------- b2d.world
function world.set_gravity(w, g)
  local fname = "b2d.world.set_gravity"
  want(fname, 1, w, WORLD)
  vec(fname, 2, g)
  check(fname, F.b2d_world_op(ctx, w[1], K.B2D_WORLD_SET_GRAVITY, g.x, g.y, s4))
end

function world.get_gravity(w)
  want("b2d.world.get_gravity", 1, w, WORLD)
  check("b2d.world.get_gravity", F.b2d_world_op(ctx, w[1], K.B2D_WORLD_GET_GRAVITY, 0, 0, s4))
  return vm.vector3(s4.x, s4.y, 0)
end

-- The softness of the world's b2d joints, made and to come (Box2D 3's joint hertz and damping).
function world.set_joint_tuning(w, hertz, damping_ratio)
  local fname = "b2d.world.set_joint_tuning"
  want(fname, 1, w, WORLD)
  check(fname, F.b2d_world_op(ctx, w[1], K.B2D_WORLD_SET_JOINT_TUNING, num(fname, 2, hertz), num(fname, 3, damping_ratio), s4))
end

-- A query filter's mask (`mask_bits`; every group without one) and `max_results`.
local function query_args(fname, n, filter, max_results)
  local mask = K.B2D_ALL_GROUPS
  if filter ~= nil then
    if type(filter) ~= "table" then argerr(fname, n, "table", filter) end
    if filter.mask_bits ~= nil then mask = num(fname, n, filter.mask_bits) end
  end
  local cap = MAX_RESULTS
  if max_results ~= nil then
    num(fname, n + 1, max_results)
    if max_results < 0 then fail(fname .. ": max_results must be >= 0.") end
    if max_results > 0 then cap = math.min(cap, max_results) end
  end
  return mask, cap
end

local Q = { aabb = K.B2D_QUERY_AABB, shape = K.B2D_QUERY_SHAPE, ray = K.B2D_QUERY_RAY }

local function stats(n) return { node_visits = n, leaf_visits = n } end

function world.overlap_aabb(w, aabb, filter, max_results)
  local fname = "b2d.world.overlap_aabb"
  want(fname, 1, w, WORLD)
  if type(aabb) ~= "table" then argerr(fname, 2, "table", aabb) end
  local lo, hi = field_vec(fname, aabb, "lower", true), field_vec(fname, aabb, "upper", true)
  local mask, cap = query_args(fname, 3, filter, max_results)
  reset_def()
  sd.a[0], sd.a[1], sd.b[0], sd.b[1] = lo.x, lo.y, hi.x, hi.y
  local hits = infos(fname, F.b2d_query(ctx, w[1], Q.aabb, sd, mask, hbuf, fbuf, cap))
  return hits, stats(#hits)
end

function world.overlap_shape(w, def, filter, max_results)
  local fname = "b2d.world.overlap_shape"
  want(fname, 1, w, WORLD)
  reset_def()
  read_geom(fname, 2, def)
  local mask, cap = query_args(fname, 3, filter, max_results)
  local hits = infos(fname, F.b2d_query(ctx, w[1], Q.shape, sd, mask, hbuf, fbuf, cap))
  return hits, stats(#hits)
end

function world.cast_ray(w, origin, translation, filter, max_results)
  local fname = "b2d.world.cast_ray"
  want(fname, 1, w, WORLD)
  vec(fname, 2, origin)
  vec(fname, 3, translation)
  local mask, cap = query_args(fname, 4, filter, max_results)
  reset_def()
  sd.a[0], sd.a[1], sd.b[0], sd.b[1] = origin.x, origin.y, translation.x, translation.y
  local n = F.b2d_query(ctx, w[1], Q.ray, sd, mask, hbuf, fbuf, cap)
  if n < 0 then fail(fname .. ": " .. ffi.string(F.last_error())) end
  local hits = {}
  for j = 0, n - 1 do
    local f = 5 * j
    hits[j + 1] = {
      shape = shape_info(fname, hbuf[3 * j], hbuf[3 * j + 1], hbuf[3 * j + 2]),
      point = vm.vector3(fbuf[f], fbuf[f + 1], 0), normal = vm.vector3(fbuf[f + 2], fbuf[f + 3], 0),
      fraction = fbuf[f + 4],
    }
  end
  return hits, stats(n)
end

for ns, t in pairs({ body = body, shape = shape, joint = joint, world = world }) do S.unsupported_rest("b2d." .. ns, t) end
return S.unsupported_rest("b2d", b2d)
