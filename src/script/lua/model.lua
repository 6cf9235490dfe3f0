-- The `model` namespace and model-component properties for go.get/go.set (material constants
-- such as `tint` and their .x/.y/.z/.w). Arguments are checked here; Rust does the work.
local ffi = require("ffi")
local S = ...
local fail, argerr, current = S.fail, S.argerr, S.current
local hash, hash_t = S.hash, S.hash_t
local vm, NONE = S.vm, S.NONE
local ctx = S.ctx
local istype = ffi.istype

local F, K = S.F, S.K

local s4 = vm.vector4_t()

-- (url) → slot, component hash of a model component; raises Defold's errors.
local function model_of(fname, url)
  local r = current()
  if r == nil then fail("You can only access model.* functions and values from a script instance (.script file)") end
  if url == nil then argerr(fname, 1, "string, hash or msg.url", url) end
  local u = S.to_url(url, fname, 1, r)
  local slot = S.F.find(ctx, u.s, u.p)
  local what = tostring(u):match("^url: %[(.*)%]$")
  if slot == NONE or u.f == 0 or F.component_kind(ctx, slot, u.f) ~= K.COMPONENT_MODEL then
    fail(string.format("the component '%s' could not be found", what))
  end
  return slot, u.f
end

local function check(rc) if rc ~= 0 then S.fail_last() end end

---------------------------------------------------------------- go.get / go.set
local props = {}
S.component_kinds[K.COMPONENT_MODEL] = props

local function constant_name(name)
  local base, c = name:match("^(.-)%.([xyzw])$")
  return base or name, c
end

-- Player properties: number, read/write (go.get/go.set/go.animate).
local ANIM_PROPS = { cursor = K.PLAYER_CURSOR, playback_rate = K.PLAYER_PLAYBACK_RATE }
local fbuf = ffi.new("float[1]")

-- `ik.<chain>.weight` (layers.md §2): the chain's name, or nil.
local function ik_chain(name)
  return name:match("^ik%.(.+)%.weight$")
end

-- The type of a model property: "number" (cursor, playback_rate, ik.<chain>.weight), "hash"
-- (animation, read only), "vector4" (a material constant), or nil.
function props.kind(slot, comp, name)
  if ANIM_PROPS[name] then return "number" end
  local chain = ik_chain(name)
  if chain then
    if F.model_ik(ctx, slot, comp, hash(chain).h, 4, 0, 0, 0, 0, fbuf) == 0 then return "number" end
    return nil
  end
  if name == "animation" or name == "material" then return "hash" end
  if F.model_constant_get(ctx, slot, comp, hash(name).h, s4) == 0 then return "vector4" end
  return nil
end

function props.has(slot, comp, name)
  return props.kind(slot, comp, name) ~= nil
end

function props.get(slot, comp, name, where_text)
  local which = ANIM_PROPS[name]
  if which then
    check(F.model_anim_get(ctx, slot, comp, which, fbuf))
    return fbuf[0]
  end
  if name == "animation" then return S.hash_of_u64(F.model_animation(ctx, slot, comp)) end
  if name == "material" then
    local h = F.model_material_get(ctx, slot, comp)
    if h == 0 then S.fail_last() end
    return S.hash_of_u64(h)
  end
  local chain = ik_chain(name)
  if chain then
    if F.model_ik(ctx, slot, comp, hash(chain).h, 4, 0, 0, 0, 0, fbuf) ~= 0 then
      fail(string.format("'%s' does not have any property called '%s'", where_text, name))
    end
    return fbuf[0]
  end
  local base, c = constant_name(name)
  if F.model_constant_get(ctx, slot, comp, hash(base).h, s4) ~= 0 then
    fail(string.format("'%s' does not have any property called '%s'", where_text, name))
  end
  if c then return s4[c] end
  return vm.vector4(s4.x, s4.y, s4.z, s4.w)
end

function props.set(slot, comp, name, value, where_text)
  local which = ANIM_PROPS[name]
  if which then
    if type(value) ~= "number" then
      fail(string.format("the property '%s' of '%s' must be a number", name, where_text))
    end
    check(F.model_anim_set(ctx, slot, comp, which, value))
    return
  end
  if name == "animation" then fail(string.format("could not perform unsupported operation on '%s'", name)) end
  if name == "material" then
    -- Defold takes the material as a resource hash (`go.property("m", resource.material(...))`).
    if type(value) ~= "string" and not istype(hash_t, value) then
      fail(string.format("go.set: argument 3 (material) must be a hash or string naming a material, got %s",
        S.type_name(value)))
    end
    check(F.model_material_set(ctx, slot, comp, S.to_hash(value, "go.set", 3).h))
    return
  end
  local chain = ik_chain(name)
  if chain then
    if type(value) ~= "number" then
      fail(string.format("the property '%s' of '%s' must be a number", name, where_text))
    end
    if F.model_ik(ctx, slot, comp, hash(chain).h, 2, 0, value, 0, 0, nil) ~= 0 then
      fail(string.format("'%s' does not have any property called '%s'", where_text, name))
    end
    return
  end
  local base, c = constant_name(name)
  if F.model_constant_get(ctx, slot, comp, hash(base).h, s4) ~= 0 then
    fail(string.format("'%s' does not have any property called '%s'", where_text, name))
  end
  if c then
    if type(value) ~= "number" then
      fail(string.format("the property '%s' of '%s' must be a number", name, where_text))
    end
    s4[c] = value
  else
    if not istype(vm.vector4_t, value) then
      fail(string.format("the property '%s' of '%s' must be a vmath.vector4", name, where_text))
    end
    s4.x, s4.y, s4.z, s4.w = value.x, value.y, value.z, value.w
  end
  check(F.model_constant_set(ctx, slot, comp, hash(base).h, s4.x, s4.y, s4.z, s4.w))
end

---------------------------------------------------------------- model.*
local model = {}

local function mesh_hash(fname, id)
  if type(id) == "string" then return hash(id) end
  if istype(hash_t, id) then return id end
  argerr(fname, 2, "string or hash", id)
end

function model.set_mesh_enabled(url, mesh_id, enabled)
  local slot, comp = model_of("model.set_mesh_enabled", url)
  local h = mesh_hash("model.set_mesh_enabled", mesh_id)
  if type(enabled) ~= "boolean" then argerr("model.set_mesh_enabled", 3, "boolean", enabled) end
  if F.model_mesh_enabled(ctx, slot, comp, h.h, enabled and 1 or 0) < 0 then S.fail_last() end
end

function model.get_mesh_enabled(url, mesh_id)
  local slot, comp = model_of("model.get_mesh_enabled", url)
  local h = mesh_hash("model.get_mesh_enabled", mesh_id)
  local r = F.model_mesh_enabled(ctx, slot, comp, h.h, -1)
  if r < 0 then S.fail_last() end
  return r == 1
end

local function aabb(slot, comp, i)
  local lo, hi = vm.vector3_t(), vm.vector3_t()
  check(F.model_aabb(ctx, slot, comp, i, lo, hi))
  return { min = lo, max = hi }
end

function model.get_aabb(url)
  local slot, comp = model_of("model.get_aabb", url)
  return aabb(slot, comp, -1)
end

function model.get_mesh_aabb(url)
  local slot, comp = model_of("model.get_mesh_aabb", url)
  local out = {}
  local n = F.model_mesh_count(ctx, slot, comp)
  for i = 0, n - 1 do
    local id = S.hash_of_u64(F.model_mesh_id(ctx, slot, comp, i))
    if out[id] == nil then out[id] = aabb(slot, comp, i) end
  end
  return out
end

---------------------------------------------------------------- animation
local namecap = 512
local namebuf = ffi.new("char[?]", namecap)
local play_callbacks = {}   -- callback id → { fn, owner record, sweeps found dead }
local next_play_callback = 0
local nplay = 0             -- entries in play_callbacks
S.play_callbacks = play_callbacks

-- The model world is the one owner of a completion callback: an entry lives while a live model
-- listens with its id. Once a frame (before the tweens, when every message posted so far has
-- been dispatched) the ids no model will call are dropped: replaced, cancelled, looping,
-- unknown clip, deleted model or owner, lost message. An id must be found dead by two sweeps in
-- a row, so one still in a message that a busy dispatch left for later survives.
local sweep_ids, sweep_cap = ffi.new("uint32_t[64]"), 64
local sweep_keys = {}
function S.sweep_play_callbacks()
  if nplay == 0 then return end
  if nplay > sweep_cap then
    sweep_cap = nplay * 2
    sweep_ids = ffi.new("uint32_t[?]", sweep_cap)
  end
  local n = 0
  for id in pairs(play_callbacks) do
    sweep_ids[n], sweep_keys[n + 1] = id, id
    n = n + 1
  end
  if F.model_dead_callbacks(ctx, sweep_ids, n) ~= 0 then return end
  for i = 0, n - 1 do
    local id = sweep_keys[i + 1]
    sweep_keys[i + 1] = nil
    local cb = play_callbacks[id]
    if sweep_ids[i] ~= 0 and S.by_index[cb[2].index] == cb[2] then
      cb[3] = 0
    else
      cb[3] = cb[3] + 1
      if cb[3] >= 2 or S.by_index[cb[2].index] ~= cb[2] then
        play_callbacks[id] = nil
        nplay = nplay - 1
      end
    end
  end
end

-- Called when Rust runs a callback: it fires once, then the entry is gone.
function S.take_play_callback(id)
  local cb = play_callbacks[id]
  if cb ~= nil then
    play_callbacks[id] = nil
    nplay = nplay - 1
  end
  return cb
end

function S.play_callback_count() return nplay end

function S.peek_play_callback(id) return play_callbacks[id] end

-- Keeps a completion callback of script record `r` (model.play_anim, sound.play); returns the id
-- Rust calls it by.
function S.add_play_callback(fn, r)
  next_play_callback = next_play_callback % 0xfffffff0 + 1
  if play_callbacks[next_play_callback] == nil then nplay = nplay + 1 end
  play_callbacks[next_play_callback] = { fn, r, 0 }
  return next_play_callback
end

-- Posts `model_play_animation` to the component (handled at the next dispatch, as in Defold).
function model.play_anim(url, anim_id, playback, play_properties, complete_function)
  local r = current()
  if r == nil then fail("You can only access model.* functions and values from a script instance (.script file)") end
  if url == nil then argerr("model.play_anim", 1, "string, hash or msg.url", url) end
  local target = S.url_t(S.to_url(url, "model.play_anim", 1, r))
  local id = S.to_hash(anim_id, "model.play_anim", 2)
  if type(playback) ~= "number" then argerr("model.play_anim", 3, "number", playback) end
  if playback < 0 or playback >= K.PLAYBACK_COUNT or playback % 1 ~= 0 then fail("model.play_anim: invalid playback mode " .. playback) end
  local message = { animation_id = id, playback = playback }
  if play_properties ~= nil then
    if type(play_properties) ~= "table" then argerr("model.play_anim", 4, "table", play_properties) end
    for _, k in ipairs({ "blend_duration", "offset", "playback_rate" }) do
      local v = play_properties[k]
      if v ~= nil and type(v) ~= "number" then
        fail(string.format("model.play_anim: play_properties.%s must be a number (got %s)", k, S.type_name(v)))
      end
      message[k] = v
    end
    -- Layers (layers.md §1).
    local layer = play_properties.layer
    if layer ~= nil then
      if type(layer) ~= "number" or layer % 1 ~= 0 or layer < 0 or layer >= K.LAYERS then
        fail(string.format("model.play_anim: play_properties.layer must be an integer 0-%d (got %s)", K.LAYERS - 1,
          tostring(layer)))
      end
      message.layer = layer
    end
    local weight = play_properties.weight
    if weight ~= nil then
      if type(weight) ~= "number" then
        fail(string.format("model.play_anim: play_properties.weight must be a number (got %s)", S.type_name(weight)))
      end
      message.weight = weight
    end
    local additive = play_properties.additive
    if additive ~= nil then
      if type(additive) ~= "boolean" then
        fail(string.format("model.play_anim: play_properties.additive must be a boolean (got %s)", S.type_name(additive)))
      end
      message.additive = additive
    end
    local mask = play_properties.mask
    if mask ~= nil then
      local function entry(v)
        if type(v) == "string" or istype(hash_t, v) then return v end
        fail(string.format("model.play_anim: play_properties.mask must be a joint or mask name, or a list of them (got %s)", S.type_name(v)))
      end
      if type(mask) == "table" then
        local list = {}
        for i = 1, #mask do list[i] = entry(mask[i]) end
        if #list == 0 then fail("model.play_anim: play_properties.mask is an empty list") end
        message.mask = list
      else
        message.mask = entry(mask)
      end
    end
  end
  -- An unknown clip is reported here, where the script's file and line are known; the
  -- message would do nothing.
  local slot = F.find(ctx, target.s, target.p)
  if slot ~= NONE then
    local n = F.model_unknown_clip(ctx, slot, target.f, id.h, namebuf, namecap)
    if n >= 0 then
      S.R.log_warn(string.format("%s'%s' has no animation named '%s' (animations: %s)", S.where(), S.url_text(target),
        S.hash_text(id.h), ffi.string(namebuf, n)))
      return
    end
  end
  if type(complete_function) == "function" then message.callback = S.add_play_callback(complete_function, r) end
  S.post_raw(r.url, target, hash("model_play_animation"), message)
end

local function check_layer(fname, layer, arg)
  if type(layer) ~= "number" then argerr(fname, arg, "number", layer) end
  if layer % 1 ~= 0 or layer < 0 or layer >= K.LAYERS then
    fail(string.format("%s: layer must be an integer 0-%d (got %s)", fname, K.LAYERS - 1, tostring(layer)))
  end
end

-- `layer` (layers.md §1): that layer only; without it every layer stops.
function model.cancel(url, layer)
  local r = current()
  if r == nil then fail("You can only access model.* functions and values from a script instance (.script file)") end
  if url == nil then argerr("model.cancel", 1, "string, hash or msg.url", url) end
  local message = nil
  if layer ~= nil then
    check_layer("model.cancel", layer, 2)
    message = { layer = layer }
  end
  S.post_raw(r.url, S.url_t(S.to_url(url, "model.cancel", 1, r)), hash("model_cancel_animation"), message)
end

-- A message like play_anim, so that it applies in order with the plays around it.
function model.set_layer_weight(url, layer, weight, duration)
  local r = current()
  if r == nil then fail("You can only access model.* functions and values from a script instance (.script file)") end
  if url == nil then argerr("model.set_layer_weight", 1, "string, hash or msg.url", url) end
  local target = S.url_t(S.to_url(url, "model.set_layer_weight", 1, r))
  check_layer("model.set_layer_weight", layer, 2)
  if type(weight) ~= "number" then argerr("model.set_layer_weight", 3, "number", weight) end
  if duration ~= nil and type(duration) ~= "number" then argerr("model.set_layer_weight", 4, "number", duration) end
  S.post_raw(r.url, target, hash("model_set_layer_weight"), { layer = layer, weight = weight, duration = duration or 0 })
end

local lbuf = ffi.new("float[3]")
local hbuf = ffi.new("uint64_t[1]")

function model.get_layer(url, layer)
  local slot, comp = model_of("model.get_layer", url)
  check_layer("model.get_layer", layer, 2)
  check(F.model_get_layer(ctx, slot, comp, layer, hbuf, lbuf))
  local anim = nil
  if hbuf[0] ~= 0 then anim = S.hash_of_u64(hbuf[0]) end
  return { animation = anim, cursor = lbuf[0], playback_rate = lbuf[1], weight = lbuf[2] }
end

---------------------------------------------------------------- inverse kinematics
local function chain_hash(fname, chain)
  if type(chain) == "string" then return hash(chain) end
  if istype(hash_t, chain) then return chain end
  argerr(fname, 2, "string or hash", chain)
end

local function ik(fname, url, chain, op, target, x, y, z)
  local slot, comp = model_of(fname, url)
  local h = chain_hash(fname, chain)
  if F.model_ik(ctx, slot, comp, h.h, op, target, x, y, z, nil) ~= 0 then
    fail(fname .. ": " .. ffi.string(F.last_error()))
  end
end

function model.set_ik_target(url, chain, target_id)
  local r = current()
  if r == nil then fail("You can only access model.* functions and values from a script instance (.script file)") end
  if target_id == nil then argerr("model.set_ik_target", 3, "string, hash or msg.url", target_id) end
  local u = S.to_url(target_id, "model.set_ik_target", 3, r)
  local target = S.F.find(ctx, u.s, u.p)
  if target == NONE then fail(string.format("model.set_ik_target: '%s' does not exist", tostring(target_id))) end
  ik("model.set_ik_target", url, chain, 0, target, 0, 0, 0)
end

function model.set_ik_target_position(url, chain, position)
  if not istype(vm.vector3_t, position) then argerr("model.set_ik_target_position", 3, "vector3", position) end
  ik("model.set_ik_target_position", url, chain, 1, 0, position.x, position.y, position.z)
end

function model.set_ik_weight(url, chain, weight)
  if type(weight) ~= "number" then argerr("model.set_ik_weight", 3, "number", weight) end
  ik("model.set_ik_weight", url, chain, 2, 0, weight, 0, 0)
end

function model.clear_ik_target(url, chain)
  ik("model.clear_ik_target", url, chain, 3, 0, 0, 0, 0)
end

function model.get_go(url, bone_id)
  local slot, comp = model_of("model.get_go", url)
  local h = mesh_hash("model.get_go", bone_id)
  local id = F.model_get_go(ctx, slot, comp, h.h)
  if id == 0 then S.fail_last() end
  return S.hash_of_u64(id)
end

local MAX_WEIGHTS = 1024
local wbuf = ffi.new("float[?]", MAX_WEIGHTS)

-- Defold: `{}` and non-number entries are errors; nil or no argument clears the override.
function model.set_blend_weights(url, weights)
  local slot, comp = model_of("model.set_blend_weights", url)
  if weights == nil then
    check(F.model_set_blend_weights(ctx, slot, comp, nil, -1))
    return
  end
  if type(weights) ~= "table" then argerr("model.set_blend_weights", 2, "table", weights) end
  local n = #weights
  if n == 0 then fail("model.set_blend_weights: the weights table is empty") end
  if n > MAX_WEIGHTS then fail("model.set_blend_weights: more than " .. MAX_WEIGHTS .. " weights") end
  for i = 1, n do
    local w = weights[i]
    if type(w) ~= "number" then
      fail(string.format("model.set_blend_weights: weight #%d must be a number (got %s)", i, S.type_name(w)))
    end
    wbuf[i - 1] = w
  end
  check(F.model_set_blend_weights(ctx, slot, comp, wbuf, n))
end

function model.get_blend_weights(url)
  local slot, comp = model_of("model.get_blend_weights", url)
  local n = F.model_get_blend_weights(ctx, slot, comp, wbuf, MAX_WEIGHTS)
  if n < 0 then S.fail_last() end
  local out = {}
  for i = 1, n do out[i] = wbuf[i - 1] end
  return out
end

return model
