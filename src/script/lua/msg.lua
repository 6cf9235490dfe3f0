-- The `msg` namespace and the message-table codec (the byte format of src/scene/message.rs).
local ffi = require("ffi")
local S = ...
local F, ctx, vm = S.F, S.ctx, S.vm
local fail, argerr, current = S.fail, S.argerr, S.current
local hash, hash_t, url_t = S.hash, S.hash_t, S.url_t
local istype = ffi.istype

local K = S.K
local T_FALSE, T_TRUE, T_NUMBER, T_STRING = K.MSG_FALSE, K.MSG_TRUE, K.MSG_NUMBER, K.MSG_STRING
local T_HASH, T_URL, T_V3, T_V4 = K.MSG_HASH, K.MSG_URL, K.MSG_VECTOR3, K.MSG_VECTOR4
local T_QUAT, T_M4, T_TABLE, T_KEY = K.MSG_QUAT, K.MSG_MATRIX4, K.MSG_TABLE, K.MSG_KEY
local T_RECORD = K.MSG_RECORD
-- The engine's own field names, sent as an index (src/scene/message.rs KEYS).
local KEYS = S.R.message_keys
local table_new = require("table.new")
local MAX, MAX_DEPTH = K.MSG_MAX_BYTES, K.MSG_MAX_DEPTH

-- One encoder, two users: msg.post into a fixed buffer of MAX bytes, and sys.save (S.encode_save)
-- into one that grows up to its own limit. `what` names the caller in errors.
local msg_buf = ffi.new("uint8_t[?]", MAX + 64)
local buf, cap, limit, what = msg_buf, MAX + 64, MAX, "msg.post"
local pos = 0

local function room(k)
  if pos + k > limit then
    fail(string.format("%s: the %s is too large (at most %d bytes)", what, what == "msg.post" and "message" or "table",
      limit))
  end
  if pos + k > cap then
    local bigger = math.min(limit + 64, math.max(cap * 2, pos + k))
    local b = ffi.new("uint8_t[?]", bigger)
    ffi.copy(b, buf, pos)
    buf, cap = b, bigger
  end
end
local function put_u8(b) room(1); buf[pos] = b; pos = pos + 1 end
local function put_u32(v) room(4); ffi.cast("uint32_t *", buf + pos)[0] = v; pos = pos + 4 end
local function put_u64(v) room(8); ffi.cast("uint64_t *", buf + pos)[0] = v; pos = pos + 8 end
local function put_f64(v) room(8); ffi.cast("double *", buf + pos)[0] = v; pos = pos + 8 end
local function put_f32(v) room(4); ffi.cast("float *", buf + pos)[0] = v; pos = pos + 4 end

local encode_value
local function encode_table(t, depth)
  if depth > MAX_DEPTH then fail(what .. ": tables nest too deeply (at most " .. MAX_DEPTH .. " levels)") end
  put_u8(T_TABLE)
  local count_at = pos
  put_u32(0)
  local count = 0
  for k, v in pairs(t) do
    encode_value(k, depth)
    encode_value(v, depth)
    count = count + 1
  end
  ffi.cast("uint32_t *", buf + count_at)[0] = count
end

encode_value = function(v, depth)
  local t = type(v)
  if t == "boolean" then put_u8(v and T_TRUE or T_FALSE)
  elseif t == "number" then put_u8(T_NUMBER); put_f64(v)
  elseif t == "string" then put_u8(T_STRING); put_u32(#v); room(#v); ffi.copy(buf + pos, v, #v); pos = pos + #v
  elseif t == "table" then encode_table(v, depth + 1)
  elseif istype(hash_t, v) then put_u8(T_HASH); put_u64(v.h)
  elseif istype(url_t, v) then put_u8(T_URL); put_u64(v.s); put_u64(v.p); put_u64(v.f)
  else
    local vt = vm.type_name(v)
    if vt == "vector3" then put_u8(T_V3); put_f32(v.x); put_f32(v.y); put_f32(v.z)
    elseif vt == "vector4" or vt == "quat" then
      put_u8(vt == "quat" and T_QUAT or T_V4); put_f32(v.x); put_f32(v.y); put_f32(v.z); put_f32(v.w)
    elseif vt == "matrix4" then put_u8(T_M4); for i = 0, 15 do put_f32(v.m[i]) end
    else fail(what .. ": " .. (what == "msg.post" and "a message" or "a saved table") .. " cannot hold a value of type "
      .. S.type_name(v)) end
  end
end

-- The decoder makes the checks src/scene/message.rs's makes, in the same order (a test feeds
-- both the same mutated messages): every read is inside the data, tables nest at most
-- MAX_DEPTH deep, and nothing follows the value.
local decode_value
local function need(n, at, k) if at + k > n then error("truncated message data", 0) end end
local function rd(p, n, at, ct, k) need(n, at, k) return ffi.cast(ct, p + at)[0] end
-- A NaN read as a double keeps its payload, and LuaJIT takes some payloads for tagged values:
-- every NaN in a message is read as Lua's own.
local band, u32_p, NAN = bit.band, ffi.typeof("const uint32_t *"), 0 / 0
local function f64_at(p, at)
  local w = ffi.cast(u32_p, p + at)
  local hi = w[1]
  if band(hi, 0x7ff00000) == 0x7ff00000 and (band(hi, 0xfffff) ~= 0 or w[0] ~= 0) then return NAN end
  return ffi.cast("const double *", p + at)[0]
end
local function f32_at(p, at)
  local b = ffi.cast(u32_p, p + at)[0]
  if band(b, 0x7f800000) == 0x7f800000 and band(b, 0x7fffff) ~= 0 then return NAN end
  return ffi.cast("const float *", p + at)[0]
end
-- A value that is not a table, its tag read: nothing here recurses, so LuaJIT compiles the loop
-- over a message's fields into one trace (a recursive decoder ran interpreted).
local function scalar(p, n, at, tag)
  if tag == T_FALSE then return false, at end
  if tag == T_TRUE then return true, at end
  if tag == T_NUMBER then
    need(n, at, 8)
    return f64_at(p, at), at + 8
  end
  if tag == T_KEY then
    need(n, at, 1)
    local k = KEYS[p[at] + 1]
    if k == nil then error("unknown message key " .. tostring(p[at]), 0) end
    return k, at + 1
  end
  if tag == T_STRING then
    local len = tonumber(rd(p, n, at, "const uint32_t *", 4))
    need(n, at + 4, len)
    return ffi.string(p + at + 4, len), at + 4 + len
  end
  if tag == T_HASH then return S.hash_of_u64(rd(p, n, at, "const uint64_t *", 8)), at + 8 end
  if tag == T_URL then
    need(n, at, 24)
    local q = ffi.cast("const uint64_t *", p + at)
    return url_t(q[0], q[1], q[2]), at + 24
  end
  if tag == T_V3 then
    need(n, at, 12)
    return vm.vector3(f32_at(p, at), f32_at(p, at + 4), f32_at(p, at + 8)), at + 12
  end
  if tag == T_V4 or tag == T_QUAT then
    need(n, at, 16)
    local ctor = tag == T_QUAT and vm.quat or vm.vector4
    return ctor(f32_at(p, at), f32_at(p, at + 4), f32_at(p, at + 8), f32_at(p, at + 12)), at + 16
  end
  if tag == T_M4 then
    need(n, at, 64)
    local m = vm.matrix4()
    for i = 0, 15 do m.m[i] = f32_at(p, at + 4 * i) end
    return m, at + 64
  end
  error("unknown message value tag " .. tostring(tag), 0)
end

local decode_table

local records = {}

-- The record whose tag was at `at - 1`, at `depth`.
local function decode_record(p, n, at, depth)
  need(n, at, 1)
  local decode = records[p[at] + 1]
  if decode == nil then error("unknown message record " .. tostring(p[at]), 0) end
  return decode(p, n, at + 1, depth + 1)
end

decode_value = function(p, n, at, depth)
  if depth > MAX_DEPTH then error("message tables nest too deeply", 0) end
  need(n, at, 1)
  local tag = p[at]
  if tag == T_TABLE then return decode_table(p, n, at + 1, depth) end
  if tag == T_RECORD then return decode_record(p, n, at + 1, depth) end
  return scalar(p, n, at + 1, tag)
end

-- The fields of a table whose tag was at `at - 1`, at `depth`; only a nested table recurses.
decode_table = function(p, n, at, depth)
  local count = tonumber(rd(p, n, at, "const uint32_t *", 4))
  at = at + 4
  -- Sized for what the data says, up to what it can hold (a key and a value take 2 bytes).
  local t = table_new(0, math.floor(math.min(count, (n - at) / 2)))
  local inner = depth + 1
  for _ = 1, count do
    local k, v
    if inner > MAX_DEPTH then error("message tables nest too deeply", 0) end
    need(n, at, 1)
    local tag = p[at]
    if tag == T_TABLE then k, at = decode_table(p, n, at + 1, inner)
    elseif tag == T_RECORD then k, at = decode_record(p, n, at + 1, inner)
    else k, at = scalar(p, n, at + 1, tag) end
    if inner > MAX_DEPTH then error("message tables nest too deeply", 0) end
    need(n, at, 1)
    tag = p[at]
    if tag == T_TABLE then v, at = decode_table(p, n, at + 1, inner)
    elseif tag == T_RECORD then v, at = decode_record(p, n, at + 1, inner)
    else v, at = scalar(p, n, at + 1, tag) end
    if k ~= k then error("message table key is NaN", 0) end
    t[k] = v
  end
  return t, at
end

-- One decoder per record of src/scene/message.rs RECORDS, made from its keys: a table
-- constructor with constant keys copies a template, where setting the keys one by one would
-- insert each. A value that is not a table is read by `scalar` itself, not through
-- `decode_value`: LuaJIT takes that call chain for recursion and gives up compiling it.
local RECORD_VALUE = [[
  need(n, at, 1)
  tag = p[at]
  if tag == T_TABLE then v%d, at = decode_table(p, n, at + 1, depth)
  elseif tag == T_RECORD then v%d, at = decode_record(p, n, at + 1, depth)
  else v%d, at = scalar(p, n, at + 1, tag) end
]]
for r, keys in ipairs(S.R.message_records) do
  local src = {
    "local need, scalar, decode_table, decode_record, T_TABLE, T_RECORD, MAX_DEPTH = ...\n",
    "return function(p, n, at, depth)\n",
    "  if depth > MAX_DEPTH then error(\"message tables nest too deeply\", 0) end\n",
    "  local tag\n",
  }
  local fields = {}
  for i, k in ipairs(keys) do
    src[#src + 1] = string.format("  local v%d\n", i) .. string.format(RECORD_VALUE, i, i, i)
    fields[i] = string.format("[%q] = v%d", KEYS[k], i)
  end
  src[#src + 1] = "  return { " .. table.concat(fields, ", ") .. " }, at\nend\n"
  records[r] = assert(load(table.concat(src), "=message record"))(need, scalar,
    decode_table, decode_record, T_TABLE, T_RECORD, MAX_DEPTH)
end

function S.decode_message(data, len)
  len = tonumber(len)
  if len == 0 then return {} end
  local v, at = decode_value(data, len, 0, 0)
  if at ~= len then error("trailing bytes in message data", 0) end
  return v
end

-- sys.save's bytes: the message format of a whole table, up to `max` bytes, as a Lua string.
-- (An error leaves the encoder on sys.save's buffer: post_raw takes its own back each time.)
function S.encode_save(t, max, name)
  buf, cap, limit, what = ffi.new("uint8_t[?]", 4096), 4096, max, name or "sys.save"
  pos = 0
  encode_table(t, 0)
  local out = ffi.string(buf, pos)
  buf, cap, limit, what = msg_buf, MAX + 64, MAX, "msg.post"
  return out
end

-- Encodes `message` and queues it (also used by go.set_parent).
function S.post_raw(sender, receiver, id, message)
  buf, cap, limit, what = msg_buf, MAX + 64, MAX, "msg.post"
  pos = 0
  if message ~= nil then encode_table(message, 0) end
  -- 2: dropped because the frame's message budget is spent (reported once per frame in Rust).
  if F.post(ctx, sender, receiver, id.h, buf, pos) == K.STATUS_ERR then S.fail_last() end
end

local msg = {}

-- A URL made with no instance running: while a script's top level runs, its text is kept for
-- go.property, which resolves it for each instance (S.url_texts).
local function loading_text(u, text)
  if S.loading_script() ~= nil then S.url_texts[u] = text end
  return u
end

function msg.url(...)
  local nargs = select("#", ...)
  local r = current()
  if nargs == 0 then
    if r == nil then return loading_text(url_t(), "") end
    return url_t(r.url)
  end
  if nargs == 1 then
    local s = ...
    if s == nil then return r and url_t(r.url) or loading_text(url_t(), "") end
    if istype(url_t, s) then return url_t(s) end
    -- A hashed id is an object of this collection (Defold resolves it as it does for msg.post).
    if istype(hash_t, s) then return url_t(F.socket(ctx, r and r.slot or S.NONE), s.h, 0) end
    if type(s) ~= "string" then argerr("msg.url", 1, "string, hash or url", s) end
    local u = url_t()
    if F.resolve_url(ctx, r and r.slot or S.NONE, r and r.comp.h or 0, s, #s, u) ~= 0 then S.fail_last() end
    return r and u or loading_text(u, s)
  end
  local socket, path, fragment = ...
  local u = url_t()
  if socket == nil then u.s = F.socket(ctx, r and r.slot or S.NONE)
  elseif type(socket) == "string" then u.s = hash(socket).h
  elseif istype(hash_t, socket) then u.s = socket.h
  else argerr("msg.url", 1, "string, hash or nil", socket) end
  if type(path) == "string" then
    u.p = F.id_of_path(ctx, r and r.slot or S.NONE, path, #path)
  elseif istype(hash_t, path) then u.p = path.h
  elseif path ~= nil then argerr("msg.url", 2, "string, hash or nil", path) end
  if type(fragment) == "string" then u.f = hash(fragment).h
  elseif istype(hash_t, fragment) then u.f = fragment.h
  elseif fragment ~= nil then argerr("msg.url", 3, "string, hash or nil", fragment) end
  return u
end

function msg.post(receiver, message_id, message)
  local r = current()
  if r == nil then fail("msg.post can only be called from a script instance") end
  if receiver == nil then argerr("msg.post", 1, "string, hash or msg.url", receiver) end
  local u = url_t(S.to_url(receiver, "msg.post", 1, r))
  local id = S.to_hash(message_id, "msg.post", 2)
  if message ~= nil and type(message) ~= "table" then argerr("msg.post", 3, "table", message) end
  S.post_raw(r.url, u, id, message)
end

return msg
