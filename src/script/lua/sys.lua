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
  -- Defold reads the default with luaL_checkstring, which takes a number as its text
  -- (Insality/crowd-runner-defold: `sys.get_config("game.box_size", 4600)`).
  if type(default) == "number" then default = tostring(default) end
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

-- Defold's older name of get_config_string, still in many projects.
function sys.get_config(key, default)
  return sys.get_config_string(key, default)
end

-- Sinew does not probe the network: a desktop game is taken to be online (Sinew decision);
-- set_connectivity_host, which names the host Defold's probe asks, only checks its argument.
-- `sys.NETWORK_*` and `sys.REQUEST_STATUS_*`: the runtime's `SYS_*` constants (script::system).
for name, value in pairs(S.K) do
  local k = name:match("^SYS_(.+)$")
  if k then sys[k] = value end
end
function sys.get_connectivity() return sys.NETWORK_CONNECTED end
function sys.set_connectivity_host(host)
  if type(host) ~= "string" then S.argerr("sys.set_connectivity_host", 1, "string", host) end
end

function sys.get_engine_info() return R.engine_info() end
function sys.get_sys_info() return R.sys_info() end

-- Defold's contract: the data, or nil and the reason (not an error), so a game can probe for
-- optional files. Paths outside the project are refused by `R.read`.
function sys.load_resource(path)
  if type(path) ~= "string" then S.argerr("sys.load_resource", 1, "string", path) end
  local bytes, err = R.read(path)
  return bytes, err
end

-- A resource's bytes as a buffer with one uint8 stream `data` (Defold 1.4.8's calls).
function sys.load_buffer(path)
  if type(path) ~= "string" then S.argerr("sys.load_buffer", 1, "string", path) end
  local bytes, err = R.read(path)
  if bytes == nil then S.fail("sys.load_buffer: " .. tostring(err)) end
  return S.buffer_from_bytes(bytes)
end

-- The file is read now and the answer comes on the next frame, through a timer of the calling
-- script (so `callback` gets its `self`, and goes with it): `callback(self, request_id, result)`
-- with `result.status` (`sys.REQUEST_STATUS_*`) and, when found, `result.buffer`.
local next_request = 0
function sys.load_buffer_async(path, callback)
  if type(path) ~= "string" then S.argerr("sys.load_buffer_async", 1, "string", path) end
  if type(callback) ~= "function" then S.argerr("sys.load_buffer_async", 2, "function", callback) end
  next_request = next_request + 1
  local id = next_request
  local bytes, _, missing = R.read(path)
  local result
  if bytes ~= nil then
    result = { status = sys.REQUEST_STATUS_FINISHED, buffer = S.buffer_from_bytes(bytes) }
  elseif missing then
    result = { status = sys.REQUEST_STATUS_ERROR_NOT_FOUND }
  else
    result = { status = sys.REQUEST_STATUS_ERROR_IO_ERROR }
  end
  timer.delay(0, false, function(self) callback(self, id, result) end)
  return id
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

-- The table in `data` (the message format), or nil and why.
local function decode_table(data)
  local ok, t = pcall(S.decode_message, ffi.cast("const uint8_t *", data), #data)
  if not ok or type(t) ~= "table" then return nil, tostring(t) end
  return t
end

function sys.load(filename)
  if type(filename) ~= "string" then S.argerr("sys.load", 1, "string", filename) end
  local data, err = R.read_save(filename)
  if err then S.fail("sys.load: " .. filename .. ": " .. err) end
  if data == nil then return {} end
  local t, why = decode_table(data)
  if t == nil then S.fail("sys.load: " .. filename .. " is damaged: " .. why) end
  return t
end

-- Defold's serialize/deserialize: the bytes sys.save writes (without its file header).
function sys.serialize(t)
  if type(t) ~= "table" then S.argerr("sys.serialize", 1, "table", t) end
  return S.encode_save(t, R.save_max, "sys.serialize")
end

function sys.deserialize(data)
  if type(data) ~= "string" then S.argerr("sys.deserialize", 1, "string", data) end
  local t, why = decode_table(data)
  if t == nil then S.fail("sys.deserialize: not a serialized table: " .. why) end
  return t
end

-- A path on disk (absolute, or from the working directory), as Defold's.
function sys.exists(path)
  if type(path) ~= "string" then S.argerr("sys.exists", 1, "string", path) end
  return R.exists(path)
end

function sys.get_application_path() return R.application_path() end

-- Defold asks the operating system whether another app is installed (iOS, Android); a
-- desktop answers no.
function sys.get_application_info(app_string)
  if type(app_string) ~= "string" then S.argerr("sys.get_application_info", 1, "string", app_string) end
  return { installed = false }
end

-- Defold's error handler: called as `handler(source, message, traceback)` for each Lua error a
-- script callback raises (after it is logged, as Defold logs it too); nil removes it. An error
-- inside the handler is logged, not handed to it again.
function sys.set_error_handler(handler)
  if handler ~= nil and type(handler) ~= "function" then
    S.argerr("sys.set_error_handler", 1, "function or nil", handler)
  end
  S.error_handler = handler
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
-- Defold's mouse lock: the cursor hidden and held in the window, motion still reported
-- (`action.dx`/`dy`); headless it is only the state.
function window.set_mouse_lock(flag)
  if type(flag) ~= "boolean" then S.argerr("window.set_mouse_lock", 1, "boolean", flag) end
  if F.window_mouse_lock(ctx, flag and 1 or 0) < 0 then S.fail_last() end
end
function window.get_mouse_lock()
  local s = F.window_mouse_lock(ctx, -1)
  if s < 0 then S.fail_last() end
  return s == 1
end
-- Defold's window listener: one per game, called with the script that set it as `self`.
local listener = nil
for _, k in ipairs({ "FOCUS_LOST", "FOCUS_GAINED", "RESIZED", "ICONIFIED", "DEICONIFIED" }) do
  window["WINDOW_EVENT_" .. k] = S.K["WINDOW_EVENT_" .. k]
end
-- Screen dimming is a phone's (Defold: iOS and Android): a desktop reports DIMMING_UNKNOWN and
-- set_dim_mode only checks its argument.
for _, k in ipairs({ "UNKNOWN", "ON", "OFF" }) do
  window["DIMMING_" .. k] = S.K["WINDOW_DIMMING_" .. k]
end
function window.get_dim_mode() return window.DIMMING_UNKNOWN end
function window.set_dim_mode(mode)
  if mode ~= window.DIMMING_ON and mode ~= window.DIMMING_OFF then
    S.argerr("window.set_dim_mode", 1, "window.DIMMING_ON or DIMMING_OFF", mode)
  end
end
-- Sinew draws in window pixels: one window pixel per layout pixel.
function window.get_display_scale() return 1 end
-- Defold spells the iconified constant without its second I.
window.WINDOW_EVENT_ICONFIED = window.WINDOW_EVENT_ICONIFIED
function window.set_listener(callback)
  if callback ~= nil and type(callback) ~= "function" then
    S.argerr("window.set_listener", 1, "function or nil", callback)
  end
  local r = S.current()
  if r == nil then S.fail("window.set_listener can only be called from a script instance") end
  listener = callback and { r = r, cb = callback } or nil
end
function S.E.window_events(addr, n)
  local l = listener
  if l == nil then return end
  if l.r.destroyed then listener = nil return end
  local ev = ffi.cast("const uint32_t *", addr)
  for i = 0, n - 1 do
    local kind, w, h = ev[3 * i], ev[3 * i + 1], ev[3 * i + 2]
    local data = { width = kind == S.K.WINDOW_EVENT_RESIZED and w or nil, height = kind == S.K.WINDOW_EVENT_RESIZED and h or nil }
    S.call(l.r, l.cb, kind, data)
  end
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

---------------------------------------------------------------- zlib
local zlib = {}
function zlib.deflate(buf)
  if type(buf) ~= "string" then S.argerr("zlib.deflate", 1, "string", buf) end
  return R.zlib_deflate(buf)
end
function zlib.inflate(buf)
  if type(buf) ~= "string" then S.argerr("zlib.inflate", 1, "string", buf) end
  local out, err = R.zlib_inflate(buf)
  if out == nil then S.fail("zlib.inflate: " .. err) end
  return out
end
_G.zlib = S.unsupported_rest("zlib", zlib)

---------------------------------------------------------------- socket
_G.socket = S.unsupported_rest("socket", { gettime = function() return R.gettime() end })
