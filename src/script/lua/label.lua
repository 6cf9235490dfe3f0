-- The `label` namespace and label-component properties for go.get/go.set/go.animate (`color`,
-- `outline`, `scale` and their .x/.y/.z/.w, `text`). Arguments are checked here; Rust does the work.
local ffi = require("ffi")
local S = ...
local F, ctx, vm, NONE = S.F, S.ctx, S.vm, S.NONE
local fail, argerr, current, hash = S.fail, S.argerr, S.current, S.hash

local K = S.K
local LABEL = K.COMPONENT_LABEL
-- A `set_text` message holds the text; the rest of the message is its encoding.
local MAX_SET_TEXT = K.MSG_MAX_BYTES - 48

local function check(rc) if rc ~= 0 then S.fail_last() end end

local textbuf_cap = 256
local textbuf = ffi.new("char[?]", textbuf_cap)

local function get_text(slot, comp)
  local n = F.label_get_text(ctx, slot, comp, textbuf, textbuf_cap)
  if n < 0 then S.fail_last() end
  if n > textbuf_cap then
    textbuf_cap = n
    textbuf = ffi.new("char[?]", textbuf_cap)
    n = F.label_get_text(ctx, slot, comp, textbuf, textbuf_cap)
    if n < 0 then S.fail_last() end
  end
  return ffi.string(textbuf, n)
end

---------------------------------------------------------------- go.get / go.set
local props = {}
S.component_kinds[LABEL] = props

-- name → (FFI property index, type)
local VECTORS = {
  color = { K.LABEL_COLOR, "vector4" }, outline = { K.LABEL_OUTLINE, "vector4" }, scale = { K.LABEL_SCALE, "vector3" },
}
local s4 = vm.vector4_t()

local function split(name)
  local base, c = name:match("^(.-)%.([xyzw])$")
  return base or name, c
end

function props.kind(slot, comp, name)
  if name == "text" then return "string" end
  local p = VECTORS[name]
  return p and p[2] or nil
end

function props.get(slot, comp, name, where_text)
  if name == "text" then return get_text(slot, comp) end
  local base, c = split(name)
  local p = VECTORS[base]
  if p == nil or (c == "w" and p[2] == "vector3") then
    fail(string.format("'%s' does not have any property called '%s'", where_text, name))
  end
  check(F.label_prop_get(ctx, slot, comp, p[1], s4))
  if c then return s4[c] end
  if p[2] == "vector3" then return vm.vector3(s4.x, s4.y, s4.z) end
  return vm.vector4(s4.x, s4.y, s4.z, s4.w)
end

function props.set(slot, comp, name, value, where_text)
  local function wrong(t) fail(string.format("the property '%s' of '%s' must be a %s", name, where_text, t)) end
  if name == "text" then
    if type(value) == "number" then value = tostring(value) end
    if type(value) ~= "string" then wrong("string") end
    check(F.label_set_text(ctx, slot, comp, value, #value))
    return
  end
  local base, c = split(name)
  local p = VECTORS[base]
  if p == nil or (c == "w" and p[2] == "vector3") then
    fail(string.format("'%s' does not have any property called '%s'", where_text, name))
  end
  check(F.label_prop_get(ctx, slot, comp, p[1], s4))
  if c then
    if type(value) ~= "number" then wrong("number") end
    s4[c] = value
  else
    -- Defold: a label's scale is a number or a vector3.
    S.fill_vector(s4, p[2], value, true, wrong)
  end
  check(F.label_prop_set(ctx, slot, comp, p[1], s4.x, s4.y, s4.z, s4.w))
end

---------------------------------------------------------------- label.*
local label = {}

-- (url) → slot, url copy of a component of kind `kind` (label, sound); raises Defold's errors.
function S.component_of(fname, url, r, kind, n)
  if url == nil then argerr(fname, n or 1, "string, hash or msg.url", url) end
  local u = S.url_t(S.to_url(url, fname, n or 1, r))
  if u.f == 0 then fail(fname .. ": expected url to specify a component, not only a path!") end
  -- A script reaches its own world's components; the render script (`anywhere`) every world's.
  local slot = (u.s == r.url.s or r.anywhere) and F.find(ctx, u.s, u.p) or NONE
  if slot == NONE or F.component_kind(ctx, slot, u.f) ~= kind then
    fail(string.format("%s: the component '%s' could not be found", fname, tostring(u):match("^url: %[(.*)%]$")))
  end
  return slot, u
end

local function label_of(fname, url, r) return S.component_of(fname, url, r, LABEL) end

local function caller() return S.caller("label") end

-- As in Defold, the text is sent as a `set_text` message: the label shows it (and
-- `label.get_text` returns it) once messages are dispatched, right after the calling function.
function label.set_text(url, text)
  local r = caller("label.set_text")
  local _, u = label_of("label.set_text", url, r)
  if type(text) == "number" then text = tostring(text) end
  if type(text) ~= "string" then argerr("label.set_text", 2, "string", text) end
  if #text > MAX_SET_TEXT then
    fail(string.format("label.set_text: the label string is too long: %d bytes (at most %d, the size of a message)", #text, MAX_SET_TEXT))
  end
  S.post_raw(r.url, u, hash("set_text"), { text = text })
end

function label.get_text(url)
  local r = caller("label.get_text")
  local slot, u = label_of("label.get_text", url, r)
  return get_text(slot, u.f)
end

return S.unsupported_rest("label", label)
