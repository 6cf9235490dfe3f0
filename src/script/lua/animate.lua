-- `go.animate` and `go.cancel_animations` over the Rust tween world (src/anim): this file checks
-- arguments in Defold's order with Defold's messages, resolves the property to an FFI request,
-- keeps tweened script properties in the tween world's cells (read and written in place by
-- `self`), and once per frame runs completion callbacks.
local ffi = require("ffi")
local S = ...
local go = _G.go
local ctx, vm = S.ctx, S.vm
local fail, argerr, istype = S.fail, S.argerr, ffi.istype
local v3_t, v4_t, q_t, vec_t = vm.vector3_t, vm.vector4_t, vm.quat_t, vm.vector_t

local F, K = S.F, S.K

local req = ffi.new("sinew_anim_req")
local io = ffi.new("sinew_anim_io")
local ids = ffi.new("uint64_t[5]")
local COMPS = { "x", "y", "z", "w" }
local NUMERIC = { number = true, vector3 = true, vector4 = true, quat = true }

local value_kind, url_text = S.value_kind, S.url_text

---------------------------------------------------------------- properties
-- (url, property) resolves through S.property (property.lua), as go.get and go.set do.
local GO_ANIMATE_CROSS = "go.animate can only animate instances within the same collection."
local CANCEL_CROSS = "function called can only access instances within the same collection."

---------------------------------------------------------------- tweened script properties
-- From its first go.animate until its object is deleted, a script property element lives in a
-- cell of the Rust tween world (anim::target::ScriptCells), which the tween writes in place.
-- The field leaves the raw `self` table and `self` reads and writes the cell through LAZY_MT,
-- so a running tween costs Lua nothing per frame: a value is touched once, by Rust, and read
-- only when the script asks for it. As in Defold (whose `self` is a userdata), a tweened
-- property is not seen by `pairs(self)`; it is a single-precision float while it is a cell,
-- as Defold's tweens are. A `self` that already has a metatable of the script's own, and the
-- stand-in records of component properties, are *mirrored* instead: their values are copied
-- into the cells before the tweens start and back after the update (E.before/after_tweens).
-- The cells are read and written only as `io.values[c]`: go.animate (the one call that grows
-- them, which a metamethod on `self` can reach in the middle of any loop below) stores their
-- current address there, so no copy of the pointer may outlive a call that can run a script.
local lazy = setmetatable({}, { __mode = "k" })  -- self → field name → cell | vector entry
-- A vector entry: { kind = "vector3" | "vector4" | "quat", vec = the value `self` returns,
-- stamp = the tick `vec` was made in, [1..4] = cell of element x, y, z, w or false }. As with
-- the values Defold's tweens store, a read in a later frame gets a fresh vector (one kept by
-- the script does not change under it), and an element the script changes in place
-- (`self.v.y = 2`) stays changed unless a tween drives it.
local copy_value = S.copy_value
local ELEM = { x = 1, y = 2, z = 3, w = 4 }
local tick = 0              -- advances after each tween update (E.after_tweens)

local function read_vector(e)
  if e.stamp ~= tick then
    local v = copy_value(e.vec)
    for i = 1, 4 do
      local c = e[i]
      if c then v[COMPS[i]] = io.values[c] end
    end
    e.vec, e.stamp = v, tick
  end
  return e.vec
end

local LAZY_MT = {
  __index = function(t, k)
    local m = lazy[t]
    local e = m and m[k]
    if e == nil then return nil end
    if type(e) == "number" then return io.values[e] end
    return read_vector(e)
  end,
  __newindex = function(t, k, v)
    local m = lazy[t]
    local e = m and m[k]
    if e == nil then return rawset(t, k, v) end
    if type(e) == "number" then
      if type(v) == "number" then io.values[e] = v; return end
    elseif value_kind(v) == e.kind then
      e.vec, e.stamp = copy_value(v), tick
      for i = 1, 4 do
        local c = e[i]
        if c then io.values[c] = v[COMPS[i]] end
      end
      return
    end
    -- A value of another type makes the field a plain one again; the next go.animate of the
    -- property brings its cells back.
    m[k] = nil
    rawset(t, k, v)
  end,
}

-- Makes cell `c` the storage of element `comp` ("x" …, false for a number) of `self[name]`.
local function adopt(self, name, kind, comp, c)
  local m = lazy[self]
  if m == nil then
    m = {}
    lazy[self] = m
    setmetatable(self, LAZY_MT)
  end
  local e = m[name]
  if not comp then
    if e == nil then
      local v = rawget(self, name)
      if type(v) == "number" then io.values[c] = v end
      rawset(self, name, nil)
      m[name] = c
    end
    return
  end
  if e == nil then
    local v = rawget(self, name)
    if value_kind(v) ~= kind then v = kind == "vector3" and v3_t() or (kind == "quat" and q_t() or v4_t()) end
    e = { kind = kind, vec = copy_value(v), stamp = tick, false, false, false, false }
    rawset(self, name, nil)
    m[name] = e
  end
  local i = ELEM[comp]
  if e[i] ~= c then
    e[i] = c
    io.values[c] = read_vector(e)[comp]
  end
end

-- The object of cell `c` was deleted: its value goes back into the raw field, so a `self` kept
-- by a closure still reads it and the cell can be reused.
local function settle(self, name, comp, c)
  local m = lazy[self]
  local e = m and m[name]
  if e == nil then return end
  if not comp then
    if e == c then m[name] = nil; rawset(self, name, io.values[c]) end
    return
  end
  if type(e) ~= "table" then return end
  local i = ELEM[comp]
  if e[i] ~= c then return end
  local v = copy_value(read_vector(e))
  e[i], e.vec = false, v
  if not (e[1] or e[2] or e[3] or e[4]) then m[name] = nil; rawset(self, name, v) end
end

---------------------------------------------------------------- go.animate
local callbacks = {}        -- callback id → { fn, owner record, url, property hash }
local next_callback = 0

-- gui.animate's callbacks share this table and numbering; `fn` is called (self, a, b).
function S.register_anim_callback(fn, r, a, b)
  next_callback = next_callback % 0xfffffff0 + 1
  callbacks[next_callback] = { fn, r, a, b }
  return next_callback
end
-- Script cell + 1 (array part) → the `self` table, field name, element ("x" …, false for a
-- number) and whether `self` reads it in place (else Lua mirrors it). A cell only outlives its
-- script instance until the object's deletion releases it, so the loops need no liveness check.
local cell_self, cell_name, cell_comp, cell_lazy = {}, {}, {}, {}
-- Mirrored cell + 1 → what its latest go.animate aimed at, for a write the property refuses
-- (a collision object's velocity tweened toward NaN): { slot, component, property hashes to
-- cancel, "'prop' of 'url'", "file:line" of the go.animate }.
local cell_origin = {}
local nmirrored = 0

function go.animate(url, property, playback, to, easing, duration, delay, complete_function)
  local r, slot, u, ph = S.property_target("go.animate", url, property, GO_ANIMATE_CROSS)
  if type(playback) ~= "number" then argerr("go.animate", 3, "number", playback) end
  playback = math.floor(playback)
  -- Written so NaN fails too (every comparison with NaN is false).
  if not (playback >= 0 and playback < K.PLAYBACK_COUNT) then fail("invalid playback mode when starting an animation") end
  local to_kind = value_kind(to)
  if not NUMERIC[to_kind] then fail("only numerical values can be used as target values for animation") end
  local curve
  if type(easing) == "number" then
    easing = math.floor(easing)
    if not (easing >= 0 and easing < K.EASING_COUNT) then fail("invalid easing constant") end
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
  local d, rec = S.describe_property(slot, u, ph)
  if d.type == "vector3" and d.fills_animate and to_kind == "number" then
    to, to_kind = v3_t(to, to, to), "vector3"
  end
  if to_kind ~= d.type then
    fail(string.format("The property '%s' of '%s' has incorrect type", S.hash_text(ph.h), url_text(u)))
  end
  -- As go.set: a game object's position, rotation, euler or scale never heads for a NaN or an
  -- infinity, which would poison its transform, its children's and its body's.
  if d.owner == "go" then
    local finite = S.finite
    local bad = to_kind == "number" and not finite(to)
    for i = 1, to_kind == "number" and 0 or d.count do bad = bad or not finite(to[COMPS[i]]) end
    if bad then
      fail(string.format("go.animate: the target of '%s' of '%s' must be finite, got %s", S.hash_text(ph.h),
        url_text(u), tostring(to)))
    end
    if to_kind == "quat" and not S.rotation_ok(to) then
      fail(string.format("go.animate: the target of '%s' of '%s' must be %s, got %s", S.hash_text(ph.h), url_text(u),
        S.ROTATION_RULE, tostring(to)))
    end
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
  local in_place = false
  if d.kind == K.SCRIPT_PROPERTY then
    local mt = getmetatable(rec.self)
    in_place = mt == nil or mt == LAZY_MT
  end
  req.mirror = in_place and 0 or 1
  local rc = F.anim_animate(ctx, req, io)
  req.curve = nil
  if rc ~= 0 then S.fail_last() end
  if cb ~= 0 then callbacks[cb] = { complete_function, r, u, ph } end
  if d.kind == K.SCRIPT_PROPERTY then
    local self, name, kind = rec.self, d.name, d.whole
    local origin
    if not in_place then
      -- Only mirrored tweens (component properties, a `self` with a metatable of its own) can
      -- have a write refused, and they are few: the caller's line is looked up for them alone.
      local info = debug.getinfo(2, "Sl")
      local cancel = { ph.h }
      if d.elems then for i = 1, d.count do cancel[i + 1] = d.elems[i].h end end
      origin = { slot, u.f, cancel, string.format("'%s' of '%s'", S.hash_text(ph.h), url_text(u)),
        info and (info.short_src .. ":" .. tostring(info.currentline)) or "go.animate" }
    end
    for i = 0, (d.elem >= 0 or d.count == 1) and 0 or d.count - 1 do
      local c = req.cells[i]
      local comp = d.comp or (d.elems and COMPS[i + 1]) or false
      local new = bit.band(req.new_cells, bit.lshift(1, i)) ~= 0
      if new then
        cell_self[c + 1], cell_name[c + 1], cell_comp[c + 1] = self, name, comp
        cell_lazy[c + 1] = in_place
        if not in_place then nmirrored = nmirrored + 1 end
      end
      if cell_lazy[c + 1] then adopt(self, name, kind, comp, c) else cell_origin[c + 1] = origin end
    end
  end
end

function go.cancel_animations(url, property)
  local _, slot, u, ph = S.property_target("go.cancel_animations", url, property, CANCEL_CROSS, true)
  if ph == nil then
    if F.anim_cancel(ctx, slot, u.f, nil, 0) ~= 0 then S.fail_last() end
    return
  end
  local d = S.describe_property(slot, u, ph)
  if not NUMERIC[d.type] then
    fail(string.format("The property '%s' must be of a numerical type", S.hash_text(ph.h)))
  end
  ids[0] = ph.h
  local n = 1
  if d.elems then
    for i = 1, d.count do ids[i] = d.elems[i].h end
    n = d.count + 1
  end
  if F.anim_cancel(ctx, slot, u.f, ids, n) ~= 0 then S.fail_last() end
end

---------------------------------------------------------------- per frame
local function alive(rec) return rec ~= nil and S.by_index[rec.index] == rec end

local E = S.E

-- Tweens starting this frame read their start value: copy the current `self` values in. Reading
-- a field can run a script (a metamethod), so the list is copied out of Rust's buffer first.
local pending = {}
function E.before_tweens(dt)
  S.sweep_play_callbacks()
  if nmirrored == 0 then return end
  F.anim_prepare(ctx, dt, io)
  local n, list = io.ncells, io.cells
  for i = 0, n - 1 do pending[i + 1] = list[i] end
  for i = 1, n do
    local c = pending[i]
    local v = cell_self[c + 1][cell_name[c + 1]]
    local comp = cell_comp[c + 1]
    if comp then v = type(v) == "cdata" and v[comp] or nil end
    if type(v) == "number" then io.values[c] = v end
  end
end

local done_ids, done_finished = {}, {}

local function set_field(t, k, v) t[k] = v end
-- Element `comp` of vector property `name` of `self` set to `v` (a fresh vector per property
-- and frame: `fresh` holds the ones made this frame).
local function write_element(self, name, comp, v, fresh)
  local cur = self[name]
  if type(cur) ~= "cdata" then return end
  if not fresh[cur] then
    cur = S.copy_value(cur)
    self[name] = cur
    fresh[cur] = true
  end
  cur[comp] = v
  self[name] = cur -- a no-op for script tables; stores into material constants and components
end
local refused = {}          -- cells whose write was refused this frame

-- A tween whose property refuses its value is stopped, with one error naming the property and
-- the go.animate that started it; the frame's other tweens and callbacks go on (an error raised
-- from the loop below would skip the writes after it and every completion callback, frame
-- after frame, for as long as the bad tween ran). `ids` is filled just before each cancel: a
-- report can run the error handler, which may use it too.
local function stop_refused(n)
  local seen = {}
  for i = 1, n do
    local c = refused[i]
    refused[i] = nil
    local o = cell_origin[c.cell + 1]
    -- The other elements of a tween already stopped are passed over.
    if not seen[o or c.cell] then
      seen[o or c.cell] = true
      if o then
        for k = 1, #o[3] do ids[k - 1] = o[3][k] end
        F.anim_cancel(ctx, o[1], o[2], ids, #o[3])
        local err = tostring(c.err):gsub("^/builtins/[^:]*:%d+: ", "")
        S.report(string.format("%s: go.animate of %s: %s; the tween is stopped", o[5], o[4], err))
      else
        S.report("go.animate: " .. tostring(c.err))
      end
    end
  end
end

-- Writes mirrored properties back (a fresh vector per property and frame, as go.set does),
-- then runs the callbacks of ended tweens. A write into `self` can run a script, which can
-- delete objects or start and cancel tweens: the written list is copied out first, each value
-- read from the cells as it is written, and the other lists asked for again afterwards.
function E.after_tweens()
  F.anim_results(ctx, io)
  tick = tick + 1
  local nc = io.ncells
  if nc > 0 then
    local list, fresh, nrefused = io.cells, nil, 0
    for i = 0, nc - 1 do pending[i + 1] = list[i] end
    for i = 1, nc do
      local c = pending[i]
      local comp = cell_comp[c + 1]
      if not comp then
        -- A `self` with a metatable of the script's own can refuse too.
        local ok, err = pcall(set_field, cell_self[c + 1], cell_name[c + 1], io.values[c])
        if not ok then nrefused = nrefused + 1; refused[nrefused] = { cell = c, err = err } end
      else
        fresh = fresh or {}
        local ok, err = pcall(write_element, cell_self[c + 1], cell_name[c + 1], comp, io.values[c], fresh)
        if not ok then nrefused = nrefused + 1; refused[nrefused] = { cell = c, err = err } end
      end
    end
    if nrefused > 0 then stop_refused(nrefused) end
    F.anim_results(ctx, io)
  end
  -- Cells of deleted objects: forget their `self` tables so the instances can be collected.
  local nr = io.nreleased
  for i = 0, nr - 1 do
    local c = io.released[i]
    local k = c + 1
    if cell_lazy[k] then
      settle(cell_self[k], cell_name[k], cell_comp[k], c)
    elseif cell_self[k] ~= nil then
      nmirrored = nmirrored - 1
    end
    cell_self[k], cell_name[k], cell_comp[k], cell_lazy[k], cell_origin[k] = nil, nil, nil, nil, nil
  end
  local n = io.ndone
  if n == 0 then
    if nr > 0 then F.anim_clear_done(ctx) end
    return
  end
  for i = 0, n - 1 do
    done_ids[i + 1], done_finished[i + 1] = io.done[i].callback, io.done[i].finished
  end
  F.anim_clear_done(ctx)
  for i = 1, n do
    local id = done_ids[i]
    local cb = callbacks[id]
    callbacks[id] = nil
    if cb and done_finished[i] ~= 0 and alive(cb[2]) then
      S.call(cb[2], cb[1], cb[3], cb[4])
    end
  end
end
