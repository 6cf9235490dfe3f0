-- The `particlefx` namespace (docs/particles.md): playing and stopping particle effect
-- components. Arguments are checked here, naming the function; Rust does the work.
local ffi = require("ffi")
local S = ...
local F, ctx, vm, hash_t = S.F, S.ctx, S.vm, S.hash_t
local istype = ffi.istype
local fail, argerr = S.fail, S.argerr
local PARTICLEFX = S.K.COMPONENT_PARTICLEFX

local function check(rc) if rc ~= 0 then S.fail_last() end end

-- go.get / go.set of an emitter's `image`, `animation` and `material` (hashes), the emitter
-- named by `{ keys = { emitter_id } }` (Defold's form) or `{ key = emitter_id }`.
local function known(name) return F.particlefx_prop_known(S.hash(name).h) ~= 0 end
local props = {}
S.component_kinds[PARTICLEFX] = props
function props.kind(slot, comp, name) return known(name) and "hash" or nil end
local function emitter_key(name, where_text, options)
  local key
  if type(options) == "table" then
    if type(options.keys) == "table" then key = options.keys[1] else key = options.key end
  end
  if not known(name) then fail(string.format("'%s' does not have any property called '%s'", where_text, name)) end
  if key == nil then
    fail(string.format("the property '%s' of '%s' needs its emitter: { keys = { emitter_id } }", name, where_text))
  end
  return S.to_hash(key, "key", 1).h
end
function props.get(slot, comp, name, where_text, options)
  local e = emitter_key(name, where_text, options)
  local h = F.particlefx_prop_get(ctx, slot, comp, S.hash(name).h, e)
  if h == 0 then S.fail_last() end
  return S.hash_of_u64(h)
end
function props.set(slot, comp, name, value, where_text, options)
  local e = emitter_key(name, where_text, options)
  check(F.particlefx_prop_set(ctx, slot, comp, S.hash(name).h, e, S.to_hash(value, "go.set", 3).h))
end

local particlefx = {}

-- (url) → slot and component hash; a game object's URL (no component) stands for every
-- particle effect of it, as in Defold, where play and stop are messages to the URL.
local function effect_of(fname, url)
  local r = S.caller("particlefx")
  if url == nil then argerr(fname, 1, "string, hash or msg.url", url) end
  local u = S.url_t(S.to_url(url, fname, 1, r))
  if u.f ~= 0 then
    local slot = S.component_of(fname, url, r, PARTICLEFX)
    return slot, u.f
  end
  local slot = u.s == r.url.s and F.find(ctx, u.s, u.p) or S.NONE
  if slot == S.NONE then
    fail(string.format("%s: the game object '%s' could not be found", fname, S.url_text(u)))
  end
  return slot, 0
end

-- `emitter_state_function(self, id, emitter, state)` runs as each emitter changes state
-- (particlefx.EMITTER_STATE_*), until every emitter sleeps again.
function particlefx.play(url, emitter_state_function)
  local r = S.caller("particlefx")
  local slot, comp = effect_of("particlefx.play", url)
  local cb = 0
  if emitter_state_function ~= nil then
    if type(emitter_state_function) ~= "function" then argerr("particlefx.play", 2, "function", emitter_state_function) end
    cb = S.add_play_callback(function(self, _, m) emitter_state_function(self, m.id, m.emitter, m.state) end, r)
  end
  if F.particlefx_play(ctx, slot, comp, r.index, cb) ~= 0 then
    if cb ~= 0 then S.take_play_callback(cb) end
    S.fail_last()
  end
end

local function hash_arg(fname, n, v)
  if type(v) == "string" then return S.hash(v).h end
  if istype(hash_t, v) then return v.h end
  argerr(fname, n, "string or hash", v)
end

-- The built-in particle program's one constant, `tint` (a vector4), per emitter.
function particlefx.set_constant(url, emitter, constant, value)
  local slot, comp = effect_of("particlefx.set_constant", url)
  local e = hash_arg("particlefx.set_constant", 2, emitter)
  local c = hash_arg("particlefx.set_constant", 3, constant)
  if not istype(vm.vector4_t, value) then argerr("particlefx.set_constant", 4, "vector4", value) end
  check(F.particlefx_constant(ctx, slot, comp, e, c, 1, value.x, value.y, value.z, value.w))
end

function particlefx.reset_constant(url, emitter, constant)
  local slot, comp = effect_of("particlefx.reset_constant", url)
  local e = hash_arg("particlefx.reset_constant", 2, emitter)
  local c = hash_arg("particlefx.reset_constant", 3, constant)
  check(F.particlefx_constant(ctx, slot, comp, e, c, 0, 0, 0, 0, 0))
end

particlefx.EMITTER_STATE_SLEEPING = S.K.PARTICLEFX_STATE_SLEEPING
particlefx.EMITTER_STATE_PRESPAWN = S.K.PARTICLEFX_STATE_PRESPAWN
particlefx.EMITTER_STATE_SPAWNING = S.K.PARTICLEFX_STATE_SPAWNING
particlefx.EMITTER_STATE_POSTSPAWN = S.K.PARTICLEFX_STATE_POSTSPAWN

function particlefx.stop(url, options)
  local slot, comp = effect_of("particlefx.stop", url)
  local clear = false
  if options ~= nil then
    if type(options) ~= "table" then argerr("particlefx.stop", 2, "table", options) end
    clear = options.clear
    if clear ~= nil and type(clear) ~= "boolean" then
      fail(string.format("particlefx.stop: clear must be a boolean (got %s)", S.type_name(clear)))
    end
  end
  check(F.particlefx_stop(ctx, slot, comp, clear and 1 or 0))
end

return S.unsupported_rest("particlefx", particlefx)
