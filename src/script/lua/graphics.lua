-- Defold's `graphics` constants that `resource.create_texture` and `resource.set_texture` take
-- (from Rust: api/resource.rs), also on `resource` as Defold has them there too, and the render
-- states a render script passes to `render.*`; the rest of Defold's `graphics` raises "not supported".
local S = ...
local graphics = {}
for k, v in pairs(S.R.graphics_constants) do graphics[k] = v end
-- The render states and buffers of Defold 1.9's render scripts (api/render.rs, as GRAPHICS_*).
for name, v in pairs(S.K) do
  local k = name:match("^GRAPHICS_(.+)$")
  if k then graphics[k] = v end
end
return S.unsupported_rest("graphics", graphics)
