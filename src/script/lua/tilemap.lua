-- The `tilemap` namespace: a tile map component's tiles by layer and tile coordinates (from 1,
-- as in Defold), its bounds and its layers' visibility. Arguments are checked here; Rust does
-- the work.
local ffi = require("ffi")
local S = ...
local F, ctx = S.F, S.ctx
local fail, argerr = S.fail, S.argerr
local K = S.K
local TILEMAP = K.COMPONENT_TILEMAP

local check = S.check_in

local i4 = ffi.new("int32_t[4]")
local u2 = ffi.new("uint32_t[2]")

local function map_of(fname, url)
  local r = S.caller("tilemap")
  return S.component_of(fname, url, r, TILEMAP)
end

local function int(fname, n, v)
  if type(v) ~= "number" or v ~= v then argerr(fname, n, "number", v) end
  return math.floor(v)
end

local function layer_arg(fname, n, v) return S.to_hash(v, fname, n).h end

local tilemap = {}

function tilemap.get_bounds(url)
  local fname = "tilemap.get_bounds"
  local slot, u = map_of(fname, url)
  check(fname, F.tilemap_bounds(ctx, slot, u.f, i4))
  return i4[0], i4[1], i4[2], i4[3]
end

-- As in Defold, a layer that is not there or a tile outside the map is an error in the log and
-- nil (set_tile: false), not a Lua error.
local function logged(fname, rc)
  if rc == 0 then return true end
  if rc ~= K.TILEMAP_OUTSIDE then fail(fname .. ": " .. ffi.string(F.last_error())) end
  S.R.log_error(S.where() .. fname .. ": " .. ffi.string(F.last_error()))
  return false
end

-- The tile at (x, y) and its transform bits, or nil (logged) outside the map.
local function read_tile(fname, url, layer, x, y)
  local slot, u = map_of(fname, url)
  local rc = F.tilemap_get(ctx, slot, u.f, layer_arg(fname, 2, layer), int(fname, 3, x), int(fname, 4, y), u2)
  if not logged(fname, rc) then return nil end
  return u2[0], u2[1]
end

function tilemap.get_tile(url, layer, x, y)
  return (read_tile("tilemap.get_tile", url, layer, x, y))
end

-- `{index, h_flip, v_flip, rotate_90}` of a tile (Defold 1.9's tilemap.get_tile_info).
function tilemap.get_tile_info(url, layer, x, y)
  local index, bits = read_tile("tilemap.get_tile_info", url, layer, x, y)
  if index == nil then return nil end
  return {
    index = index,
    h_flip = bit.band(bits, K.TILEMAP_H_FLIP) ~= 0,
    v_flip = bit.band(bits, K.TILEMAP_V_FLIP) ~= 0,
    rotate_90 = bit.band(bits, K.TILEMAP_ROTATE_90) ~= 0,
  }
end

-- `transform` is a sum of tilemap.H_FLIP, V_FLIP and a ROTATE_* (Defold 1.9); Defold's first
-- form took `h_flip, v_flip` booleans, which are read too.
function tilemap.set_tile(url, layer, x, y, tile, transform, v_flip)
  local fname = "tilemap.set_tile"
  local slot, u = map_of(fname, url)
  local t = int(fname, 5, tile)
  if t < 0 then fail(fname .. ": the tile must not be negative") end
  local flags = 0
  if type(transform) == "number" then
    flags = int(fname, 6, transform)
    if flags < 0 or flags > K.TILEMAP_ROTATE_270 then fail(fname .. ": transform must be a sum of tilemap.H_FLIP, V_FLIP and a ROTATE_*") end
  elseif transform ~= nil or v_flip ~= nil then
    flags = (transform and K.TILEMAP_H_FLIP or 0) + (v_flip and K.TILEMAP_V_FLIP or 0)
  end
  return logged(fname, F.tilemap_set(ctx, slot, u.f, layer_arg(fname, 2, layer), int(fname, 3, x), int(fname, 4, y), t, flags))
end

function tilemap.set_visible(url, layer, visible)
  local fname = "tilemap.set_visible"
  local slot, u = map_of(fname, url)
  if type(visible) ~= "boolean" then argerr(fname, 3, "boolean", visible) end
  logged(fname, F.tilemap_visible(ctx, slot, u.f, layer_arg(fname, 2, layer), visible and 1 or 0))
end

-- Every tile of a layer inside the map's bounds: rows by y, each a table of tiles by x (0 for
-- none), as Defold 1.9's tilemap.get_tiles; nil (logged) for a layer the map lacks.
function tilemap.get_tiles(url, layer)
  local fname = "tilemap.get_tiles"
  local slot, u = map_of(fname, url)
  check(fname, F.tilemap_bounds(ctx, slot, u.f, i4))
  local x0, y0, w, h = i4[0], i4[1], i4[2], i4[3]
  local l = layer_arg(fname, 2, layer)
  local rows = {}
  for y = y0, y0 + h - 1 do
    local row = {}
    for x = x0, x0 + w - 1 do
      if not logged(fname, F.tilemap_get(ctx, slot, u.f, l, x, y, u2)) then return nil end
      row[x] = u2[0]
    end
    rows[y] = row
  end
  return rows
end

tilemap.H_FLIP = K.TILEMAP_H_FLIP
tilemap.V_FLIP = K.TILEMAP_V_FLIP
tilemap.ROTATE_90 = K.TILEMAP_ROTATE_90
tilemap.ROTATE_180 = K.TILEMAP_ROTATE_180
tilemap.ROTATE_270 = K.TILEMAP_ROTATE_270

return S.unsupported_rest("tilemap", tilemap)
