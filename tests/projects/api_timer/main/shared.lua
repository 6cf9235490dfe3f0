-- State both scripts see: the victim's tick count and a weak table of callbacks, so the tester
-- can tell whether an ended timer's closure was freed.
return { ticks = 0, weak = setmetatable({}, { __mode = "k" }) }
