-- Regression for a LuaJIT 2.1 (c6ffc14) JIT bug: with a *function* __index on a cdata type,
-- `v[k]` inside closures created in a loop could return the metamethod's result for a real
-- field (seen as "vmath.vector3 only has fields x, y, z." for k == "x", in ~9 of 10 runs).
-- vmath now raises through tables with metatables, which the JIT handles correctly.
local bad = 0
local function probe(a, b, keys)
  for _, k in ipairs(keys) do
    local ok1, av = pcall(function() return a[k] end)
    local ok2, bv = pcall(function() return b[k] end)
    if ok1 ~= ok2 or (ok1 and av ~= bv) then bad = bad + 1 end
  end
end
local m = vmath.matrix4_translation(vmath.vector3(1, 2, 3))
for i = 1, 3000 do
  probe(vmath.vector3(1, 2, 3), vmath.vector3(1, 2, 3), { "x", "y", "z", "w" })
  probe(vmath.vector4(1, 2, 3, 4), vmath.vector4(1, 2, 3, 4), { "x", "y", "z", "w", "q" })
  probe(vmath.quat(1, 2, 3, 4), vmath.quat(1, 2, 3, 4), { "x", "y", "z", "w", "q" })
  probe(vmath.matrix4(m), vmath.matrix4(m), { "m00", "m03", "m13", "m23", "m33", "zz" })
end
return bad
