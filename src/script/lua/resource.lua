-- Defold's resource property constructors, for `go.property("name", resource.atlas("/x.atlas"))`:
-- each checks the path and returns its hash, which `go.set(url, "image", v)` of a sprite takes
-- (the atlas or tile source is loaded then if no sprite has used it yet). The rest of Defold's
-- `resource` namespace (creating and changing resources at run time) is not in Sinew.
local S = ...
local argerr = S.argerr

local resource = {}
for _, kind in ipairs({ "atlas", "tile_source", "font", "material", "texture" }) do
  local fname = "resource." .. kind
  resource[kind] = function(path)
    if type(path) ~= "string" or path:sub(1, 1) ~= "/" then argerr(fname, 1, "resource path starting with /", path) end
    return S.hash(path)
  end
end

return resource
