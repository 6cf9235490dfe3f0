-- Defold's `types` namespace, and Defold's answer to `type()` for its value types: hashes, URLs
-- and vmath values are userdata in Defold and FFI cdata here, and Defold scripts branch on
-- `type(v) == "userdata"`. The runtime's own files keep Lua's `type` (the loader gives each a
-- local `type` taken before this file replaces the global one).
local S = ...
local value_kind = S.value_kind

_G.type = function(...)
  local t = type(...)
  if t == "cdata" then return "userdata" end
  return t
end

local types = {}
for _, kind in ipairs({ "hash", "url", "vector", "vector3", "vector4", "quat", "matrix4" }) do
  types["is_" .. kind] = function(v) return value_kind(v) == kind end
end

return types
