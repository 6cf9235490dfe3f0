-- Core of Sinew's Lua side: hashes, URLs, error reporting, script loading, the per-instance
-- `self` tables and the callback dispatch loops. The game state itself lives in Rust and is
-- reached through the FFI functions in `F`; this file keeps only what Lua must own (the `self`
-- tables and the compiled callbacks).
local ffi = require("ffi")
-- `api`: name → address of each exported C function; `sigs`: name → its C signature, generated
-- from the Rust declaration (script/boundary.rs), as are the structs already declared with
-- ffi.cdef. Nothing here is typed by hand.
local api, sigs, ctx_addr, R, vm = ...

local S = {}            -- shared with go.lua and msg.lua
local xpcall = xpcall   -- Lua's own: the scripts get one that skips their handler for a stop
S.vm = vm
S.R = R
-- The numbers both languages agree on, from their Rust definitions (script::boundary::constants).
local K = R.K
S.K = K
local NONE = K.NONE
S.NONE = NONE
local ctx = ffi.cast("void *", ctx_addr)
S.ctx = ctx

local F = {}
for name, addr in pairs(api) do
  F[name] = ffi.cast(sigs[name], addr)
end
setmetatable(F, { __index = function(_, k) error("internal error: no FFI function '" .. tostring(k) .. "'", 2) end })
S.F = F

---------------------------------------------------------------- errors
-- Errors name the user's file and line: the first stack frame outside /builtins/.
local function where()
  for level = 3, 40 do
    local info = debug.getinfo(level, "Sl")
    if not info then break end
    if info.what ~= "C" and not info.short_src:find("^/builtins/") and info.currentline > 0 then
      return info.short_src .. ":" .. info.currentline .. ": "
    end
  end
  return ""
end
S.where = where
local function fail(msg)
  error(where() .. msg, 0)
end
S.fail = fail

local function type_name(v)
  local t = type(v)
  if t == "cdata" then
    local n = vm.type_name(v)
    if n then return "vmath." .. n end
    if ffi.istype("sinew_hash", v) then return "hash" end
    if ffi.istype("sinew_url", v) then return "msg.url" end
  end
  return t
end
S.type_name = type_name

-- False for NaN and the infinities, which poison every transform they reach.
function S.finite(x) return x - x == 0 end

-- Whether a quaternion can be an object's rotation: finite, with a length within the bounds
-- of base::quat (squared in double precision, where no float overflows). A zero one has no
-- direction, and a huge one overflows the world matrix it makes (Sinew decisions: Defold
-- stores either). S.ROTATION_RULE says so in the errors.
local MIN_ROTATION, MAX_ROTATION = R.rotation_lengths[1], R.rotation_lengths[2]
local MIN_ROTATION2, MAX_ROTATION2 = MIN_ROTATION * MIN_ROTATION, MAX_ROTATION * MAX_ROTATION
S.ROTATION_RULE = R.rotation_rule
function S.rotation_ok(q)
  local len2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w
  return len2 >= MIN_ROTATION2 and len2 <= MAX_ROTATION2
end

function S.argerr(fname, n, expected, got)
  fail(string.format("%s: bad argument #%d (%s expected, got %s)", fname, n, expected, type_name(got)))
end

-- A string given where a hash or URL is wanted: show the call that makes one.
function S.string_hint(kind, v)
  if type(v) ~= "string" then return "" end
  if kind == "url" then return string.format(" (make one with msg.url(%q))", v) end
  if kind == "hash" then return string.format(" (make one with hash(%q))", v) end
  return ""
end

function S.fail_last()
  fail(ffi.string(F.last_error()))
end

-- The last error of a failed call (`rc` not 0), named after the Lua function `fname`.
function S.check_in(fname, rc)
  if rc ~= 0 then fail(fname .. ": " .. ffi.string(F.last_error())) end
end

-- A Defold namespace (or the rest of one) that Sinew does not have: any use names the
-- missing function at the user's line, instead of "attempt to call a nil value".
local function unsupported(ns, name)
  fail(ns .. "." .. tostring(name) .. " is not supported by Sinew (see README, API coverage)")
end
function S.unsupported_rest(ns, t)
  return setmetatable(t, {
    __index = function(_, k) unsupported(ns, k) end,
    __newindex = function(_, k) unsupported(ns, k) end,
  })
end
-- The same for reads only, on the namespaces Sinew has (the loader gives it to each one that
-- has no metatable of its own): a script may still add its helpers to them, as in Defold.
function S.unsupported_reads(ns, t)
  return setmetatable(t, { __index = function(_, k) unsupported(ns, k) end })
end

---------------------------------------------------------------- hashes
local hash_t = ffi.typeof("sinew_hash")
local url_t = ffi.typeof("sinew_url")
S.hash_t, S.url_t = hash_t, url_t
local textbuf = ffi.new("char[512]")

-- Hashes are interned so they work as table keys and compare by identity, as in Defold. Both
-- tables are weak: a hash nobody holds is forgotten, so hashing new strings every frame does
-- not grow memory.
local by_value = setmetatable({}, { __mode = "v" })
local by_string = setmetatable({}, { __mode = "v" })
local u64box = ffi.new("uint64_t[1]")

-- In front of `by_value`, the hashes by their low 52 bits as a number: no string to make for a
-- hash seen before (a message's fields bring several). Another hash with the same low bits
-- goes to `by_value`, which alone decides identity; weak too, so it holds nothing `by_value`
-- has let go.
local by_low_bits = setmetatable({}, { __mode = "v" })
local band, LOW_52_BITS = bit.band, 0xFFFFFFFFFFFFFULL

-- In front of both, the last hash met at each of 256 places (by its low byte), held: the
-- messages of a physics step bring the same few hashes (ids, groups) thousands of times, and a
-- small array stays in cache where the table of every live hash misses (10,000 contact
-- messages: delivery 1.17-1.27 ms against 1.27-1.42). It holds only what `by_value` gave, and
-- what it holds stays alive in `by_value`: it returns the hash `by_value` would.
local recent = {}
for i = 1, 256 do recent[i] = false end

local function hash_of_u64(v)
  local slot = tonumber(band(v, 255)) + 1
  local r = recent[slot]
  if r and r.h == v then return r end
  local low = tonumber(band(v, LOW_52_BITS))
  local h = by_low_bits[low]
  if h ~= nil and h.h == v then
    recent[slot] = h
    return h
  end
  u64box[0] = v
  local key = ffi.string(u64box, 8)
  h = by_value[key]
  if h == nil then
    h = hash_t(v)
    by_value[key] = h
  end
  by_low_bits[low] = h
  recent[slot] = h
  return h
end
S.hash_of_u64 = hash_of_u64

local function hash(s)
  local h = by_string[s]
  if h == nil then
    h = hash_of_u64(F.hash_string(s, #s))
    by_string[s] = h
  end
  return h
end
S.hash = hash

local function hash_text(v)
  local n = F.hash_text(v, textbuf, 512)
  return ffi.string(textbuf, n)
end
S.hash_text = hash_text

ffi.metatype(hash_t, {
  __tostring = function(h) return "hash: [" .. hash_text(h.h) .. "]" end,
  __eq = function(a, b)
    return ffi.istype(hash_t, a) and ffi.istype(hash_t, b) and a.h == b.h
  end,
  -- As Defold's: a hash joins as "[text]" (string .. hash, hash .. string, hash .. hash); other
  -- values join as Lua joins them (a table is still an error).
  __concat = function(a, b)
    if ffi.istype(hash_t, a) then a = "[" .. hash_text(a.h) .. "]" end
    if ffi.istype(hash_t, b) then b = "[" .. hash_text(b.h) .. "]" end
    return a .. b
  end,
})

_G.hash = function(s)
  if ffi.istype(hash_t, s) then return s end
  if type(s) ~= "string" then S.argerr("hash", 1, "string", s) end
  return hash(s)
end

_G.hash_to_hex = function(h)
  if not ffi.istype(hash_t, h) then S.argerr("hash_to_hex", 1, "hash", h) end
  return string.format("%08x%08x", tonumber(h.h / 0x100000000ULL), tonumber(h.h % 0x100000000ULL))
end

-- string | hash → hash (property names, message ids, animation ids).
function S.to_hash(v, fname, n)
  if type(v) == "string" then return hash(v) end
  if ffi.istype(hash_t, v) then return v end
  S.argerr(fname, n, "string or hash", v)
end

---------------------------------------------------------------- URLs
-- The struct fields are s/p/f so that `socket`, `path` and `fragment` go through __index and
-- come back as interned hashes (nil when empty), as Defold's URL userdata does.
local url_keys = { socket = "s", path = "p", fragment = "f" }
ffi.metatype(url_t, {
  __index = function(u, k)
    local f = url_keys[k]
    if f == nil then fail("msg.url has no field '" .. tostring(k) .. "'") end
    local v = u[f]
    if v == 0 then return nil end
    return hash_of_u64(v)
  end,
  __newindex = function(u, k, v)
    local f = url_keys[k]
    if f == nil then fail("msg.url has no field '" .. tostring(k) .. "'") end
    if v == nil then u[f] = 0
    elseif type(v) == "string" then u[f] = hash(v).h
    elseif ffi.istype(hash_t, v) then u[f] = v.h
    else S.argerr("msg.url." .. k, 1, "string, hash or nil", v) end
  end,
  __tostring = function(u)
    local n = F.url_text(u, textbuf, 512)
    return "url: [" .. ffi.string(textbuf, n) .. "]"
  end,
  __eq = function(a, b)
    return ffi.istype(url_t, a) and ffi.istype(url_t, b) and a.s == b.s and a.p == b.p and a.f == b.f
  end,
})

-- The text inside `url: [...]`, for error messages that quote a URL.
function S.url_text(u) return tostring(u):match("^url: %[(.*)%]$") end

-- The kind of a property value as go.get/go.set/go.animate name it.
function S.value_kind(v)
  local t = type(v)
  if t ~= "cdata" then return t end
  return vm.type_name(v) or (ffi.istype(hash_t, v) and "hash") or (ffi.istype(url_t, v) and "url") or "cdata"
end

---------------------------------------------------------------- output
local function tostr_all(...)
  local n = select("#", ...)
  local parts = {}
  for i = 1, n do parts[i] = tostring((select(i, ...))) end
  return table.concat(parts, "\t")
end

_G.print = function(...) R.print(tostr_all(...)) end

-- Called once as the game ends, before the state closes. Finalizers (`__gc`) still run while it
-- closes, as in Defold (luacov, deftest's code coverage, saves its statistics then), but Rust
-- cannot be called back by then: printing and logging go to the C io library instead, and every
-- other host function raises an error, which the closing state ignores.
function S.before_close()
  for k, v in pairs(R) do
    if type(v) == "function" then
      R[k] = function() error(string.format("the game has ended: '%s' cannot be called from a finalizer", k), 2) end
    end
  end
  R.print = function(s) io.stdout:write(s, "\n") end
  R.log_error = function(s) io.stderr:write("ERROR: ", s, "\n") end
  R.log_warn = function(s) io.stderr:write("WARNING: ", s, "\n") end
end

local function pformat(v, indent, seen, depth)
  if type(v) ~= "table" then
    if type(v) == "string" then return string.format("%q", v) end
    return tostring(v)
  end
  if seen[v] then return "{ <cycle> }" end
  if depth > 8 then return "{ ... }" end
  seen[v] = true
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b)
    local ta, tb = type(a), type(b)
    if ta ~= tb then return ta < tb end
    if ta == "number" or ta == "string" then return a < b end
    return tostring(a) < tostring(b)
  end)
  if #keys == 0 then seen[v] = nil return "{}" end
  local pad = string.rep("  ", indent + 1)
  local out = { "{" }
  for i, k in ipairs(keys) do
    local ks = type(k) == "string" and k:match("^[%a_][%w_]*$") and k or ("[" .. pformat(k, 0, seen, depth + 1) .. "]")
    out[#out + 1] = pad .. ks .. " = " .. pformat(v[k], indent + 1, seen, depth + 1) .. (i < #keys and "," or "")
  end
  out[#out + 1] = string.rep("  ", indent) .. "}"
  seen[v] = nil
  return table.concat(out, "\n")
end

_G.pprint = function(...)
  local n = select("#", ...)
  local parts = {}
  for i = 1, n do parts[i] = pformat((select(i, ...)), 0, {}, 0) end
  R.print(table.concat(parts, "\t"))
end

---------------------------------------------------------------- modules
-- `require "main.util"` loads /main/util.lua from the project (never from the disk outside it).
-- Modules are tracked by name, not by their `package.loaded` value: a module that returned nil
-- must still reload on its next save.
local required = {}
local function project_loader(name)
  local path = "/" .. name:gsub("%.", "/") .. ".lua"
  local src, err = R.read(path)
  if src == nil then return "\n\tno file '" .. path .. "' in the project (" .. tostring(err) .. ")" end
  local chunk, cerr = loadstring(src, "@" .. path)
  if not chunk then error(cerr, 0) end
  required[name] = true
  return chunk
end
package.loaders = { package.loaders[1], project_loader }
package.path, package.cpath = "", ""

---------------------------------------------------------------- scripts
local CALLBACKS = { "init", "update", "fixed_update", "late_update", "on_message", "on_input", "on_reload", "final" }
local scripts = {}          -- resource path → definition
local loading = nil         -- the definition whose top level is running (for go.property)
S.scripts = scripts

function S.loading_script() return loading end

-- The text of each URL that msg.url made while a script's top level ran, by the URL: a
-- `go.property("target", msg.url("#sprite"))` default is that text resolved for each instance
-- (its collection's socket, its path, the script's id), as Defold resolves the string its build
-- stored (gameobject_props.cpp, ResolveURL), not the URL made before any instance existed.
S.url_texts = setmetatable({}, { __mode = "k" })

-- A script's environment. Defold runs every script's top level in the one global table and
-- takes its callbacks from there: a global function or variable a script defines is every
-- script's (`_G["enemy" .. wave](self)` finds it). Here the callbacks stay the script's own, in
-- its environment, and every other global a script sets goes to `_G`, as in Defold.
local IS_CALLBACK = {}
for _, name in ipairs(CALLBACKS) do IS_CALLBACK[name] = true end
local SCRIPT_ENV = {
  __index = _G,
  __newindex = function(env, k, v)
    if IS_CALLBACK[k] then rawset(env, k, v) else _G[k] = v end
  end,
}

-- Compiles and runs a .script's top level in its own environment; returns def or nil, message.
local function load_script(path)
  local src, err = R.read(path)
  if src == nil then return nil, err end
  local chunk, cerr = loadstring(src, "@" .. path)
  if not chunk then return nil, cerr end
  local env = setmetatable({}, SCRIPT_ENV)
  if path:match("%.render_script$") then rawset(env, "sys", S.render_sys()) end
  setfenv(chunk, env)
  local def = { path = path, env = env, props = {}, prop_list = {}, by_hash = {} }
  loading = def
  local ok, rerr = xpcall(chunk, debug.traceback)
  loading = nil
  if not ok then return nil, rerr end
  for _, name in ipairs(CALLBACKS) do
    local f = rawget(env, name)
    if f ~= nil and type(f) ~= "function" then
      return nil, string.format("The global name '%s' in '%s' must be a function.", name, path)
    end
    def[name] = f
  end
  return def
end

function S.get_script(path)
  local def = scripts[path]
  if def then return def end
  local d, err = load_script(path)
  if not d then return nil, err end
  scripts[path] = d
  return d
end

---------------------------------------------------------------- instances
local list, n = {}, 0       -- live instance records in creation order
local nfixed = 0            -- how many of them define fixed_update (none: a fixed step is free)
local by_index = {}         -- Rust instance index → record
local pending, npending = {}, 0  -- records created and not yet activated (E.init_new)
local ndead = 0             -- destroyed records still in `list` (see E.destroy)
local phases_dirty = true   -- which records have which callbacks changed (see rebuild_phases)
local compact               -- defined with E.destroy
S.by_index = by_index
local cur = nil             -- the record whose callback is running
-- Its object's slot while the record is active (nil otherwise): a script reading or writing its
-- own transform (go.lua's `own`) needs only this, so the update loop sets it from a flat array
-- and the hot path touches no record table.
local cur_slot = nil
local resume_at = 0

function S.current() return cur end
-- The calling script's record, or Defold's error for `<ns>.*` called from outside a script.
function S.caller(ns)
  local r = cur
  if r == nil then
    fail("You can only access " .. ns .. ".* functions and values from a script instance (.script file)")
  end
  return r
end
function S.current_slot() return cur_slot end
function S.set_current(r)
  cur = r
  cur_slot = r ~= nil and r.active and r.slot or nil
end

local in_handler = false
-- The handler's own error, with its traceback as a script's (S.handler, below).
local function handler_of_handler(e) return S.handler(e) end
local function report(err)
  err = tostring(err)
  R.log_error(err)
  -- sys.set_error_handler's function: the message and the traceback apart, as Defold gives them.
  local h = S.error_handler
  if h and not in_handler then
    local at = err:find("\nstack traceback:", 1, true)
    local message, traceback = err, ""
    if at then message, traceback = err:sub(1, at - 1), err:sub(at + 1) end
    in_handler = true
    local ok, e = xpcall(h, handler_of_handler, "lua", message, traceback)
    in_handler = false
    if not ok then R.log_error("the error handler (sys.set_error_handler) failed: " .. tostring(e)) end
  end
end
S.report = report

-- The traceback without the runtime's own frames: users see their files only.
local function handler(err)
  local tb = debug.traceback(tostring(err), 1)
  local out = {}
  for line in tb:gmatch("[^\n]+") do
    if #out == 0 or not line:find("/builtins/", 1, true) and not line:find("^%s*%[C%]: in function 'x?pcall'")
      and not line:find("^%s*%[C%]: in function 'error'") then
      out[#out + 1] = line
    end
  end
  return table.concat(out, "\n")
end

S.handler = handler

-- A message handler runs where its error was raised. The watchdog raises its errors (a script
-- past the time limit, an interruption) inside LuaJIT's hook, where no hook fires again: a
-- script's handler that looped there could never be stopped. So the scripts' `xpcall` returns
-- those errors without running the handler; the runtime's own calls keep the raw one (its
-- local `xpcall` above: their handler is bounded and writes the traceback).
local STOPS = R.stop_messages
local function stopped(e)
  if type(e) ~= "string" then return false end
  for i = 1, #STOPS do
    if e:find(STOPS[i], 1, true) then return true end
  end
  return false
end
S.xpcall = xpcall
_G.xpcall = function(f, msgh, ...)
  if type(msgh) ~= "function" then return xpcall(f, msgh, ...) end
  return xpcall(f, function(e)
    if stopped(e) then return e end
    return msgh(e)
  end, ...)
end

-- Lua raises a memory error without calling the handler, so it has no place: name the script.
local function located(err, r)
  if err == "not enough memory" and r ~= nil then
    return r.def.path .. ": not enough memory (Lua's memory limit was reached; the callback was stopped)"
  end
  return err
end

-- Runs one callback of one record under xpcall; errors are reported and the game goes on.
local function call(r, f, ...)
  local prev, prev_slot = cur, cur_slot
  cur, cur_slot = r, r.active and r.slot or nil
  local ok, err = xpcall(f, handler, r.self, ...)
  cur, cur_slot = prev, prev_slot
  if not ok then
    -- What the callback allocated is garbage now; without a collection the message itself may
    -- not fit under the limit, and the error would leave the pass with no script named.
    if err == "not enough memory" then collectgarbage() end
    report(located(err, r))
  end
end
S.call = call

local function copy_value(v)
  local tn = type(v) == "cdata" and vm.type_name(v)
  if tn == "vector3" then return vm.vector3(v.x, v.y, v.z) end
  if tn == "vector4" then return vm.vector4(v.x, v.y, v.z, v.w) end
  if tn == "quat" then return vm.quat(v.x, v.y, v.z, v.w) end
  if ffi.istype(url_t, v) then return url_t(v.s, v.p, v.f) end
  return v
end
S.copy_value = copy_value

-- A property's value for a new instance: a copy of its default, or a URL default's text
-- resolved for the instance (S.url_texts; the copy when the text no longer resolves).
local function default_of(p, slot, comp_h)
  local text = p.url_text
  if text ~= nil then
    local u = url_t()
    if F.resolve_url(ctx, slot, comp_h, text, #text, u) == 0 then return u end
  end
  return copy_value(p.default)
end

local E = {}  -- entry points for Rust

-- A script's `go.property` declarations as a list of {name, kind}, or nil and the load error.
-- Rust checks collection overrides against them (the same check for `run` and `sinew check`).
function E.declared(path)
  local def, err = S.get_script(path)
  if not def then return nil, err end
  local out = {}
  for i, p in ipairs(def.prop_list) do out[i] = { p.name, p.kind } end
  return out
end

-- Creates an instance. `overrides` is nil or a list of {name, kind, a, b, c, d}, already
-- checked against the declarations (game::spawn::check_overrides). In a Defold project one
-- that does not fit was warned of and is left out, as Defold does (spawn::Misfit::LeftOut): a
-- factory's prototype keeps its overrides, so they are skipped here too.
local NO_OVERRIDES = {}
-- Declared kind → the other override kinds that set it (spawn::OTHER_KINDS_THAT_FIT).
local OTHER_KINDS_THAT_FIT = R.other_kinds_that_fit
function E.create(index, slot, comp, path, overrides)
  local def, err = S.get_script(path)
  if not def then return err end
  local self = {}
  local id, ch = hash_of_u64(F.id_of(ctx, slot)), hash(comp)
  for _, p in ipairs(def.prop_list) do self[p.name] = default_of(p, slot, ch.h) end
  -- `update` & co. stay nil until the record is activated at the start of a frame (E.init_new):
  -- the loops skip it without a test, so an object made mid-frame is not updated that frame.
  -- One constructor with every field: the record's table is made at its final size.
  local r = {
    index = index, slot = slot, def = def, self = self, inited = false, active = false,
    id = id, comp = ch, url = url_t(F.socket(ctx, slot), id.h, ch.h),
  }
  for _, o in ipairs(overrides or NO_OVERRIDES) do
    local name, kind = o[1], o[2]
    local decl = def.props[name]
    local v
    if decl == nil or not (decl.kind == kind or (OTHER_KINDS_THAT_FIT[decl.kind] or NO_OVERRIDES)[kind]) then
      -- left out (see above)
    elseif kind == "number" or kind == "boolean" or kind == "string" then v = o[3]
    elseif kind == "hash" then v = hash(o[3])
    elseif kind == "url" then
      v = url_t()
      if F.resolve_url(ctx, slot, r.comp.h, o[3], #o[3], v) ~= 0 then return ffi.string(F.last_error()) end
    elseif kind == "vector3" then v = vm.vector3(o[3], o[4], o[5])
    elseif kind == "vector4" then
      v = decl.kind == "quat" and vm.quat(o[3], o[4], o[5], o[6]) or vm.vector4(o[3], o[4], o[5], o[6])
    end
    if v ~= nil then self[name] = v end
  end
  n = n + 1
  list[n] = r
  by_index[index] = r
  npending = npending + 1
  pending[npending] = r
  return nil
end

local function init_one(r)
  r.inited = true
  if r.def.init then call(r, r.def.init) end
end

-- `init` of a record a factory has just made, inside `factory.create` as Defold's Spawn runs it
-- (gameobject.cpp, InitInstance); it stays out of the loops until E.init_new activates it.
function S.init_spawned(index)
  local r = by_index[index]
  if r ~= nil and not r.inited then init_one(r) end
end

-- Runs `init` of the records created since the last call (those not already started by a
-- message, see E.deliver, or by their factory, see S.init_spawned) and activates them for the
-- loops. Called after load and at the start of every frame: an object a factory made during
-- frame N gets its first `update` in frame N+1, as in Defold.
function E.init_new()
  if ndead > 0 then compact() end
  local todo, count = pending, npending
  if count == 0 then return end
  pending, npending = {}, 0
  for i = 1, count do
    local r = todo[i]
    if by_index[r.index] == r then
      if not r.inited then init_one(r) end
      if by_index[r.index] == r then
        local def = r.def
        r.active = true
        phases_dirty = true
        r.update, r.late_update, r.on_input = def.update, def.late_update, def.on_input
        r.fixed_update = def.fixed_update
        if r.fixed_update then nfixed = nfixed + 1 end
      end
    end
  end
end

-- Per phase, the active records that define that callback, in creation order: a frame walks
-- only the scripts that have an `update` (13,000 scripts without one used to cost ~0.5 ms a
-- frame to skip). Rebuilt after anything changes which records have which callbacks.
-- Besides the records, each list keeps their callbacks, `self` tables and slots in flat
-- arrays of their own: the loop reads consecutive array slots instead of three fields spread
-- over each record's hash part (10,000 records do not stay in cache). `at[field]` is the field
-- of a record holding its position in that phase's list, so a record destroyed in the middle of
-- a frame can take its callback out (E.destroy).
local phase_list = { update = {}, late_update = {}, fixed_update = {} }
local phase_fn = { update = {}, late_update = {}, fixed_update = {} }
local phase_self = { update = {}, late_update = {}, fixed_update = {} }
local phase_slot = { update = {}, late_update = {}, fixed_update = {} }
local phase_count = { update = 0, late_update = 0, fixed_update = 0 }
local phase_at = { update = "at_update", late_update = "at_late_update", fixed_update = "at_fixed_update" }

local function rebuild_phases()
  for field, l in pairs(phase_list) do
    local fns, selfs, slots, at = phase_fn[field], phase_self[field], phase_slot[field], phase_at[field]
    local k = 0
    for i = 1, n do
      local r = list[i]
      local f = r[field]
      if f ~= nil then
        k = k + 1
        l[k], fns[k], selfs[k], slots[k] = r, f, r.self, r.slot
        r[at] = k
      else
        r[at] = nil
      end
    end
    for i = k + 1, phase_count[field] do l[i], fns[i], selfs[i], slots[i] = nil, nil, nil, nil end
    phase_count[field] = k
  end
  phases_dirty = false
end

-- One pcall for the whole loop: on an error, report it and resume after the failing instance.
-- Each loop reads its callback from a fixed record field (`update`, `late_update`), cached at
-- creation and on reload, so the JIT compiles a tight loop per phase.
local resume_list = list

-- Each object slot's time factor for this frame (E.time_scale; collection proxies'
-- `set_time_step`): nscale 0 while every object runs at the game's speed, and then the loops
-- below take their plain way. A negative factor: the object's world is not enabled and its
-- scripts get no `update`. Copied out of Rust's slice during the call (scripts run before
-- the frame ends, and no address into Rust is kept across them); only scaled frames copy.
local scale, nscale = {}, 0
function E.time_scale(addr, n)
  local p = ffi.cast("const float *", addr)
  for i = 0, n - 1 do scale[i] = p[i] end
  for i = n, nscale - 1 do scale[i] = nil end
  nscale = n
end
-- The factor of the object in `slot` (1 past the end: made since the frame began).
function S.time_factor(slot)
  if slot ~= nil and slot < nscale then return scale[slot] end
  return 1
end
function S.time_scaled() return nscale > 0 end

local function make_loop(field)
  local l, fns, selfs, slots = phase_list[field], phase_fn[field], phase_self[field], phase_slot[field]
  return function(from, dt)
    resume_list = l
    if nscale == 0 then
      for i = from, phase_count[field] do
        resume_at = i
        local f = fns[i]
        if f ~= nil then
          cur, cur_slot = l[i], slots[i]
          f(selfs[i], dt)
        end
      end
    else
      for i = from, phase_count[field] do
        resume_at = i
        local f = fns[i]
        if f ~= nil then
          local slot = slots[i]
          local k = slot < nscale and scale[slot] or 1
          if k >= 0 then
            cur, cur_slot = l[i], slot
            f(selfs[i], dt * k)
          end
        end
      end
    end
    cur, cur_slot = nil, nil
  end
end
local update_from, late_update_from = make_loop("update"), make_loop("late_update")
local fixed_update_from = make_loop("fixed_update")

local function run_all(loop, dt)
  if phases_dirty then rebuild_phases() end
  local from = 1
  while true do
    local ok, err = xpcall(loop, handler, from, dt)
    cur, cur_slot = nil, nil
    if ok then return end
    report(located(err, resume_list[resume_at]))
    from = resume_at + 1
  end
end

-- Counts frames for the timers (timer.lua): a timer made before this frame's `update` runs
-- down from this frame on; one made after it, from the next.
S.frame = 0
function E.update(dt)
  S.frame = S.frame + 1
  run_all(update_from, dt)
end
function E.late_update(dt) run_all(late_update_from, dt) end
function E.fixed_update(dt, steps)
  if nfixed == 0 then return false end
  for _ = 1, steps do run_all(fixed_update_from, dt) end
  return true
end

-- The run being delivered; kept outside the loop so that after an error the loop resumes with
-- the next message. One xpcall for the run, as for `update`: a handler per message would keep
-- LuaJIT from compiling the loop.
local envelope_p = ffi.typeof("const sinew_envelope *")
local envelopes, nenvelopes, next_envelope = nil, 0, 0
-- The record whose message is being decoded or handled, and whether it is being decoded (an
-- error there is the message's, not the script's).
local delivering, decoding = nil, false
local decode_message

local function deliver_loop()
  while next_envelope < nenvelopes do
    local env = envelopes[next_envelope]
    next_envelope = next_envelope + 1
    local r = by_index[env.instance]
    if r ~= nil then
      local f = r.def.on_message
      if f then
        -- A message to an object made this frame arrives after its `init`.
        if not r.inited then init_one(r) end
        delivering, decoding = r, true
        local msg = decode_message(env.data, env.len)
        decoding = false
        cur, cur_slot = r, r.active and r.slot or nil
        f(r.self, hash_of_u64(env.id), msg, url_t(env.sender))
      end
    end
  end
end

local function decode_error(err)
  return "on_message: " .. tostring(err)
end

-- A run of messages: `n` envelopes from `addr`, each to its script instance, in order.
function E.deliver(addr, n)
  decode_message = S.decode_message
  envelopes, nenvelopes, next_envelope = ffi.cast(envelope_p, addr), n, 0
  while true do
    local ok, err = xpcall(deliver_loop, handler)
    cur, cur_slot = nil, nil
    if ok then break end
    if decoding then
      -- The decoder's own error, without a traceback into the runtime.
      report(decode_error(err:match("^[^\n]*")))
    elseif not (delivering ~= nil and delivering.index == K.RS_INSTANCE and S.render_stopped(err)) then
      if err == "not enough memory" then collectgarbage() end
      report(located(err, delivering))
    end
    decoding = false
  end
  envelopes, nenvelopes, delivering = nil, 0, nil
end

-- A `model.play_anim` complete_function: (self, message_id, message, sender), like on_message.
-- `keep`: the callback stays for later calls (particlefx.play's emitter state function).
function E.model_done(index, callback, env_addr, keep)
  local cb
  if keep then cb = S.peek_play_callback(callback) else cb = S.take_play_callback(callback) end
  if cb == nil then return end
  local r = by_index[index]
  if r == nil or cb[2] ~= r then return end
  local env = ffi.cast("const sinew_envelope *", env_addr)
  local ok, msg = pcall(S.decode_message, env.data, env.len)
  if not ok then return report("model_animation_done: " .. tostring(msg)) end
  call(r, cb[1], hash_of_u64(env.id), msg, url_t(env.sender))
end

function E.destroy(index)
  local r = by_index[index]
  if r == nil then return end
  -- `final` pairs with `init`: an object whose init never ran (deleted before it started) gets none.
  if r.inited and r.def.final then call(r, r.def.final) end
  r.destroyed = true
  S.end_timers(r)
  by_index[index] = nil
  if r.fixed_update then nfixed = nfixed - 1 end
  -- Left in `list` with no callbacks (the loops skip it) and dropped by `compact` at the next
  -- frame's start: removing each one at once would cost O(live records) per deleted object.
  r.update, r.late_update, r.fixed_update, r.on_input, r.active = nil, nil, nil, nil, false
  for field, at in pairs(phase_at) do
    local k = r[at]
    if k ~= nil and phase_list[field][k] == r then phase_fn[field][k] = nil end
  end
  r.dead = true
  phases_dirty = true
  ndead = ndead + 1
end

-- Drops the records of destroyed instances from `list`, keeping creation order.
compact = function()
  local j = 0
  for i = 1, n do
    local r = list[i]
    if not r.dead then
      j = j + 1
      list[j] = r
    end
  end
  for i = j + 1, n do list[i] = nil end
  n, ndead = j, 0
end

function E.count() return n - ndead end

---------------------------------------------------------------- the render script
-- A render script's `sys`: `get_config` gives a number for a number's text. Defold's vector
-- fields take a number's text (luaL_checknumber), and the render scripts of Defold's older
-- default (`self.clear_color.x = sys.get_config("render.clear_color_red", 0)`) rely on it;
-- Sinew's vectors are FFI structs, whose fields take numbers only.
local render_sys = nil
function S.render_sys()
  if render_sys == nil then
    local sys = _G.sys
    render_sys = setmetatable({
      get_config = function(key, default)
        local v = sys.get_config(key, default)
        return type(v) == "string" and tonumber(v) or v
      end,
    }, { __index = sys, __newindex = sys })
  end
  return render_sys
end

-- A project's own render script (`[bootstrap] render`): one record outside the update loops,
-- whose `update` runs as the frame is drawn (E.render_update). Messages to `@render:` reach its
-- `on_message` through E.deliver as instance K.RS_INSTANCE.
local RENDER = K.RS_INSTANCE
local render_record = nil
local render_size = nil
local ids = nil

-- Runs callback `f` of the render script. An error naming what Sinew does not support (render
-- targets, say) stops the script, with a warning, and Sinew's own pipeline draws from then on;
-- any other is the script's, reported as a game script's is. Returns ok, stopped.
local UNSUPPORTED = "is not supported by Sinew"
-- Whether error `err` of the render script (in any callback) stops it; if so, says why.
function S.render_stopped(err)
  local r = render_record
  if r == nil or type(err) ~= "string" or not err:find(UNSUPPORTED, 1, true) then return false end
  R.log_warn(err:match("^[^\n]*") .. "\n(the render script " .. r.def.path
    .. " is stopped: Sinew draws with its own pipeline, as for Defold's default render script)")
  render_record, by_index[RENDER] = nil, nil
  return true
end

local function render_call(f, ...)
  local r = render_record
  local prev, prev_slot = cur, cur_slot
  cur, cur_slot = r, nil
  local ok, err = xpcall(f, handler, r.self, ...)
  cur, cur_slot = prev, prev_slot
  if ok then return true, false end
  if err == "not enough memory" then collectgarbage() end
  if S.render_stopped(err) then return false, true end
  report(located(err, r))
  return false, false
end

-- Loads the render script and runs its `init`. Returns the error that keeps it from loading (it
-- does not compile, or its top level fails), or nil and whether it was stopped in `init`.
function E.render_load(path)
  local def, err = S.get_script(path)
  if not def then return err end
  local socket = hash("@render")
  local r = { index = RENDER, def = def, self = {}, inited = true, active = false, anywhere = true,
              id = socket, comp = hash(""), url = url_t(socket.h, 0, 0) }
  by_index[RENDER] = r
  render_record = r
  ids = { resized = hash("window_resized"), view_projection = hash("set_view_projection") }
  if def.init then
    local _, stopped = render_call(def.init)
    return nil, stopped
  end
  return nil, false
end

local cam_slot, cam_comp = ffi.new("uint32_t[1]"), ffi.new("uint64_t[1]")

-- Runs the render script's `update` for the frame being drawn: first `window_resized` when the
-- window changed, and the camera drawn now as Defold's camera component posts it each frame
-- (`set_view_projection`). Returns whether `update` finished without an error, and whether the
-- script was stopped (render_call).
function E.render_update(dt, width, height)
  local r = render_record
  if r == nil then return false, true end
  local def = r.def
  if def.on_message then
    if render_size ~= nil and (render_size[1] ~= width or render_size[2] ~= height) then
      call(r, def.on_message, ids.resized, { width = width, height = height }, r.url)
    end
    local found = F.camera_active(ctx, cam_slot, cam_comp)
    if found > 0 then
      local view, projection = vm.matrix4_t(), vm.matrix4_t()
      if F.camera_matrix(ctx, cam_slot[0], cam_comp[0], 0, view) == 0
        and F.camera_matrix(ctx, cam_slot[0], cam_comp[0], 1, projection) == 0 then
        call(r, def.on_message, ids.view_projection,
          { id = hash_of_u64(cam_comp[0]), view = view, projection = projection }, r.url)
      end
    end
  end
  render_size = { width, height }
  if not def.update then return true, false end
  return render_call(def.update, dt)
end

---------------------------------------------------------------- hot reload
-- A changed .script is run again; its definition table is patched in place so every instance
-- keeps its `self` and gets the new callbacks, then `on_reload(self)` runs on each instance.
-- Returns an error message (the old version stays in use) or nil; `nil, false` when no instance
-- uses the script.
function E.reload_script(path)
  local def = scripts[path]
  if def == nil then return nil, false end
  local new, err = load_script(path)
  if not new then return err end
  for _, name in ipairs(CALLBACKS) do def[name] = new[name] end
  def.env, def.props, def.prop_list, def.by_hash = new.env, new.props, new.prop_list, new.by_hash
  def.prop_desc = nil  -- property.lua's descriptions of the old declarations
  phases_dirty = true
  for i = 1, n do
    local r = list[i]
    if r.def == def and r.active then
      r.update, r.late_update = def.update, def.late_update
      nfixed = nfixed + (def.fixed_update and 1 or 0) - (r.fixed_update and 1 or 0)
      r.fixed_update, r.on_input = def.fixed_update, def.on_input
      for _, p in ipairs(def.prop_list) do
        if r.self[p.name] == nil then r.self[p.name] = default_of(p, r.slot, r.comp.h) end
      end
      if def.on_reload then call(r, def.on_reload) end
    end
  end
  local rr = render_record
  if rr ~= nil and rr.def == def and def.on_reload then call(rr, def.on_reload) end
  return nil, true
end

-- A changed module is run again and its old table patched in place, so scripts holding the
-- module (`local util = require "main.util"`) see the new functions.
function E.reload_module(path)
  local name = path:sub(2):gsub("%.lua$", ""):gsub("/", ".")
  if not required[name] then return nil, false end
  local old = package.loaded[name]
  local src, rerr = R.read(path)
  if src == nil then return rerr end
  local chunk, cerr = loadstring(src, "@" .. path)
  if not chunk then return cerr end
  local ok, new = xpcall(chunk, handler, name)
  if not ok then return new end
  if type(old) == "table" and type(new) == "table" then
    for k in pairs(old) do if new[k] == nil then old[k] = nil end end
    for k, v in pairs(new) do old[k] = v end
  else
    -- As `require` does: a module that returns nothing is loaded as `true`.
    if new == nil then new = true end
    package.loaded[name] = new
  end
  return nil, true
end

---------------------------------------------------------------- sys
_G.sys = {
  exit = function(code)
    if code ~= nil and type(code) ~= "number" then S.argerr("sys.exit", 1, "number", code) end
    F.exit(ctx, code or 0)
  end,
}

-- `os.exit` ends the run the way `sys.exit` does (the frame finishes, `final` runs, the
-- screenshot is written) instead of killing the process. `true`/nil mean 0, `false` means 1.
os.exit = function(code)
  if code == nil or code == true then code = 0 elseif code == false then code = 1 end
  if type(code) ~= "number" then S.argerr("os.exit", 1, "number or boolean", code) end
  F.exit(ctx, code)
end

S.E = E
return S
