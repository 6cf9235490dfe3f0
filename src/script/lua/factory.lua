-- `factory` and `collectionfactory`: argument checks, then one FFI call spawns the prototype's
-- objects (models, bones and default animations included) and the script records are made here.
local ffi = require("ffi")
local S = ...
local F, ctx, vm, NONE = S.F, S.ctx, S.vm, S.NONE
local fail, argerr, current = S.fail, S.argerr, S.current
local hash, hash_t, url_t = S.hash, S.hash_t, S.url_t
local istype = ffi.istype
local v3_t, q_t = vm.vector3_t, vm.quat_t

local STATUS_UNLOADED, STATUS_LOADING, STATUS_LOADED = 0, 1, 2

-- Factory index → what its prototype's scripts need (R.factory_info) and an output buffer.
local infos = {}

local function info_of(f)
  local info = infos[f]
  -- A deleted factory's index goes to the next one made: the serial tells them apart.
  local serial = F.factory_serial(ctx, f)
  if info ~= nil and info.serial == serial then return info end
  info = S.R.factory_info(f)
  info.serial = serial
  info.nobj = #info.paths
  info.buf = ffi.new("uint32_t[?]", info.nobj + #info.scripts)
  info.index = {}       -- prototype id path hash → object index
  for i, p in ipairs(info.paths) do info.index[hash(p)] = i end
  infos[f] = info
  return info
end

-- The factory index at `url`; errors name the function and the URL.
local function find(fname, url, collection)
  local r = current()
  if r == nil then fail("You can only access " .. fname .. " from a script instance (.script file)") end
  if url == nil then argerr(fname, 1, "string, hash or msg.url", url) end
  -- "#factory" names a component of the caller's own object, which lives as long as the caller:
  -- the usual spawner call skips parsing the URL every time.
  local own = type(url) == "string" and url:byte(1) == 35
  local field = collection and "collectionfactories" or "factories"
  local cache = own and r[field]
  local f = cache and cache[url]
  if f then return f, r end
  local u = S.to_url(url, fname, 1, r)
  f = F.factory_of(ctx, u, collection and 1 or 0)
  if f < 0 then fail(fname .. ": " .. ffi.string(F.last_error())) end
  if own then
    if not cache then cache = {} r[field] = cache end
    cache[url] = f
  end
  return f, r
end

-- `props` for the object `obj` of the prototype: each name must be a `go.property` of one of
-- its scripts, with a value of that property's type (Defold ignores the others silently; a typo
-- here would otherwise be a property that never changes).
local function check_props(fname, info, obj, props, argn, where)
  for name, v in pairs(props) do
    if type(name) ~= "string" then
      fail(string.format("%s: bad argument #%d: property names must be strings, got %s%s", fname, argn,
        S.type_name(name), where))
    end
    local found = nil
    for _, sc in ipairs(info.scripts) do
      if sc.obj == obj then
        local def, err = S.get_script(sc.script)
        if not def then fail(fname .. ": " .. tostring(err)) end
        local decl = def.props[name]
        if decl then
          found = decl
          local got = S.value_kind(v)
          if got ~= decl.kind then
            fail(string.format("%s: property '%s' of '%s' is a %s, got %s%s%s", fname, name, sc.script, decl.kind,
              S.type_name(v), S.string_hint(decl.kind, v), where))
          end
        end
      end
    end
    if found == nil then
      fail(string.format("%s: no script of the prototype declares the property '%s'%s", fname, name, where))
    end
  end
end

local wpos, wrot = v3_t(), q_t()

-- Spawns and returns the info and the output buffer (slots, then script indices).
local function spawn(fname, f, r, p, rot, props, scale, collection)
  if p ~= nil and not istype(v3_t, p) then argerr(fname, 2, "vector3", p) end
  if rot ~= nil and not istype(q_t, rot) then argerr(fname, 3, "quat", rot) end
  if props ~= nil and type(props) ~= "table" then argerr(fname, 4, "table", props) end
  local sx, sy, sz = 1, 1, 1
  if type(scale) == "number" then
    sx, sy, sz = scale, scale, scale
  elseif istype(v3_t, scale) then
    sx, sy, sz = scale.x, scale.y, scale.z
  elseif scale ~= nil then
    argerr(fname, 5, "number or vector3", scale)
  end
  -- NaN, infinities, a zero or negative scale and a zero quaternion make a transform of NaNs
  -- (or a flipped, degenerate one) that spreads to every child: refused, naming the argument.
  local finite = S.finite
  if p ~= nil and not (finite(p.x) and finite(p.y) and finite(p.z)) then
    fail(string.format("%s: bad argument #2 (position must be finite, got %s)", fname, tostring(p)))
  end
  if rot ~= nil and not S.rotation_ok(rot) then
    fail(string.format("%s: bad argument #3 (rotation must be %s, got %s)", fname, S.ROTATION_RULE, tostring(rot)))
  end
  if not (sx > 0 and sy > 0 and sz > 0 and finite(sx) and finite(sy) and finite(sz)) then
    fail(string.format("%s: bad argument #5 (scale must be finite and greater than 0, got %s)", fname,
      tostring(scale)))
  end
  local info = info_of(f)
  -- Keyed props per object index (collection factories key them by prototype id path).
  local per = nil
  if props ~= nil then
    if collection then
      per = {}
      for k, v in pairs(props) do
        local key = type(k) == "string" and hash(k) or k
        local obj = istype(hash_t, key) and info.index[key]
        if not obj then
          fail(string.format("%s: bad argument #4: the prototype has no object '%s'", fname,
            istype(hash_t, key) and S.hash_text(key.h) or tostring(k)))
        end
        if type(v) ~= "table" then argerr(fname, 4, "table of tables", v) end
        check_props(fname, info, obj, v, 4, " (object '" .. info.paths[obj] .. "')")
        per[obj] = v
      end
    else
      check_props(fname, info, 1, props, 4, "")
      per = { props }
    end
  end
  if p == nil or rot == nil then
    if F.get_world(ctx, r.slot, wpos, wrot, nil, nil) ~= 0 then S.fail_last() end
    p = p or wpos
    rot = rot or wrot
  end
  local buf = info.buf
  local count = F.factory_spawn(ctx, f, p.x, p.y, p.z, rot.x, rot.y, rot.z, rot.w, sx, sy, sz, buf,
    info.nobj + #info.scripts)
  if count < 0 then fail(fname .. ": " .. ffi.string(F.last_error())) end
  local E, by_index, copy = S.E, S.by_index, S.copy_value
  for k, sc in ipairs(info.scripts) do
    local slot, index = buf[sc.obj - 1], buf[info.nobj + k - 1]
    local err = E.create(index, slot, sc.comp, sc.script, sc.overrides)
    if err ~= nil then fail(fname .. ": " .. tostring(err)) end
    local given = per and per[sc.obj]
    if given then
      local rec, def = by_index[index], S.scripts[sc.script]
      for name, v in pairs(given) do
        if def.props[name] then rec.self[name] = copy(v) end
      end
    end
  end
  return info, buf
end

-- Once every object of a spawn exists with its properties and the caller has read its ids
-- from `buf`: each script's `init`, in order, inside the creating call as in Defold. An init
-- may spawn from the same factory, which reuses `buf`, so the indices are read out first; an
-- init may delete, and S.init_spawned skips the records gone by then.
local function init_spawned(info, buf)
  local n = #info.scripts
  if n == 1 then return S.init_spawned(buf[info.nobj]) end
  local made = {}
  for k = 1, n do made[k] = buf[info.nobj + k - 1] end
  for k = 1, n do S.init_spawned(made[k]) end
end

local function status(fname, url, collection)
  find(fname, url, collection)
  return STATUS_LOADED
end

-- Everything is loaded with the collection: `load` calls back at once with success, `unload`
-- has nothing to free.
local function load(fname, url, complete, collection)
  local _, r = find(fname, url, collection)
  if complete ~= nil and type(complete) ~= "function" then argerr(fname, 2, "function", complete) end
  if complete then S.call(r, complete, url, true) end
end

local function unload(fname, url, collection)
  find(fname, url, collection)
end

local factory = {
  STATUS_UNLOADED = STATUS_UNLOADED, STATUS_LOADING = STATUS_LOADING, STATUS_LOADED = STATUS_LOADED,
}

function factory.create(url, p, rot, props, scale)
  local f, r = find("factory.create", url, false)
  local info, buf = spawn("factory.create", f, r, p, rot, props, scale, false)
  local id = S.hash_of_u64(F.id_of(ctx, buf[0]))
  init_spawned(info, buf)
  return id
end

-- Defold's dynamic prototypes: the factory spawns `prototype` (a .go path) from now on. Sinew
-- loads it here, checked as a prototype named in a file is; Defold's "Dynamic Prototype" box
-- is not needed.
local function set_prototype(fname, url, prototype, collection)
  local f = find(fname, url, collection)
  if type(prototype) ~= "string" then argerr(fname, 2, "string", prototype) end
  if F.factory_set_prototype(ctx, f, prototype, #prototype) < 0 then
    fail(fname .. ": " .. ffi.string(F.last_error()))
  end
end
function factory.set_prototype(url, prototype) set_prototype("factory.set_prototype", url, prototype, false) end

function factory.get_status(url) return status("factory.get_status", url, false) end
function factory.load(url, complete) load("factory.load", url, complete, false) end
function factory.unload(url) unload("factory.unload", url, false) end

local collectionfactory = {
  STATUS_UNLOADED = STATUS_UNLOADED, STATUS_LOADING = STATUS_LOADING, STATUS_LOADED = STATUS_LOADED,
}

function collectionfactory.create(url, p, rot, props, scale)
  local f, r = find("collectionfactory.create", url, true)
  local info, buf = spawn("collectionfactory.create", f, r, p, rot, props, scale, true)
  local ids = {}
  for i, path in ipairs(info.paths) do
    ids[hash(path)] = S.hash_of_u64(F.id_of(ctx, buf[i - 1]))
  end
  init_spawned(info, buf)
  return ids
end

function collectionfactory.set_prototype(url, prototype)
  set_prototype("collectionfactory.set_prototype", url, prototype, true)
end
function collectionfactory.get_status(url) return status("collectionfactory.get_status", url, true) end
function collectionfactory.load(url, complete) load("collectionfactory.load", url, complete, true) end
function collectionfactory.unload(url) unload("collectionfactory.unload", url, true) end

_G.factory = factory
_G.collectionfactory = collectionfactory
