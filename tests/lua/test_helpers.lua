-- Assertions for Lua test projects. Compatible with Defold's `lua.test_helpers` names
-- (assert_error, assert_not_error, assert_vec3, assert_number, assert_not_nil), plus a counter
-- so each project ends with one `NAME: N passed, M failed` line.
local M = { passed = 0, failed = 0 }

local function record(ok, msg)
  if ok then
    M.passed = M.passed + 1
  else
    M.failed = M.failed + 1
    local info = debug.getinfo(3, "Sl")
    print(string.format("FAIL %s:%d: %s", info.short_src, info.currentline, msg or "check failed"))
  end
  return ok
end

function M.check(cond, msg) return record(cond and true or false, msg) end

function M.eq(a, b, msg)
  return record(a == b, (msg or "eq") .. ": expected " .. tostring(b) .. ", got " .. tostring(a))
end

-- The vmath kind of a value ("vector3", "quat", ...) or nil: read from tostring, since the ffi
-- type checks are not reachable from a project script.
local function vmath_kind(v)
  if type(v) ~= "userdata" then return nil end
  return (tostring(v):match("^vmath%.(%w+)%("))
end

local FIELDS = {
  vector3 = { "x", "y", "z" },
  vector4 = { "x", "y", "z", "w" },
  quat = { "x", "y", "z", "w" },
  matrix4 = { "m00", "m01", "m02", "m03", "m10", "m11", "m12", "m13",
              "m20", "m21", "m22", "m23", "m30", "m31", "m32", "m33" },
}

-- `a` is within `eps` of `b`: both numbers, or both vmath values of the same kind, compared
-- component by component. Anything else (a string, a table, nil, NaN, a vector3 against a
-- vector4) fails, so a wrong value cannot slip through as "close".
function M.near(a, b, eps, msg)
  eps = eps or 1e-5
  local function close(x, y) return type(x) == "number" and type(y) == "number" and math.abs(x - y) <= eps end
  local ok
  if type(b) == "number" then
    ok = close(a, b)
  else
    local kind = vmath_kind(b)
    ok = kind ~= nil and vmath_kind(a) == kind
    if ok and kind == "vector" then
      ok = #a == #b
      for i = 1, #b do ok = ok and close(a[i], b[i]) end
    elseif ok then
      for _, k in ipairs(FIELDS[kind]) do ok = ok and close(a[k], b[k]) end
    end
  end
  return record(ok, (msg or "near") .. ": expected " .. tostring(b) .. ", got " .. tostring(a) .. " (" .. type(a) .. ")")
end

-- Expects `fn` to raise an error whose message contains `text` (plain match).
function M.err(fn, text, msg)
  local ok, e = pcall(fn)
  if ok then return record(false, (msg or "err") .. ": no error raised, expected '" .. text .. "'") end
  return record(tostring(e):find(text, 1, true) ~= nil, (msg or "err") .. ": expected '" .. text .. "' in '" .. tostring(e) .. "'")
end

function M.done(name)
  print(string.format("%s: %d passed, %d failed", name, M.passed, M.failed))
  sys.exit(M.failed > 0 and 1 or 0)
end

function M.assert_error(fn) return record(not pcall(fn), "assert_error") end
function M.assert_not_error(fn)
  local ok, e = pcall(fn)
  return record(ok, "assert_not_error: " .. tostring(e))
end
function M.assert_vec3(expected, actual, eps) return M.near(actual, expected, eps or 1e-4, "assert_vec3") end
function M.assert_number(expected, actual, eps) return M.near(actual, expected, eps or 1e-4, "assert_number") end
function M.assert_not_nil(v) return record(v ~= nil, "assert_not_nil") end

return M
