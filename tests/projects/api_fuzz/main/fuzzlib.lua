-- Seeded calls of every function of Sinew's Lua namespaces with hostile arguments: numbers
-- that are NaN, infinite, huge, zero or negative; strings that are empty, long, ids of real
-- components or of nothing; hashes, URLs, vmath values, tables with throwing metatables,
-- callbacks that throw; 0 to 6 of them. Each call may return or raise a Lua error, nothing
-- else: a crash ends the run, which the test sees.
local M = {}

local nan, inf = 0 / 0, 1 / 0
local NUMBERS = { nan, inf, -inf, 1e38, -1e38, 1e300, 1e-45, 0, -0.0, -1, 1, 0.5, 3, 7, 255, 256, 65536, 2 ^ 31,
  2 ^ 53, -2 ^ 31 }
local STRINGS = { "", "x", "#sprite", "#label", "#model", "#sound", "#fx", "#camera", "#co", "#light", "#factory",
  "#cfactory", "#proxy", "/target", "/target#sprite", "/target#label", "/target#model", "/target#sound",
  "/target#fx", "/target#co", "/target#factory", "/target#cfactory", "/target#proxy", "/ui#gui", "main:/target",
  "spin", "walk", "text", "box", "pie", "position", "scale", "tint", "euler.z", "size", "color", "#", ":", "//",
  "main:", "nope:/x#y", ("x"):rep(5000), "\0", "%s%d", "enable", "disable", "play_animation", "set_parent",
  "acquire_input_focus", "load", "async_load", "unload", "init", "final", "play_sound", "stop_sound", "set_text",
  "apply_force", "set_time_step", "cursor", "playback_rate", "material", "image", "texture0", "font" }

local function throwing() return setmetatable({}, { __index = function() error("a throwing __index") end,
  __newindex = function() error("a throwing __newindex") end, __tostring = function() error("a throwing __tostring") end,
  __len = function() error("a throwing __len") end }) end

local function pick(list) return list[math.random(#list)] end
local function number() return math.random() < 0.7 and pick(NUMBERS) or (math.random() - 0.5) * 2000 end

function M.value(extra)
  local r = math.random(20)
  if r <= 4 then return number() end
  if r <= 8 then return pick(STRINGS) end
  if r == 9 then return vmath.vector3(number(), number(), number()) end
  if r == 10 then return vmath.vector4(number(), number(), number(), number()) end
  if r == 11 then return vmath.quat(number(), number(), number(), number()) end
  if r == 12 then return pick({ vmath.matrix4(), vmath.matrix4_rotation_x(number()), vmath.vector(), vmath.vector({ 1, nan }) }) end
  if r == 13 then return hash(pick(STRINGS)) end
  if r == 14 then
    local ok, u = pcall(msg.url, pick(STRINGS))
    return ok and u or msg.url()
  end
  if r == 15 then return pick({ {}, { 1, 2, 3 }, { x = 1, position = vmath.vector3(), text = "t", id = "box" }, throwing(),
    { { { {} } } }, { [hash("x")] = 1 }, { delay = nan, duration = inf } }) end
  if r == 16 then return pick({ function() end, function() error("a throwing callback") end,
    function(...) return ... end }) end
  if r == 17 then return math.random() < 0.5 end
  if r == 18 and extra and #extra > 0 then return pick(extra) end
  return nil
end

-- Every function of these namespaces but those that end the run, write files or open things.
local EXCLUDED = { ["sys.exit"] = true, ["sys.reboot"] = true, ["sys.save"] = true, ["sys.get_save_file"] = true,
  ["sys.open_url"] = true, ["sys.set_error_handler"] = true, ["sys.set_update_frequency"] = true,
  ["gui.delete_node"] = false }

function M.functions(namespaces)
  local list = {}
  for _, ns in ipairs(namespaces) do
    local t = _G[ns]
    if type(t) == "table" then
      local ok, _ = pcall(function()
        for k, v in pairs(t) do
          if type(v) == "function" and not EXCLUDED[ns .. "." .. k] then list[#list + 1] = { ns .. "." .. k, v } end
        end
      end)
    elseif type(t) == "function" then
      list[#list + 1] = { ns, t }
    end
  end
  table.sort(list, function(a, b) return a[1] < b[1] end)
  return list
end

-- `n` calls of functions from `list` with arguments from the pool (and `extra`); returns how
-- many raised an error.
function M.calls(list, n, extra)
  local refused = 0
  for _ = 1, n do
    local f = pick(list)
    local args, count = {}, math.random(0, 6)
    for i = 1, count do args[i] = M.value(extra) end
    if not pcall(f[2], unpack(args, 1, count)) then refused = refused + 1 end
  end
  return refused
end

return M
