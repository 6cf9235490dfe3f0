-- The `physics` namespace and collision object properties for go.get/go.set (`linear_velocity`,
-- `angular_velocity`, `mass`, `linear_damping`, `angular_damping`). Arguments are checked here,
-- with Defold's words; Rust does the work.
local ffi = require("ffi")
local S = ...
local F, ctx, vm, NONE = S.F, S.ctx, S.vm, S.NONE
local fail, argerr, current, hash = S.fail, S.argerr, S.current, S.hash
local istype = ffi.istype
local K = S.K
local CO = K.COMPONENT_COLLISION_OBJECT

local function check(rc) if rc ~= 0 then S.fail_last() end end

local s4 = vm.vector4_t()
local t4 = vm.vector4_t()
local hbox = ffi.new("uint64_t[1]")
local ibox = ffi.new("int32_t[1]")

---------------------------------------------------------------- go.get / go.set
local props = {}
S.component_kinds[CO] = props

-- name → (FFI property index, type, writable)
local PROPS = {
  linear_velocity = { K.PHYSICS_LINEAR_VELOCITY, "vector3", true },
  angular_velocity = { K.PHYSICS_ANGULAR_VELOCITY, "vector3", true },
  mass = { K.PHYSICS_MASS, "number", false },
  linear_damping = { K.PHYSICS_LINEAR_DAMPING, "number", true },
  angular_damping = { K.PHYSICS_ANGULAR_DAMPING, "number", true },
}

local function split(name)
  local base, c = name:match("^(.-)%.([xyz])$")
  return base or name, c
end

local function lookup(name, where_text)
  local base, c = split(name)
  local p = PROPS[base]
  if p == nil or (c and p[2] ~= "vector3") then
    fail(string.format("'%s' does not have any property called '%s'", where_text, name))
  end
  return p, c
end

function props.kind(slot, comp, name)
  local base, c = split(name)
  local p = PROPS[base]
  if p == nil then return nil end
  if c then return p[2] == "vector3" and "number" or nil end
  return p[2]
end

function props.get(slot, comp, name, where_text)
  local p, c = lookup(name, where_text)
  check(F.physics_prop_get(ctx, slot, comp, p[1], s4))
  if c then return s4[c] end
  if p[2] == "vector3" then return vm.vector3(s4.x, s4.y, s4.z) end
  return s4.x
end

function props.set(slot, comp, name, value, where_text)
  local p, c = lookup(name, where_text)
  local function wrong(t) fail(string.format("the property '%s' of '%s' must be a %s", name, where_text, t)) end
  if not p[3] then fail(string.format("the property '%s' of '%s' can only be read", name, where_text)) end
  if c then
    if type(value) ~= "number" then wrong("number") end
    check(F.physics_prop_get(ctx, slot, comp, p[1], s4))
    s4[c] = value
  elseif p[2] == "vector3" then
    if not istype(vm.vector3_t, value) then wrong("vmath.vector3") end
    s4.x, s4.y, s4.z = value.x, value.y, value.z
  else
    if type(value) ~= "number" then wrong("number") end
    s4.x, s4.y, s4.z = value, 0, 0
  end
  check(F.physics_prop_set(ctx, slot, comp, p[1], s4.x, s4.y, s4.z))
end

---------------------------------------------------------------- physics.*
local physics = {}

local function caller() return S.caller("physics") end

-- (url) → slot, url copy of a collision object component; raises Defold's errors.
local function body_of(fname, url)
  local r = caller(fname)
  if url == nil then argerr(fname, 1, "string, hash or msg.url", url) end
  local u = S.url_t(S.to_url(url, fname, 1, r))
  if u.f == 0 then fail(fname .. ": expected url to specify a component, not only a path!") end
  local slot = u.s == r.url.s and F.find(ctx, u.s, u.p) or NONE
  if slot == NONE or F.component_kind(ctx, slot, u.f) ~= CO then
    fail(string.format("%s: the collision object '%s' could not be found", fname, S.url_text(u)))
  end
  return slot, u
end

local function vector3_arg(fname, n, v)
  if not istype(vm.vector3_t, v) then argerr(fname, n, "vmath.vector3", v) end
  if not (S.finite(v.x) and S.finite(v.y) and S.finite(v.z)) then
    fail(string.format("%s: argument #%d must be finite", fname, n))
  end
  return v
end

-- Two vector3 arguments into the s4 / t4 buffers the FFI calls read.
local function ends(a, b)
  s4.x, s4.y, s4.z, s4.w = a.x, a.y, a.z, 0
  t4.x, t4.y, t4.z, t4.w = b.x, b.y, b.z, 0
end

local MAX_GROUPS = K.PHYSICS_MAX_GROUPS
local groupbuf = ffi.new("uint64_t[?]", MAX_GROUPS * 4)

-- A table of group names or hashes into `groupbuf`; returns the count.
local function groups_arg(fname, n, groups)
  if type(groups) ~= "table" then argerr(fname, n, "table of hashes", groups) end
  local k = 0
  for _, g in ipairs(groups) do
    if k == MAX_GROUPS * 4 then fail(string.format("%s: at most %d groups", fname, MAX_GROUPS * 4)) end
    groupbuf[k] = S.to_hash(g, fname, n).h
    k = k + 1
  end
  return k
end

local RAY_FLOATS = K.PHYSICS_RAY_FLOATS
local MAX_RESULTS = K.PHYSICS_MAX_RAY_RESULTS
local floats = ffi.new("float[?]", MAX_RESULTS * RAY_FLOATS)
local hashes = ffi.new("uint64_t[?]", MAX_RESULTS * 2)

local function hit(j)
  local f = j * RAY_FLOATS
  return {
    fraction = floats[f],
    position = vm.vector3(floats[f + 1], floats[f + 2], floats[f + 3]),
    normal = vm.vector3(floats[f + 4], floats[f + 5], floats[f + 6]),
    id = S.hash_of_u64(hashes[j * 2]),
    group = S.hash_of_u64(hashes[j * 2 + 1]),
  }
end

function physics.raycast(from, to, groups, options)
  local fname = "physics.raycast"
  local r = caller(fname)
  vector3_arg(fname, 1, from)
  vector3_arg(fname, 2, to)
  local n = groups_arg(fname, 3, groups)
  if options ~= nil and type(options) ~= "table" then argerr(fname, 4, "table", options) end
  local all = options ~= nil and options.all == true
  ends(from, to)
  local count = F.physics_raycast(ctx, r.url.s, s4, t4, groupbuf, n, all and 1 or 0, floats, hashes, all and MAX_RESULTS or 1)
  if count < 0 then S.fail_last() end
  if count == 0 then return nil end
  -- As Defold's: with an options table the answer is a list (of one hit unless `all`), without
  -- one the nearest hit itself.
  if options == nil then return hit(0) end
  local out = {}
  for j = 0, count - 1 do out[j + 1] = hit(j) end
  return out
end

local function raycast_async(fname, from, to, groups, request_id)
  local r = caller(fname)
  vector3_arg(fname, 1, from)
  vector3_arg(fname, 2, to)
  local n = groups_arg(fname, 3, groups)
  request_id = request_id or 0
  if type(request_id) ~= "number" or request_id ~= math.floor(request_id) or request_id < 0 or request_id > 255 then
    fail(fname .. ": request_id must be an integer between 0 and 255")
  end
  ends(from, to)
  S.check_in(fname, F.physics_raycast_async(ctx, s4, t4, groupbuf, n, request_id, r.url.s, r.url.p, r.url.f))
end

function physics.raycast_async(from, to, groups, request_id)
  raycast_async("physics.raycast_async", from, to, groups, request_id)
end

-- Defold keeps its first name for raycast_async (script_physics.cpp: "Deprecated"); games from
-- before 2019 call it (britzl/bythesword's enemies look for the player with it).
function physics.ray_cast(from, to, groups, request_id)
  raycast_async("physics.ray_cast", from, to, groups, request_id)
end

function physics.set_gravity(g)
  local r = caller("physics.set_gravity")
  vector3_arg("physics.set_gravity", 1, g)
  S.check_in("physics.set_gravity", F.physics_gravity_set(ctx, r.url.s, g.x, g.y, g.z))
end

function physics.get_gravity()
  local r = caller("physics.get_gravity")
  S.check_in("physics.get_gravity", F.physics_gravity_get(ctx, r.url.s, s4))
  return vm.vector3(s4.x, s4.y, s4.z)
end

-- `listener(self, events)`: the caller's world's collision, contact, trigger and ray cast events
-- of each frame, in one array, instead of messages (nil: messages again), as in Defold.
function physics.set_event_listener(listener)
  local fname = "physics.set_event_listener"
  local r = caller(fname)
  local cb = 0
  if listener ~= nil then
    if type(listener) ~= "function" then argerr(fname, 1, "function or nil", listener) end
    cb = S.add_play_callback(function(self, _, events) listener(self, events) end, r)
  end
  if F.physics_event_listener(ctx, r.url.s, r.index, cb) ~= 0 then
    if cb ~= 0 then S.take_play_callback(cb) end
    S.fail_last()
  end
end

-- Defold 1.6.4's first form: `listener(self, event, data)` once per event.
function physics.set_listener(listener)
  if listener ~= nil and type(listener) ~= "function" then argerr("physics.set_listener", 1, "function or nil", listener) end
  physics.set_event_listener(listener and function(self, events)
    for _, e in ipairs(events) do listener(self, e.type, e) end
  end)
end

function physics.get_group(url)
  local slot, u = body_of("physics.get_group", url)
  S.check_in("physics.get_group", F.physics_group_get(ctx, slot, u.f, hbox))
  return S.hash_of_u64(hbox[0])
end

function physics.set_group(url, group)
  local slot, u = body_of("physics.set_group", url)
  S.check_in("physics.set_group", F.physics_group_set(ctx, slot, u.f, S.to_hash(group, "physics.set_group", 2).h))
end

function physics.get_maskbit(url, group)
  local slot, u = body_of("physics.get_maskbit", url)
  S.check_in("physics.get_maskbit", F.physics_maskbit_get(ctx, slot, u.f, S.to_hash(group, "physics.get_maskbit", 2).h, ibox))
  return ibox[0] ~= 0
end

function physics.set_maskbit(url, group, maskbit)
  local slot, u = body_of("physics.set_maskbit", url)
  local h = S.to_hash(group, "physics.set_maskbit", 2).h
  if type(maskbit) ~= "boolean" then argerr("physics.set_maskbit", 3, "boolean", maskbit) end
  S.check_in("physics.set_maskbit", F.physics_maskbit_set(ctx, slot, u.f, h, maskbit and 1 or 0))
end

function physics.update_mass(url, mass)
  local slot, u = body_of("physics.update_mass", url)
  if type(mass) ~= "number" then S.argerr("physics.update_mass", 2, "number", mass) end
  S.check_in("physics.update_mass", F.physics_update_mass(ctx, slot, u.f, mass))
end

function physics.wakeup(url)
  local slot, u = body_of("physics.wakeup", url)
  S.check_in("physics.wakeup", F.physics_wakeup(ctx, slot, u.f))
end

-- Defold's set_hflip/set_vflip mirror a 2D object's shapes across its own y / x axis.
for axis, name in ipairs({ "set_hflip", "set_vflip" }) do
  local fname = "physics." .. name
  physics[name] = function(url, flip)
    local slot, u = body_of(fname, url)
    if type(flip) ~= "boolean" then argerr(fname, 2, "boolean", flip) end
    S.check_in(fname, F.physics_flip(ctx, slot, u.f, axis - 1, flip and 1 or 0))
  end
end

---------------------------------------------------------------- joints
-- Property names in the order of the Rust list (game::physics::joints::JointProps::NAMES, from
-- Rust); `local_axis_a` is a vector3 over its three `local_axis_a_*` entries.
local JOINT_NAMES = S.R.physics_joint_props
local NPROPS = K.PHYSICS_JOINT_PROPS
local BOOLS = { collide_connected = true, enable_limit = true, enable_motor = true }
local KNOWN = { local_axis_a = true }
for _, n in ipairs(JOINT_NAMES) do KNOWN[n] = true end
-- Read back only (the joint's motion): creating and setting ignore them, as Defold does.
local READ_ONLY = {}
for _, n in ipairs(S.R.physics_joint_read_only) do READ_ONLY[n] = true end
-- What get_joint_properties returns for each kind, from Rust (JointType::fields).
local JOINT_FIELDS = S.R.physics_joint_fields
local props_buf = ffi.new("float[?]", NPROPS)
local tybox = ffi.new("int32_t[1]")
-- physics.JOINT_TYPE_* from Rust (game::physics::joints::JointType::ALL).
local JOINT_TYPES = {}
for name, value in pairs(S.R.physics_joint_types) do
  physics[name] = value
  JOINT_TYPES[value] = name
end
local AXIS_A, INDEX = {}, {}
for i, name in ipairs(JOINT_NAMES) do
  INDEX[name] = i - 1
  local axis = name:match("^local_axis_a_([xyz])$")
  if axis then AXIS_A[axis] = i - 1 end
end

-- A properties table into props_buf (NaN where not given).
local function joint_props(fname, n, t)
  for i = 0, NPROPS - 1 do props_buf[i] = 0 / 0 end
  if t == nil then return end
  if type(t) ~= "table" then argerr(fname, n, "table", t) end
  for k, v in pairs(t) do
    if not KNOWN[k] then
      -- Defold reads the properties it knows and ignores the rest: a warning, not an error.
      S.R.log_warn(string.format("%s%s: unknown joint property '%s' ignored (known: %s)", S.where(), fname,
        tostring(k), table.concat(JOINT_NAMES, ", ")))
    elseif READ_ONLY[k] then
      -- Ignored, as Defold ignores them.
    elseif k == "local_axis_a" then
      vector3_arg(fname, n, v)
      props_buf[AXIS_A.x], props_buf[AXIS_A.y], props_buf[AXIS_A.z] = v.x, v.y, v.z
    else
      local idx = INDEX[k]
      if BOOLS[k] then
        if type(v) ~= "boolean" then fail(string.format("%s: joint property '%s' must be a boolean", fname, k)) end
        v = v and 1 or 0
      elseif type(v) ~= "number" or not S.finite(v) then
        fail(string.format("%s: joint property '%s' must be a finite number", fname, k))
      end
      props_buf[idx] = v
    end
  end
end

function physics.create_joint(joint_type, a, joint_id, position_a, b, position_b, properties)
  local fname = "physics.create_joint"
  if type(joint_type) ~= "number" or JOINT_TYPES[joint_type] == nil then
    argerr(fname, 1, "physics.JOINT_TYPE_*", joint_type)
  end
  local sa, ua = body_of(fname, a)
  local id = S.to_hash(joint_id, fname, 3)
  vector3_arg(fname, 4, position_a)
  local sb, ub = body_of(fname, b)
  vector3_arg(fname, 6, position_b)
  joint_props(fname, 7, properties)
  ends(position_a, position_b)
  S.check_in(fname, F.physics_joint_create(ctx, joint_type, sa, ua.f, id.h, s4, sb, ub.f, t4, props_buf, NPROPS))
end

function physics.destroy_joint(co, joint_id)
  local slot, u = body_of("physics.destroy_joint", co)
  S.check_in("physics.destroy_joint", F.physics_joint_destroy(ctx, slot, u.f, S.to_hash(joint_id, "physics.destroy_joint", 2).h))
end

function physics.get_joint_properties(co, joint_id)
  local slot, u = body_of("physics.get_joint_properties", co)
  S.check_in("physics.get_joint_properties", F.physics_joint_get(ctx, slot, u.f, S.to_hash(joint_id, "physics.get_joint_properties", 2).h, props_buf, NPROPS, tybox))
  -- Defold's table for the kind: collide_connected and the kind's own fields.
  local out = { collide_connected = props_buf[INDEX.collide_connected] ~= 0 }
  for _, name in ipairs(JOINT_FIELDS[tybox[0]]) do
    if name == "local_axis_a" then
      out.local_axis_a = vm.vector3(props_buf[AXIS_A.x], props_buf[AXIS_A.y], props_buf[AXIS_A.z])
    else
      local v = props_buf[INDEX[name]]
      if BOOLS[name] then v = v ~= 0 end
      out[name] = v
    end
  end
  return out
end

-- The arguments (collision object, id, table) of set_joint_properties and set_shape, checked.
local function object_id_table(fname, url, id, t)
  local slot, u = body_of(fname, url)
  local h = S.to_hash(id, fname, 2)
  if type(t) ~= "table" then argerr(fname, 3, "table", t) end
  return slot, u, h
end

function physics.set_joint_properties(co, joint_id, properties)
  local fname = "physics.set_joint_properties"
  local slot, u, id = object_id_table(fname, co, joint_id, properties)
  joint_props(fname, 3, properties)
  S.check_in(fname, F.physics_joint_set(ctx, slot, u.f, id.h, props_buf, NPROPS))
end

function physics.get_joint_reaction_force(co, joint_id)
  local slot, u = body_of("physics.get_joint_reaction_force", co)
  S.check_in("physics.get_joint_reaction_force", F.physics_joint_reaction(ctx, slot, u.f, S.to_hash(joint_id, "physics.get_joint_reaction_force", 2).h, s4))
  return vm.vector3(s4.x, s4.y, s4.z)
end

function physics.get_joint_reaction_torque(co, joint_id)
  local slot, u = body_of("physics.get_joint_reaction_torque", co)
  S.check_in("physics.get_joint_reaction_torque", F.physics_joint_reaction(ctx, slot, u.f, S.to_hash(joint_id, "physics.get_joint_reaction_torque", 2).h, s4))
  return s4.w
end

---------------------------------------------------------------- shapes
-- physics.SHAPE_TYPE_* from Rust (game::physics::shapes::ShapeType::ALL), and each kind's size
-- fields as {name, count} (ShapeType::fields; count 3 is a vector3), filling x, y, z in order.
local SHAPE_TYPES = {}
for name, value in pairs(S.R.physics_shape_types) do
  physics[name] = value
  SHAPE_TYPES[value] = name
end
local SHAPE_FIELDS = S.R.physics_shape_fields
local XYZ = { "x", "y", "z" }

function physics.get_shape(url, shape)
  local fname = "physics.get_shape"
  local slot, u = body_of(fname, url)
  S.check_in(fname, F.physics_shape_get(ctx, slot, u.f, S.to_hash(shape, fname, 2).h, s4, ibox))
  local ty = ibox[0]
  local out, k = { type = ty }, 1
  for _, f in ipairs(SHAPE_FIELDS[ty] or {}) do
    local n = f[2]
    out[f[1]] = n == 3 and vm.vector3(s4.x, s4.y, s4.z) or s4[XYZ[k]]
    k = k + n
  end
  return out
end

function physics.set_shape(url, shape, data)
  local fname = "physics.set_shape"
  local slot, u, id = object_id_table(fname, url, shape, data)
  local ty = data.type
  local name = SHAPE_TYPES[ty]
  if name == nil then fail(fname .. ": the table's `type` must be a physics.SHAPE_TYPE_* constant") end
  s4.x, s4.y, s4.z = 0, 0, 0
  local k = 1
  for _, f in ipairs(SHAPE_FIELDS[ty]) do
    local v, n = data[f[1]], f[2]
    if n == 3 then
      if not istype(vm.vector3_t, v) then fail(string.format("%s: a %s needs a vector3 `%s`", fname, name, f[1])) end
      s4.x, s4.y, s4.z = v.x, v.y, v.z
    else
      if type(v) ~= "number" then fail(string.format("%s: a %s needs a number `%s`", fname, name, f[1])) end
      s4[XYZ[k]] = v
    end
    k = k + n
  end
  S.check_in(fname, F.physics_shape_set(ctx, slot, u.f, id.h, ty, s4))
end

return S.unsupported_rest("physics", physics)
