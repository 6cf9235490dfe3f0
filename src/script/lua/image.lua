-- Defold's `image` namespace: `image.load` decodes a PNG or JPEG held in a string (as
-- `sys.load_resource` gives it) into `{ width, height, type, buffer }`, the pixels RGBA8 rows top
-- first whatever the file's channels (so `type` is always `image.TYPE_RGBA`), or nil when the
-- bytes are no image Sinew reads. Decoding is Rust's (R.image_decode), sizes checked before any
-- pixel is allocated; the constants come from Rust too.
local S = ...
local argerr = S.argerr

local image = {}
for k, v in pairs(S.R.image_constants) do image[k] = v end

function image.load(data, options)
  if type(data) ~= "string" then argerr("image.load", 1, "string", data) end
  local premultiply, flip = false, false
  if type(options) == "table" then
    premultiply, flip = options.premultiply_alpha == true, options.flip_vertically == true
  elseif type(options) == "boolean" then
    premultiply = options -- Defold's older `image.load(buffer, premult)`
  elseif options ~= nil then
    argerr("image.load", 2, "table", options)
  end
  local width, height, pixels = S.R.image_decode(data, premultiply, flip)
  if not width then return nil end
  return { width = width, height = height, type = image.TYPE_RGBA, buffer = pixels }
end

return S.unsupported_rest("image", image)
