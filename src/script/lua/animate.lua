-- `go.animate` and `go.cancel_animations` over the Rust tween world (src/anim): this file checks
-- arguments in Defold's order with Defold's messages, resolves the property to an FFI request,
-- and once per frame copies script-property values in and out and runs completion callbacks.
local ffi = require("ffi")
local S, go = ...
local F, ctx, vm, NONE = S.F, S.ctx, S.vm, S.NONE
local fail, argerr, current, hash = S.fail, S.argerr, S.current, S.hash
local hash_t, url_t, istype = S.hash_t, S.url_t, ffi.istype
local v3_t, v4_t, q_t, vec_t = vm.vector3_t, vm.vector4_t, vm.quat_t, vm.vector_t

local A = S.F

local req = ffi.new("sinew_anim_req")
local io = ffi.new("sinew_anim_io")
local ids = ffi.new("uint64_t[5]")
local SCRIPT = 4
local COMPS = { "x", "y", "z", "w" }
local NUMERIC = { number = true, vector3 = true, vector4 = true, quat = true }

local value_kind, url_text = S.value_kind, S.url_text

---------------------------------------------------------------- properties
-- A property description: kind (0..3 game object, 4 script), type ("number", "vector3", …),
-- elem (0-based element of a sub-property, -1 otherwise), count, element ids, self field name,
-- read_only.
local function describe(kind, type_, name, elem_names)
  local d = { kind = kind, type = type_, elem = -1, count = 1, name = name }
  if elem_names then
    d.count, d.elems = #elem_names, {}
    for i, c in ipairs(elem_names) do d.elems[i] = hash(name .. "." .. c) end
  end
  return d
end

-- Game-object properties from the one registry in Rust (anim::GoProperty, as go.get/go.set).
local GO_PROPS = {}
for _, p in ipairs(S.R.go_properties) do
  GO_PROPS[hash(p.name)] = describe(p.index, p.type, p.name, p.elements)
  GO_PROPS[hash(p.name)].splat = p.fills_animate
  for i, c in ipairs(p.elements) do
    local d = describe(p.index, "number", p.name .. "." .. c)
    d.elem = i - 1
    GO_PROPS[hash(p.name .. "." .. c)] = d
  end
end

-- Script properties are described per script definition, on first use.
local function script_prop(def, ph)
  local cache = def.anim_props
  if cache == nil then cache = {}; def.anim_props = cache end
  local d = cache[ph]
  if d ~= nil then return d end
  local name = S.hash_text(ph.h)
  local decl = def.props[name]
  if decl then
    local comps = (decl.kind == "vector3" and { "x", "y", "z" }) or ((decl.kind == "vector4" or decl.kind == "quat") and COMPS)
    d = describe(SCRIPT, decl.kind, name, comps or nil)
    if decl.kind == "number" then d.elems = nil end
  else
    local base, c = name:match("^(.-)%.([xyzw])$")
    decl = base and def.props[base]
    if decl and (decl.kind == "vector3" and c ~= "w" or decl.kind == "vector4" or decl.kind == "quat") then
      d = describe(SCRIPT, "number", base)
      d.elem, d.comp = (c == "w" and 3) or (c == "z" and 2) or (c == "y" and 1) or 0, c
    end
  end
  cache[ph] = d or false
  return d or false
end

-- url → (slot, url copy, property description, script record or nil); raises Defold's errors.
local function resolve(fname, url, property, cross_msg, optional_property)
  local r = current()
  if r == nil then fail("You can only access go.* functions and values from a script instance (.script file)") end
  local u = S.to_url(url, fname, 1, r)
  if u.s ~= r.url.s then fail(cross_msg) end
  local ph = nil
  if property ~= nil or not optional_property then ph = S.to_hash(property, fname, 2) end
  local slot = F.find(ctx, u.s, u.p)
  if slot == NONE then fail(string.format("Could not find any instance with id '%s'.", S.hash_text(u.p))) end
  return r, slot, url_t(u.s, u.p, u.f), ph
end

-- Numeric properties of other components (a model's `tint`, a label's `color`, `scale.x` …)
-- animate like script properties of a stand-in record whose `self` reads and writes the constants through Rust.
local component_records = {}

local function component_record(slot, u)
  -- The kind is part of the key: a reused slot may carry another type under the same id.
  local key = tostring(slot) .. ":" .. S.hash_text(u.f) .. ":" .. F.component_kind(ctx, slot, u.f)
  local rec = component_records[key]
  if rec then return rec end
  local comp, where = u.f, url_text(u)
  local props = S.component_props
  local decls = setmetatable({}, { __index = function(t, name)
    local kind = props.kind(slot, comp, name)
    local d = (kind == "vector4" or kind == "vector3" or kind == "number") and { name = name, kind = kind } or nil
    rawset(t, name, d or false)
    return d
  end })
  rec = {
    def = { props = decls },
    self = setmetatable({}, {
      __index = function(_, name) return props.get(slot, comp, name, where) end,
      __newindex = function(_, name, v) props.set(slot, comp, name, v, where) end,
    }),
  }
  component_records[key] = rec
  return rec
end

local function property_of(slot, u, ph)
  local d, rec
  if u.f == 0 then
    d = GO_PROPS[ph]
  else
    local si = F.script_of(ctx, slot, u.f)
    if si == NONE then
      fail(string.format("could not find component '%s' when resolving '%s'", S.hash_text(u.f), url_text(u)))
    end
    rec = si == NONE - 1 and component_record(slot, u) or S.by_index[si]
    d = rec and script_prop(rec.def, ph)
  end
  if not d then
    fail(string.format("'%s' does not have any property called '%s'", url_text(u), S.hash_text(ph.h)))
  end
  return d, rec
end

---------------------------------------------------------------- go.animate
local callbacks = {}        -- callback id → { fn, owner record, url, property hash }
local next_callback = 0
-- Script cell + 1 (array part) → the `self` table, field name and element ("x" …, false for a number). A cell
-- only outlives its script instance until the object's deletion removes its tweens, so the
-- per-frame loops need no liveness check.
local cell_self, cell_name, cell_comp = {}, {}, {}
local ncells = 0

function go.animate(url, property, playback, to, easing, duration, delay, complete_function)
  local r, slot, u, ph = resolve("go.animate", url, property,
    "go.animate can only animate instances within the same collection.")
  if type(playback) ~= "number" then argerr("go.animate", 3, "number", playback) end
  playback = math.floor(playback)
  -- Written so NaN fails too (every comparison with NaN is false).
  if not (playback >= 0 and playback < 7) then fail("invalid playback mode when starting an animation") end
  local to_kind = value_kind(to)
  if not NUMERIC[to_kind] then fail("only numerical values can be used as target values for animation") end
  local curve
  if type(easing) == "number" then
    easing = math.floor(easing)
    if not (easing >= 0 and easing <= 40) then fail("invalid easing constant") end
  elseif istype(vec_t, easing) then
    curve = easing
  else
    fail("easing must be either a easing constant or a vmath.vector")
  end
  if type(duration) ~= "number" then argerr("go.animate", 6, "number", duration) end
  if delay ~= nil and type(delay) ~= "number" then argerr("go.animate", 7, "number", delay) end
  -- Sinew decision (Defold documents none): a duration must be finite and >= 0, a delay finite
  -- (a negative delay starts at once). NaN and infinities would freeze or never end a tween.
  if not (duration >= 0 and duration < math.huge) then
    fail(string.format("go.animate: duration must be a finite number >= 0 (got %s)", tostring(duration)))
  end
  if delay ~= nil and not (delay > -math.huge and delay < math.huge) then
    fail(string.format("go.animate: delay must be a finite number (got %s)", tostring(delay)))
  end
  local d, rec = property_of(slot, u, ph)
  if d.type == "vector3" and d.splat and to_kind == "number" then
    to, to_kind = v3_t(to, to, to), "vector3"
  end
  if to_kind ~= d.type then
    fail(string.format("The property '%s' of '%s' has incorrect type", S.hash_text(ph.h), url_text(u)))
  end
  if d.read_only then
    -- No animatable property is read-only yet (the model's `animation` will be).
    fail(string.format("Animation of the property '%s' of '%s' is unsupported", S.hash_text(ph.h), url_text(u)))
  end
  req.component, req.property, req.slot, req.kind = u.f, ph.h, slot, d.kind
  req.elem, req.count = d.elem, d.count
  if to_kind == "number" then
    req.to[0] = to
  else
    for i = 1, d.count do
      req.to[i - 1] = to[COMPS[i]]
      req.elems[i - 1] = d.elems[i].h
    end
  end
  req.playback, req.duration, req.delay = playback, duration, delay or 0
  if curve then
    req.curve, req.curve_len, req.easing = curve.v, curve.n, 0
  else
    req.curve, req.curve_len, req.easing = nil, 0, easing
  end
  local cb = 0
  if type(complete_function) == "function" then
    next_callback = next_callback % 0xfffffff0 + 1
    cb = next_callback
  end
  req.callback = cb
  if A.anim_animate(ctx, req) ~= 0 then S.fail_last() end
  req.curve = nil
  if cb ~= 0 then callbacks[cb] = { complete_function, r, u, ph } end
  if d.kind == SCRIPT and req.new_cells ~= 0 then
    for i = 0, (d.elem >= 0 or d.count == 1) and 0 or d.count - 1 do
      if bit.band(req.new_cells, bit.lshift(1, i)) ~= 0 then
        local c = req.cells[i] + 1
        cell_self[c], cell_name[c] = rec.self, d.name
        cell_comp[c] = d.comp or (d.elems and COMPS[i + 1]) or false
        ncells = ncells + 1
      end
    end
  end
end

function go.cancel_animations(url, property)
  local _, slot, u, ph = resolve("go.cancel_animations", url, property,
    "function called can only access instances within the same collection.", true)
  if ph == nil then
    if u.f ~= 0 and F.script_of(ctx, slot, u.f) == NONE then
      fail(string.format("could not find component '%s' when resolving '%s'", S.hash_text(u.f), url_text(u)))
    end
    if A.anim_cancel(ctx, slot, u.f, nil, 0) ~= 0 then S.fail_last() end
    return
  end
  local d = property_of(slot, u, ph)
  if not NUMERIC[d.type] then
    fail(string.format("The property '%s' must be of a numerical type", S.hash_text(ph.h)))
  end
  ids[0] = ph.h
  local n = 1
  if d.elems then
    for i = 1, d.count do ids[i] = d.elems[i].h end
    n = d.count + 1
  end
  if A.anim_cancel(ctx, slot, u.f, ids, n) ~= 0 then S.fail_last() end
end

---------------------------------------------------------------- per frame
local function alive(rec) return rec ~= nil and S.by_index[rec.index] == rec end

local E = S.E

-- Tweens starting this frame read their start value: copy the current `self` values in.
function E.before_tweens(dt)
  S.sweep_play_callbacks()
  if ncells == 0 then return end
  A.anim_prepare(ctx, dt, io)
  local values, list = io.values, io.cells
  for i = 0, io.ncells - 1 do
    local c = list[i]
    local v = cell_self[c + 1][cell_name[c + 1]]
    local comp = cell_comp[c + 1]
    if comp then v = type(v) == "cdata" and v[comp] or nil end
    if type(v) == "number" then values[c] = v end
  end
end

local done_ids, done_finished = {}, {}

-- Writes tweened script properties back (a fresh vector per property and frame, as go.set
-- does), then runs the callbacks of ended tweens.
function E.after_tweens()
  A.anim_results(ctx, io)
  local nc = io.ncells
  if nc > 0 then
    local values, list, fresh = io.values, io.cells, nil
    for i = 0, nc - 1 do
      local c = list[i]
      local comp = cell_comp[c + 1]
      if not comp then
        cell_self[c + 1][cell_name[c + 1]] = values[c]
      else
        local self, name = cell_self[c + 1], cell_name[c + 1]
        local cur = self[name]
        if type(cur) == "cdata" then
          fresh = fresh or {}
          if not fresh[cur] then
            cur = S.copy_value(cur)
            self[name] = cur
            fresh[cur] = true
          end
          cur[comp] = values[c]
          self[name] = cur -- a no-op for script tables; stores into material constants
        end
      end
    end
  end
  -- Cells of deleted objects: forget their `self` tables so the instances can be collected.
  local nr = io.nreleased
  for i = 0, nr - 1 do
    local c = io.released[i] + 1
    cell_self[c], cell_name[c], cell_comp[c] = nil, nil, nil
  end
  local n = io.ndone
  if n == 0 then
    if nr > 0 then A.anim_clear_done(ctx) end
    return
  end
  for i = 0, n - 1 do
    done_ids[i + 1], done_finished[i + 1] = io.done[i].callback, io.done[i].finished
  end
  A.anim_clear_done(ctx)
  for i = 1, n do
    local id = done_ids[i]
    local cb = callbacks[id]
    callbacks[id] = nil
    if cb and done_finished[i] ~= 0 and alive(cb[2]) then
      S.call(cb[2], cb[1], cb[3], cb[4])
    end
  end
end
