-- `timer.*`: delayed and repeating callbacks (Defold's script_timer), kept wholly in Lua: a
-- timer is a closure plus three numbers, so a Rust copy would only add a crossing per frame.
--
-- One owner per callback: `registry` (handle → timer) is the only place a live timer is
-- found; `order` is the iteration list the frame pass walks. A timer that ends for any reason
-- (fired once, cancelled, triggered, its script instance destroyed) leaves `registry` at once
-- and drops its callback and owner, so the closure can be collected; its husk leaves `order` at
-- the next pass.
local S = ...
local E = S.E
local NONE = S.NONE

local registry = {}         -- handle → timer {handle, owner, cb, delay, remaining, repeating, born, dead}
local order, count = {}, 0  -- timers in creation order, dead husks included until the next pass
local husks = 0             -- dead entries still in `order`
local live = 0
local next_handle = 1

-- The frame counter (`S.frame`) ticks in E.update: a timer made during frame N is first
-- counted down in frame N+1's pass, so `delay = 0` fires on the next frame (not in the
-- frame's own pass, which runs after `update`), as Defold's timer does.
local function kill(t)
  registry[t.handle] = nil
  local owned = t.owner.timers
  if owned then owned[t.handle] = nil end
  t.dead, t.cb, t.owner = true, nil, nil
  live = live - 1
  husks = husks + 1
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
    handle = h, owner = r, cb = callback, delay = delay, remaining = delay,
    repeating = repeating, born = S.frame, dead = false,
  }
  registry[h] = t
  count = count + 1
  order[count] = t
  live = live + 1
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
  fire(t, t.delay - t.remaining)
  if not t.dead then
    if t.repeating then t.remaining = t.delay else kill(t) end
  end
  return true
end

function timer.get_info(h)
  local t = check_handle("timer.get_info", h)
  if t == nil then return nil end
  return { time_remaining = t.remaining, delay = t.delay, repeating = t.repeating }
end

S.unsupported_rest("timer", timer)
_G.timer = timer

-- Drops the husks from `order`, keeping creation order (the firing order within a frame).
local function compact()
  local j = 0
  for i = 1, count do
    local t = order[i]
    order[i] = nil
    if not t.dead then
      j = j + 1
      order[j] = t
    end
  end
  count, husks = j, 0
end

-- The frame's timer pass, after every script's `update` (game::update). Timers made during
-- the pass (from a callback) wait for the next frame.
function E.timers(dt)
  if husks > 0 then compact() end
  if live == 0 then return end
  local frame = S.frame
  local n = count
  for i = 1, n do
    local t = order[i]
    if not t.dead and t.born < frame then
      local rem = t.remaining - dt
      t.remaining = rem
      if rem <= 0 then
        local delay = t.delay
        fire(t, delay - rem)
        if not t.dead then
          if not t.repeating then
            kill(t)
          elseif delay == 0 then
            t.remaining = 0
          else
            -- At most one call per frame: the missed periods are skipped and the remainder
            -- carries into the next period (Defold's rule).
            t.remaining = rem + math.floor(-rem / delay + 1) * delay
          end
        end
      end
    end
  end
  if husks > 0 and husks * 2 > count then compact() end
end

-- The instance's timers end with it (after `final`, which may still cancel them).
function S.end_timers(r)
  local owned = r.timers
  if owned == nil then return end
  r.timers = nil
  for _, t in pairs(owned) do kill(t) end
end

function S.timer_count() return live end

return timer
