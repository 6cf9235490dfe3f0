-- Defold's `graphics` constants that `resource.create_texture` and `resource.set_texture` take
-- (from Rust: api/resource.rs), also on `resource` as Defold has them there too. Sinew draws
-- through its own renderer, so the rest of Defold's `graphics` raises "not supported".
local S = ...
local graphics = {}
for k, v in pairs(S.R.graphics_constants) do graphics[k] = v end
return S.unsupported_rest("graphics", graphics)
