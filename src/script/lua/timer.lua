-- `timer.*`: delayed and repeating callbacks (Defold's script_timer), kept wholly in Lua: a
-- timer is a closure plus a few numbers, so a Rust copy would only add a crossing per frame.
--
-- One owner per callback: `registry` (handle → timer) is the only place a live timer is
-- found. A timer that ends for any reason (fired once, cancelled, triggered, its script
-- instance destroyed) leaves `registry` at once and drops its callback and owner, so the
-- closure can be collected; the emptied table leaves the countdown arrays at a later pass.
local S = ...
local E = S.E
local NONE = S.NONE

local registry = {}         -- handle → timer {handle, owner, cb, delay, repeating, born, slot, dead}
-- The running timers as parallel arrays, so the per-frame countdown walks two flat arrays of
-- numbers and touches a timer's table only when it fires (10,000 tables per frame would be
-- cache misses, several times slower). A dead timer's slot holds `math.huge` until the next
-- compaction.
local rems, objs, count = {}, {}, 0
local husks = 0             -- dead slots in `rems`/`objs`
local fresh, nfresh = {}, 0 -- timers not yet counting down (made since the last pass)
local next_handle = 1
local HUGE = math.huge
local floor = math.floor

local function kill(t)
  registry[t.handle] = nil
  local owned = t.owner.timers
  if owned then owned[t.handle] = nil end
  t.dead, t.cb, t.owner = true, nil, nil
  if t.slot then
    rems[t.slot] = HUGE
    husks = husks + 1
  end
end

local function remaining(t)
  if t.slot then return rems[t.slot] end
  return t.delay
end

local function fire(t, elapsed)
  -- Defold's order: the callback runs first, then a one-shot dies and a repeating timer is
  -- rescheduled, unless the callback cancelled it.
  S.call(t.owner, t.cb, t.handle, elapsed)
end

local function check_handle(fname, h)
  if type(h) ~= "number" then S.argerr(fname, 1, "number (a timer handle)", h) end
  return registry[h]
end

local timer = {}
timer.INVALID_TIMER_HANDLE = NONE

function timer.delay(delay, repeating, callback)
  if type(delay) ~= "number" or delay ~= delay then S.argerr("timer.delay", 1, "number", delay) end
  if delay < 0 then S.fail("timer.delay: bad argument #1 (delay must be >= 0, got " .. delay .. ")") end
  if type(repeating) ~= "boolean" then S.argerr("timer.delay", 2, "boolean", repeating) end
  if type(callback) ~= "function" then S.argerr("timer.delay", 3, "function", callback) end
  local r = S.current()
  if r == nil or r.destroyed then
    S.fail("timer.delay: must be called from a script callback (init, update, on_message, ...)")
  end
  local h = next_handle
  next_handle = next_handle + 1
  local t = {
    handle = h, owner = r, cb = callback, delay = delay,
    repeating = repeating, born = S.frame, slot = false, dead = false,
  }
  registry[h] = t
  nfresh = nfresh + 1
  fresh[nfresh] = t
  local owned = r.timers
  if owned == nil then
    owned = {}
    r.timers = owned
  end
  owned[h] = t
  return h
end

function timer.cancel(h)
  local t = check_handle("timer.cancel", h)
  if t == nil then return false end
  kill(t)
  return true
end

-- Fires now with the time since the timer started (or last fired); a repeating timer then
-- starts its delay over, a one-shot ends.
function timer.trigger(h)
  local t = check_handle("timer.trigger", h)
  if t == nil then return false end
  fire(t, t.delay - remaining(t))
  if not t.dead then
    if not t.repeating then
      kill(t)
    elseif t.slot then
      rems[t.slot] = t.delay
    end
  end
  return true
end

function timer.get_info(h)
  local t = check_handle("timer.get_info", h)
  if t == nil then return nil end
  -- The carried remainder can come out a rounding error below 0; Defold's is never negative.
  return { time_remaining = math.max(remaining(t), 0), delay = t.delay, repeating = t.repeating }
end

S.unsupported_rest("timer", timer)
_G.timer = timer

-- Drops the dead slots, keeping creation order (the firing order within a frame).
local function compact()
  local j = 0
  for i = 1, count do
    local t, rem = objs[i], rems[i]
    objs[i], rems[i] = nil, nil
    if not t.dead then
      j = j + 1
      objs[j], rems[j] = t, rem
      t.slot = j
    end
  end
  count, husks = j, 0
end

-- Timers made before this frame's `update` start counting down; later ones wait a frame. The
-- frame counter (`S.frame`) ticks in E.update, so a timer made in frame N's `update` (or later
-- in the frame) first counts down in frame N+1's pass: `delay = 0` fires on the next frame, not
-- in the frame's own pass (which runs after `update`), as in Defold.
local function admit(frame)
  local k = 0
  for i = 1, nfresh do
    local t = fresh[i]
    fresh[i] = nil
    if not t.dead then
      if t.born < frame then
        count = count + 1
        objs[count], rems[count] = t, t.delay
        t.slot = count
      else
        k = k + 1
        fresh[k] = t
      end
    end
  end
  nfresh = k
end

-- The frame's timer pass, after every script's `update` (game::update). Timers made during
-- the pass (from a callback) wait for the next frame.
function E.timers(dt)
  if husks > 0 and husks * 4 > count then compact() end
  local frame = S.frame
  if nfresh > 0 then admit(frame) end
  local n = count
  local scaled = S.time_scaled()
  local factor = S.time_factor
  for i = 1, n do
    local rem
    if scaled then
      -- Each timer runs on its script's world time (collection proxies' `set_time_step`); a
      -- dead one (no owner) holds math.huge either way.
      local owner = objs[i].owner
      local k = owner and factor(owner.slot) or 1
      rem = rems[i] - dt * (k > 0 and k or 0)
    else
      rem = rems[i] - dt
    end
    rems[i] = rem
    if rem <= 0 then
      local t = objs[i]
      local delay = t.delay
      fire(t, delay - rem)
      if not t.dead then
        if not t.repeating then
          kill(t)
        elseif delay == 0 then
          rems[i] = 0
        else
          -- At most one call per frame: the missed periods are skipped and the remainder
          -- carries into the next period (Defold's rule).
          rems[i] = rem + floor(-rem / delay + 1) * delay
        end
      end
    end
  end
  -- Again after the pass: the one-shots that just fired leave with no frame's delay.
  if husks > 0 and husks * 4 > count then compact() end
end

-- The instance's timers end with it (after `final`, which may still cancel them).
function S.end_timers(r)
  local owned = r.timers
  if owned == nil then return end
  r.timers = nil
  for _, t in pairs(owned) do kill(t) end
end

return timer
