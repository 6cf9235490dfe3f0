-- A Lua module loaded with require "main.motion".
local M = {}

-- A parabola from 0 up to 1 and back over t in [0, 1).
function M.bounce(t)
	return 4 * t * (1 - t)
end

return M
