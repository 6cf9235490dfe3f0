-- The `go` namespace: checks arguments, calls the Rust core through FFI, returns.
local ffi = require("ffi")
local S = ...
local F, ctx, vm, NONE = S.F, S.ctx, S.vm, S.NONE
local fail, argerr, current = S.fail, S.argerr, S.current
local hash, hash_t, url_t = S.hash, S.hash_t, S.url_t
local istype = ffi.istype
local v3_t, q_t, v4_t, m4_t = vm.vector3_t, vm.quat_t, vm.vector4_t, vm.matrix4_t

local go = {}

local function no_script()
  fail("You can only access go.* functions and values from a script instance (.script file)")
end

local function id_text(id)
  if type(id) == "string" then return id end
  if istype(hash_t, id) then return S.hash_text(id.h) end
  return tostring(id)
end

-- string | hash | url | nil → a URL relative to the calling instance.
local scratch = url_t()
local function to_url(id, fname, argn, r)
  if id == nil then return r.url end
  if type(id) == "string" then
    -- "." and "#", the caller's own object and component, are the commonest ids of all
    -- (`go.animate(".", ...)` in `init`); they need no parsing (scene::url::parse agrees).
    if id == "." or id == "#" then
      local own = r.url
      scratch.s, scratch.p, scratch.f = own.s, own.p, id == "#" and own.f or 0
      return scratch
    end
    if F.resolve_url(ctx, r.slot, r.comp.h, id, #id, scratch) ~= 0 then S.fail_last() end
    return scratch
  end
  if istype(hash_t, id) then
    scratch.s, scratch.p, scratch.f = r.url.s, id.h, 0
    return scratch
  end
  if istype(url_t, id) then
    scratch.s = id.s ~= 0 and id.s or r.url.s
    scratch.p = id.p ~= 0 and id.p or r.url.p
    scratch.f = id.f
    return scratch
  end
  argerr(fname, argn, "string, hash or msg.url", id)
end
S.to_url = to_url

-- The slot of the game object addressed by `id` (nil: the caller's own object).
local function slot_of(id, fname, argn, msg_fmt)
  local r = current()
  if r == nil then no_script() end
  if id == nil then return r.slot end
  local u = to_url(id, fname, argn, r)
  if u.s ~= r.url.s then fail("function called can only access instances within the same collection.") end
  local s = F.find(ctx, u.s, u.p)
  if s == NONE then fail(string.format(msg_fmt or "Instance %s not found", id_text(id))) end
  return s
end
S.slot_of = slot_of

local function check(rc) if rc ~= 0 then S.fail_last() end end

---------------------------------------------------------------- transforms
-- Getters read into one scratch value and return a fresh vector built from its components, and
-- setters pass components: a vector that only flows from a getter to a setter never escapes, so
-- the JIT sinks its allocation.
local s3, sq = v3_t(), q_t()

-- An instance reading or writing its own object's transform (no id) goes straight to the
-- scene's arrays through its transform view (scene::TransformView), without a call: the object
-- of an active instance is live. Everything else (other objects, `init`, `final`) goes through
-- the checked calls below.
local tv = F.transform_view(ctx)
if tv == nil then tv = ffi.new("sinew_transforms") end
local current_slot = S.current_slot
local function own(id)
  if id ~= nil then return nil end
  local s = current_slot()
  if s ~= nil and s < tv.len then return s end
  return nil
end

function go.get_position(id)
  local s = own(id)
  if s then
    local p = tv.position + 3 * s
    return v3_t(p[0], p[1], p[2])
  end
  check(F.get_position(ctx, slot_of(id, "go.get_position", 1), s3))
  return v3_t(s3.x, s3.y, s3.z)
end

-- As go.set: a NaN or infinity would poison the transform, every child's and a body's. The sum
-- of three f32 components cannot overflow a Lua number, so it times 0 is 0 exactly when all
-- three are finite: one guard on this hot path (scripts that move objects every frame).
local function finite_argument(fname, v)
  if (v.x + v.y + v.z) * 0 ~= 0 then
    fail(string.format("%s: bad argument #1 (position must be finite, got %s)", fname, tostring(v)))
  end
end
local rotation_ok, ROTATION_RULE = S.rotation_ok, S.ROTATION_RULE

function go.set_position(v, id)
  if not istype(v3_t, v) then argerr("go.set_position", 1, "vector3", v) end
  finite_argument("go.set_position", v)
  local s = own(id)
  if s then
    local p = tv.position + 3 * s
    p[0], p[1], p[2] = v.x, v.y, v.z
    return
  end
  check(F.set_position(ctx, slot_of(id, "go.set_position", 2), v.x, v.y, v.z))
end

function go.get_rotation(id)
  local s = own(id)
  if s then
    local q = tv.rotation + 4 * s
    return q_t(q[0], q[1], q[2], q[3])
  end
  check(F.get_rotation(ctx, slot_of(id, "go.get_rotation", 1), sq))
  return q_t(sq.x, sq.y, sq.z, sq.w)
end

function go.set_rotation(q, id)
  if not istype(q_t, q) then argerr("go.set_rotation", 1, "quat", q) end
  if not rotation_ok(q) then
    fail(string.format("go.set_rotation: bad argument #1 (rotation must be %s, got %s)", ROTATION_RULE, tostring(q)))
  end
  local s = own(id)
  if s then
    local o = tv.rotation + 4 * s
    o[0], o[1], o[2], o[3] = q.x, q.y, q.z, q.w
    return
  end
  check(F.set_rotation(ctx, slot_of(id, "go.set_rotation", 2), q.x, q.y, q.z, q.w))
end

function go.get_scale(id)
  local s = own(id)
  if s then
    local p = tv.scale + 3 * s
    return v3_t(p[0], p[1], p[2])
  end
  check(F.get_scale(ctx, slot_of(id, "go.get_scale", 1), s3))
  return v3_t(s3.x, s3.y, s3.z)
end
go.get_scale_vector = go.get_scale

function go.get_scale_uniform(id)
  local s = go.get_scale(id)
  return math.min(s.x, s.y, s.z)
end

-- Defold's checks, and (a Sinew decision) NaN and infinities refused: they pass every `<= 0`.
local function scale_arg(s, fname)
  local finite = S.finite
  if type(s) == "number" then
    if not finite(s) then
      fail(string.format("%s: bad argument #1 (scale must be a finite number, got %s)", fname, tostring(s)))
    end
    if s <= 0 then fail("The scale supplied to " .. fname .. " must be greater than 0.") end
    return v3_t(s, s, s)
  end
  if istype(v3_t, s) then
    if not (finite(s.x) and finite(s.y) and finite(s.z)) then
      fail(string.format("%s: bad argument #1 (scale must be finite, got %s)", fname, tostring(s)))
    end
    if s.x <= 0 or s.y <= 0 or s.z <= 0 then
      fail("Vector passed to " .. fname .. " contains components that are below or equal to zero")
    end
    return s
  end
  argerr(fname, 1, "number or vector3", s)
end

function go.set_scale(s, id)
  local v = scale_arg(s, "go.set_scale")
  check(F.set_scale(ctx, slot_of(id, "go.set_scale", 2), v.x, v.y, v.z))
end

function go.set_scale_xy(s, id)
  local v = scale_arg(s, "go.set_scale_xy")
  local slot = slot_of(id, "go.set_scale_xy", 2)
  local cur = v3_t()
  check(F.get_scale(ctx, slot, cur))
  check(F.set_scale(ctx, slot, v.x, v.y, cur.z))
end

function go.get_world_position(id)
  local v = v3_t()
  check(F.get_world(ctx, slot_of(id, "go.get_world_position", 1), v, nil, nil, nil))
  return v
end

function go.get_world_rotation(id)
  local q = q_t()
  check(F.get_world(ctx, slot_of(id, "go.get_world_rotation", 1), nil, q, nil, nil))
  return q
end

function go.get_world_scale(id)
  local v = v3_t()
  check(F.get_world(ctx, slot_of(id, "go.get_world_scale", 1), nil, nil, v, nil))
  return v
end

function go.get_world_scale_uniform(id)
  local s = go.get_world_scale(id)
  return math.min(s.x, s.y, s.z)
end

function go.get_world_transform(id)
  local m = m4_t()
  check(F.get_world(ctx, slot_of(id, "go.get_world_transform", 1), nil, nil, nil, m))
  return m
end

function go.update_world_transform(id)
  check(F.update_world_transform(ctx, slot_of(id, "go.update_world_transform", 1)))
end

function go.world_to_local_position(p, id)
  if not istype(v3_t, p) then argerr("go.world_to_local_position", 1, "vector3", p) end
  local inv = vm.vmath.inv(go.get_world_transform(id))
  local r = inv * vm.vector4(p.x, p.y, p.z, 1)
  return v3_t(r.x, r.y, r.z)
end

function go.world_to_local_transform(m, id)
  if not istype(m4_t, m) then argerr("go.world_to_local_transform", 1, "matrix4", m) end
  return vm.vmath.inv(go.get_world_transform(id)) * m
end

---------------------------------------------------------------- ids and hierarchy
function go.get_id(path)
  local r = current()
  if r == nil then no_script() end
  if path == nil then return r.id end
  if type(path) ~= "string" then argerr("go.get_id", 1, "string", path) end
  return S.hash_of_u64(F.id_of_path(ctx, r.slot, path, #path))
end

function go.exists(id)
  local r = current()
  if r == nil then no_script() end
  if id == nil then argerr("go.exists", 1, "string, hash or msg.url", id) end
  local u = to_url(id, "go.exists", 1, r)
  return F.find(ctx, u.s, u.p) ~= NONE
end

function go.get_parent(id)
  local p = F.get_parent(ctx, slot_of(id, "go.get_parent", 1))
  if p == NONE then return nil end
  return S.hash_of_u64(F.id_of(ctx, p))
end

-- As in Defold, re-parenting is a `set_parent` message handled at the next dispatch.
function go.set_parent(id, parent_id, keep_world_transform)
  local r = current()
  if r == nil then no_script() end
  local slot = slot_of(id, "go.set_parent", 1)
  local parent = 0
  if parent_id ~= nil then
    parent = F.id_of(ctx, slot_of(parent_id, "go.set_parent", 2))
  end
  if keep_world_transform ~= nil and type(keep_world_transform) ~= "boolean" then
    argerr("go.set_parent", 3, "boolean", keep_world_transform)
  end
  local target = url_t(r.url.s, F.id_of(ctx, slot), 0)
  S.post_raw(r.url, target, hash("set_parent"),
    { parent_id = S.hash_of_u64(parent), keep_world_transform = keep_world_transform and 1 or 0 })
end

function go.delete(...)
  local nargs = select("#", ...)
  if nargs > 2 then fail("go.delete invoked with too many argumengs") end
  local r = current()
  if r == nil then no_script() end
  local ids, recursive = ...
  if type(ids) == "boolean" then
    if nargs > 1 then fail("go.delete expected one argument when argument #1 is boolean type") end
    ids, recursive = nil, ids
  elseif ids == nil and nargs > 0 then
    S.R.log_warn(S.where() .. "go.delete() invoked with nil and self will be deleted")
  end
  if recursive ~= nil and type(recursive) ~= "boolean" then fail("go.delete expected boolean as argument #2") end
  local rec = recursive and 1 or 0
  if type(ids) == "table" then
    for _, id in ipairs(ids) do
      local u = to_url(id, "go.delete", 1, r)
      local s = F.find(ctx, u.s, u.p)
      if s == NONE then
        S.R.log_warn(S.where() .. "go.delete: instance " .. id_text(id) .. " not found")
      else
        check(F.delete(ctx, s, rec))
      end
    end
    return
  end
  check(F.delete(ctx, slot_of(ids, "go.delete", 1), rec))
end
go.delete_all = function(ids) return go.delete(ids) end

---------------------------------------------------------------- go.property
local PROP_KINDS = { number = true, boolean = true, string = true }
local MAX_PROPERTIES = S.R.max_properties
function go.property(name, default)
  local def = S.loading_script()
  if def == nil then fail("go.property can only be called outside the functions.") end
  if type(name) ~= "string" then argerr("go.property", 1, "string", name) end
  local kind = type(default)
  if not PROP_KINDS[kind] then
    kind = (kind == "cdata") and (vm.type_name(default)
      or (istype(hash_t, default) and "hash") or (istype(url_t, default) and "url")) or nil
    if kind ~= "vector3" and kind ~= "vector4" and kind ~= "quat" and kind ~= "hash" and kind ~= "url" then
      fail(string.format("Invalid type (%s) supplied to go.property, must be either a number, boolean, hash, URL, vector3, vector4 or quaternion.", S.type_name(default)))
    end
  end
  local p = { name = name, default = default, kind = kind, hash = hash(name) }
  if kind == "url" then p.url_text = S.url_texts[default] end
  if def.props[name] == nil then
    -- A budget per script (Sinew decision), as many as the hash names Rust keeps.
    if #def.prop_list >= MAX_PROPERTIES then
      fail(string.format("go.property: a script declares at most %d properties ('%s' is one more)", MAX_PROPERTIES,
        name))
    end
    def.prop_list[#def.prop_list + 1] = p
  end
  def.props[name] = p
  S.declare_property(def, p)
end

---------------------------------------------------------------- go.get / go.set
-- (url, property) resolves through S.property (property.lua), as go.animate does.
-- `euler` goes through Rust too, so go.get reads the angles a running Euler tween keeps.
local function read_go(slot, base)
  if base == "position" then local v = v3_t(); check(F.get_position(ctx, slot, v)); return v end
  if base == "scale" then local v = v3_t(); check(F.get_scale(ctx, slot, v)); return v end
  if base == "euler" then local v = v3_t(); check(F.get_euler(ctx, slot, v)); return v end
  local q = q_t(); check(F.get_rotation(ctx, slot, q))
  return q
end

local function write_go(slot, base, v)
  if base == "position" then check(F.set_position(ctx, slot, v.x, v.y, v.z))
  elseif base == "scale" then check(F.set_scale(ctx, slot, v.x, v.y, v.z))
  elseif base == "euler" then check(F.set_euler(ctx, slot, v.x, v.y, v.z))
  else check(F.set_rotation(ctx, slot, v.x, v.y, v.z, v.w)) end
end

local url_text = S.url_text

-- Properties of the other component types, by F.component_kind (K.COMPONENT_*): each
-- namespace file registers { kind, get, set } for its type, and go.get/go.set/go.animate reach
-- them through S.component_props, which picks the component's type at each call.
S.component_kinds = {}
local function kind_props(slot, comp)
  return S.component_kinds[F.component_kind(ctx, slot, comp)]
end
local function no_property(where_text, name)
  fail(string.format("'%s' does not have any property called '%s'", where_text, name))
end
S.component_props = {
  kind = function(slot, comp, name)
    local p = kind_props(slot, comp)
    return p and p.kind(slot, comp, name) or nil
  end,
  get = function(slot, comp, name, where_text, options)
    local p = kind_props(slot, comp)
    if p == nil then no_property(where_text, name) end
    return p.get(slot, comp, name, where_text, options)
  end,
  set = function(slot, comp, name, value, where_text, options)
    local p = kind_props(slot, comp)
    if p == nil then no_property(where_text, name) end
    return p.set(slot, comp, name, value, where_text, options)
  end,
}

-- Writes `value` into `s4` (a vector4 scratch) as a component property of `kind`: "vector3"
-- (a number too, for all three, when `number_ok`: Defold's label and sprite scale) or
-- "vector4"; `wrong(type_name)` raises for anything else.
function S.fill_vector(s4, kind, value, number_ok, wrong)
  if kind == "vector3" then
    if number_ok and type(value) == "number" then
      s4.x, s4.y, s4.z = value, value, value
    elseif istype(v3_t, value) then
      s4.x, s4.y, s4.z = value.x, value.y, value.z
    else
      wrong("vmath.vector3")
    end
  else
    if not istype(v4_t, value) then wrong("vmath.vector4") end
    s4.x, s4.y, s4.z, s4.w = value.x, value.y, value.z, value.w
  end
end

local function target(fname, url, prop)
  local _, slot, u, ph, d, rec = S.property(fname, url, prop, fname .. " can only access instances within the same collection.")
  return slot, u, ph, d, rec
end

function go.get(url, prop, options)
  local slot, u, _, d, rec = target("go.get", url, prop)
  if d.owner == "go" then
    local v = read_go(slot, d.name)
    if d.comp then return v[d.comp] end
    return v
  end
  if d.owner == "component" then return S.component_props.get(slot, u.f, d.full, url_text(u), options) end
  local v = rec.self[d.name]
  if d.comp then return v[d.comp] end
  return S.copy_value(v)
end

local TYPE_WORD = { number = "number", hash = "hash", url = "msg.url", vector3 = "vmath.vector3",
  vector4 = "vmath.vector4", quat = "vmath.quat", boolean = "boolean", string = "string" }

local value_kind = S.value_kind

function go.set(url, prop, value, options)
  local slot, u, ph, d, rec = target("go.set", url, prop)
  local where_text = url_text(u)
  local function wrong(kind)
    fail(string.format("the property '%s' of '%s' must be a %s%s", S.hash_text(ph.h), where_text,
      TYPE_WORD[kind] or kind, S.string_hint(kind, value)))
  end
  if d.owner == "component" then return S.component_props.set(slot, u.f, d.full, value, where_text, options) end
  if d.owner == "go" then
    -- As go.set_scale and go.animate: a NaN or infinity would poison the transform and every
    -- child's (a Sinew decision; Defold stores it).
    local function finite(v)
      local f = S.finite
      if not (f(v.x) and f(v.y) and f(v.z) and (d.name ~= "rotation" or f(v.w))) then
        fail(string.format("go.set: the property '%s' of '%s' must be finite, got %s", S.hash_text(ph.h), where_text,
          tostring(value)))
      end
      if d.name == "rotation" and not rotation_ok(v) then
        fail(string.format("go.set: the property '%s' of '%s' must be %s, got %s", S.hash_text(ph.h), where_text,
          ROTATION_RULE, tostring(value)))
      end
      return v
    end
    if d.comp then
      if type(value) ~= "number" then wrong("number") end
      local v = read_go(slot, d.name)
      v[d.comp] = value
      return write_go(slot, d.name, finite(v))
    end
    if d.fills_set and type(value) == "number" then value = v3_t(value, value, value) end
    if value_kind(value) ~= d.type then wrong(d.type) end
    return write_go(slot, d.name, finite(value))
  end
  local self = rec.self
  if d.comp then
    if type(value) ~= "number" then wrong("number") end
    local v = S.copy_value(self[d.name])
    v[d.comp] = value
    self[d.name] = v
    return
  end
  if value_kind(value) ~= d.type then wrong(d.type) end
  self[d.name] = S.copy_value(value)
end

return go
