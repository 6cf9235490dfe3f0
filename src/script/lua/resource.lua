-- Defold's resource property constructors, for `go.property("name", resource.atlas("/x.atlas"))`:
-- each checks the path and returns its hash, which `go.set(url, "image", v)` of a sprite takes
-- (the atlas or tile source is loaded then if no sprite has used it yet). Textures and atlases
-- made at run time (`create_texture`, `set_texture`, `create_atlas`) and read (`get_atlas`,
-- `get_texture_info`): the tables cross in the message format and are checked in Rust
-- (game/runtime_textures.rs). The rest of Defold's
-- `resource` namespace raises "not supported".
local ffi = require("ffi")
local S = ...
local F, ctx = S.F, S.ctx
local argerr = S.argerr
local function check(fname, rc) S.check_in(fname, rc) end
-- Bytes of a creation table at most (an atlas of thousands of geometries fits).
local MAX_TABLE = 16 * 1024 * 1024

local resource = {}
for _, kind in ipairs({ "atlas", "tile_source", "font", "material", "texture" }) do
  local fname = "resource." .. kind
  resource[kind] = function(path)
    if type(path) ~= "string" or path:sub(1, 1) ~= "/" then argerr(fname, 1, "resource path starting with /", path) end
    return S.hash(path)
  end
end

local function new_path(fname, path)
  if type(path) ~= "string" or path:sub(1, 1) ~= "/" then argerr(fname, 1, "resource path starting with /", path) end
end
local function params_arg(fname, n, params)
  if type(params) ~= "table" then argerr(fname, n, "table", params) end
  return S.encode_save(params, MAX_TABLE, fname)
end

-- `resource.create_texture` and `create_atlas`: a new path and its table; the path's hash.
local function maker(fname, make)
  return function(path, params)
    new_path(fname, path)
    local t = params_arg(fname, 2, params)
    check(fname, make(ctx, path, #path, t, #t))
    return S.hash(path)
  end
end
resource.create_texture = maker("resource.create_texture", function(...) return F.resource_create_texture(...) end)
resource.create_atlas = maker("resource.create_atlas", function(...) return F.resource_create_atlas(...) end)

function resource.set_texture(path, params, buffer)
  local fname = "resource.set_texture"
  local h = S.to_hash(path, fname, 1)
  local t = params_arg(fname, 2, params)
  local data, len = S.buffer_data(fname, 3, buffer)
  check(fname, F.resource_set_texture(ctx, h.h, t, #t, data, len))
end


-- get_atlas: the table comes back in the message format, into a buffer that grows to fit.
local atlas_cap = 4096
local atlas_buf = ffi.new("uint8_t[?]", atlas_cap)
function resource.get_atlas(path)
  local fname = "resource.get_atlas"
  local h = S.to_hash(path, fname, 1)
  local n = F.resource_get_atlas(ctx, h.h, ffi.cast("char *", atlas_buf), atlas_cap)
  if n < 0 then check(fname, n) end
  if n > atlas_cap then
    atlas_cap = n
    atlas_buf = ffi.new("uint8_t[?]", atlas_cap)
    n = F.resource_get_atlas(ctx, h.h, ffi.cast("char *", atlas_buf), atlas_cap)
  end
  return S.decode_message(atlas_buf, n)
end

local size = S.vm.vector3_t()
function resource.get_texture_info(path)
  local fname = "resource.get_texture_info"
  local h = S.to_hash(path, fname, 1)
  check(fname, F.resource_texture_info(ctx, h.h, size))
  return { handle = h, width = size.x, height = size.y, depth = 1, mipmaps = 1, page_count = 1,
           type = S.R.graphics_constants.TEXTURE_TYPE_2D, flags = 0 }
end

for k, v in pairs(S.R.graphics_constants) do resource[k] = v end

return S.unsupported_rest("resource", resource)
