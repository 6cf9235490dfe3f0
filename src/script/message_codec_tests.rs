//! The Lua message decoder (msg.lua) against Rust's (`scene::message`), fed the same data:
//! messages of random shape, then each cut short, with a byte changed and with bytes added.
//! Both must accept the same data and decode it to the same values (issue 31: the Lua decoder
//! checked no lengths and read past the data).
use super::{SHARED_KEY, ScriptHost};
use crate::game::World;
use crate::project::Resources;
use crate::scene::Url;
use crate::scene::message::{KEYS, Key, MsgValue, RECORDS, decode, encode, tag};
use std::cell::RefCell;
use std::rc::Rc;

/// xorshift64*: a fixed sequence, so a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn f32(&mut self) -> f32 {
        if self.below(8) == 0 { f32::from_bits(self.next() as u32) } else { self.below(2000) as f32 / 8.0 - 100.0 }
    }
}

fn value(rng: &mut Rng, depth: u32) -> MsgValue {
    let kinds = if depth < 3 { 11 } else { 10 };
    match rng.below(kinds) {
        0 => MsgValue::Bool(false),
        1 => MsgValue::Bool(true),
        2 if rng.below(4) == 0 => MsgValue::Number(f64::from_bits(rng.next())),
        2 => MsgValue::Number(rng.below(100_000) as f64 / 16.0),
        3 if rng.below(4) == 0 => MsgValue::Key(Key::ALL[rng.below(Key::ALL.len())]),
        3 => MsgValue::String((0..rng.below(12)).map(|_| char::from(b' ' + rng.below(95) as u8)).collect()),
        4 => MsgValue::Hash(rng.next()),
        5 => MsgValue::Url(Url { socket: rng.next(), path: rng.next(), fragment: rng.next() }),
        6 => MsgValue::Vector3([rng.f32(), rng.f32(), rng.f32()]),
        7 => MsgValue::Vector4([rng.f32(), rng.f32(), rng.f32(), rng.f32()]),
        8 => MsgValue::Quat([rng.f32(), rng.f32(), rng.f32(), rng.f32()]),
        9 => MsgValue::Matrix4(std::array::from_fn(|_| rng.f32())),
        _ => table(rng, depth + 1),
    }
}

/// A table with distinct string and number keys.
fn table(rng: &mut Rng, depth: u32) -> MsgValue {
    let n = rng.below(5);
    MsgValue::Table(
        (0..n)
            .map(|i| {
                let key = if rng.below(2) == 0 {
                    MsgValue::String(format!("k{i}"))
                } else {
                    MsgValue::Number(i as f64 + 1.0)
                };
                (key, value(rng, depth))
            })
            .collect(),
    )
}

fn num(x: f64) -> String {
    if x.is_nan() { "nan".into() } else { format!("{}ULL", x.to_bits()) }
}

fn floats(tag: &str, v: &[f32]) -> String {
    format!("{tag}({})", v.iter().map(|&x| num(f64::from(x))).collect::<Vec<_>>().join(","))
}

/// The text the Lua `render` below makes of the same value, or None where a Lua table cannot
/// hold it as Rust does (a NaN key, a key given twice, a string that was not UTF-8).
fn render(v: &MsgValue) -> Option<String> {
    Some(match v {
        MsgValue::Bool(b) => b.to_string(),
        MsgValue::Number(x) => format!("n{}", num(*x)),
        MsgValue::String(s) if s.contains('\u{fffd}') => return None,
        MsgValue::String(s) => format!("s{}", s.bytes().map(|b| format!("{b:02x}")).collect::<String>()),
        MsgValue::Key(k) => render(&MsgValue::String(KEYS[*k as usize].to_string()))?,
        MsgValue::Hash(h) => format!("h{h}ULL"),
        MsgValue::Url(u) => format!("u{}ULL/{}ULL/{}ULL", u.socket, u.path, u.fragment),
        MsgValue::Vector3(a) => floats("v3", a),
        MsgValue::Vector4(a) => floats("v4", a),
        MsgValue::Quat(a) => floats("q", a),
        MsgValue::Matrix4(a) => floats("m", a),
        MsgValue::Table(pairs) => {
            let mut plain: Vec<String> = Vec::new();
            let mut items = Vec::new();
            for (k, x) in pairs {
                if matches!(k, MsgValue::Number(n) if n.is_nan()) {
                    return None;
                }
                // A Lua table keeps -0 and 0 as one key, 0.
                let key = match k {
                    MsgValue::Number(n) if *n == 0.0 => render(&MsgValue::Number(0.0))?,
                    _ => render(k)?,
                };
                // Keys Lua compares by value (others are cdata or tables, each a key of its own).
                let by_value = matches!(
                    k,
                    MsgValue::Bool(_)
                        | MsgValue::Number(_)
                        | MsgValue::String(_)
                        | MsgValue::Key(_)
                        | MsgValue::Hash(_)
                );
                if by_value {
                    let same = match k {
                        MsgValue::Number(n) if *n == 0.0 => "n0".to_string(),
                        _ => key.clone(),
                    };
                    if plain.contains(&same) {
                        return None;
                    }
                    plain.push(same);
                }
                items.push(format!("{key}={}", render(x)?));
            }
            items.sort();
            format!("{{{}}}", items.join(","))
        }
    })
}

const LUA_RENDER: &str = r##"
local S = ...
local ffi = require("ffi")
local box = ffi.new("double[1]")
local function num(x)
  if x ~= x then return "nan" end
  box[0] = x
  return tostring(ffi.cast("uint64_t *", box)[0])
end
local function floats(tag, ...)
  local out = {}
  for i = 1, select("#", ...) do out[i] = num((select(i, ...))) end
  return tag .. "(" .. table.concat(out, ",") .. ")"
end
local render
render = function(v)
  local t = type(v)
  if t == "boolean" then return tostring(v) end
  if t == "number" then return "n" .. num(v) end
  if t == "string" then return "s" .. v:gsub(".", function(c) return string.format("%02x", c:byte()) end) end
  if t == "table" then
    local items = {}
    for k, x in pairs(v) do items[#items + 1] = render(k) .. "=" .. render(x) end
    table.sort(items)
    return "{" .. table.concat(items, ",") .. "}"
  end
  if ffi.istype(S.hash_t, v) then return "h" .. tostring(v.h) end
  if ffi.istype(S.url_t, v) then return "u" .. tostring(v.s) .. "/" .. tostring(v.p) .. "/" .. tostring(v.f) end
  local vt = S.vm.type_name(v)
  if vt == "vector3" then return floats("v3", v.x, v.y, v.z) end
  if vt == "vector4" then return floats("v4", v.x, v.y, v.z, v.w) end
  if vt == "quat" then return floats("q", v.x, v.y, v.z, v.w) end
  if vt == "matrix4" then
    local m = {}
    for i = 0, 15 do m[i + 1] = v.m[i] end
    return floats("m", unpack(m))
  end
  error("unexpected value " .. tostring(v))
end
return function(data)
  local ok, v = pcall(S.decode_message, ffi.cast("const uint8_t *", data), #data)
  if not ok then return false, tostring(v) end
  return true, render(v)
end
"##;

#[test]
fn lua_decoder_agrees_with_rust_on_valid_and_broken_messages() {
    let dir = std::env::temp_dir().join(format!("sinew-codec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let res = Resources::open_dir(&dir).expect("resources");
    let host = ScriptHost::new(Rc::new(RefCell::new(World::new("main"))), res).expect("lua");
    let lua = host.lua();
    let shared: mlua::Table = lua.named_registry_value(SHARED_KEY).expect("runtime table");
    let lua_decode: mlua::Function = lua.load(LUA_RENDER).call(shared).expect("render");
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let (mut compared, mut refused) = (0, 0);
    for round in 0..1500 {
        let mut good = Vec::new();
        match round % 3 {
            // An engine record (physics' messages), alone or as a table's value.
            1 | 2 => {
                let mut record = vec![tag::RECORD, rng.below(RECORDS.len()) as u8];
                for _ in 0..RECORDS[record[1] as usize].len() {
                    encode(&value(&mut rng, 2), &mut record);
                }
                if round % 3 == 2 {
                    good.extend_from_slice(&[tag::TABLE, 1, 0, 0, 0]);
                    encode(&MsgValue::String("k".into()), &mut good);
                }
                good.extend_from_slice(&record);
            }
            _ => encode(&table(&mut rng, 1), &mut good),
        }
        let mut cases = vec![good.clone()];
        for _ in 0..3 {
            cases.push(good[..rng.below(good.len())].to_vec());
            let mut flipped = good.clone();
            let at = rng.below(flipped.len());
            flipped[at] = rng.next() as u8;
            cases.push(flipped);
        }
        let mut longer = good.clone();
        longer.extend((0..1 + rng.below(8)).map(|_| rng.next() as u8));
        cases.push(longer);
        for data in cases {
            let (ok, text): (bool, String) =
                lua_decode.call(lua.create_string(&data).expect("string")).expect("lua decode");
            match decode(&data) {
                Ok(v) => {
                    let Some(want) = render(&v) else { continue };
                    assert!(ok, "Lua refused what Rust decodes ({text}): {data:?}");
                    assert_eq!(text, want, "{data:?}");
                    compared += 1;
                }
                Err(e) => {
                    assert!(!ok, "Lua decoded what Rust refuses ({e}): {data:?} -> {text}");
                    refused += 1;
                }
            }
        }
    }
    assert!(compared > 3000 && refused > 3000, "compared {compared}, refused {refused}");
}
