-- Sinew built-in: the `vmath` namespace (Defold's vector math API) on LuaJIT FFI cdata.
--
-- Values are FFI structs with metatypes, not userdata, so construction and arithmetic are
-- compiled by the JIT. The C layouts are fixed (Rust reads and writes them through pointers):
--
--   sinew_vector3 { float x, y, z; }
--   sinew_vector4 { float x, y, z, w; }
--   sinew_quat    { float x, y, z, w; }
--   sinew_matrix4 { float m[16]; }          column-major: m[col*4 + row] (glam Mat4 layout)
--   sinew_vector  { int32_t n; float v[?]; } vmath.vector, 1-based in Lua
--
-- The chunk returns a module table M:
--   M.vmath                                   the namespace (installed as global `vmath`)
--   M.vector3_t, M.vector4_t, M.quat_t, M.matrix4_t, M.vector_t    the ctypes
--   M.vector3(x,y,z), M.vector4(x,y,z,w), M.quat(x,y,z,w)           raw constructors, no checks
--   M.matrix4()                               raw constructor, returns an identity matrix
--   M.vector(n)                               raw constructor, a zeroed vmath.vector of size n
--   M.type_name(v)                            "vector3"|"vector4"|"quat"|"matrix4"|"vector"|nil
--   M.format(v)                               tostring text of a vmath value
--
-- tostring: numbers use "%.7g"; matrix4 prints its ROWS in order (m00, m01, m02, m03, m10, ...),
-- as Defold does; vmath.vector prints its values: "vmath.vector(1, 2, 3)".
--
-- Argument errors are raised at the caller's level ("file:line: vmath.dot: bad argument #2
-- (vector3 expected, got string)"). Internal rule that keeps the level right: the check helpers
-- below raise at level 3 and are only ever called directly from an API function or metamethod,
-- never through a tail call (`return argerr(...)` is forbidden).

local ffi = require("ffi")
-- The runtime's FFI functions (name → function pointer, script/boundary.rs): the Euler
-- conversion is Rust's, the one every other part of Sinew uses.
local F = ...
assert(type(F) == "table", "vmath.lua is loaded by sinew::script::load_vmath")

local CACHE_KEY = "__sinew_builtin_vmath"
local loaded = type(package) == "table" and package.loaded or nil
if loaded and loaded[CACHE_KEY] then
    -- Metatypes can be set only once per Lua state; a second load reuses the first module.
    return loaded[CACHE_KEY]
end

-- The structs (sinew_vector3, sinew_vector4, sinew_quat, sinew_matrix4, sinew_vector) are
-- declared from Rust before this file runs (script/boundary.rs).

local istype = ffi.istype
local type, tonumber, error, tostring = type, tonumber, error, tostring
local format, concat = string.format, table.concat
local sqrt, sin, cos, tan, acos, asin, atan2 = math.sqrt, math.sin, math.cos, math.tan, math.acos, math.asin, math.atan2

-- Forward-declared ctypes (assigned after the metatables are built).
local V3, V4, Q, M4, VEC

local M = {}
local vmath = {}

---------------------------------------------------------------------------------------------
-- type names, formatting, error helpers
---------------------------------------------------------------------------------------------

local function type_name(v)
    if type(v) ~= "cdata" then
        return nil
    end
    if istype(V3, v) then
        return "vector3"
    elseif istype(V4, v) then
        return "vector4"
    elseif istype(Q, v) then
        return "quat"
    elseif istype(M4, v) then
        return "matrix4"
    elseif istype(VEC, v) then
        return "vector"
    end
    return nil
end

-- Name of a value's type as used in error messages: "number", "nil", "vmath.quat", ...
local function tname(v)
    local t = type(v)
    if t ~= "cdata" then
        return t
    end
    local n = type_name(v)
    if n then
        return "vmath." .. n
    end
    return "cdata"
end

-- Raises "vmath.<fname>: bad argument #i (<expected> expected, got <type>)" at the level of
-- the code that called the API function. Must be called directly (not tail-called) from it.
local function argerr(fname, i, expected, v)
    error(format("vmath.%s: bad argument #%d (%s expected, got %s)", fname, i, expected, tname(v)), 3)
end

-- Slow path of a number argument check: numeric strings are converted (like luaL_checknumber),
-- anything else raises. Call only when type(v) ~= "number", directly from the API function.
local function numarg(fname, i, v)
    if type(v) == "string" then
        local n = tonumber(v)
        if n then
            return n
        end
    end
    error(format("vmath.%s: bad argument #%d (number expected, got %s)", fname, i, tname(v)), 3)
end

local function f7(n)
    return format("%.7g", n)
end

local function format_value(v)
    if istype(V3, v) then
        return format("vmath.vector3(%s, %s, %s)", f7(v.x), f7(v.y), f7(v.z))
    elseif istype(V4, v) then
        return format("vmath.vector4(%s, %s, %s, %s)", f7(v.x), f7(v.y), f7(v.z), f7(v.w))
    elseif istype(Q, v) then
        return format("vmath.quat(%s, %s, %s, %s)", f7(v.x), f7(v.y), f7(v.z), f7(v.w))
    elseif istype(M4, v) then
        local m = v.m
        local parts = {}
        for r = 0, 3 do
            for c = 0, 3 do
                parts[#parts + 1] = f7(m[c * 4 + r])
            end
        end
        return "vmath.matrix4(" .. concat(parts, ", ") .. ")"
    elseif istype(VEC, v) then
        local parts = {}
        for i = 0, v.n - 1 do
            parts[i + 1] = f7(v.v[i])
        end
        return "vmath.vector(" .. concat(parts, ", ") .. ")"
    end
    return tostring(v)
end

-- "text" .. v and v .. "text"
local function concat_mm(a, b)
    if type(a) == "cdata" then
        a = format_value(a)
    end
    if type(b) == "cdata" then
        b = format_value(b)
    end
    return a .. b
end

---------------------------------------------------------------------------------------------
-- matrix helpers (column-major: element (row r, col c) is m[c*4 + r])
---------------------------------------------------------------------------------------------

local function m4_identity()
    local r = M4()
    local m = r.m
    m[0], m[5], m[10], m[15] = 1, 1, 1, 1
    return r
end

local function m4_set_cols(r, a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3, d0, d1, d2, d3)
    local m = r.m
    m[0], m[1], m[2], m[3] = a0, a1, a2, a3
    m[4], m[5], m[6], m[7] = b0, b1, b2, b3
    m[8], m[9], m[10], m[11] = c0, c1, c2, c3
    m[12], m[13], m[14], m[15] = d0, d1, d2, d3
    return r
end

-- Rotation matrix of a quaternion (upper 3x3 of the result; the rest is identity).
local function m4_from_quat(x, y, z, w)
    local x2, y2, z2 = x + x, y + y, z + z
    local xx, xy, xz, xw = x * x2, x * y2, x * z2, w * x2
    local yy, yz, yw = y * y2, y * z2, w * y2
    local zz, zw = z * z2, w * z2
    return m4_set_cols(M4(),
        1 - yy - zz, xy + zw, xz - yw, 0,
        xy - zw, 1 - xx - zz, yz + xw, 0,
        xz + yw, yz - xw, 1 - xx - yy, 0,
        0, 0, 0, 1)
end

-- Quaternion of a rotation given by its 3x3 columns (Vectormath's Quat(Matrix3) algorithm).
local function quat_from_cols(xx, yx, zx, xy, yy, zy, xz, yz, zz)
    local neg_trace = (xx + yy + zz) < 0
    local z_gt_x, z_gt_y, y_gt_x = zz > xx, zz > yy, yy > xx
    local largest_x_or_y = (not z_gt_x or not z_gt_y) and neg_trace
    local largest_y_or_z = (y_gt_x or z_gt_x) and neg_trace
    local largest_z_or_x = (z_gt_y or not y_gt_x) and neg_trace
    if largest_x_or_y then
        zz, xy = -zz, -xy
    end
    if largest_y_or_z then
        xx, yz = -xx, -yz
    end
    if largest_z_or_x then
        yy, zx = -yy, -zx
    end
    local radicand = xx + yy + zz + 1
    local scale = 0.5 / sqrt(radicand)
    local tx, ty, tz, tw = (zy - yz) * scale, (xz - zx) * scale, (yx - xy) * scale, radicand * scale
    local qx, qy, qz, qw = tx, ty, tz, tw
    if largest_x_or_y then
        qx, qy, qz, qw = tw, tz, ty, tx
    end
    if largest_y_or_z then
        qx, qy, qz, qw = qy, qx, qw, qz
    end
    return Q(qx, qy, qz, qw)
end

local function m4_mul(a, b)
    local r = M4()
    local A, B, R = a.m, b.m, r.m
    local a0, a1, a2, a3 = A[0], A[1], A[2], A[3]
    local a4, a5, a6, a7 = A[4], A[5], A[6], A[7]
    local a8, a9, a10, a11 = A[8], A[9], A[10], A[11]
    local a12, a13, a14, a15 = A[12], A[13], A[14], A[15]
    for c = 0, 12, 4 do
        local b0, b1, b2, b3 = B[c], B[c + 1], B[c + 2], B[c + 3]
        R[c] = a0 * b0 + a4 * b1 + a8 * b2 + a12 * b3
        R[c + 1] = a1 * b0 + a5 * b1 + a9 * b2 + a13 * b3
        R[c + 2] = a2 * b0 + a6 * b1 + a10 * b2 + a14 * b3
        R[c + 3] = a3 * b0 + a7 * b1 + a11 * b2 + a15 * b3
    end
    return r
end

local function m4_mul_v4(a, v)
    local A = a.m
    local x, y, z, w = v.x, v.y, v.z, v.w
    return V4(
        A[0] * x + A[4] * y + A[8] * z + A[12] * w,
        A[1] * x + A[5] * y + A[9] * z + A[13] * w,
        A[2] * x + A[6] * y + A[10] * z + A[14] * w,
        A[3] * x + A[7] * y + A[11] * z + A[15] * w)
end

local function m4_scale_num(a, s)
    local r = M4()
    local A, R = a.m, r.m
    for i = 0, 15 do
        R[i] = A[i] * s
    end
    return r
end

local function m4_copy(a)
    local r = M4()
    ffi.copy(r, a, 64)
    return r
end

-- General inverse (cofactor expansion). A singular matrix yields inf/nan elements.
local function m4_inverse(a)
    local m = a.m
    local m0, m1, m2, m3, m4, m5, m6, m7 = m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7]
    local m8, m9, m10, m11, m12, m13, m14, m15 = m[8], m[9], m[10], m[11], m[12], m[13], m[14], m[15]
    local i0 = m5 * m10 * m15 - m5 * m11 * m14 - m9 * m6 * m15 + m9 * m7 * m14 + m13 * m6 * m11 - m13 * m7 * m10
    local i4 = -m4 * m10 * m15 + m4 * m11 * m14 + m8 * m6 * m15 - m8 * m7 * m14 - m12 * m6 * m11 + m12 * m7 * m10
    local i8 = m4 * m9 * m15 - m4 * m11 * m13 - m8 * m5 * m15 + m8 * m7 * m13 + m12 * m5 * m11 - m12 * m7 * m9
    local i12 = -m4 * m9 * m14 + m4 * m10 * m13 + m8 * m5 * m14 - m8 * m6 * m13 - m12 * m5 * m10 + m12 * m6 * m9
    local i1 = -m1 * m10 * m15 + m1 * m11 * m14 + m9 * m2 * m15 - m9 * m3 * m14 - m13 * m2 * m11 + m13 * m3 * m10
    local i5 = m0 * m10 * m15 - m0 * m11 * m14 - m8 * m2 * m15 + m8 * m3 * m14 + m12 * m2 * m11 - m12 * m3 * m10
    local i9 = -m0 * m9 * m15 + m0 * m11 * m13 + m8 * m1 * m15 - m8 * m3 * m13 - m12 * m1 * m11 + m12 * m3 * m9
    local i13 = m0 * m9 * m14 - m0 * m10 * m13 - m8 * m1 * m14 + m8 * m2 * m13 + m12 * m1 * m10 - m12 * m2 * m9
    local i2 = m1 * m6 * m15 - m1 * m7 * m14 - m5 * m2 * m15 + m5 * m3 * m14 + m13 * m2 * m7 - m13 * m3 * m6
    local i6 = -m0 * m6 * m15 + m0 * m7 * m14 + m4 * m2 * m15 - m4 * m3 * m14 - m12 * m2 * m7 + m12 * m3 * m6
    local i10 = m0 * m5 * m15 - m0 * m7 * m13 - m4 * m1 * m15 + m4 * m3 * m13 + m12 * m1 * m7 - m12 * m3 * m5
    local i14 = -m0 * m5 * m14 + m0 * m6 * m13 + m4 * m1 * m14 - m4 * m2 * m13 - m12 * m1 * m6 + m12 * m2 * m5
    local i3 = -m1 * m6 * m11 + m1 * m7 * m10 + m5 * m2 * m11 - m5 * m3 * m10 - m9 * m2 * m7 + m9 * m3 * m6
    local i7 = m0 * m6 * m11 - m0 * m7 * m10 - m4 * m2 * m11 + m4 * m3 * m10 + m8 * m2 * m7 - m8 * m3 * m6
    local i11 = -m0 * m5 * m11 + m0 * m7 * m9 + m4 * m1 * m11 - m4 * m3 * m9 - m8 * m1 * m7 + m8 * m3 * m5
    local i15 = m0 * m5 * m10 - m0 * m6 * m9 - m4 * m1 * m10 + m4 * m2 * m9 + m8 * m1 * m6 - m8 * m2 * m5
    local d = 1 / (m0 * i0 + m1 * i4 + m2 * i8 + m3 * i12)
    return m4_set_cols(M4(),
        i0 * d, i1 * d, i2 * d, i3 * d,
        i4 * d, i5 * d, i6 * d, i7 * d,
        i8 * d, i9 * d, i10 * d, i11 * d,
        i12 * d, i13 * d, i14 * d, i15 * d)
end

-- Inverse of an affine matrix whose upper 3x3 is orthonormal.
local function m4_ortho_inverse(a)
    local m = a.m
    local r0x, r0y, r0z = m[0], m[4], m[8] -- row 0 of the inverse = column 0 of a
    local r1x, r1y, r1z = m[1], m[5], m[9]
    local r2x, r2y, r2z = m[2], m[6], m[10]
    local tx, ty, tz = m[12], m[13], m[14]
    return m4_set_cols(M4(),
        m[0], m[4], m[8], 0,
        m[1], m[5], m[9], 0,
        m[2], m[6], m[10], 0,
        -(r0x * tx + r1x * ty + r2x * tz),
        -(r0y * tx + r1y * ty + r2y * tz),
        -(r0z * tx + r1z * ty + r2z * tz),
        1)
end

---------------------------------------------------------------------------------------------
-- metatypes
---------------------------------------------------------------------------------------------

-- Unknown fields raise through a table whose own metamethods raise, never through a function
-- __index on the cdata: LuaJIT 2.1 (c6ffc14) can return the metamethod's result for a real
-- field when `v[k]` runs in closures created in a loop (tests/lua/jit_index_regression.lua).
local function refuse(msg)
    local raise = function()
        error(msg, 2)
    end
    return setmetatable({}, { __index = raise, __newindex = raise })
end

local vector3_mt = {
    __index = refuse("vmath.vector3 only has fields x, y, z."),
    __newindex = refuse("vmath.vector3 only has fields x, y, z."),
    __add = function(a, b)
        if not istype(V3, a) then
            argerr("vector3.__add", 1, "vector3", a)
        end
        if not istype(V3, b) then
            argerr("vector3.__add", 2, "vector3", b)
        end
        return V3(a.x + b.x, a.y + b.y, a.z + b.z)
    end,
    __sub = function(a, b)
        if not istype(V3, a) then
            argerr("vector3.__sub", 1, "vector3", a)
        end
        if not istype(V3, b) then
            argerr("vector3.__sub", 2, "vector3", b)
        end
        return V3(a.x - b.x, a.y - b.y, a.z - b.z)
    end,
    __mul = function(a, b)
        if type(b) == "number" then
            if istype(V3, a) then
                return V3(a.x * b, a.y * b, a.z * b)
            end
            argerr("vector3.__mul", 1, "number or vector3", a)
        end
        if type(a) == "number" then
            if istype(V3, b) then
                return V3(a * b.x, a * b.y, a * b.z)
            end
            argerr("vector3.__mul", 2, "vector3", b)
        end
        if istype(V3, a) then
            argerr("vector3.__mul", 2, "number", b)
        end
        argerr("vector3.__mul", 1, "number", a)
    end,
    __div = function(a, b)
        if not istype(V3, a) then
            argerr("vector3.__div", 1, "vector3", a)
        end
        if type(b) ~= "number" then
            argerr("vector3.__div", 2, "number", b)
        end
        return V3(a.x / b, a.y / b, a.z / b)
    end,
    __unm = function(a)
        return V3(-a.x, -a.y, -a.z)
    end,
    __eq = function(a, b)
        return istype(V3, a) and istype(V3, b) and a.x == b.x and a.y == b.y and a.z == b.z
    end,
    __tostring = format_value,
    __concat = concat_mm,
}

local vector4_mt = {
    __index = refuse("vmath.vector4 only has fields x, y, z, w."),
    __newindex = refuse("vmath.vector4 only has fields x, y, z, w."),
    __add = function(a, b)
        if not istype(V4, a) then
            argerr("vector4.__add", 1, "vector4", a)
        end
        if not istype(V4, b) then
            argerr("vector4.__add", 2, "vector4", b)
        end
        return V4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w)
    end,
    __sub = function(a, b)
        if not istype(V4, a) then
            argerr("vector4.__sub", 1, "vector4", a)
        end
        if not istype(V4, b) then
            argerr("vector4.__sub", 2, "vector4", b)
        end
        return V4(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w)
    end,
    __mul = function(a, b)
        if type(b) == "number" then
            if istype(V4, a) then
                return V4(a.x * b, a.y * b, a.z * b, a.w * b)
            end
            argerr("vector4.__mul", 1, "number or vector4", a)
        end
        if type(a) == "number" then
            if istype(V4, b) then
                return V4(a * b.x, a * b.y, a * b.z, a * b.w)
            end
            argerr("vector4.__mul", 2, "vector4", b)
        end
        if istype(V4, a) then
            argerr("vector4.__mul", 2, "number", b)
        end
        argerr("vector4.__mul", 1, "number", a)
    end,
    __div = function(a, b)
        if not istype(V4, a) then
            argerr("vector4.__div", 1, "vector4", a)
        end
        if type(b) ~= "number" then
            argerr("vector4.__div", 2, "number", b)
        end
        return V4(a.x / b, a.y / b, a.z / b, a.w / b)
    end,
    __unm = function(a)
        return V4(-a.x, -a.y, -a.z, -a.w)
    end,
    __eq = function(a, b)
        return istype(V4, a) and istype(V4, b) and a.x == b.x and a.y == b.y and a.z == b.z and a.w == b.w
    end,
    __tostring = format_value,
    __concat = concat_mm,
}

local function quat_mul(a, b)
    if not istype(Q, a) then
        argerr("quat.__mul", 1, "quat", a)
    end
    if not istype(Q, b) then
        argerr("quat.__mul", 2, "quat", b)
    end
    local ax, ay, az, aw = a.x, a.y, a.z, a.w
    local bx, by, bz, bw = b.x, b.y, b.z, b.w
    return Q(
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by + ay * bw + az * bx - ax * bz,
        aw * bz + az * bw + ax * by - ay * bx,
        aw * bw - ax * bx - ay * by - az * bz)
end

local quat_mt = {
    __index = refuse("vmath.quat only has fields x, y, z, w."),
    __newindex = refuse("vmath.quat only has fields x, y, z, w."),
    __mul = quat_mul,
    __eq = function(a, b)
        return istype(Q, a) and istype(Q, b) and a.x == b.x and a.y == b.y and a.z == b.z and a.w == b.w
    end,
    __tostring = format_value,
    __concat = concat_mm,
}

-- m00..m33 and c0..c3 are real (union) fields of the struct, read and written natively, so no
-- function __index is involved (see `refuse`). Unlike Defold, a column is therefore a view of the
-- matrix's own storage (a vector4 reference), not a copy.
local MAT_FIELDS_MSG = "vmath.matrix4 only has fields c0, ..., c3 and m00, m01, ..., m10, ..., m33."

local matrix4_mt = {
    __index = refuse(MAT_FIELDS_MSG),
    __newindex = refuse(MAT_FIELDS_MSG),
    __mul = function(a, b)
        if type(a) == "number" then
            if istype(M4, b) then
                return m4_scale_num(b, a)
            end
            argerr("matrix4.__mul", 2, "matrix4", b)
        end
        if not istype(M4, a) then
            argerr("matrix4.__mul", 1, "number or matrix4", a)
        end
        if istype(M4, b) then
            return m4_mul(a, b)
        elseif istype(V4, b) then
            return m4_mul_v4(a, b)
        elseif type(b) == "number" then
            return m4_scale_num(a, b)
        end
        argerr("matrix4.__mul", 2, "number, matrix4 or vector4", b)
    end,
    __eq = function(a, b)
        if not (istype(M4, a) and istype(M4, b)) then
            return false
        end
        local A, B = a.m, b.m
        for i = 0, 15 do
            if A[i] ~= B[i] then
                return false
            end
        end
        return true
    end,
    __tostring = format_value,
    __concat = concat_mm,
}

local function vector_index_error(s)
    local n = s.n
    if n > 0 then
        error(format("vmath.vector only has valid indices between 1 and %d.", n), 3)
    end
    error("vmath.vector has no addressable indices, size is 0.", 3)
end

local vector_mt = {
    __index = function(s, k)
        if type(k) == "number" and k >= 1 and k <= s.n and k % 1 == 0 then
            return s.v[k - 1]
        end
        vector_index_error(s)
    end,
    __newindex = function(s, k, v)
        if type(k) == "number" and k >= 1 and k <= s.n and k % 1 == 0 then
            if type(v) ~= "number" then
                error(format("vmath.vector: bad value for index %d (number expected, got %s)", k, tname(v)), 2)
            end
            s.v[k - 1] = v
            return
        end
        vector_index_error(s)
    end,
    __len = function(s)
        return s.n
    end,
    __eq = function(a, b)
        if not (istype(VEC, a) and istype(VEC, b)) or a.n ~= b.n then
            return false
        end
        for i = 0, a.n - 1 do
            if a.v[i] ~= b.v[i] then
                return false
            end
        end
        return true
    end,
    __tostring = format_value,
    __concat = concat_mm,
}

V3 = ffi.metatype("sinew_vector3", vector3_mt)
V4 = ffi.metatype("sinew_vector4", vector4_mt)
Q = ffi.metatype("sinew_quat", quat_mt)
M4 = ffi.metatype("sinew_matrix4", matrix4_mt)
VEC = ffi.metatype("sinew_vector", vector_mt)

---------------------------------------------------------------------------------------------
-- constructors
---------------------------------------------------------------------------------------------

-- vector3(), vector3(n), vector3(v3), vector3(x, y, z)
function vmath.vector3(x, y, z)
    if type(x) == "number" then
        if y == nil and z == nil then
            return V3(x, x, x)
        end
        if type(y) ~= "number" then
            y = numarg("vector3", 2, y)
        end
        if type(z) ~= "number" then
            z = numarg("vector3", 3, z)
        end
        return V3(x, y, z)
    end
    if y == nil and z == nil then
        if x == nil then
            return V3()
        end
        if istype(V3, x) then
            return V3(x.x, x.y, x.z)
        end
        if type(x) == "string" and tonumber(x) then
            local n = tonumber(x)
            return V3(n, n, n)
        end
        argerr("vector3", 1, "number or vector3", x)
    end
    x = numarg("vector3", 1, x)
    if type(y) ~= "number" then
        y = numarg("vector3", 2, y)
    end
    if type(z) ~= "number" then
        z = numarg("vector3", 3, z)
    end
    return V3(x, y, z)
end

-- vector4(), vector4(n), vector4(v4), vector4(x, y, z, w)
function vmath.vector4(x, y, z, w)
    if type(x) == "number" then
        if y == nil and z == nil and w == nil then
            return V4(x, x, x, x)
        end
        if type(y) ~= "number" then
            y = numarg("vector4", 2, y)
        end
        if type(z) ~= "number" then
            z = numarg("vector4", 3, z)
        end
        if type(w) ~= "number" then
            w = numarg("vector4", 4, w)
        end
        return V4(x, y, z, w)
    end
    if y == nil and z == nil and w == nil then
        if x == nil then
            return V4()
        end
        if istype(V4, x) then
            return V4(x.x, x.y, x.z, x.w)
        end
        if type(x) == "string" and tonumber(x) then
            local n = tonumber(x)
            return V4(n, n, n, n)
        end
        argerr("vector4", 1, "number or vector4", x)
    end
    x = numarg("vector4", 1, x)
    if type(y) ~= "number" then
        y = numarg("vector4", 2, y)
    end
    if type(z) ~= "number" then
        z = numarg("vector4", 3, z)
    end
    if type(w) ~= "number" then
        w = numarg("vector4", 4, w)
    end
    return V4(x, y, z, w)
end

-- quat() (identity), quat(q), quat(x, y, z, w)
function vmath.quat(x, y, z, w)
    if y == nil and z == nil and w == nil then
        if x == nil then
            return Q(0, 0, 0, 1)
        end
        if istype(Q, x) then
            return Q(x.x, x.y, x.z, x.w)
        end
        argerr("quat", 1, "quat", x)
    end
    if type(x) ~= "number" then
        x = numarg("quat", 1, x)
    end
    if type(y) ~= "number" then
        y = numarg("quat", 2, y)
    end
    if type(z) ~= "number" then
        z = numarg("quat", 3, z)
    end
    if type(w) ~= "number" then
        w = numarg("quat", 4, w)
    end
    return Q(x, y, z, w)
end

-- matrix4() (identity), matrix4(m)
function vmath.matrix4(m, extra)
    if extra ~= nil then
        argerr("matrix4", 2, "no value", extra)
    end
    if m == nil then
        return m4_identity()
    end
    if istype(M4, m) then
        return m4_copy(m)
    end
    argerr("matrix4", 1, "matrix4", m)
end

-- vector(table): values converted with tonumber, anything else becomes 0.
function vmath.vector(t)
    if t == nil then
        return VEC(0, 0)
    end
    if type(t) ~= "table" then
        argerr("vector", 1, "table", t)
    end
    local n = #t
    local r = VEC(n, n)
    local v = r.v
    for i = 1, n do
        v[i - 1] = tonumber(t[i]) or 0
    end
    return r
end

---------------------------------------------------------------------------------------------
-- vector functions
---------------------------------------------------------------------------------------------

function vmath.dot(a, b)
    if istype(V3, a) then
        if not istype(V3, b) then
            argerr("dot", 2, "vector3", b)
        end
        return a.x * b.x + a.y * b.y + a.z * b.z
    elseif istype(V4, a) then
        if not istype(V4, b) then
            argerr("dot", 2, "vector4", b)
        end
        return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w
    end
    argerr("dot", 1, "vector3 or vector4", a)
end

function vmath.cross(a, b)
    if not istype(V3, a) then
        argerr("cross", 1, "vector3", a)
    end
    if not istype(V3, b) then
        argerr("cross", 2, "vector3", b)
    end
    local ax, ay, az, bx, by, bz = a.x, a.y, a.z, b.x, b.y, b.z
    return V3(ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx)
end

function vmath.length_sqr(v)
    if istype(V3, v) then
        return v.x * v.x + v.y * v.y + v.z * v.z
    elseif istype(V4, v) or istype(Q, v) then
        return v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w
    end
    argerr("length_sqr", 1, "vector3, vector4 or quat", v)
end

function vmath.length(v)
    if istype(V3, v) then
        return sqrt(v.x * v.x + v.y * v.y + v.z * v.z)
    elseif istype(V4, v) or istype(Q, v) then
        return sqrt(v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w)
    end
    argerr("length", 1, "vector3, vector4 or quat", v)
end

function vmath.normalize(v)
    if istype(V3, v) then
        local x, y, z = v.x, v.y, v.z
        local s = 1 / sqrt(x * x + y * y + z * z)
        return V3(x * s, y * s, z * s)
    elseif istype(V4, v) then
        local x, y, z, w = v.x, v.y, v.z, v.w
        local s = 1 / sqrt(x * x + y * y + z * z + w * w)
        return V4(x * s, y * s, z * s, w * s)
    elseif istype(Q, v) then
        local x, y, z, w = v.x, v.y, v.z, v.w
        local s = 1 / sqrt(x * x + y * y + z * z + w * w)
        return Q(x * s, y * s, z * s, w * s)
    end
    argerr("normalize", 1, "vector3, vector4 or quat", v)
end

-- lerp(t, a, b) for numbers, vector3, vector4 and quat (no clamping, no normalisation).
function vmath.lerp(t, a, b)
    if type(t) ~= "number" then
        t = numarg("lerp", 1, t)
    end
    if type(a) == "number" then
        if type(b) ~= "number" then
            b = numarg("lerp", 3, b)
        end
        return a + t * (b - a)
    elseif istype(V3, a) then
        if not istype(V3, b) then
            argerr("lerp", 3, "vector3", b)
        end
        return V3(a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), a.z + t * (b.z - a.z))
    elseif istype(V4, a) then
        if not istype(V4, b) then
            argerr("lerp", 3, "vector4", b)
        end
        return V4(a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), a.z + t * (b.z - a.z), a.w + t * (b.w - a.w))
    elseif istype(Q, a) then
        if not istype(Q, b) then
            argerr("lerp", 3, "quat", b)
        end
        return Q(a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), a.z + t * (b.z - a.z), a.w + t * (b.w - a.w))
    end
    argerr("lerp", 2, "number, vector3, vector4 or quat", a)
end

local SLERP_TOL = 0.999

-- Weights of the two unit inputs of a slerp, given the cosine of the angle between them.
local function slerp_weights(t, c)
    if c < SLERP_TOL then
        if c < -1 then
            c = -1
        end
        local angle = acos(c)
        local rs = 1 / sin(angle)
        return sin((1 - t) * angle) * rs, sin(t * angle) * rs
    end
    return 1 - t, t
end

-- slerp(t, a, b): quats along the shortest path (Vectormath); vectors: the direction is slerped
-- between the normalised inputs and the length is lerped between the input lengths.
function vmath.slerp(t, a, b)
    if type(t) ~= "number" then
        t = numarg("slerp", 1, t)
    end
    if istype(Q, a) then
        if not istype(Q, b) then
            argerr("slerp", 3, "quat", b)
        end
        local ax, ay, az, aw = a.x, a.y, a.z, a.w
        local c = ax * b.x + ay * b.y + az * b.z + aw * b.w
        if c < 0 then
            c = -c
            ax, ay, az, aw = -ax, -ay, -az, -aw
        end
        local s0, s1 = slerp_weights(t, c)
        return Q(ax * s0 + b.x * s1, ay * s0 + b.y * s1, az * s0 + b.z * s1, aw * s0 + b.w * s1)
    elseif istype(V3, a) then
        if not istype(V3, b) then
            argerr("slerp", 3, "vector3", b)
        end
        local ax, ay, az, bx, by, bz = a.x, a.y, a.z, b.x, b.y, b.z
        local la = sqrt(ax * ax + ay * ay + az * az)
        local lb = sqrt(bx * bx + by * by + bz * bz)
        if la == 0 or lb == 0 then
            return V3(ax + t * (bx - ax), ay + t * (by - ay), az + t * (bz - az))
        end
        ax, ay, az = ax / la, ay / la, az / la
        bx, by, bz = bx / lb, by / lb, bz / lb
        local s0, s1 = slerp_weights(t, ax * bx + ay * by + az * bz)
        local l = la + t * (lb - la)
        return V3((ax * s0 + bx * s1) * l, (ay * s0 + by * s1) * l, (az * s0 + bz * s1) * l)
    elseif istype(V4, a) then
        if not istype(V4, b) then
            argerr("slerp", 3, "vector4", b)
        end
        local ax, ay, az, aw, bx, by, bz, bw = a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w
        local la = sqrt(ax * ax + ay * ay + az * az + aw * aw)
        local lb = sqrt(bx * bx + by * by + bz * bz + bw * bw)
        if la == 0 or lb == 0 then
            return V4(ax + t * (bx - ax), ay + t * (by - ay), az + t * (bz - az), aw + t * (bw - aw))
        end
        ax, ay, az, aw = ax / la, ay / la, az / la, aw / la
        bx, by, bz, bw = bx / lb, by / lb, bz / lb, bw / lb
        local s0, s1 = slerp_weights(t, ax * bx + ay * by + az * bz + aw * bw)
        local l = la + t * (lb - la)
        return V4((ax * s0 + bx * s1) * l, (ay * s0 + by * s1) * l, (az * s0 + bz * s1) * l, (aw * s0 + bw * s1) * l)
    end
    argerr("slerp", 2, "vector3, vector4 or quat", a)
end

function vmath.rotate(q, v)
    if not istype(Q, q) then
        argerr("rotate", 1, "quat", q)
    end
    if not istype(V3, v) then
        argerr("rotate", 2, "vector3", v)
    end
    local qx, qy, qz, qw = q.x, q.y, q.z, q.w
    local vx, vy, vz = v.x, v.y, v.z
    local tx = qw * vx + qy * vz - qz * vy
    local ty = qw * vy + qz * vx - qx * vz
    local tz = qw * vz + qx * vy - qy * vx
    local tw = qx * vx + qy * vy + qz * vz
    return V3(
        tw * qx + tx * qw - ty * qz + tz * qy,
        tw * qy + ty * qw - tz * qx + tx * qz,
        tw * qz + tz * qw - tx * qy + ty * qx)
end

-- project(v1, v2) = dot(v1, v2) / length_sqr(v2)
function vmath.project(a, b)
    if not istype(V3, a) then
        argerr("project", 1, "vector3", a)
    end
    if not istype(V3, b) then
        argerr("project", 2, "vector3", b)
    end
    local sq = b.x * b.x + b.y * b.y + b.z * b.z
    if sq == 0 then
        error("The second vmath.vector3 to vmath.project must have a length bigger than 0.", 2)
    end
    return (a.x * b.x + a.y * b.y + a.z * b.z) / sq
end

function vmath.mul_per_elem(a, b)
    if istype(V3, a) then
        if not istype(V3, b) then
            argerr("mul_per_elem", 2, "vector3", b)
        end
        return V3(a.x * b.x, a.y * b.y, a.z * b.z)
    elseif istype(V4, a) then
        if not istype(V4, b) then
            argerr("mul_per_elem", 2, "vector4", b)
        end
        return V4(a.x * b.x, a.y * b.y, a.z * b.z, a.w * b.w)
    end
    argerr("mul_per_elem", 1, "vector3 or vector4", a)
end

local function clamp1(v, lo, hi)
    if v < lo then
        v = lo
    end
    if v > hi then
        v = hi
    end
    return v
end

-- clamp(v, min, max): v a number, vector3 or vector4; min/max numbers or vectors of v's type.
function vmath.clamp(v, lo, hi)
    if type(v) == "number" then
        if type(lo) ~= "number" then
            lo = numarg("clamp", 2, lo)
        end
        if type(hi) ~= "number" then
            hi = numarg("clamp", 3, hi)
        end
        return clamp1(v, lo, hi)
    elseif istype(V3, v) then
        local lx, ly, lz, hx, hy, hz
        if type(lo) == "number" then
            lx, ly, lz = lo, lo, lo
        elseif istype(V3, lo) then
            lx, ly, lz = lo.x, lo.y, lo.z
        else
            argerr("clamp", 2, "number or vector3", lo)
        end
        if type(hi) == "number" then
            hx, hy, hz = hi, hi, hi
        elseif istype(V3, hi) then
            hx, hy, hz = hi.x, hi.y, hi.z
        else
            argerr("clamp", 3, "number or vector3", hi)
        end
        return V3(clamp1(v.x, lx, hx), clamp1(v.y, ly, hy), clamp1(v.z, lz, hz))
    elseif istype(V4, v) then
        local lx, ly, lz, lw, hx, hy, hz, hw
        if type(lo) == "number" then
            lx, ly, lz, lw = lo, lo, lo, lo
        elseif istype(V4, lo) then
            lx, ly, lz, lw = lo.x, lo.y, lo.z, lo.w
        else
            argerr("clamp", 2, "number or vector4", lo)
        end
        if type(hi) == "number" then
            hx, hy, hz, hw = hi, hi, hi, hi
        elseif istype(V4, hi) then
            hx, hy, hz, hw = hi.x, hi.y, hi.z, hi.w
        else
            argerr("clamp", 3, "number or vector4", hi)
        end
        return V4(clamp1(v.x, lx, hx), clamp1(v.y, ly, hy), clamp1(v.z, lz, hz), clamp1(v.w, lw, hw))
    end
    argerr("clamp", 1, "number, vector3 or vector4", v)
end

---------------------------------------------------------------------------------------------
-- quaternions
---------------------------------------------------------------------------------------------

function vmath.conj(q)
    if not istype(Q, q) then
        argerr("conj", 1, "quat", q)
    end
    return Q(-q.x, -q.y, -q.z, q.w)
end

-- Rotation of `angle` radians about `axis` (used as given, not normalised).
function vmath.quat_axis_angle(axis, angle)
    if not istype(V3, axis) then
        argerr("quat_axis_angle", 1, "vector3", axis)
    end
    if type(angle) ~= "number" then
        angle = numarg("quat_axis_angle", 2, angle)
    end
    local h = 0.5 * angle
    local s = sin(h)
    return Q(axis.x * s, axis.y * s, axis.z * s, cos(h))
end

function vmath.quat_basis(x, y, z)
    if not istype(V3, x) then
        argerr("quat_basis", 1, "vector3", x)
    end
    if not istype(V3, y) then
        argerr("quat_basis", 2, "vector3", y)
    end
    if not istype(V3, z) then
        argerr("quat_basis", 3, "vector3", z)
    end
    return quat_from_cols(x.x, x.y, x.z, y.x, y.y, y.z, z.x, z.y, z.z)
end

-- Rotation taking unit vector a to unit vector b (undefined when they are opposite).
function vmath.quat_from_to(a, b)
    if not istype(V3, a) then
        argerr("quat_from_to", 1, "vector3", a)
    end
    if not istype(V3, b) then
        argerr("quat_from_to", 2, "vector3", b)
    end
    local ax, ay, az, bx, by, bz = a.x, a.y, a.z, b.x, b.y, b.z
    local c2 = sqrt(2 * (1 + ax * bx + ay * by + az * bz))
    local r = 1 / c2
    return Q((ay * bz - az * by) * r, (az * bx - ax * bz) * r, (ax * by - ay * bx) * r, c2 * 0.5)
end

function vmath.quat_rotation_x(angle)
    if type(angle) ~= "number" then
        angle = numarg("quat_rotation_x", 1, angle)
    end
    local h = 0.5 * angle
    return Q(sin(h), 0, 0, cos(h))
end

function vmath.quat_rotation_y(angle)
    if type(angle) ~= "number" then
        angle = numarg("quat_rotation_y", 1, angle)
    end
    local h = 0.5 * angle
    return Q(0, sin(h), 0, cos(h))
end

function vmath.quat_rotation_z(angle)
    if type(angle) ~= "number" then
        angle = numarg("quat_rotation_z", 1, angle)
    end
    local h = 0.5 * angle
    return Q(0, 0, sin(h), cos(h))
end

-- Quaternion of the rotation in the upper 3x3 of m (assumed orthonormal).
function vmath.quat_matrix4(m)
    if not istype(M4, m) then
        argerr("quat_matrix4", 1, "matrix4", m)
    end
    local a = m.m
    return quat_from_cols(a[0], a[1], a[2], a[4], a[5], a[6], a[8], a[9], a[10])
end


-- Euler angles in degrees (YZX rotation order) of a unit quaternion, as Defold computes them:
-- single-axis rotations are exact; near the gimbal singularity (|x*y + z*w| > 0.4999, that is
-- |z| > ~88.85 degrees) z snaps to +-90 and x to 0.
function vmath.quat_to_euler(q)
    if not istype(Q, q) then
        argerr("quat_to_euler", 1, "quat", q)
    end
    local out = V3()
    F.quat_to_euler(q.x, q.y, q.z, q.w, out)
    return out.x, out.y, out.z
end

-- euler_to_quat(x, y, z) or euler_to_quat(v3): degrees -> quat, YZX rotation order.
function vmath.euler_to_quat(x, y, z)
    if istype(V3, x) then
        x, y, z = x.x, x.y, x.z
    else
        if type(x) ~= "number" then
            if y == nil and z == nil and type(x) ~= "string" then
                argerr("euler_to_quat", 1, "number or vector3", x)
            end
            x = numarg("euler_to_quat", 1, x)
        end
        if type(y) ~= "number" then
            y = numarg("euler_to_quat", 2, y)
        end
        if type(z) ~= "number" then
            z = numarg("euler_to_quat", 3, z)
        end
    end
    local q = Q()
    F.euler_to_quat(x, y, z, q)
    return q
end

---------------------------------------------------------------------------------------------
-- matrices
---------------------------------------------------------------------------------------------

function vmath.matrix4_axis_angle(axis, angle)
    if not istype(V3, axis) then
        argerr("matrix4_axis_angle", 1, "vector3", axis)
    end
    if type(angle) ~= "number" then
        angle = numarg("matrix4_axis_angle", 2, angle)
    end
    local x, y, z = axis.x, axis.y, axis.z
    local s, c = sin(angle), cos(angle)
    local k = 1 - c
    local xy, yz, zx = x * y, y * z, z * x
    return m4_set_cols(M4(),
        x * x * k + c, xy * k + z * s, zx * k - y * s, 0,
        xy * k - z * s, y * y * k + c, yz * k + x * s, 0,
        zx * k + y * s, yz * k - x * s, z * z * k + c, 0,
        0, 0, 0, 1)
end

-- translation * rotation * scale
function vmath.matrix4_compose(t, q, s)
    if not (istype(V3, t) or istype(V4, t)) then
        argerr("matrix4_compose", 1, "vector3 or vector4", t)
    end
    if not istype(Q, q) then
        argerr("matrix4_compose", 2, "quat", q)
    end
    if not istype(V3, s) then
        argerr("matrix4_compose", 3, "vector3", s)
    end
    local r = m4_from_quat(q.x, q.y, q.z, q.w)
    local m = r.m
    local sx, sy, sz = s.x, s.y, s.z
    m[0], m[1], m[2] = m[0] * sx, m[1] * sx, m[2] * sx
    m[4], m[5], m[6] = m[4] * sy, m[5] * sy, m[6] * sy
    m[8], m[9], m[10] = m[8] * sz, m[9] * sz, m[10] * sz
    m[12], m[13], m[14] = t.x, t.y, t.z
    return r
end

function vmath.matrix4_frustum(l, r, b, t, n, f)
    if type(l) ~= "number" then
        l = numarg("matrix4_frustum", 1, l)
    end
    if type(r) ~= "number" then
        r = numarg("matrix4_frustum", 2, r)
    end
    if type(b) ~= "number" then
        b = numarg("matrix4_frustum", 3, b)
    end
    if type(t) ~= "number" then
        t = numarg("matrix4_frustum", 4, t)
    end
    if type(n) ~= "number" then
        n = numarg("matrix4_frustum", 5, n)
    end
    if type(f) ~= "number" then
        f = numarg("matrix4_frustum", 6, f)
    end
    local irl, itb, inf = 1 / (r - l), 1 / (t - b), 1 / (n - f)
    local n2 = n + n
    return m4_set_cols(M4(),
        n2 * irl, 0, 0, 0,
        0, n2 * itb, 0, 0,
        (r + l) * irl, (t + b) * itb, (n + f) * inf, -1,
        0, 0, n2 * inf * f, 0)
end

-- View matrix (right-handed, camera looks down -Z), same as glam's camera::rh::view::look_at_mat4.
function vmath.matrix4_look_at(eye, target, up)
    if not istype(V3, eye) then
        argerr("matrix4_look_at", 1, "vector3", eye)
    end
    if not istype(V3, target) then
        argerr("matrix4_look_at", 2, "vector3", target)
    end
    if not istype(V3, up) then
        argerr("matrix4_look_at", 3, "vector3", up)
    end
    local ex, ey, ez = eye.x, eye.y, eye.z
    local zx, zy, zz = ex - target.x, ey - target.y, ez - target.z
    local s = 1 / sqrt(zx * zx + zy * zy + zz * zz)
    zx, zy, zz = zx * s, zy * s, zz * s
    local ux, uy, uz = up.x, up.y, up.z
    local xx, xy, xz = uy * zz - uz * zy, uz * zx - ux * zz, ux * zy - uy * zx
    s = 1 / sqrt(xx * xx + xy * xy + xz * xz)
    xx, xy, xz = xx * s, xy * s, xz * s
    local yx, yy, yz = zy * xz - zz * xy, zz * xx - zx * xz, zx * xy - zy * xx
    return m4_set_cols(M4(),
        xx, yx, zx, 0,
        xy, yy, zy, 0,
        xz, yz, zz, 0,
        -(xx * ex + xy * ey + xz * ez), -(yx * ex + yy * ey + yz * ez), -(zx * ex + zy * ey + zz * ez), 1)
end

-- OpenGL orthographic projection (depth to [-1, 1]), same as glam's camera::rh::proj::opengl::orthographic.
function vmath.matrix4_orthographic(l, r, b, t, n, f)
    if type(l) ~= "number" then
        l = numarg("matrix4_orthographic", 1, l)
    end
    if type(r) ~= "number" then
        r = numarg("matrix4_orthographic", 2, r)
    end
    if type(b) ~= "number" then
        b = numarg("matrix4_orthographic", 3, b)
    end
    if type(t) ~= "number" then
        t = numarg("matrix4_orthographic", 4, t)
    end
    if type(n) ~= "number" then
        n = numarg("matrix4_orthographic", 5, n)
    end
    if type(f) ~= "number" then
        f = numarg("matrix4_orthographic", 6, f)
    end
    local irl, itb, inf = 1 / (r - l), 1 / (t - b), 1 / (n - f)
    return m4_set_cols(M4(),
        irl + irl, 0, 0, 0,
        0, itb + itb, 0, 0,
        0, 0, inf + inf, 0,
        -(r + l) * irl, -(t + b) * itb, (n + f) * inf, 1)
end

-- OpenGL perspective projection (fov_y in radians), same as glam's camera::rh::proj::opengl::perspective.
function vmath.matrix4_perspective(fov, aspect, n, f)
    if type(fov) ~= "number" then
        fov = numarg("matrix4_perspective", 1, fov)
    end
    if type(aspect) ~= "number" then
        aspect = numarg("matrix4_perspective", 2, aspect)
    end
    if type(n) ~= "number" then
        n = numarg("matrix4_perspective", 3, n)
    end
    if type(f) ~= "number" then
        f = numarg("matrix4_perspective", 4, f)
    end
    local fy = 1 / tan(0.5 * fov)
    local inf = 1 / (n - f)
    return m4_set_cols(M4(),
        fy / aspect, 0, 0, 0,
        0, fy, 0, 0,
        0, 0, (n + f) * inf, -1,
        0, 0, 2 * n * f * inf, 0)
end

function vmath.matrix4_quat(q)
    if not istype(Q, q) then
        argerr("matrix4_quat", 1, "quat", q)
    end
    return m4_from_quat(q.x, q.y, q.z, q.w)
end

-- Older Defold name of matrix4_quat.
function vmath.matrix4_from_quat(q)
    if not istype(Q, q) then
        argerr("matrix4_from_quat", 1, "quat", q)
    end
    return m4_from_quat(q.x, q.y, q.z, q.w)
end

function vmath.matrix4_rotation_x(angle)
    if type(angle) ~= "number" then
        angle = numarg("matrix4_rotation_x", 1, angle)
    end
    local s, c = sin(angle), cos(angle)
    return m4_set_cols(M4(), 1, 0, 0, 0, 0, c, s, 0, 0, -s, c, 0, 0, 0, 0, 1)
end

function vmath.matrix4_rotation_y(angle)
    if type(angle) ~= "number" then
        angle = numarg("matrix4_rotation_y", 1, angle)
    end
    local s, c = sin(angle), cos(angle)
    return m4_set_cols(M4(), c, 0, -s, 0, 0, 1, 0, 0, s, 0, c, 0, 0, 0, 0, 1)
end

function vmath.matrix4_rotation_z(angle)
    if type(angle) ~= "number" then
        angle = numarg("matrix4_rotation_z", 1, angle)
    end
    local s, c = sin(angle), cos(angle)
    return m4_set_cols(M4(), c, s, 0, 0, -s, c, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1)
end

-- matrix4_scale(s), matrix4_scale(v3), matrix4_scale(sx, sy, sz)
function vmath.matrix4_scale(x, y, z)
    if istype(V3, x) then
        x, y, z = x.x, x.y, x.z
    elseif type(x) == "number" and y == nil and z == nil then
        y, z = x, x
    else
        if type(x) ~= "number" then
            if y == nil and z == nil and type(x) ~= "string" then
                argerr("matrix4_scale", 1, "number or vector3", x)
            end
            x = numarg("matrix4_scale", 1, x)
            if y == nil and z == nil then
                y, z = x, x
            end
        end
        if type(y) ~= "number" then
            y = numarg("matrix4_scale", 2, y)
        end
        if type(z) ~= "number" then
            z = numarg("matrix4_scale", 3, z)
        end
    end
    local r = M4()
    local m = r.m
    m[0], m[5], m[10], m[15] = x, y, z, 1
    return r
end

-- matrix4_translation(v3 or v4): the w of a vector4 is ignored.
function vmath.matrix4_translation(v)
    if not (istype(V3, v) or istype(V4, v)) then
        argerr("matrix4_translation", 1, "vector3 or vector4", v)
    end
    local r = m4_identity()
    local m = r.m
    m[12], m[13], m[14] = v.x, v.y, v.z
    return r
end

function vmath.inv(m)
    if not istype(M4, m) then
        argerr("inv", 1, "matrix4", m)
    end
    return m4_inverse(m)
end

function vmath.ortho_inv(m)
    if not istype(M4, m) then
        argerr("ortho_inv", 1, "matrix4", m)
    end
    return m4_ortho_inverse(m)
end

---------------------------------------------------------------------------------------------
-- module table
---------------------------------------------------------------------------------------------

M.vmath = vmath
M.vector3_t, M.vector4_t, M.quat_t, M.matrix4_t, M.vector_t = V3, V4, Q, M4, VEC

function M.vector3(x, y, z)
    return V3(x, y, z)
end

function M.vector4(x, y, z, w)
    return V4(x, y, z, w)
end

function M.quat(x, y, z, w)
    return Q(x, y, z, w)
end

M.matrix4 = m4_identity

function M.vector(n)
    return VEC(n, n)
end

M.type_name = type_name
M.format = format_value

if loaded then
    loaded[CACHE_KEY] = M
end

return M
