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

function M.near(a, b, eps, msg)
  eps = eps or 1e-5
  local ok
  if type(a) == "number" then
    ok = type(b) == "number" and math.abs(a - b) <= eps
  else
    ok = a ~= nil and b ~= nil
    for _, k in ipairs({ "x", "y", "z", "w" }) do
      local ok_k, av = pcall(function() return a[k] end)
      local _, bv = pcall(function() return b[k] end)
      if ok_k and type(av) == "number" then ok = ok and math.abs(av - bv) <= eps end
    end
  end
  return record(ok, (msg or "near") .. ": expected " .. tostring(b) .. ", got " .. tostring(a))
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
