-- The `sound` namespace (engine.md section 5, docs/sound.md): plays of sound components, their
-- gain and pan, groups and their gains and levels, and Sinew's listener for positional sound.
-- Arguments are checked here, naming the function; Rust does the work.
local ffi = require("ffi")
local S = ...
local F, ctx, NONE = S.F, S.ctx, S.NONE
local fail, argerr, current, hash, hash_t = S.fail, S.argerr, S.current, S.hash, S.hash_t
local istype = ffi.istype
local K = S.K
local SOUND = K.COMPONENT_SOUND

local function check(rc) if rc ~= 0 then S.fail_last() end end

-- go.get / go.set of a sound component's `gain`, `pan` and `speed` (Defold's sound properties).
local PROPS = { gain = K.SOUND_GAIN, pan = K.SOUND_PAN, speed = K.SOUND_SPEED }
local f1 = ffi.new("float[1]")
local props = {}
S.component_kinds[SOUND] = props
function props.kind(slot, comp, name) return PROPS[name] and "number" or nil end
local function prop(slot, comp, name, where_text, value)
  local which = PROPS[name]
  if which == nil then fail(string.format("'%s' does not have any property called '%s'", where_text, name)) end
  if value ~= nil and type(value) ~= "number" then
    fail(string.format("the property '%s' of '%s' must be a number", name, where_text))
  end
  check(F.sound_prop(ctx, slot, comp, which, value ~= nil and 1 or 0, value or 0, f1))
  return f1[0]
end
function props.get(slot, comp, name, where_text) return prop(slot, comp, name, where_text) end
function props.set(slot, comp, name, value, where_text) prop(slot, comp, name, where_text, value) end

local sound = {}

local function caller() return S.caller("sound") end

-- (url) → slot and component hash of a sound component, in any loaded collection: Defold's
-- sound functions post a message to the component, so a proxied collection's script reaches
-- `main:/sound#music`. With `whole` (stop, pause, set_gain, set_pan), a URL naming only the
-- object stands for every sound component of it (hash 0), as that message to the object does.
local function sound_of(fname, url, r, whole)
  if url == nil then argerr(fname, 1, "string, hash or msg.url", url) end
  local u = S.url_t(S.to_url(url, fname, 1, r))
  if u.f == 0 and not whole then fail(fname .. ": expected url to specify a component, not only a path!") end
  local slot = F.find(ctx, u.s, u.p)
  if slot == NONE then
    fail(string.format("%s: the %s '%s' could not be found", fname, u.f == 0 and "game object" or "component", S.url_text(u)))
  end
  if u.f ~= 0 and F.component_kind(ctx, slot, u.f) ~= SOUND then
    fail(string.format("%s: the component '%s' could not be found", fname, S.url_text(u)))
  end
  return slot, u.f
end

local function number_field(fname, t, key, default)
  local v = t[key]
  if v == nil then return default end
  if type(v) ~= "number" or v ~= v then
    fail(string.format("%s: %s must be a number (got %s)", fname, key, S.type_name(v)))
  end
  return v
end

local function group_hash(fname, group)
  if type(group) == "string" then return hash(group).h end
  if istype(hash_t, group) then return group.h end
  argerr(fname, 1, "string or hash", group)
end

local idbuf = ffi.new("uint32_t[1]")
-- Plays now and returns the play id; `complete_function(self, message_id, message, sender)` gets
-- `sound_done` or `sound_stopped` with `{ play_id = id }`.
function sound.play(url, play_properties, complete_function)
  local r = caller("sound.play")
  local slot, comp = sound_of("sound.play", url, r)
  local p = play_properties
  if p ~= nil and type(p) ~= "table" then argerr("sound.play", 2, "table", p) end
  p = p or {}
  if complete_function ~= nil and type(complete_function) ~= "function" then
    argerr("sound.play", 3, "function", complete_function)
  end
  local delay = number_field("sound.play", p, "delay", 0)
  local gain = number_field("sound.play", p, "gain", 1)
  local pan = number_field("sound.play", p, "pan", 0)
  local speed = number_field("sound.play", p, "speed", 1)
  local cb = 0
  if complete_function then cb = S.add_play_callback(complete_function, r) end
  if F.sound_play(ctx, slot, comp, delay, gain, pan, speed, r.index, cb, idbuf) ~= 0 then
    if cb ~= 0 then S.take_play_callback(cb) end
    fail("sound.play: " .. ffi.string(F.last_error()))
  end
  return idbuf[0]
end

-- `stop_properties.play_id`: that play only; without it every play of the component.
function sound.stop(url, stop_properties)
  local r = caller("sound.stop")
  local slot, comp = sound_of("sound.stop", url, r, true)
  local id = 0
  if stop_properties ~= nil then
    if type(stop_properties) ~= "table" then argerr("sound.stop", 2, "table", stop_properties) end
    id = number_field("sound.stop", stop_properties, "play_id", 0)
  end
  check(F.sound_stop(ctx, slot, comp, id))
end

function sound.pause(url, pause)
  local r = caller("sound.pause")
  local slot, comp = sound_of("sound.pause", url, r, true)
  if type(pause) ~= "boolean" then argerr("sound.pause", 2, "boolean", pause) end
  check(F.sound_pause(ctx, slot, comp, pause and 1 or 0))
end

-- set_gain and set_pan: a component and a number (Defold's default when left out).
local function set_number(fname, set, default)
  return function(url, v)
    local r = caller(fname)
    local slot, comp = sound_of(fname, url, r, true)
    if v == nil then v = default end
    if type(v) ~= "number" then argerr(fname, 2, "number", v) end
    if set(slot, comp, v) ~= 0 then fail(fname .. ": " .. ffi.string(F.last_error())) end
  end
end
sound.set_gain = set_number("sound.set_gain", function(s, c, v) return F.sound_set_gain(ctx, s, c, v) end, 1)
sound.set_pan = set_number("sound.set_pan", function(s, c, v) return F.sound_set_pan(ctx, s, c, v) end, 0)

local groupbuf = ffi.new("uint64_t[32]")
function sound.get_groups()
  local n = F.sound_groups(ctx, groupbuf, 32)
  if n < 0 then S.fail_last() end
  local out = {}
  for i = 0, math.min(n, 32) - 1 do out[i + 1] = S.hash_of_u64(groupbuf[i]) end
  return out
end

local namebuf = ffi.new("char[256]")
function sound.get_group_name(group)
  local n = F.sound_group_name(ctx, group_hash("sound.get_group_name", group), namebuf, 256)
  if n < 0 then fail("sound.get_group_name: " .. ffi.string(F.last_error())) end
  return ffi.string(namebuf, math.min(n, 256))
end

local gainbuf = ffi.new("float[1]")
function sound.set_group_gain(group, gain)
  local h = group_hash("sound.set_group_gain", group)
  if type(gain) ~= "number" then argerr("sound.set_group_gain", 2, "number", gain) end
  -- A group no sound component has made: Defold warns and sets nothing (sound.cpp's
  -- RESULT_NO_SUCH_GROUP; sessokosga/Tiny-Dominion sets "sfx" before any sound of it loads).
  if F.sound_get_group_gain(ctx, h, gainbuf) ~= 0 then
    S.R.log_warn(S.where() .. "sound.set_group_gain: " .. ffi.string(F.last_error()) .. ": nothing set")
    return
  end
  if F.sound_set_group_gain(ctx, h, gain) ~= 0 then fail("sound.set_group_gain: " .. ffi.string(F.last_error())) end
end

function sound.get_group_gain(group)
  local h = group_hash("sound.get_group_gain", group)
  if F.sound_get_group_gain(ctx, h, gainbuf) ~= 0 then fail("sound.get_group_gain: " .. ffi.string(F.last_error())) end
  return gainbuf[0]
end

local meterbuf = ffi.new("float[2]")
local function meter(fname, group, window, peak)
  local h = group_hash(fname, group)
  if type(window) ~= "number" then argerr(fname, 2, "number", window) end
  if F.sound_meter(ctx, h, window, peak, meterbuf) ~= 0 then fail(fname .. ": " .. ffi.string(F.last_error())) end
  return meterbuf[0], meterbuf[1]
end

function sound.get_rms(group, window) return meter("sound.get_rms", group, window, 0) end
function sound.get_peak(group, window) return meter("sound.get_peak", group, window, 1) end

-- Another app's music on the device (a phone's player): nothing of the kind reaches Sinew.
function sound.is_music_playing() return false end
function sound.is_phone_call_active() return false end

-- Beyond Defold: the game object positional sounds are heard from (nil: the active camera).
function sound.set_listener(id)
  local r = caller("sound.set_listener")
  local slot = NONE
  if id ~= nil then
    local u = S.url_t(S.to_url(id, "sound.set_listener", 1, r))
    slot = u.s == r.url.s and F.find(ctx, u.s, u.p) or NONE
    if slot == NONE then fail(string.format("sound.set_listener: the object '%s' could not be found", S.url_text(u))) end
  end
  check(F.sound_set_listener(ctx, slot))
end

return S.unsupported_rest("sound", sound)
