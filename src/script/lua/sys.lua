-- `sys.*` beyond `sys.exit`, `window.*`, `json.*`, `socket.gettime`, and the Defold namespaces
-- Sinew lacks. None of these is called per object per frame, so they are ordinary host
-- functions (`R.*`, script/system.rs) rather than FFI exports, except `window.get_size`.
local S = ...
local ffi = require("ffi")
local R, F, ctx = S.R, S.F, S.ctx

---------------------------------------------------------------- sys
local sys = _G.sys

local function config(fname, key, default, want)
  if type(key) ~= "string" then S.argerr(fname, 1, "string", key) end
  if default ~= nil and type(default) ~= want then S.argerr(fname, 2, want .. " or nil", default) end
  return R.config(key)
end

-- A number read as an integer: toward zero, as Defold's atoi-based reading of "12.7" gives 12.
local function as_number(v)
  if type(v) == "number" then return v end
  if type(v) == "boolean" then return v and 1 or 0 end
  if type(v) == "string" then return tonumber(v) end
  return nil
end

function sys.get_config_string(key, default)
  local v = config("sys.get_config_string", key, default, "string")
  if type(v) == "string" then return v end
  if type(v) == "boolean" then return v and "true" or "false" end
  if type(v) == "number" then
    if v == math.floor(v) and math.abs(v) < 2 ^ 53 then return string.format("%d", v) end
    return tostring(v)
  end
  return default
end

function sys.get_config_number(key, default)
  local v = as_number(config("sys.get_config_number", key, default, "number"))
  if v == nil then return default or 0 end
  return v
end

function sys.get_config_int(key, default)
  local v = as_number(config("sys.get_config_int", key, default, "number"))
  if v == nil then return default or 0 end
  return v < 0 and math.ceil(v) or math.floor(v)
end

function sys.get_engine_info() return R.engine_info() end
function sys.get_sys_info() return R.sys_info() end

-- Defold's contract: the data, or nil and the reason (not an error), so a game can probe for
-- optional files. Paths outside the project are refused by `R.read`.
function sys.load_resource(path)
  if type(path) ~= "string" then S.argerr("sys.load_resource", 1, "string", path) end
  return R.read(path)
end

-- Saves: Defold's calls; the bytes are the message format (msg.lua), so a save holds what a
-- message may (numbers, strings, booleans, hashes, URLs, vmath values, nested tables).
function sys.get_save_file(application_id, file_name)
  if type(application_id) ~= "string" then S.argerr("sys.get_save_file", 1, "string", application_id) end
  if type(file_name) ~= "string" then S.argerr("sys.get_save_file", 2, "string", file_name) end
  local path, err = R.save_path(application_id, file_name)
  if not path then S.fail("sys.get_save_file: " .. err) end
  return path
end

function sys.save(filename, t)
  if type(filename) ~= "string" then S.argerr("sys.save", 1, "string", filename) end
  if type(t) ~= "table" then S.argerr("sys.save", 2, "table", t) end
  local err = R.write_save(filename, S.encode_save(t, R.save_max))
  if err then S.fail("sys.save: could not write " .. filename .. ": " .. err) end
  return true
end

function sys.load(filename)
  if type(filename) ~= "string" then S.argerr("sys.load", 1, "string", filename) end
  local data, err = R.read_save(filename)
  if err then S.fail("sys.load: " .. filename .. ": " .. err) end
  if data == nil then return {} end
  local ok, t = pcall(S.decode_message, ffi.cast("const uint8_t *", data), #data)
  if not ok or type(t) ~= "table" then S.fail("sys.load: " .. filename .. " is damaged: " .. tostring(t)) end
  return t
end

S.unsupported_rest("sys", sys)

---------------------------------------------------------------- window
local size = ffi.new("sinew_vector3")
local window = {}
-- The real window's size in pixels (`--size` or project.json's window, also when headless).
function window.get_size()
  if F.window_size(ctx, size) ~= 0 then S.fail_last() end
  return size.x, size.y
end
_G.window = S.unsupported_rest("window", window)

---------------------------------------------------------------- json
local json = {}
function json.encode(t)
  if type(t) ~= "table" then S.argerr("json.encode", 1, "table", t) end
  local s, err = R.json_encode(t)
  if s == nil then S.fail("json.encode: " .. err) end
  return s
end
-- Defold's `json.null`: encoded as `null`; `json.decode(s, { decode_null_as_userdata = true })`
-- gives it for `null` (else nil, which a table cannot hold).
json.null = R.json_null
function json.decode(s, options)
  if type(s) ~= "string" then S.argerr("json.decode", 1, "string", s) end
  local as_userdata = false
  if options ~= nil then
    if type(options) ~= "table" then S.argerr("json.decode", 2, "table", options) end
    as_userdata = options.decode_null_as_userdata
    if as_userdata ~= nil and type(as_userdata) ~= "boolean" then
      S.fail("json.decode: options.decode_null_as_userdata must be a boolean")
    end
  end
  local ok, v, err = pcall(R.json_decode, s, as_userdata or false)
  if not ok then S.fail("json.decode: " .. tostring(v)) end
  if err ~= nil then S.fail("json.decode: " .. err) end
  return v
end
_G.json = S.unsupported_rest("json", json)

---------------------------------------------------------------- socket
_G.socket = S.unsupported_rest("socket", { gettime = function() return R.gettime() end })
