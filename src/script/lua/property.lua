-- Properties, routed in one place: go.get, go.set, go.animate and go.cancel_animations resolve
-- (url, property) here to one description, so the four agree on names, types, elements and
-- errors. Game-object properties come from the Rust registry (anim::GoProperty, handed over as
-- S.R.go_properties); script properties from the script's go.property declarations; the
-- properties of other components (a model's cursor, tint …) from the component itself
-- (S.component_props, model.lua).
local S = ...
local F, ctx, NONE = S.F, S.ctx, S.NONE
local fail, current, hash = S.fail, S.current, S.hash
local url_t, url_text = S.url_t, S.url_text

local SCRIPT = S.K.SCRIPT_PROPERTY -- request kind of a script or component property (below: GoProperty)
local COMPS = { "x", "y", "z", "w" }
local ELEMENTS = { vector3 = { "x", "y", "z" }, vector4 = COMPS, quat = COMPS }
local ELEM_INDEX = { x = 1, y = 2, z = 3, w = 4 }

-- A description: owner ("go", "script" or "component"), kind (the animation request's kind:
-- GoProperty index, or 4), type (the value type addressed: "number" for an element), whole
-- (the type of the whole property), name (the whole property's name), comp and elem (the
-- element "x" … and its 0-based index, or nil and -1), count and elems (the elements a whole
-- vector has, and their hashes), fills_set / fills_animate (a number stands for every element
-- in go.set / go.animate).
local function describe(owner, kind, type_, name, elem_names)
  local d = { owner = owner, kind = kind, type = type_, whole = type_, elem = -1, count = 1, name = name }
  if elem_names then
    d.count, d.elems = #elem_names, {}
    for i, c in ipairs(elem_names) do d.elems[i] = hash(name .. "." .. c) end
  end
  return d
end

local function element(owner, kind, whole, name, c)
  local d = describe(owner, kind, "number", name)
  d.whole, d.comp, d.elem = whole, c, ELEM_INDEX[c] - 1
  return d
end

-- `name.x` … of a vector type, or nil.
local function split(name, kind_of)
  local base, c = name:match("^(.-)%.([xyzw])$")
  if not base then return nil end
  local whole = kind_of(base)
  local el = whole and ELEMENTS[whole]
  if el == nil or (c == "w" and #el < 4) then return nil end
  return base, c, whole
end

local GO_PROPS = {}
for _, p in ipairs(S.R.go_properties) do
  local d = describe("go", p.index, p.type, p.name, p.elements)
  d.fills_set, d.fills_animate = p.fills_set, p.fills_animate
  GO_PROPS[hash(p.name)] = d
  for _, c in ipairs(p.elements) do
    GO_PROPS[hash(p.name .. "." .. c)] = element("go", p.index, p.type, p.name, c)
  end
end

-- A declaration is found by its hash (and each element's, `name.x` …), never by the name a
-- hash prints as: Rust keeps only the most recent script-made names, so with many hashes made
-- since, a lookup by name missed declared properties (issue 32).
function S.declare_property(def, p)
  local by_hash = def.by_hash
  local old = by_hash[p.hash]
  if old then
    for _, c in ipairs(ELEMENTS[old[1].kind] or {}) do by_hash[hash(p.name .. "." .. c)] = nil end
  end
  by_hash[p.hash] = { p, false }
  for _, c in ipairs(ELEMENTS[p.kind] or {}) do by_hash[hash(p.name .. "." .. c)] = { p, c } end
end

-- Script properties are described per script definition, on first use (the cache is dropped
-- when the script is reloaded, see runtime.lua).
local function script_property(def, ph)
  local cache = def.prop_desc
  if cache == nil then cache = {}; def.prop_desc = cache end
  local d = cache[ph]
  if d ~= nil then return d end
  local found = def.by_hash[ph]
  if found then
    local p, c = found[1], found[2]
    if c then
      d = element("script", SCRIPT, p.kind, p.name, c)
    else
      d = describe("script", SCRIPT, p.kind, p.name, ELEMENTS[p.kind])
    end
  end
  cache[ph] = d or false
  return d or false
end

local function component_property(slot, comp, ph)
  local name = S.hash_text(ph.h)
  local props = S.component_props
  local function kind_of(n) return props.kind(slot, comp, n) end
  local kind = kind_of(name)
  local d
  if kind then
    d = describe("component", SCRIPT, kind, name, ELEMENTS[kind])
  else
    local base, c, whole = split(name, kind_of)
    if base then d = element("component", SCRIPT, whole, base, c) end
  end
  if d then d.full = name end
  return d or false
end

-- The stand-in record of a component whose properties go.animate tweens (a model's `tint`, a
-- label's `color`, `scale.x` …): its `self` reads and
-- writes the component's values through Rust, and the tween world mirrors them (animate.lua).
local component_records = {}

local function component_record(slot, u)
  -- The kind is part of the key: a reused slot may carry another type under the same id.
  local key = tostring(slot) .. ":" .. S.hash_text(u.f) .. ":" .. F.component_kind(ctx, slot, u.f)
  local rec = component_records[key]
  if rec then return rec end
  local comp, where = u.f, url_text(u)
  local props = S.component_props
  rec = {
    self = setmetatable({}, {
      __index = function(_, name) return props.get(slot, comp, name, where) end,
      __newindex = function(_, name, v) props.set(slot, comp, name, v, where) end,
    }),
  }
  component_records[key] = rec
  return rec
end

local function no_property(u, ph)
  fail(string.format("'%s' does not have any property called '%s'", url_text(u), S.hash_text(ph.h)))
end

local function no_component(u)
  fail(string.format("could not find component '%s' when resolving '%s'", S.hash_text(u.f), url_text(u)))
end

-- (fname, url, property) → the calling record, the object's slot, a copy of the resolved url
-- and the property hash. `cross_msg` is the function's error for an object of another
-- collection. With `optional`, a nil property resolves to the url alone (after checking that
-- its component exists).
function S.property_target(fname, url, property, cross_msg, optional)
  local r = current()
  if r == nil then fail("You can only access go.* functions and values from a script instance (.script file)") end
  local u = S.to_url(url, fname, 1, r)
  if u.s ~= r.url.s then fail(cross_msg) end
  local ph = nil
  if property ~= nil or not optional then ph = S.to_hash(property, fname, 2) end
  local slot = F.find(ctx, u.s, u.p)
  if slot == NONE then fail(string.format("Could not find any instance with id '%s'.", S.hash_text(u.p))) end
  u = url_t(u.s, u.p, u.f)
  if ph == nil and u.f ~= 0 and F.script_of(ctx, slot, u.f) == NONE then no_component(u) end
  return r, slot, u, ph
end

-- (slot, url, property hash) → the property's description and its owner record (a script
-- record, a component's stand-in, or nil for the game object). go.animate asks after checking
-- its other arguments, as Defold does.
function S.describe_property(slot, u, ph)
  if u.f == 0 then
    local d = GO_PROPS[ph]
    if d == nil then no_property(u, ph) end
    return d, nil
  end
  local si = F.script_of(ctx, slot, u.f)
  if si == NONE then no_component(u) end
  local d, rec
  if si == S.K.OTHER_COMPONENT then
    d = component_property(slot, u.f, ph)
    rec = d and component_record(slot, u)
  else
    rec = S.by_index[si]
    d = rec and script_property(rec.def, ph)
    -- A gui component shares its id with its gui script: its own properties (`fonts`,
    -- `textures`) when the script declares none of that name.
    if not d then
      d = component_property(slot, u.f, ph)
      if d then rec = component_record(slot, u) end
    end
  end
  if not d then no_property(u, ph) end
  return d, rec
end

-- Both of the above: r, slot, u, ph, d, rec.
function S.property(fname, url, property, cross_msg)
  local r, slot, u, ph = S.property_target(fname, url, property, cross_msg)
  return r, slot, u, ph, S.describe_property(slot, u, ph)
end
