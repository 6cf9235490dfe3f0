-- Shared between the test's scripts: what happened, in order, with the tester's frame count.
local M = { frame = 0, events = {} }
function M.add(what, id) M.events[#M.events + 1] = { what = what, id = id, frame = M.frame } end
-- The frames at which `what` happened to `id`.
function M.frames(what, id)
  local out = {}
  for _, e in ipairs(M.events) do if e.what == what and e.id == id then out[#out + 1] = e.frame end end
  return out
end
-- The index of the first `what` of `id` (nil if none).
function M.first(what, id)
  for i, e in ipairs(M.events) do if e.what == what and e.id == id then return i end end
end
return M
