-- Tests of the `vmath` namespace (src/script/lua/vmath.lua). Expects the global `vmath`, the
-- chunk name "@vmath_test.lua" (error positions are checked against it) and the `debug` library.
-- Raises on the first failed check; returns the number of checks made.

local checks = 0
local format = string.format
local pi = math.pi
local EPS = 1e-5

local function fail(msg, level)
    error(msg, level + 1)
end

local function check(cond, msg)
    checks = checks + 1
    if not cond then
        fail("check failed: " .. (msg or "?"), 2)
    end
end

local function eq(got, want, msg)
    checks = checks + 1
    if got ~= want then
        fail(format("%s: expected %s, got %s", msg or "eq", tostring(want), tostring(got)), 2)
    end
end

local function near(got, want, eps, msg)
    checks = checks + 1
    eps = eps or EPS
    if type(got) ~= "number" or not (math.abs(got - want) <= eps) then
        fail(format("%s: expected %.9g, got %s", msg or "near", want, tostring(got)), 2)
    end
end

-- vector3 / vector4 / quat against components
local function vnear(v, x, y, z, w, eps, msg)
    checks = checks + 1
    eps = eps or EPS
    local ok = math.abs(v.x - x) <= eps and math.abs(v.y - y) <= eps and math.abs(v.z - z) <= eps
    if w ~= nil then
        ok = ok and math.abs(v.w - w) <= eps
    end
    if not ok then
        fail(format("%s: expected (%s, %s, %s, %s), got %s", msg or "vnear", x, y, z, tostring(w), tostring(v)), 2)
    end
end

-- quats equal up to sign
local function qnear(a, b, eps, msg)
    checks = checks + 1
    eps = eps or EPS
    local function close(s)
        return math.abs(a.x - s * b.x) <= eps and math.abs(a.y - s * b.y) <= eps and math.abs(a.z - s * b.z) <= eps
            and math.abs(a.w - s * b.w) <= eps
    end
    if not (close(1) or close(-1)) then
        fail(format("%s: expected %s, got %s", msg or "qnear", tostring(b), tostring(a)), 2)
    end
end

local function mnear(a, b, eps, msg)
    checks = checks + 1
    eps = eps or EPS
    for r = 0, 3 do
        for c = 0, 3 do
            local k = "m" .. r .. c
            if not (math.abs(a[k] - b[k]) <= eps) then
                fail(format("%s: %s differs: expected %s, got %s", msg or "mnear", k, tostring(b), tostring(a)), 2)
            end
        end
    end
end

-- matrix from rows
local function rows(...)
    local v = { ... }
    local m = vmath.matrix4()
    for r = 0, 3 do
        for c = 0, 3 do
            m["m" .. r .. c] = v[r * 4 + c + 1]
        end
    end
    return m
end

-- f must raise exactly "vmath_test.lua:<line>: <msg>", where <line> is the line f is defined on:
-- write each closure on one line, with the failing call as a statement (not a tail call).
local function errs(msg, f)
    checks = checks + 1
    local line = debug.getinfo(f, "S").linedefined
    local ok, err = pcall(f)
    if ok then
        fail(format("expected error %q, got none", msg), 2)
    end
    local want = format("vmath_test.lua:%d: %s", line, msg)
    if err ~= want then
        fail(format("expected error %q, got %q", want, tostring(err)), 2)
    end
end

local V3, V4, Q, M4 = vmath.vector3, vmath.vector4, vmath.quat, vmath.matrix4

---------------------------------------------------------------------------------------------
-- constructors
---------------------------------------------------------------------------------------------
do
    vnear(V3(), 0, 0, 0)
    vnear(V3(2.5), 2.5, 2.5, 2.5)
    vnear(V3(1, 2, 3), 1, 2, 3)
    local a = V3(1, 2, 3)
    local b = V3(a)
    vnear(b, 1, 2, 3)
    b.x = 9
    eq(a.x, 1, "vector3 copy is independent")
    vnear(V3("1", "2", "3"), 1, 2, 3, nil, 0, "numeric strings accepted")

    vnear(V4(), 0, 0, 0, 0)
    vnear(V4(-1), -1, -1, -1, -1)
    vnear(V4(1, 2, 3, 4), 1, 2, 3, 4)
    local c = V4(1, 2, 3, 4)
    local d = V4(c)
    d.w = 0
    vnear(c, 1, 2, 3, 4, 0, "vector4 copy is independent")

    vnear(Q(), 0, 0, 0, 1)
    vnear(Q(1, 2, 3, 4), 1, 2, 3, 4)
    local q = Q(1, 2, 3, 4)
    local q2 = Q(q)
    q2.w = 7
    eq(q.w, 4, "quat copy is independent")

    local m = M4()
    for r = 0, 3 do
        for col = 0, 3 do
            eq(m["m" .. r .. col], r == col and 1 or 0, "identity m" .. r .. col)
        end
    end
    local m2 = M4(m)
    m2.m01 = 5
    eq(m.m01, 0, "matrix4 copy is independent")
    eq(m2.m01, 5, "matrix4 write")
    check(M4(m2) == m2, "matrix4 copy equal")

    local v = vmath.vector({ 1, 2.5, "3", true, {}, -4 })
    eq(#v, 6, "vector length")
    eq(v[1], 1)
    eq(v[2], 2.5)
    eq(v[3], 3, "numeric string converted")
    eq(v[4], 0, "boolean -> 0")
    eq(v[5], 0, "table -> 0")
    eq(v[6], -4)
    v[2] = 7
    eq(v[2], 7, "vector write")
    eq(#vmath.vector({}), 0, "empty vector")
    eq(#vmath.vector(), 0, "vector()")
end

---------------------------------------------------------------------------------------------
-- fields
---------------------------------------------------------------------------------------------
do
    local v = V3(1, 2, 3)
    v.x, v.y, v.z = 4, 5, 6
    vnear(v, 4, 5, 6, nil, 0)
    v.y = 0.1
    eq(v.y, 0.10000000149011612, "float storage")
    local w = V4(1, 2, 3, 4)
    w.w = 8
    eq(w.w, 8)
    local q = Q()
    q.x, q.y, q.z, q.w = 1, 2, 3, 4
    vnear(q, 1, 2, 3, 4, 0)

    -- matrix4: m<row><col>, c<col>, column-major storage m[col*4 + row]
    local m = rows(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)
    eq(m.m00, 1)
    eq(m.m01, 2)
    eq(m.m10, 5)
    eq(m.m32, 15)
    eq(m.m23, 12)
    eq(m.m[1], 5, "storage is column-major (m[1] = m10)")
    eq(m.m[4], 2, "storage is column-major (m[4] = m01)")
    eq(m.m[14], 12, "storage is column-major (m[14] = m23)")
    vnear(m.c0, 1, 5, 9, 13, 0, "c0")
    vnear(m.c2, 3, 7, 11, 15, 0, "c2")
    eq(m.c1.z, m.m21, "m.m21 == m.c1.z")
    m.c3 = V4(-1, -2, -3, -4)
    vnear(m.c3, -1, -2, -3, -4, 0, "c3 write")
    eq(m.m03, -1)
    eq(m.m33, -4)
    local c = m.c0
    c.x = 100
    eq(m.m00, 100, "a column is a view of the matrix (Sinew decision; Defold copies)")
    c.x = 1
end

---------------------------------------------------------------------------------------------
-- operators
---------------------------------------------------------------------------------------------
do
    local a, b = V3(1, 2, 3), V3(4, 5, 6)
    vnear(a + b, 5, 7, 9, nil, 0)
    vnear(b - a, 3, 3, 3, nil, 0)
    vnear(-a, -1, -2, -3, nil, 0)
    vnear(a * 2, 2, 4, 6, nil, 0)
    vnear(2 * a, 2, 4, 6, nil, 0)
    vnear(a / 2, 0.5, 1, 1.5, nil, 0)
    check(a == V3(1, 2, 3), "vector3 ==")
    check(a ~= b, "vector3 ~=")
    check(not (a == V4(1, 2, 3, 0)), "vector3 == vector4 is false")
    check(a ~= nil, "vector3 ~= nil")
    check(a ~= 1, "vector3 ~= number")
    check(a ~= "vmath.vector3(1, 2, 3)", "vector3 ~= string")

    local c, d = V4(1, 2, 3, 4), V4(4, 3, 2, 1)
    vnear(c + d, 5, 5, 5, 5, 0)
    vnear(c - d, -3, -1, 1, 3, 0)
    vnear(-c, -1, -2, -3, -4, 0)
    vnear(c * 3, 3, 6, 9, 12, 0)
    vnear(3 * c, 3, 6, 9, 12, 0)
    vnear(c / 4, 0.25, 0.5, 0.75, 1, 0)
    check(c == V4(1, 2, 3, 4), "vector4 ==")
    check(c ~= d, "vector4 ~=")
    check(c ~= Q(1, 2, 3, 4), "vector4 ~= quat with same components")

    -- Hamilton product
    local i, j, k = Q(1, 0, 0, 0), Q(0, 1, 0, 0), Q(0, 0, 1, 0)
    vnear(i * j, 0, 0, 1, 0, 0, "i*j = k")
    vnear(j * k, 1, 0, 0, 0, 0, "j*k = i")
    vnear(k * i, 0, 1, 0, 0, 0, "k*i = j")
    vnear(j * i, 0, 0, -1, 0, 0, "j*i = -k")
    vnear(i * i, 0, 0, 0, -1, 0, "i*i = -1")
    vnear(Q(1, 2, 3, 4) * Q(5, 6, 7, 8), 24, 48, 48, -6, 0, "general product")
    local rz = vmath.quat_rotation_z(pi / 4)
    qnear(rz * rz, vmath.quat_rotation_z(pi / 2), EPS, "composition of rotations")
    check(Q(1, 2, 3, 4) == Q(1, 2, 3, 4), "quat ==")
    check(Q() ~= Q(0, 0, 0, -1), "quat ~=")

    -- matrices
    local m = rows(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)
    local n = rows(2, 0, 0, 1, 0, 3, 0, 0, 0, 0, 4, 0, 1, 0, 0, 1)
    mnear(m * n, rows(6, 6, 12, 5, 18, 18, 28, 13, 30, 30, 44, 21, 42, 42, 60, 29), 0, "matrix * matrix")
    vnear(m * V4(1, 0, 0, 0), 1, 5, 9, 13, 0, "matrix * vector4 picks column 0")
    vnear(m * V4(1, 1, 1, 1), 10, 26, 42, 58, 0, "matrix * vector4")
    mnear(m * 2, rows(2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32), 0, "matrix * number")
    mnear(0.5 * m, rows(0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8), 0, "number * matrix")
    check(m == rows(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16), "matrix ==")
    check(m ~= n, "matrix ~=")
    check(m ~= nil, "matrix ~= nil")
    local t = vmath.matrix4_translation(V3(1, 2, 3)) * vmath.matrix4_translation(V3(10, 20, 30))
    vnear(t.c3, 11, 22, 33, 1, 0, "translations add")

    check(vmath.vector({ 1, 2 }) == vmath.vector({ 1, 2 }), "vector ==")
    check(vmath.vector({ 1, 2 }) ~= vmath.vector({ 1, 3 }), "vector ~=")
    check(vmath.vector({ 1, 2 }) ~= vmath.vector({ 1 }), "vector ~= shorter")
end

---------------------------------------------------------------------------------------------
-- tostring
---------------------------------------------------------------------------------------------
do
    eq(tostring(V3(1, 2, 3)), "vmath.vector3(1, 2, 3)")
    eq(tostring(V3(0.1, -0.5, 1e-8)), "vmath.vector3(0.1, -0.5, 1e-08)")
    eq(tostring(V4(1, 2, 3, 4)), "vmath.vector4(1, 2, 3, 4)")
    eq(tostring(Q()), "vmath.quat(0, 0, 0, 1)")
    eq(tostring(vmath.quat_rotation_z(pi / 2)), "vmath.quat(0, 0, 0.7071068, 0.7071068)")
    eq(tostring(M4()), "vmath.matrix4(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1)")
    eq(tostring(vmath.matrix4_translation(V3(1, 2, 3))),
        "vmath.matrix4(1, 0, 0, 1, 0, 1, 0, 2, 0, 0, 1, 3, 0, 0, 0, 1)", "matrix4 prints rows")
    eq(tostring(vmath.vector({ 1, 0.25, 3 })), "vmath.vector(1, 0.25, 3)")
    eq(tostring(vmath.vector()), "vmath.vector()")
    eq("p=" .. V3(1, 2, 3), "p=vmath.vector3(1, 2, 3)", "string .. vector3")
    eq(Q() .. "!", "vmath.quat(0, 0, 0, 1)!", "quat .. string")
end

---------------------------------------------------------------------------------------------
-- vector functions
---------------------------------------------------------------------------------------------
do
    eq(vmath.dot(V3(1, 2, 3), V3(4, 5, 6)), 32, "dot vector3")
    eq(vmath.dot(V4(1, 2, 3, 4), V4(4, 5, 6, 7)), 60, "dot vector4")
    eq(vmath.dot(V3(1, 0, 0), V3(0, 1, 0)), 0, "perpendicular")

    vnear(vmath.cross(V3(1, 0, 0), V3(0, 1, 0)), 0, 0, 1, nil, 0, "x cross y = z")
    vnear(vmath.cross(V3(0, 1, 0), V3(1, 0, 0)), 0, 0, -1, nil, 0, "y cross x = -z")
    vnear(vmath.cross(V3(1, 2, 3), V3(4, 5, 6)), -3, 6, -3, nil, 0)

    eq(vmath.length(V3(3, 4, 0)), 5)
    eq(vmath.length_sqr(V3(3, 4, 0)), 25)
    eq(vmath.length(V4(1, 1, 1, 1)), 2)
    eq(vmath.length_sqr(V4(1, 2, 3, 4)), 30)
    eq(vmath.length(Q(0, 0, 0, 1)), 1)
    eq(vmath.length_sqr(Q(1, 2, 3, 4)), 30)

    vnear(vmath.normalize(V3(3, 0, 4)), 0.6, 0, 0.8)
    vnear(vmath.normalize(V3(1, 2, 3)), 0.26726124, 0.53452248, 0.80178373)
    vnear(vmath.normalize(V4(2, 0, 0, 0)), 1, 0, 0, 0)
    vnear(vmath.normalize(Q(0, 0, 0, 2)), 0, 0, 0, 1)
    near(vmath.length(vmath.normalize(Q(1, 2, 3, 4))), 1)

    near(vmath.lerp(0.25, 10, 20), 12.5)
    near(vmath.lerp(2, 0, 1), 2, EPS, "lerp does not clamp")
    near(vmath.lerp(-1, 0, 1), -1, EPS, "lerp does not clamp below")
    vnear(vmath.lerp(0.5, V3(0, 600, 0), V3(600, 0, 0)), 300, 300, 0)
    vnear(vmath.lerp(1.5, V3(0), V3(2)), 3, 3, 3)
    vnear(vmath.lerp(0.5, V4(0, 0, 0, 0), V4(2, 4, 6, 8)), 1, 2, 3, 4)
    vnear(vmath.lerp(0.5, Q(0, 0, 0, 1), Q(0, 0, 1, 0)), 0, 0, 0.5, 0.5, EPS, "quat lerp not normalised")

    -- slerp of vectors: angle interpolated, length lerped
    local s = vmath.slerp(0.5, V3(0, 600, 0), V3(600, 0, 0))
    vnear(s, 424.26407, 424.26407, 0, nil, 1e-3)
    near(vmath.length(s), 600, 1e-3)
    local s2 = vmath.slerp(0.5, V3(1, 0, 0), V3(0, 3, 0))
    near(vmath.length(s2), 2, EPS, "slerp lerps magnitude")
    vnear(vmath.normalize(s2), math.sqrt(0.5), math.sqrt(0.5), 0)
    vnear(vmath.slerp(0, V3(1, 0, 0), V3(0, 1, 0)), 1, 0, 0)
    vnear(vmath.slerp(1, V3(1, 0, 0), V3(0, 1, 0)), 0, 1, 0)
    vnear(vmath.slerp(1 / 3, V3(2, 0, 0), V3(0, 2, 0)), 2 * math.cos(pi / 6), 2 * math.sin(pi / 6), 0)
    vnear(vmath.slerp(0.5, V3(1, 0, 0), V3(1, 0, 0)), 1, 0, 0, nil, EPS, "parallel vectors")
    vnear(vmath.slerp(0.5, V4(0, 0, 0, 1), V4(0, 0, 1, 0)), 0, 0, math.sqrt(0.5), math.sqrt(0.5))

    -- slerp of quats
    qnear(vmath.slerp(0.5, Q(), vmath.quat_rotation_z(pi / 2)), vmath.quat_rotation_z(pi / 4))
    qnear(vmath.slerp(0.25, Q(), vmath.quat_rotation_x(pi)), vmath.quat_rotation_x(pi / 4))
    vnear(vmath.slerp(0, Q(), vmath.quat_rotation_y(1)), 0, 0, 0, 1)
    local q1 = vmath.quat_rotation_y(1)
    vnear(vmath.slerp(1, Q(), q1), q1.x, q1.y, q1.z, q1.w)
    -- shortest path: -q is the same rotation; slerp towards it stays near the identity
    local neg = Q(0, 0, -math.sin(pi / 8), -math.cos(pi / 8)) -- rotation_z(pi/4), negated
    qnear(vmath.slerp(0.5, Q(), neg), vmath.quat_rotation_z(pi / 8), EPS, "slerp takes the shortest path")

    -- rotate
    vnear(vmath.rotate(vmath.quat_rotation_z(pi / 2), V3(1, 0, 0)), 0, 1, 0)
    vnear(vmath.rotate(vmath.quat_rotation_x(pi / 2), V3(0, 1, 0)), 0, 0, 1)
    vnear(vmath.rotate(vmath.quat_rotation_y(pi / 2), V3(0, 0, 1)), 1, 0, 0)
    vnear(vmath.rotate(vmath.quat_rotation_z(pi), V3(1, 1, 0)), -1, -1, 0)
    vnear(vmath.rotate(Q(), V3(1, 2, 3)), 1, 2, 3)

    -- project
    near(vmath.project(V3(1, 1, 0), V3(2, 0, 0)), 0.5)
    near(vmath.project(V3(3, 4, 0), V3(0, 1, 0)), 4)
    near(vmath.project(V3(1, 0, 0), V3(0, 0, 1)), 0)

    vnear(vmath.mul_per_elem(V3(1, 2, 3), V3(4, 5, 6)), 4, 10, 18, nil, 0)
    vnear(vmath.mul_per_elem(V4(1, 2, 3, 4), V4(2, 2, 2, -1)), 2, 4, 6, -4, 0)

    eq(vmath.clamp(5, 0, 3), 3)
    eq(vmath.clamp(-5, 0, 3), 0)
    eq(vmath.clamp(1.5, 0, 3), 1.5)
    vnear(vmath.clamp(V3(-1, 0.5, 2), 0, 1), 0, 0.5, 1, nil, 0)
    vnear(vmath.clamp(V3(-1, 0.5, 2), V3(0, 0.6, 0), V3(1, 1, 1.5)), 0, 0.6, 1.5, nil, EPS)
    vnear(vmath.clamp(V4(-1, 0.5, 2, 9), 0, 1), 0, 0.5, 1, 1, 0)
    vnear(vmath.clamp(V4(-1, 0.5, 2, 9), V4(0), V4(1, 1, 3, 4)), 0, 0.5, 2, 4, 0)
end

---------------------------------------------------------------------------------------------
-- quaternion functions
---------------------------------------------------------------------------------------------
do
    vnear(vmath.conj(Q(1, 2, 3, 4)), -1, -2, -3, 4, 0)
    local q = vmath.normalize(Q(1, 2, 3, 4))
    qnear(q * vmath.conj(q), Q(), EPS, "q * conj(q) = identity")

    qnear(vmath.quat_axis_angle(V3(0, 0, 1), pi / 2), vmath.quat_rotation_z(pi / 2))
    qnear(vmath.quat_axis_angle(V3(1, 0, 0), 0.3), vmath.quat_rotation_x(0.3))
    vnear(vmath.quat_axis_angle(V3(0, 1, 0), pi), 0, 1, 0, 0)
    vnear(vmath.rotate(vmath.quat_axis_angle(V3(1, 0, 0), pi), V3(1, 1, 0)), 1, -1, 0)

    vnear(vmath.quat_rotation_x(pi / 2), math.sqrt(0.5), 0, 0, math.sqrt(0.5))
    vnear(vmath.quat_rotation_y(pi / 2), 0, math.sqrt(0.5), 0, math.sqrt(0.5))
    vnear(vmath.quat_rotation_z(pi / 2), 0, 0, math.sqrt(0.5), math.sqrt(0.5))

    -- Defold's documented example: both are a -90 degree rotation about z
    local rot1 = vmath.quat_basis(V3(0, -1, 0), V3(1, 0, 0), V3(0, 0, 1))
    local rot2 = vmath.quat_from_to(V3(0, 1, 0), V3(1, 0, 0))
    vnear(rot1, 0, 0, -0.70710677, 0.70710677)
    vnear(rot2, 0, 0, -0.70710677, 0.70710677)
    vnear(vmath.quat_basis(V3(1, 0, 0), V3(0, 1, 0), V3(0, 0, 1)), 0, 0, 0, 1)
    vnear(vmath.quat_basis(V3(1, 0, 0), V3(0, -1, 0), V3(0, 0, -1)), 1, 0, 0, 0, EPS, "180 about x")
    vnear(vmath.quat_basis(V3(-1, 0, 0), V3(0, 1, 0), V3(0, 0, -1)), 0, 1, 0, 0, EPS, "180 about y")
    vnear(vmath.quat_basis(V3(-1, 0, 0), V3(0, -1, 0), V3(0, 0, 1)), 0, 0, 1, 0, EPS, "180 about z")

    vnear(vmath.rotate(vmath.quat_from_to(V3(1, 0, 0), V3(0, 1, 0)), V3(1, 0, 0)), 0, 1, 0)
    local from, to = vmath.normalize(V3(1, 2, 3)), vmath.normalize(V3(-2, 0.5, 1))
    local ft = vmath.rotate(vmath.quat_from_to(from, to), from)
    vnear(ft, to.x, to.y, to.z, nil, EPS, "quat_from_to general")
    vnear(vmath.quat_from_to(V3(0, 0, 1), V3(0, 0, 1)), 0, 0, 0, 1)

    -- quat_matrix4 inverts matrix4_quat, including the negative-trace branches
    local samples = {
        Q(),
        vmath.quat_rotation_x(2.5), vmath.quat_rotation_y(-2.9), vmath.quat_rotation_z(3.0),
        vmath.quat_rotation_x(pi), vmath.quat_rotation_y(pi), vmath.quat_rotation_z(pi),
        vmath.normalize(Q(1, 2, 3, 4)), vmath.normalize(Q(-0.7, 0.1, 0.2, 0.05)),
        vmath.normalize(Q(0.1, -0.8, 0.3, 0.1)), vmath.normalize(Q(0.2, 0.1, -0.9, 0.02)),
    }
    for i, s in ipairs(samples) do
        qnear(vmath.quat_matrix4(vmath.matrix4_quat(s)), s, EPS, "quat_matrix4 round trip #" .. i)
    end
    -- translation and its w do not matter
    local comp = vmath.matrix4_compose(V3(5, 6, 7), samples[8], V3(1))
    qnear(vmath.quat_matrix4(comp), samples[8], EPS, "quat_matrix4 ignores translation")
end

---------------------------------------------------------------------------------------------
-- euler angles
---------------------------------------------------------------------------------------------
do
    local h = math.sqrt(0.5)
    vnear(vmath.euler_to_quat(0, 0, 90), 0, 0, 0.7071068, 0.7071068)
    vnear(vmath.euler_to_quat(90, 0, 0), h, 0, 0, h)
    vnear(vmath.euler_to_quat(0, 90, 0), 0, h, 0, h)
    vnear(vmath.euler_to_quat(V3(0, 0, 90)), 0, 0, h, h, EPS, "vector3 argument")
    vnear(vmath.euler_to_quat(0, 0, 0), 0, 0, 0, 1, 0)
    vnear(vmath.euler_to_quat(0, 0, 180), 0, 0, 1, 0)
    -- YZX order: q = qy * qz * qx
    local r = math.rad
    for _, e in ipairs({ { 10, 20, 30 }, { -45, 60, 15 }, { 170, -30, 80 } }) do
        local x, y, z = e[1], e[2], e[3]
        local expect = vmath.quat_rotation_y(r(y)) * vmath.quat_rotation_z(r(z)) * vmath.quat_rotation_x(r(x))
        vnear(vmath.euler_to_quat(x, y, z), expect.x, expect.y, expect.z, expect.w, EPS, "YZX order")
    end

    local function euler(q)
        local x, y, z = vmath.quat_to_euler(q)
        return V3(x, y, z)
    end
    vnear(euler(vmath.quat_rotation_z(pi / 2)), 0, 0, 90, nil, 1e-4)
    vnear(euler(vmath.quat_rotation_x(pi / 4)), 45, 0, 0, nil, 1e-4)
    vnear(euler(vmath.quat_rotation_y(-pi / 3)), 0, -60, 0, nil, 1e-4)
    vnear(euler(Q()), 0, 0, 0, nil, 0)
    vnear(euler(Q(0, 0, 0, -1)), 0, 0, 0, nil, 0, "negated identity")
    local n = select("#", vmath.quat_to_euler(Q()))
    eq(n, 3, "quat_to_euler returns three numbers")
    -- round trips (within Defold's stated 0.02 degree error; we do better)
    for _, e in ipairs({ { 10, 20, 30 }, { -45, 60, 15 }, { 170, -30, 80 }, { 0, 0, -88 }, { 30, -100 + 10, 45 },
        { -120, 45, -60 } }) do
        local v = euler(vmath.euler_to_quat(e[1], e[2], e[3]))
        vnear(v, e[1], e[2], e[3], nil, 1e-3, format("euler round trip (%d, %d, %d)", e[1], e[2], e[3]))
    end
    -- gimbal snap: |z| beyond ~88.85 degrees snaps to +-90 with x folded into y
    vnear(euler(vmath.euler_to_quat(30, 0, 89)), 0, 30, 90, nil, 1e-3, "gimbal snap +")
    vnear(euler(vmath.euler_to_quat(30, 0, -89)), 0, -30, -90, nil, 1e-3, "gimbal snap -")
    vnear(euler(vmath.euler_to_quat(30, 0, 88)), 30, 0, 88, nil, 1e-3, "no snap at 88")
end

---------------------------------------------------------------------------------------------
-- matrix functions
---------------------------------------------------------------------------------------------
do
    local a = 0.7
    local c, s = math.cos(a), math.sin(a)
    mnear(vmath.matrix4_rotation_x(a), rows(1, 0, 0, 0, 0, c, -s, 0, 0, s, c, 0, 0, 0, 0, 1), EPS, "rotation_x")
    mnear(vmath.matrix4_rotation_y(a), rows(c, 0, s, 0, 0, 1, 0, 0, -s, 0, c, 0, 0, 0, 0, 1), EPS, "rotation_y")
    mnear(vmath.matrix4_rotation_z(a), rows(c, -s, 0, 0, s, c, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1), EPS, "rotation_z")
    vnear(vmath.matrix4_rotation_x(pi / 2) * V4(0, 1, 0, 0), 0, 0, 1, 0)
    vnear(vmath.matrix4_rotation_y(pi / 2) * V4(0, 0, 1, 0), 1, 0, 0, 0)
    vnear(vmath.matrix4_rotation_z(pi / 2) * V4(1, 0, 0, 0), 0, 1, 0, 0)
    mnear(vmath.matrix4_quat(vmath.quat_rotation_x(a)), vmath.matrix4_rotation_x(a), EPS, "matrix4_quat x")
    mnear(vmath.matrix4_quat(vmath.quat_rotation_y(a)), vmath.matrix4_rotation_y(a), EPS, "matrix4_quat y")
    mnear(vmath.matrix4_quat(vmath.quat_rotation_z(a)), vmath.matrix4_rotation_z(a), EPS, "matrix4_quat z")
    mnear(vmath.matrix4_from_quat(vmath.quat_rotation_z(a)), vmath.matrix4_rotation_z(a), EPS, "matrix4_from_quat")
    local axis = vmath.normalize(V3(1, -2, 0.5))
    local q = vmath.quat_axis_angle(axis, 1.3)
    mnear(vmath.matrix4_axis_angle(axis, 1.3), vmath.matrix4_quat(q), EPS, "axis_angle matches quat")
    mnear(vmath.matrix4_axis_angle(V3(0, 0, 1), a), vmath.matrix4_rotation_z(a), EPS, "axis_angle z")
    -- matrix and quaternion rotate a vector the same way
    local p = V3(0.3, -1.2, 2.5)
    local pr = vmath.rotate(q, p)
    vnear(vmath.matrix4_quat(q) * V4(p.x, p.y, p.z, 0), pr.x, pr.y, pr.z, 0)

    mnear(vmath.matrix4_scale(2), rows(2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1), 0, "scale(n)")
    mnear(vmath.matrix4_scale(V3(1, 2, 3)), rows(1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 1), 0, "scale(v3)")
    mnear(vmath.matrix4_scale(4, 5, 6), rows(4, 0, 0, 0, 0, 5, 0, 0, 0, 0, 6, 0, 0, 0, 0, 1), 0, "scale(x,y,z)")

    mnear(vmath.matrix4_translation(V3(1, 2, 3)), rows(1, 0, 0, 1, 0, 1, 0, 2, 0, 0, 1, 3, 0, 0, 0, 1), 0, "translation")
    mnear(vmath.matrix4_translation(V4(1, 2, 3, 9)), rows(1, 0, 0, 1, 0, 1, 0, 2, 0, 0, 1, 3, 0, 0, 0, 1), 0,
        "translation(vector4) ignores w")
    vnear(vmath.matrix4_translation(V3(1, 2, 3)) * V4(1, 1, 1, 1), 2, 3, 4, 1, 0)

    -- compose = T * R * S
    local t, r, sc = V3(1, 2, 3), vmath.normalize(Q(0.1, 0.2, 0.3, 0.9)), V3(2, 3, 4)
    local composed = vmath.matrix4_compose(t, r, sc)
    local product = vmath.matrix4_translation(t) * vmath.matrix4_quat(r) * vmath.matrix4_scale(sc)
    mnear(composed, product, EPS, "compose = T*R*S")
    mnear(vmath.matrix4_compose(V4(1, 2, 3, 0), r, sc), product, EPS, "compose with vector4 translation")

    -- projections (OpenGL conventions)
    local fov, aspect, zn, zf = pi / 2, 4 / 3, 1, 1000
    local f = 1 / math.tan(fov / 2)
    mnear(vmath.matrix4_perspective(fov, aspect, zn, zf),
        rows(f / aspect, 0, 0, 0,
            0, f, 0, 0,
            0, 0, (zf + zn) / (zn - zf), 2 * zf * zn / (zn - zf),
            0, 0, -1, 0), 1e-4, "perspective")
    local pm = vmath.matrix4_perspective(1.0, 1.5, 0.1, 100)
    local near_pt = pm * V4(0, 0, -0.1, 1)
    near(near_pt.z / near_pt.w, -1, 1e-4, "near plane maps to -1")
    local far_pt = pm * V4(0, 0, -100, 1)
    near(far_pt.z / far_pt.w, 1, 1e-4, "far plane maps to 1")

    local l, rr, b, tp = -2, 4, -1, 3
    mnear(vmath.matrix4_frustum(l, rr, b, tp, zn, zf),
        rows(2 * zn / (rr - l), 0, (rr + l) / (rr - l), 0,
            0, 2 * zn / (tp - b), (tp + b) / (tp - b), 0,
            0, 0, -(zf + zn) / (zf - zn), -2 * zf * zn / (zf - zn),
            0, 0, -1, 0), 1e-4, "frustum")
    mnear(vmath.matrix4_frustum(-1, 1, -1, 1, 1, 1000), vmath.matrix4_perspective(pi / 2, 1, 1, 1000), 1e-4,
        "symmetric frustum = perspective")

    mnear(vmath.matrix4_orthographic(l, rr, b, tp, -10, 10),
        rows(2 / (rr - l), 0, 0, -(rr + l) / (rr - l),
            0, 2 / (tp - b), 0, -(tp + b) / (tp - b),
            0, 0, -2 / 20, 0,
            0, 0, 0, 1), EPS, "orthographic")
    local op = vmath.matrix4_orthographic(-400, 400, -300, 300, 1, 100) * V4(400, -300, -100, 1)
    vnear(op, 1, -1, 1, 1, EPS, "ortho corner maps to NDC corner")

    -- look_at
    mnear(vmath.matrix4_look_at(V3(0, 0, 100), V3(0, 0, 0), V3(0, 1, 0)), vmath.matrix4_translation(V3(0, 0, -100)),
        EPS, "look_at down -z")
    local eye, target = V3(3, 4, 5), V3(-1, 0.5, 2)
    local view = vmath.matrix4_look_at(eye, target, V3(0, 1, 0))
    local tv = view * V4(target.x, target.y, target.z, 1)
    vnear(tv, 0, 0, -vmath.length(target - eye), 1, 1e-4, "target ends up on -z")
    vnear(view * V4(eye.x, eye.y, eye.z, 1), 0, 0, 0, 1, 1e-4, "eye at origin")
    local up_view = view * V4(0, 1, 0, 0)
    check(up_view.y > 0 and math.abs(up_view.x) < 1e-5, "up stays up")
    local lx = vmath.matrix4_look_at(V3(0, 0, 0), V3(1, 0, 0), V3(0, 1, 0))
    vnear(lx * V4(1, 0, 0, 0), 0, 0, -1, 0, EPS, "looking along +x: +x maps to -z")
    vnear(lx * V4(0, 0, 1, 0), 1, 0, 0, 0, EPS, "looking along +x: +z maps to +x (right)")

    -- inverses
    local m = vmath.matrix4_compose(V3(1, -2, 3), vmath.normalize(Q(0.3, -0.2, 0.1, 0.9)), V3(2, 0.5, 3))
    mnear(vmath.inv(m) * m, M4(), 1e-5, "inv(m) * m = identity")
    mnear(m * vmath.inv(m), M4(), 1e-5, "m * inv(m) = identity")
    local proj = vmath.matrix4_perspective(1.1, 1.7, 0.5, 50)
    mnear(vmath.inv(proj) * proj, M4(), 1e-4, "inverse of a projection")
    local g = rows(2, 1, 0, 3, 0, 1, 4, 1, 1, 0, 1, 0, 3, 2, 1, 1)
    mnear(vmath.inv(g) * g, M4(), 1e-5, "inverse of a general matrix")
    mnear(vmath.inv(vmath.inv(g)), g, 1e-4, "inv(inv(g)) = g")
    local rigid = vmath.matrix4_compose(V3(4, 5, -6), vmath.normalize(Q(-0.4, 0.3, 0.5, 0.6)), V3(1))
    mnear(vmath.ortho_inv(rigid), vmath.inv(rigid), 1e-5, "ortho_inv = inv for a rigid transform")
    mnear(vmath.ortho_inv(rigid) * rigid, M4(), 1e-5, "ortho_inv(m) * m = identity")
    mnear(vmath.inv(vmath.matrix4_translation(V3(1, 2, 3))), vmath.matrix4_translation(V3(-1, -2, -3)), 0,
        "inverse translation")
end

---------------------------------------------------------------------------------------------
-- field and index errors
---------------------------------------------------------------------------------------------
do
    local v3, v4, q, m = V3(), V4(), Q(), M4()
    local vec = vmath.vector({ 1, 2, 3 })
    errs("vmath.vector3 only has fields x, y, z.", function() local _ = v3.w end)
    errs("vmath.vector3 only has fields x, y, z.", function() v3.foo = 1 end)
    errs("vmath.vector3 only has fields x, y, z.", function() local _ = v3[1] end)
    errs("vmath.vector4 only has fields x, y, z, w.", function() local _ = v4.q end)
    errs("vmath.vector4 only has fields x, y, z, w.", function() v4.a = 1 end)
    errs("vmath.quat only has fields x, y, z, w.", function() local _ = q.angle end)
    errs("vmath.quat only has fields x, y, z, w.", function() q.v = 1 end)
    local mf = "vmath.matrix4 only has fields c0, ..., c3 and m00, m01, ..., m10, ..., m33."
    errs(mf, function() local _ = m.m44 end)
    errs(mf, function() local _ = m.c4 end)
    errs(mf, function() m.x = 1 end)
    -- m00..m33 are native float fields: LuaJIT's own conversion error, still at the caller's line.
    errs("cannot convert 'string' to 'float'", function() m.m00 = "a" end)
    errs("cannot convert 'struct sinew_vector3' to 'struct sinew_vector4'", function() m.c1 = v3 end)
    errs("vmath.vector only has valid indices between 1 and 3.", function() local _ = vec[0] end)
    errs("vmath.vector only has valid indices between 1 and 3.", function() local _ = vec[4] end)
    errs("vmath.vector only has valid indices between 1 and 3.", function() vec[4] = 1 end)
    errs("vmath.vector only has valid indices between 1 and 3.", function() local _ = vec.x end)
    errs("vmath.vector has no addressable indices, size is 0.", function() local _ = vmath.vector()[1] end)
    errs("vmath.vector: bad value for index 2 (number expected, got nil)", function() vec[2] = nil end)
end

---------------------------------------------------------------------------------------------
-- operator errors
---------------------------------------------------------------------------------------------
do
    local v3, v4, q, m = V3(1), V4(1), Q(), M4()
    errs("vmath.vector3.__add: bad argument #2 (vector3 expected, got vmath.vector4)", function() local _ = v3 + v4 end)
    errs("vmath.vector3.__add: bad argument #2 (vector3 expected, got number)", function() local _ = v3 + 1 end)
    errs("vmath.vector3.__add: bad argument #1 (vector3 expected, got number)", function() local _ = 1 + v3 end)
    errs("vmath.vector3.__sub: bad argument #2 (vector3 expected, got vmath.quat)", function() local _ = v3 - q end)
    errs("vmath.vector3.__mul: bad argument #2 (number expected, got vmath.vector3)", function() local _ = v3 * v3 end)
    errs("vmath.vector3.__mul: bad argument #2 (number expected, got vmath.quat)", function() local _ = v3 * q end)
    errs("vmath.vector3.__div: bad argument #2 (number expected, got vmath.vector3)", function() local _ = v3 / v3 end)
    errs("vmath.vector3.__div: bad argument #1 (vector3 expected, got number)", function() local _ = 1 / v3 end)
    errs("vmath.vector4.__add: bad argument #2 (vector4 expected, got vmath.vector3)", function() local _ = v4 + v3 end)
    errs("vmath.vector4.__sub: bad argument #2 (vector4 expected, got nil)", function() local _ = v4 - nil end)
    errs("vmath.vector4.__mul: bad argument #2 (number expected, got vmath.vector4)", function() local _ = v4 * v4 end)
    errs("vmath.vector4.__div: bad argument #2 (number expected, got string)", function() local _ = v4 / "x" end)
    errs("vmath.quat.__mul: bad argument #2 (quat expected, got vmath.vector3)", function() local _ = q * v3 end)
    errs("vmath.quat.__mul: bad argument #1 (quat expected, got number)", function() local _ = 2 * q end)
    errs("vmath.matrix4.__mul: bad argument #2 (number, matrix4 or vector4 expected, got vmath.vector3)",
        function() local _ = m * v3 end)
    errs("vmath.matrix4.__mul: bad argument #2 (number, matrix4 or vector4 expected, got vmath.quat)",
        function() local _ = m * q end)
end

---------------------------------------------------------------------------------------------
-- argument errors of every function
---------------------------------------------------------------------------------------------
do
    local v3, v4, q, m = V3(1), V4(1), Q(), M4()
    errs("vmath.vector3: bad argument #3 (number expected, got nil)", function() V3(1, 2) end)
    errs("vmath.vector3: bad argument #2 (number expected, got string)", function() V3(1, "y", 3) end)
    errs("vmath.vector3: bad argument #1 (number or vector3 expected, got vmath.vector4)", function() V3(v4) end)
    errs("vmath.vector3: bad argument #1 (number or vector3 expected, got table)", function() V3({}) end)
    errs("vmath.vector3: bad argument #1 (number expected, got nil)", function() V3(nil, 2, 3) end)
    errs("vmath.vector4: bad argument #4 (number expected, got nil)", function() V4(1, 2, 3) end)
    errs("vmath.vector4: bad argument #1 (number or vector4 expected, got vmath.quat)", function() V4(q) end)
    errs("vmath.quat: bad argument #1 (quat expected, got vmath.vector4)", function() Q(v4) end)
    errs("vmath.quat: bad argument #1 (quat expected, got number)", function() Q(1) end)
    errs("vmath.quat: bad argument #4 (number expected, got nil)", function() Q(1, 2, 3) end)
    errs("vmath.matrix4: bad argument #1 (matrix4 expected, got vmath.quat)", function() M4(q) end)
    errs("vmath.matrix4: bad argument #2 (no value expected, got number)", function() M4(m, 1) end)
    errs("vmath.vector: bad argument #1 (table expected, got number)", function() vmath.vector(3) end)

    errs("vmath.dot: bad argument #2 (vector3 expected, got string)", function() vmath.dot(v3, "x") end)
    errs("vmath.dot: bad argument #2 (vector3 expected, got vmath.vector4)", function() vmath.dot(v3, v4) end)
    errs("vmath.dot: bad argument #2 (vector4 expected, got nil)", function() vmath.dot(v4) end)
    errs("vmath.dot: bad argument #1 (vector3 or vector4 expected, got vmath.quat)", function() vmath.dot(q, q) end)
    errs("vmath.cross: bad argument #1 (vector3 expected, got vmath.vector4)", function() vmath.cross(v4, v3) end)
    errs("vmath.cross: bad argument #2 (vector3 expected, got nil)", function() vmath.cross(v3) end)
    errs("vmath.length: bad argument #1 (vector3, vector4 or quat expected, got number)", function() vmath.length(1) end)
    errs("vmath.length_sqr: bad argument #1 (vector3, vector4 or quat expected, got vmath.matrix4)",
        function() vmath.length_sqr(m) end)
    errs("vmath.normalize: bad argument #1 (vector3, vector4 or quat expected, got nil)", function() vmath.normalize() end)
    errs("vmath.lerp: bad argument #1 (number expected, got vmath.vector3)", function() vmath.lerp(v3, v3, v3) end)
    errs("vmath.lerp: bad argument #3 (vector3 expected, got vmath.vector4)", function() vmath.lerp(0.5, v3, v4) end)
    errs("vmath.lerp: bad argument #3 (number expected, got vmath.vector3)", function() vmath.lerp(0.5, 1, v3) end)
    errs("vmath.lerp: bad argument #3 (quat expected, got nil)", function() vmath.lerp(0.5, q) end)
    errs("vmath.lerp: bad argument #2 (number, vector3, vector4 or quat expected, got boolean)",
        function() vmath.lerp(0.5, true, 1) end)
    errs("vmath.slerp: bad argument #1 (number expected, got nil)", function() vmath.slerp(nil, q, q) end)
    errs("vmath.slerp: bad argument #3 (quat expected, got vmath.vector4)", function() vmath.slerp(0.5, q, v4) end)
    errs("vmath.slerp: bad argument #3 (vector3 expected, got number)", function() vmath.slerp(0.5, v3, 1) end)
    errs("vmath.slerp: bad argument #2 (vector3, vector4 or quat expected, got number)",
        function() vmath.slerp(0.5, 1, 2) end)
    errs("vmath.rotate: bad argument #1 (quat expected, got vmath.vector3)", function() vmath.rotate(v3, q) end)
    errs("vmath.rotate: bad argument #2 (vector3 expected, got vmath.vector4)", function() vmath.rotate(q, v4) end)
    errs("vmath.project: bad argument #2 (vector3 expected, got nil)", function() vmath.project(v3) end)
    errs("The second vmath.vector3 to vmath.project must have a length bigger than 0.",
        function() vmath.project(v3, V3()) end)
    errs("vmath.mul_per_elem: bad argument #2 (vector4 expected, got vmath.vector3)",
        function() vmath.mul_per_elem(v4, v3) end)
    errs("vmath.mul_per_elem: bad argument #1 (vector3 or vector4 expected, got vmath.quat)",
        function() vmath.mul_per_elem(q, q) end)
    errs("vmath.clamp: bad argument #1 (number, vector3 or vector4 expected, got vmath.quat)",
        function() vmath.clamp(q, 0, 1) end)
    errs("vmath.clamp: bad argument #2 (number expected, got vmath.vector3)", function() vmath.clamp(1, v3, 2) end)
    errs("vmath.clamp: bad argument #3 (number or vector3 expected, got vmath.vector4)",
        function() vmath.clamp(v3, 0, v4) end)
    errs("vmath.clamp: bad argument #2 (number or vector4 expected, got nil)", function() vmath.clamp(v4) end)

    errs("vmath.conj: bad argument #1 (quat expected, got vmath.vector4)", function() vmath.conj(v4) end)
    errs("vmath.quat_axis_angle: bad argument #1 (vector3 expected, got number)", function() vmath.quat_axis_angle(1, 2) end)
    errs("vmath.quat_axis_angle: bad argument #2 (number expected, got nil)", function() vmath.quat_axis_angle(v3) end)
    errs("vmath.quat_basis: bad argument #3 (vector3 expected, got nil)", function() vmath.quat_basis(v3, v3) end)
    errs("vmath.quat_from_to: bad argument #2 (vector3 expected, got vmath.quat)", function() vmath.quat_from_to(v3, q) end)
    errs("vmath.quat_rotation_x: bad argument #1 (number expected, got nil)", function() vmath.quat_rotation_x() end)
    errs("vmath.quat_rotation_y: bad argument #1 (number expected, got string)", function() vmath.quat_rotation_y("a") end)
    errs("vmath.quat_rotation_z: bad argument #1 (number expected, got vmath.quat)", function() vmath.quat_rotation_z(q) end)
    errs("vmath.quat_matrix4: bad argument #1 (matrix4 expected, got vmath.quat)", function() vmath.quat_matrix4(q) end)
    errs("vmath.quat_to_euler: bad argument #1 (quat expected, got vmath.vector3)", function() vmath.quat_to_euler(v3) end)
    errs("vmath.euler_to_quat: bad argument #1 (number or vector3 expected, got vmath.quat)",
        function() vmath.euler_to_quat(q) end)
    errs("vmath.euler_to_quat: bad argument #3 (number expected, got nil)", function() vmath.euler_to_quat(1, 2) end)

    errs("vmath.matrix4_axis_angle: bad argument #2 (number expected, got nil)", function() vmath.matrix4_axis_angle(v3) end)
    errs("vmath.matrix4_compose: bad argument #1 (vector3 or vector4 expected, got vmath.quat)",
        function() vmath.matrix4_compose(q, q, v3) end)
    errs("vmath.matrix4_compose: bad argument #2 (quat expected, got vmath.vector4)",
        function() vmath.matrix4_compose(v3, v4, v3) end)
    errs("vmath.matrix4_compose: bad argument #3 (vector3 expected, got nil)", function() vmath.matrix4_compose(v3, q) end)
    errs("vmath.matrix4_frustum: bad argument #6 (number expected, got nil)",
        function() vmath.matrix4_frustum(-1, 1, -1, 1, 1) end)
    errs("vmath.matrix4_look_at: bad argument #3 (vector3 expected, got nil)", function() vmath.matrix4_look_at(v3, v3) end)
    errs("vmath.matrix4_orthographic: bad argument #1 (number expected, got vmath.vector3)",
        function() vmath.matrix4_orthographic(v3, 1, -1, 1, 1, 10) end)
    errs("vmath.matrix4_perspective: bad argument #4 (number expected, got nil)",
        function() vmath.matrix4_perspective(1, 1, 1) end)
    errs("vmath.matrix4_quat: bad argument #1 (quat expected, got vmath.vector4)", function() vmath.matrix4_quat(v4) end)
    errs("vmath.matrix4_from_quat: bad argument #1 (quat expected, got nil)", function() vmath.matrix4_from_quat() end)
    errs("vmath.matrix4_rotation_x: bad argument #1 (number expected, got nil)", function() vmath.matrix4_rotation_x() end)
    errs("vmath.matrix4_rotation_y: bad argument #1 (number expected, got table)", function() vmath.matrix4_rotation_y({}) end)
    errs("vmath.matrix4_rotation_z: bad argument #1 (number expected, got boolean)",
        function() vmath.matrix4_rotation_z(false) end)
    errs("vmath.matrix4_scale: bad argument #1 (number or vector3 expected, got vmath.vector4)",
        function() vmath.matrix4_scale(v4) end)
    errs("vmath.matrix4_scale: bad argument #3 (number expected, got nil)", function() vmath.matrix4_scale(1, 2) end)
    errs("vmath.matrix4_translation: bad argument #1 (vector3 or vector4 expected, got vmath.quat)",
        function() vmath.matrix4_translation(q) end)
    errs("vmath.inv: bad argument #1 (matrix4 expected, got vmath.quat)", function() vmath.inv(q) end)
    errs("vmath.ortho_inv: bad argument #1 (matrix4 expected, got nil)", function() vmath.ortho_inv() end)
end

---------------------------------------------------------------------------------------------
-- a hot loop (exercises the JIT paths; results must match the interpreter's)
---------------------------------------------------------------------------------------------
do
    local acc = V3()
    local qz = vmath.quat_rotation_z(0.001)
    local mt = vmath.matrix4_translation(V3(0, 0, 1))
    local sum = 0
    for i = 1, 1000 do
        local a = V3(i, 1, 0)
        acc = acc + vmath.normalize(a) * 0.5
        acc = vmath.rotate(qz, acc)
        local p = mt * V4(acc.x, acc.y, acc.z, 1)
        sum = sum + p.z
    end
    near(sum, 1000, 1e-6, "hot loop sum")
    check(vmath.length(acc) > 400 and vmath.length(acc) < 500, "hot loop accumulator")
end

print(format("vmath_test.lua: %d checks passed", checks))
return checks
