-- The `sprite` namespace and sprite-component properties for go.get/go.set/go.animate (`tint`,
-- `size`, `scale`, `slice9` and their .x/.y/.z/.w, `cursor`, `playback_rate`, the constants of
-- a custom material as vector4s; `image` set to an atlas path the game has loaded; `animation`
-- and `texture0`, its atlas page's texture for `resource.set_texture`, read only). As in Defold, play_flipbook and the flips are messages to the component: they
-- apply at the next dispatch, right after the calling function.
local ffi = require("ffi")
local S = ...
local F, ctx, vm = S.F, S.ctx, S.vm
local fail, argerr, current, hash, hash_t = S.fail, S.argerr, S.current, S.hash, S.hash_t
local istype = ffi.istype
local K = S.K
local SPRITE = K.COMPONENT_SPRITE

local function check(rc) if rc ~= 0 then S.fail_last() end end

---------------------------------------------------------------- go.get / go.set
local props = {}
S.component_kinds[SPRITE] = props

local KIND = { tint = "vector4", size = "vector3", scale = "vector3", cursor = "number", playback_rate = "number",
  animation = "hash", image = "hash", slice9 = "vector4", texture0 = "hash" }
local s4 = vm.vector4_t()
local u1 = ffi.new("uint32_t[1]")

local function split(name)
  local base, c = name:match("^(.-)%.([xyzw])$")
  return base or name, c
end

-- The kind of a property before any component part: its own, else vector4 for a constant of
-- the sprite's custom material (Defold's SetMaterialConstant fallback), else nil.
local function base_kind(slot, comp, base)
  local k = KIND[base]
  if k ~= nil then return k end
  check(F.sprite_has_constant(ctx, slot, comp, hash(base).h, u1))
  if u1[0] ~= 0 then return "vector4" end
  return nil
end

local function kind_of(slot, comp, name)
  local base, c = split(name)
  local k = base_kind(slot, comp, base)
  if k == nil then return nil end
  if c then
    if (k == "vector4") or (k == "vector3" and c ~= "w") then return "number" end
    return nil
  end
  return k
end

function props.kind(slot, comp, name) return kind_of(slot, comp, name) end

local function no_property(where_text, name)
  fail(string.format("'%s' does not have any property called '%s'", where_text, name))
end

function props.get(slot, comp, name, where_text)
  local k = kind_of(slot, comp, name)
  if k == nil then no_property(where_text, name) end
  if k == "hash" then
    local h = F.sprite_hash_get(ctx, slot, comp, hash(name).h)
    -- 0 is an error, except a sprite's `animation` after `image` named an atlas without its
    -- flipbook (Defold's hash 0): then the sprite itself must be there.
    if h == 0 and (name ~= "animation" or F.sprite_prop_get(ctx, slot, comp, hash("tint").h, s4) ~= 0) then
      S.fail_last()
    end
    return S.hash_of_u64(h)
  end
  local base, c = split(name)
  check(F.sprite_prop_get(ctx, slot, comp, hash(base).h, s4))
  if c then return s4[c] end
  local bk = KIND[base] or "vector4"
  if bk == "number" then return s4.x end
  if bk == "vector3" then return vm.vector3(s4.x, s4.y, s4.z) end
  return vm.vector4(s4.x, s4.y, s4.z, s4.w)
end

function props.set(slot, comp, name, value, where_text)
  local k = kind_of(slot, comp, name)
  if k == nil then no_property(where_text, name) end
  local function wrong(t) fail(string.format("the property '%s' of '%s' must be a %s", name, where_text, t)) end
  if name == "image" then
    -- Defold takes the atlas as a resource hash (`go.property("a", resource.atlas(...))`);
    -- Sinew takes the path's hash (or the path) of an atlas the game has loaded.
    if type(value) ~= "string" and not istype(hash_t, value) then
      fail(string.format("go.set: argument 3 (image) must be a hash or string naming an atlas, got %s",
        S.type_name(value)))
    end
    check(F.sprite_image_set(ctx, slot, comp, S.to_hash(value, "go.set", 3).h))
    return
  end
  if k == "hash" then fail(string.format("could not perform unsupported operation on '%s'", name)) end
  local base, c = split(name)
  local bk = KIND[base] or "vector4"
  check(F.sprite_prop_get(ctx, slot, comp, hash(base).h, s4))
  if c or bk == "number" then
    if type(value) ~= "number" then wrong("number") end
    s4[c or "x"] = value
  elseif KIND[base] == nil and S.value_kind(value) == "vector3" then
    -- A material's vertex attribute of 2 or 3 components takes a vector3, as in Defold (w kept).
    s4.x, s4.y, s4.z = value.x, value.y, value.z
  else
    -- Defold: a sprite's scale may be a number.
    S.fill_vector(s4, bk, value, base == "scale", wrong)
  end
  check(F.sprite_prop_set(ctx, slot, comp, hash(base).h, s4.x, s4.y, s4.z, s4.w))
end

---------------------------------------------------------------- sprite.*
local sprite = {}

local function caller() return S.caller("sprite") end

-- The receiver of a sprite message. A game object's URL without a component is taken, as
-- Defold's ResolveURL takes it: the message goes to each of its components, as any message to
-- an object does (benjames' Helo Storm plays `sprite.play_flipbook("/sky", ...)`).
local function target(fname, url, r)
  if url == nil then argerr(fname, 1, "string, hash or msg.url", url) end
  return S.url_t(S.to_url(url, fname, 1, r))
end

-- Plays flipbook `id` of the sprite's atlas; `complete_function(self, message_id, message,
-- sender)` runs with `animation_done {current_tile, id}` when a once-flipbook ends.
function sprite.play_flipbook(url, id, complete_function, play_properties)
  local r = caller("sprite.play_flipbook")
  local u = target("sprite.play_flipbook", url, r)
  if type(id) ~= "string" and not istype(hash_t, id) then argerr("sprite.play_flipbook", 2, "string or hash", id) end
  local message = { id = S.to_hash(id, "sprite.play_flipbook", 2) }
  if complete_function ~= nil and type(complete_function) ~= "function" then
    argerr("sprite.play_flipbook", 3, "function", complete_function)
  end
  if play_properties ~= nil then
    if type(play_properties) ~= "table" then argerr("sprite.play_flipbook", 4, "table", play_properties) end
    for _, k in ipairs({ "offset", "playback_rate" }) do
      local v = play_properties[k]
      if v ~= nil and type(v) ~= "number" then
        fail(string.format("sprite.play_flipbook: play_properties.%s must be a number (got %s)", k, S.type_name(v)))
      end
      message[k] = v
    end
  end
  if complete_function then message.callback = S.add_play_callback(complete_function, r) end
  S.post_raw(r.url, u, hash("play_animation"), message)
end

local function flip(fname, id)
  return function(url, on)
    local r = caller(fname)
    local u = target(fname, url, r)
    if type(on) ~= "boolean" then argerr(fname, 2, "boolean", on) end
    S.post_raw(r.url, u, hash(id), { flip = on and 1 or 0 })
  end
end

sprite.set_hflip = flip("sprite.set_hflip", "set_flip_horizontal")
sprite.set_vflip = flip("sprite.set_vflip", "set_flip_vertical")

-- Defold's older calls for a sprite's `tint` or its material's constants (deprecated there, and
-- still in many shipped games): what go.set and a reset to the material's value do.
local function constant_of(fname, url, constant)
  local r = caller(fname)
  local slot, u = S.component_of(fname, url, r, SPRITE)
  if type(constant) ~= "string" and not istype(hash_t, constant) then argerr(fname, 2, "string or hash", constant) end
  return slot, u.f, S.to_hash(constant, fname, 2)
end

function sprite.set_constant(url, constant, value)
  local slot, comp, h = constant_of("sprite.set_constant", url, constant)
  if S.value_kind(value) ~= "vector4" then argerr("sprite.set_constant", 3, "vector4", value) end
  if F.sprite_constant(ctx, slot, comp, h.h, 1, value.x, value.y, value.z, value.w) ~= 0 then
    fail("sprite.set_constant: " .. ffi.string(F.last_error()))
  end
end

function sprite.reset_constant(url, constant)
  local slot, comp, h = constant_of("sprite.reset_constant", url, constant)
  if F.sprite_constant(ctx, slot, comp, h.h, 0, 0, 0, 0, 0) ~= 0 then
    fail("sprite.reset_constant: " .. ffi.string(F.last_error()))
  end
end

return S.unsupported_rest("sprite", sprite)
