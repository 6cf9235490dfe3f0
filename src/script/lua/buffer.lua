-- Defold's `buffer` namespace: a buffer is `count` elements of one or more named streams, each
-- element `count` values of one type (buffer.VALUE_TYPE_*), held in FFI arrays, one per stream,
-- zero-filled. A buffer and its streams are userdata, as in Defold; a stream is read and written
-- like an array, 1 to #stream (all its values, element after element), and refuses an index
-- outside it or a value that is not a number. `resource.set_texture` reads a buffer's bytes.
-- The value types come from Rust (api/resource.rs VALUE_TYPES): name, value, C type.
local S = ...
local ffi = require("ffi")
local argerr, fail = S.argerr, S.fail

local buffer = {}
local types = {}
for _, t in ipairs(S.R.buffer_value_types) do
  local value = tonumber(t[2])
  buffer[t[1]] = value
  types[value] = { ctype = ffi.typeof(t[3] .. "[?]"), size = ffi.sizeof(t[3]) }
end
-- Bytes per buffer at most: a script's mistake (a count of a billion) is refused before
-- anything is allocated.
local MAX_BYTES = S.R.buffer_max_bytes

-- What each proxy stands for (weak keys: a buffer nobody holds is collected with its arrays).
local buffers = setmetatable({}, { __mode = "k" })
local streams = setmetatable({}, { __mode = "k" })

local buffer_proto = newproxy(true)
getmetatable(buffer_proto).__tostring = function(b) return string.format("buffer(%d elements)", buffers[b].count) end
getmetatable(buffer_proto).__len = function(b) return buffers[b].count end

local stream_proto = newproxy(true)
local stream_mt = getmetatable(stream_proto)
stream_mt.__len = function(s) return streams[s].n end
-- The stream's data, once `i` is checked to be one of its indexes.
local function at(s, i)
  local d = streams[s]
  if type(i) ~= "number" or i < 1 or i > d.n or i % 1 ~= 0 then
    fail(string.format("buffer stream: index %s is outside 1..%d", tostring(i), d.n))
  end
  return d
end
stream_mt.__index = function(s, i) return tonumber(at(s, i).array[i - 1]) end
stream_mt.__newindex = function(s, i, v)
  local d = at(s, i)
  if type(v) ~= "number" then fail(string.format("buffer stream: a number expected, got %s", type(v))) end
  d.array[i - 1] = v
end
stream_mt.__tostring = function(s) return string.format("bufferstream(%d values)", streams[s].n) end

-- A new userdata of `proto`'s metatable standing for `data` in `registry`.
local function proxy(proto, registry, data)
  local p = newproxy(proto)
  registry[p] = data
  return p
end

local function buffer_arg(fname, n, b)
  local d = type(b) == "userdata" and buffers[b]
  if not d then argerr(fname, n, "buffer", b) end
  return d
end

local function stream_of(fname, d, name)
  local h = S.to_hash(name, fname, 2)
  for _, s in ipairs(d.streams) do
    if s.name == h then return s end
  end
  fail(string.format("%s: the buffer has no stream '%s'", fname, S.hash_text(h.h)))
end

function buffer.create(count, declaration)
  local fname = "buffer.create"
  if type(count) ~= "number" or count < 1 or count % 1 ~= 0 then argerr(fname, 1, "whole number from 1", count) end
  if type(declaration) ~= "table" or #declaration == 0 then argerr(fname, 2, "list of streams", declaration) end
  local d = { count = count, streams = {} }
  local bytes = 0
  for i, s in ipairs(declaration) do
    if type(s) ~= "table" then fail(string.format("%s: stream %d: a table expected", fname, i)) end
    local t = types[s.type]
    if not t then fail(string.format("%s: stream %d: type must be a buffer.VALUE_TYPE_*", fname, i)) end
    local c = s.count
    if type(c) ~= "number" or c < 1 or c > 256 or c % 1 ~= 0 then
      fail(string.format("%s: stream %d: count must be a whole number from 1 to 256", fname, i))
    end
    local h = S.to_hash(s.name, fname, 2)
    for _, other in ipairs(d.streams) do
      if other.name == h then fail(string.format("%s: stream %d: its name is used twice", fname, i)) end
    end
    bytes = bytes + count * c * t.size
    if bytes > MAX_BYTES then
      fail(string.format("%s: %d elements of these streams need more than %d bytes", fname, count, MAX_BYTES))
    end
    d.streams[i] = { name = h, n = count * c, size = t.size, array = t.ctype(count * c) }
  end
  return proxy(buffer_proto, buffers, d)
end

function buffer.get_stream(b, name)
  local d = buffer_arg("buffer.get_stream", 1, b)
  return proxy(stream_proto, streams, stream_of("buffer.get_stream", d, name))
end

function buffer.get_bytes(b, name)
  local d = buffer_arg("buffer.get_bytes", 1, b)
  if name == nil then
    local parts = {}
    for i, s in ipairs(d.streams) do parts[i] = ffi.string(s.array, s.n * s.size) end
    return table.concat(parts)
  end
  local s = stream_of("buffer.get_bytes", d, name)
  return ffi.string(s.array, s.n * s.size)
end

-- A buffer of one stream `data` of `bytes`, one uint8 value an element: what Defold's
-- sys.load_buffer makes of a file (its length may be 0).
function S.buffer_from_bytes(bytes)
  local n = #bytes
  local array = types[buffer.VALUE_TYPE_UINT8].ctype(n)
  ffi.copy(array, bytes, n)
  local d = { count = n, streams = { { name = S.hash("data"), n = n, size = 1, array = array } } }
  return proxy(buffer_proto, buffers, d)
end

-- The first stream's values as bytes (pointer and length), for Rust to read during one call.
function S.buffer_data(fname, n, b)
  local d = buffer_arg(fname, n, b)
  local s = d.streams[1]
  return ffi.cast("const char *", s.array), s.n * s.size
end

return S.unsupported_rest("buffer", buffer)
