//! Mutation fuzzing on stable Rust, as ordinary tests: the repo's generated models and example
//! project files are mutated by a seeded generator and fed to each parser inside `catch_unwind`.
//! A panic fails the test with the input saved for a regression test; an abort (the allocator
//! giving up, a stack overflow) kills the test binary, which fails the run just as surely.
//!
//! Each target runs for `SINEW_FUZZ_SECONDS` (default 3) and prints how many inputs it tried;
//! `SINEW_FUZZ_SEED` picks another sequence. Input `n` of a target depends only on the seed and
//! `n`, so a failure names what reproduces it.
use base64::Engine;
use sinew::project::Resources;
use sinew::project::collection::{load_collection, load_model_file};
use sinew::project::gltf::{import_bytes, samples, writer};
use sinew::project::material::parse_material;
use sinew::scene::message::{self, MsgValue};
use sinew::scene::url::{self, Context, Url};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// splitmix64: tiny, fast, and the same everywhere (no crate, no platform RNG).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
    fn pick<'a, T>(&mut self, list: &'a [T]) -> &'a T {
        &list[self.below(list.len())]
    }
}

fn seconds() -> f64 {
    std::env::var("SINEW_FUZZ_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(3.0)
}

fn base_seed() -> u64 {
    std::env::var("SINEW_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5EED)
}

/// Numbers that make counts, offsets, indices and lengths hostile when written over a JSON number.
const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "3",
    "255",
    "256",
    "257",
    "65535",
    "65536",
    "1000000",
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "9007199254740993",
    "18446744073709551615",
    "18446744073709551616",
    "1e308",
    "-1e308",
    "1e-320",
    "0.5",
    "5126",
    "5123",
    "5121",
];

const BYTES: &[u8] = &[0x00, 0xFF, 0x7F, 0x80, 0x01, b'9', b'"', b'{', b'[', b']', b'}', b',', b':', b'-', b'e'];

/// Overwrites one JSON number (a run of digits) with one of `NUMBERS`.
fn mutate_number(rng: &mut Rng, text: &mut Vec<u8>) {
    let starts: Vec<usize> =
        (0..text.len()).filter(|&i| text[i].is_ascii_digit() && (i == 0 || !text[i - 1].is_ascii_digit())).collect();
    if starts.is_empty() {
        return;
    }
    let at = *rng.pick(&starts);
    let end = (at..text.len()).find(|&i| !text[i].is_ascii_digit() && text[i] != b'.').unwrap_or(text.len());
    text.splice(at..end, rng.pick(NUMBERS).bytes());
}

/// One to four mutations: bit flips, interesting bytes, numbers, cut, duplicated or spliced ranges.
fn mutate(rng: &mut Rng, seed: &[u8], other: &[u8]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = b.len().max(1);
        match rng.below(8) {
            0 => {
                let at = rng.below(b.len());
                if let Some(x) = b.get_mut(at) {
                    *x ^= 1 << rng.below(8);
                }
            }
            1 => {
                let at = rng.below(b.len());
                let v = *rng.pick(BYTES);
                if let Some(x) = b.get_mut(at) {
                    *x = v;
                }
            }
            2 | 3 => mutate_number(rng, &mut b),
            4 => b.truncate(rng.below(len)),
            5 => {
                // Duplicate a range in place: repeated array elements, repeated chunks.
                let at = rng.below(b.len());
                let n = rng.below((b.len() - at.min(b.len())).min(256) + 1);
                let piece: Vec<u8> = b.get(at..at + n).map(<[u8]>::to_vec).unwrap_or_default();
                for _ in 0..1 + rng.below(8) {
                    b.splice(at..at, piece.iter().copied());
                }
            }
            6 => {
                let at = rng.below(b.len());
                let n = rng.below(64).min(b.len() - at.min(b.len()));
                b.drain(at..at + n);
            }
            _ => {
                let from = rng.below(other.len());
                let n = rng.below(128).min(other.len() - from.min(other.len()));
                let at = rng.below(b.len() + 1);
                b.splice(at..at, other[from..from + n].iter().copied());
            }
        }
    }
    b
}

/// A mutant of one seed, splicing from another.
/// [`mutate_any`], noting in `which` the seed mutated, for targets whose seeds are different
/// files (the check puts the mutant in that seed's place).
fn mutate_noting(which: &std::cell::Cell<usize>) -> impl FnMut(&mut Rng, &[Vec<u8>]) -> Vec<u8> + '_ {
    |rng, seeds| {
        let k = rng.below(seeds.len());
        which.set(k);
        let other = rng.below(seeds.len());
        mutate(rng, &seeds[k], &seeds[other])
    }
}

fn mutate_any(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let (a, b) = (rng.below(seeds.len()), rng.below(seeds.len()));
    mutate(rng, &seeds[a], &seeds[b])
}

/// A GLB from JSON text and a BIN chunk, lengths made consistent, so that mutating the JSON reaches
/// the importer instead of stopping at the container check.
fn wrap_glb(json: &[u8], bin: &[u8]) -> Vec<u8> {
    sinew::project::gltf::writer::glb_bytes(json, bin)
}

/// Runs `check` on mutants of `seeds` until the time is up. `check` returns whether the input was
/// accepted, or `Err` for a broken property; a panic is caught and counted as a crash.
fn fuzz(
    name: &str,
    seeds: &[Vec<u8>],
    mut make: impl FnMut(&mut Rng, &[Vec<u8>]) -> Vec<u8>,
    check: impl Fn(&[u8]) -> Result<bool, String>,
) {
    assert!(!seeds.is_empty(), "{name}: no seeds");
    for (i, s) in seeds.iter().enumerate() {
        assert_eq!(check(s), Ok(true), "{name}: seed {i} is not accepted as it is");
    }
    let limit = Duration::from_secs_f64(seconds());
    let start = Instant::now();
    let (mut tried, mut accepted) = (0u64, 0u64);
    let mut crashes: Vec<String> = Vec::new();
    while start.elapsed() < limit {
        let mut rng = Rng(base_seed() ^ tried.wrapping_mul(0x2545_F491_4F6C_DD1D));
        let input = make(&mut rng, seeds);
        match catch_unwind(AssertUnwindSafe(|| check(&input))) {
            Ok(Ok(ok)) => accepted += u64::from(ok),
            Ok(Err(e)) => {
                let file = save(name, tried, &input);
                crashes.push(format!("input {tried}: {e} (saved to {})", file.display()));
            }
            Err(payload) => {
                let file = save(name, tried, &input);
                let what = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                crashes.push(format!("input {tried} panicked: {what} (saved to {})", file.display()));
            }
        }
        tried += 1;
    }
    println!(
        "fuzz {name}: {tried} inputs in {:.1} s (seed {}), {accepted} accepted, {} crashes",
        start.elapsed().as_secs_f64(),
        base_seed(),
        crashes.len()
    );
    assert!(tried > 0, "{name}: no input tried");
    assert!(crashes.is_empty(), "{name}: {} crashes:\n{}", crashes.len(), crashes.join("\n"));
}

fn save(name: &str, n: u64, input: &[u8]) -> PathBuf {
    let p = std::env::temp_dir().join(format!("sinew-fuzz-{name}-{n}.bin"));
    let _ = std::fs::write(&p, input);
    p
}

fn gltf_seeds() -> Vec<Vec<u8>> {
    let mut seeds = vec![
        samples::textured_cube(),
        samples::two_meshes(),
        samples::textured_grid(3, 2),
        samples::morph_face(),
        samples::wiggler(),
    ];
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("content/models");
    let mut committed: Vec<PathBuf> =
        std::fs::read_dir(&dir).map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
    // Only the glTF files: the mannequin's .obj/.mtl/.bon are no glTF seeds.
    committed.retain(|p| p.extension().is_some_and(|e| e == "glb" || e == "gltf"));
    committed.sort();
    // The big generated humanoid makes each try slow; the small models reach the same code.
    for p in committed {
        if let Ok(b) = std::fs::read(&p)
            && b.len() < 200_000
        {
            seeds.push(b);
        }
    }
    // The .gltf form (JSON with a base64 buffer) reaches the data-URI and text paths.
    if let Some((j, bin)) = writer::unglb(&samples::textured_cube()) {
        let mut j = j;
        let b64 = base64::engine::general_purpose::STANDARD.encode(&bin);
        j["buffers"][0]["uri"] = serde_json::json!(format!("data:application/octet-stream;base64,{b64}"));
        seeds.push(j.to_string().into_bytes());
    }
    seeds
}

/// Repeats one element of a random JSON array up to 100,000 times: the hostile files of issue 6
/// (a million morph targets, nodes or channels naming one accessor) are made this way.
fn grow_array(rng: &mut Rng, j: &mut serde_json::Value) {
    use serde_json::Value;
    // Walk down on a shared borrow, noting the way as a JSON pointer, then take that one mutably.
    let mut pointer = String::new();
    let mut at: &Value = j;
    for _ in 0..8 {
        let next = match at {
            Value::Object(m) if !m.is_empty() => m.iter().nth(rng.below(m.len())).map(|(k, v)| {
                pointer.push('/');
                pointer.push_str(&k.replace('~', "~0").replace('/', "~1"));
                v
            }),
            Value::Array(a) if !a.is_empty() && rng.below(3) > 0 => {
                let k = rng.below(a.len());
                pointer.push_str(&format!("/{k}"));
                a.get(k)
            }
            _ => None,
        };
        match next {
            Some(n) => at = n,
            None => break,
        }
    }
    if let Some(Value::Array(a)) = j.pointer_mut(&pointer)
        && let Some(e) = a.get(rng.below(a.len())).cloned()
    {
        let n = *rng.pick(&[2, 300, 5000, 100_000]);
        a.extend(std::iter::repeat_n(e, n));
    }
}

/// Mutates a GLB's JSON chunk (re-wrapped so the container stays valid), or its raw bytes.
fn mutate_gltf(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let seed = rng.pick(seeds).clone();
    let other = rng.pick(seeds).clone();
    match (rng.below(16), writer::unglb(&seed)) {
        (0..=3, _) | (_, None) => mutate(rng, &seed, &other),
        (4, Some((mut j, bin))) => {
            grow_array(rng, &mut j);
            wrap_glb(j.to_string().as_bytes(), &bin)
        }
        (_, Some((j, bin))) => {
            let text = j.to_string().into_bytes();
            let other_text = writer::unglb(&other).map(|(o, _)| o.to_string().into_bytes()).unwrap_or(other);
            wrap_glb(&mutate(rng, &text, &other_text), &bin)
        }
    }
}

#[test]
fn fuzz_gltf_import() {
    let seeds = gltf_seeds();
    fuzz("gltf", &seeds, mutate_gltf, |b| {
        // The error text must stay short: hostile lists are quoted, not printed whole.
        match import_bytes("/f/t.glb", b, None) {
            Ok(m) => {
                // What the renderer and animation code trust without checking again.
                for mesh in &m.meshes {
                    for p in &mesh.primitives {
                        let n = p.positions.len();
                        if p.indices.iter().any(|&i| i as usize >= n) || p.normals.len() != n {
                            return Err(format!(
                                "mesh {}: an index or normal count does not fit {n} vertices",
                                mesh.id
                            ));
                        }
                        if p.targets.len() != mesh.weights.len() {
                            return Err(format!(
                                "mesh {}: {} targets, {} weights",
                                mesh.id,
                                p.targets.len(),
                                mesh.weights.len()
                            ));
                        }
                    }
                }
                for c in m.animations.iter().flat_map(|a| &a.channels) {
                    if c.times.windows(2).any(|w| w[1] <= w[0]) {
                        return Err("key times do not increase".into());
                    }
                }
                Ok(true)
            }
            Err(e) if e.to_string().len() > 4000 => Err(format!("a {}-byte error", e.to_string().len())),
            Err(_) => Ok(false),
        }
    });
}

/// A project folder whose files are the seeds; each try rewrites one of them.
struct Project {
    dir: PathBuf,
    files: Vec<(&'static str, Vec<u8>)>,
    res: Resources,
}

impl Project {
    fn new(tag: &str, files: &[(&'static str, &str)]) -> Project {
        let dir = std::env::temp_dir().join(format!("sinew-fuzz-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (p, text) in files {
            let path = dir.join(p.trim_start_matches('/'));
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(&path, text).expect("write seed");
        }
        let res = Resources::open_dir(&dir).expect("open the fuzz project");
        Project { dir, files: files.iter().map(|(p, t)| (*p, t.as_bytes().to_vec())).collect(), res }
    }
    fn put(&self, path: &str, bytes: &[u8]) {
        std::fs::write(self.dir.join(path.trim_start_matches('/')), bytes).expect("write mutant");
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

const MAIN: &str = r#"{
  "name": "main",
  "objects": [
    { "id": "hero", "position": [0, 0, 0], "rotation": [0, 0, 0, 1], "scale": [1, 1, 1],
      "prototype": "/main/hero.go",
      "components": [
        { "id": "script", "type": "script", "script": "/main/hero.script",
          "properties": { "speed": 3.0, "target": [1, 2, 3], "name": "hash:x" } },
        { "id": "model", "type": "model", "model": "/main/hero.model" },
        { "id": "light", "type": "light", "kind": "point", "intensity": 0.9, "color": [1, 0.9, 0.8] },
        { "id": "cam", "type": "camera" }
      ],
      "children": [ { "id": "sword", "euler": [0, 90, 0], "position": [0.2, 1, 0], "components": [] } ] }
  ],
  "collections": [ { "id": "level", "collection": "/main/level.collection", "position": [10, 0, 0] } ]
}"#;

const MODEL: &str = r#"{
  "mesh": "/models/wiggler.glb",
  "skeleton": "/models/wiggler.glb",
  "animations": ["/models/wiggler.glb"],
  "default_animation": "wiggle",
  "material": "/main/hero.material",
  "textures": { "tex0": "/models/wiggler.png" },
  "create_go_bones": true
}"#;

const GO: &str = r#"{ "components": [ { "id": "script", "type": "script", "script": "/main/hero.script" } ] }"#;
const LEVEL: &str = r#"{ "objects": [ { "id": "door", "position": [1, 0, 0], "children": [ { "id": "knob" } ] } ] }"#;

fn project_files() -> Vec<(&'static str, &'static str)> {
    vec![
        ("/main/main.collection", MAIN),
        ("/main/hero.go", GO),
        ("/main/hero.script", "function update(self, dt) end"),
        ("/main/hero.model", MODEL),
        ("/main/hero.material", include_str!("../builtins/materials/model.material")),
        ("/main/level.collection", LEVEL),
    ]
}

#[test]
fn fuzz_collection_go_and_model_files() {
    let p = Project::new("collection", &project_files());
    let targets = ["/main/main.collection", "/main/hero.go", "/main/hero.model", "/main/level.collection"];
    let seeds: Vec<Vec<u8>> =
        targets.iter().filter_map(|t| p.files.iter().find(|(n, _)| n == t)).map(|(_, b)| b.clone()).collect();
    let which = std::cell::Cell::new(0usize);
    fuzz("collection", &seeds, mutate_noting(&which), |b| {
        // The seeds themselves are checked first, each in its own place.
        let k = seeds.iter().position(|s| s == b).unwrap_or(which.get());
        let name = targets[k];
        p.put(name, b);
        let r = if name.ends_with(".model") {
            load_model_file(&p.res, name).map(|_| ())
        } else {
            load_collection(&p.res, "/main/main.collection").map(|_| ())
        };
        if let Some(seed) = seeds.get(k) {
            p.put(name, seed);
        }
        match r {
            Ok(()) => Ok(true),
            Err(e) if e.to_string().len() > 4000 => Err(format!("a {}-byte error", e.to_string().len())),
            Err(_) => Ok(false),
        }
    });
}

#[test]
fn fuzz_material_files() {
    let seeds = vec![
        include_bytes!("../builtins/materials/model.material").to_vec(),
        br#"{ "vertex_program": "/a.vp", "fragment_program": "/a.fp",
              "vertex_constants": { "u": [1, 2, 3, 4] }, "fragment_constants": { "tint": [1, 1, 1, 1] },
              "samplers": { "tex0": { "wrap": "clamp", "filter": "linear_mipmap_linear" } } }"#
            .to_vec(),
    ];
    fuzz("material", &seeds, mutate_any, |b| {
        let text = String::from_utf8_lossy(b);
        match parse_material("/m.material", &text) {
            Ok(m) => {
                let _ = m.constants();
                Ok(true)
            }
            Err(_) => Ok(false),
        }
    });
}

#[test]
fn fuzz_url_parsing() {
    let seeds: Vec<Vec<u8>> = ["main:/go#script", "/go", "#sprite", ".", "#", "", "other:/a/b/c#d", "child", "main:"]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
    let ctx = Context { socket: 11, prefix: "/level/", path: 22, fragment: 33 };
    fuzz("url", &seeds, mutate_any, |b| {
        let s = String::from_utf8_lossy(b);
        match url::parse(&s, &ctx) {
            Ok(u) => {
                let _ = url::format(&u);
                Ok(true)
            }
            Err(_) => Ok(false),
        }
    });
}

/// OBJ and `.bon` text (issue 32): every seed is given to both parsers, and whatever parses is
/// rigged with the other format's fixed sample, so the weights kernel sees mutated rigs and
/// mutated meshes. A rig has one weight pair per `v` line, summing to one, naming real bones.
#[test]
fn fuzz_obj_and_bon_files() {
    use sinew::project::bon::{parse, rig, sample};
    use sinew::project::obj;
    let (mesh, bones) = (sample::figure_obj(2, 4), sample::figure_bon("figure.obj"));
    let seeds = vec![
        mesh.clone().into_bytes(),
        bones.clone().into_bytes(),
        b"v 0 0 0\nv 1 0 0\nv 1 1 0\nvt 0 0\nvn 0 0 1\ng a\nf 1/1/1 2/1/1 3/1/1 -1\no b\nusemtl m\nf -3 -2 -1\n"
            .to_vec(),
    ];
    let fixed_mesh = obj::parse("/f/figure.obj", &mesh, None).expect("the sample OBJ parses");
    let fixed_bones = parse::parse("/f/figure.bon", &bones).expect("the sample rig parses");
    let rigged = |b: &sinew::project::bon::BonImport| -> Result<(), String> {
        for w in &b.weights {
            let sum: f64 = w.weights.iter().sum();
            if (sum - 1.0).abs() > 1e-9 || w.bones.iter().any(|&k| k as usize >= b.file.bones.len()) {
                return Err(format!("bad weights {w:?} ({} bones)", b.file.bones.len()));
            }
        }
        Ok(())
    };
    fuzz("obj_bon", &seeds, mutate_any, |b| {
        let text = String::from_utf8_lossy(b);
        let mut accepted = false;
        if let Ok(o) = obj::parse("/f/figure.obj", &text, None) {
            accepted = true;
            let n = o.positions.len();
            let r = rig(fixed_bones.clone(), o);
            if r.weights.len() != n {
                return Err(format!("{} weights for {n} vertices", r.weights.len()));
            }
            rigged(&r)?;
        }
        if let Ok(f) = parse::parse("/f/figure.bon", &text) {
            accepted = true;
            rigged(&rig(f, fixed_mesh.clone()))?;
        }
        Ok(accepted)
    });
}

fn message_seeds() -> Vec<Vec<u8>> {
    let s = |t: &str| MsgValue::String(t.into());
    let values = [
        MsgValue::Table(vec![]),
        MsgValue::Table(vec![
            (s("id"), MsgValue::Hash(0xDEAD_BEEF)),
            (MsgValue::Number(1.0), MsgValue::Bool(true)),
            (s("pos"), MsgValue::Vector3([1.0, 2.0, 3.0])),
            (s("q"), MsgValue::Quat([0.0, 0.0, 0.0, 1.0])),
            (s("v4"), MsgValue::Vector4([1.0; 4])),
            (s("m"), MsgValue::Matrix4([0.5; 16])),
            (s("url"), MsgValue::Url(Url { socket: 1, path: 2, fragment: 3 })),
            (s("nested"), MsgValue::Table(vec![(s("deeper"), MsgValue::Table(vec![(s("x"), MsgValue::Bool(false))]))])),
        ]),
    ];
    values
        .iter()
        .map(|v| {
            let mut out = Vec::new();
            message::encode(v, &mut out);
            out
        })
        .collect()
}

#[test]
fn fuzz_message_decoder_and_encoder() {
    let seeds = message_seeds();
    fuzz("message", &seeds, mutate_any, |b| {
        let Ok(v) = message::decode(b) else { return Ok(false) };
        // Whatever decodes re-encodes to bytes that decode to the same encoding (strings are
        // made valid UTF-8 on the first decode, so the first encoding is the fixed point).
        let mut once = Vec::new();
        message::encode(&v, &mut once);
        let again = message::decode(&once).map_err(|e| format!("re-encoded message does not decode: {e}"))?;
        let mut twice = Vec::new();
        message::encode(&again, &mut twice);
        if once != twice {
            return Err("encode(decode(x)) is not stable".into());
        }
        Ok(true)
    });
}

/// Sound files (issue 37): generated WAVs of every sample format Sinew reads and the Ogg Vorbis
/// fixture, mutated; whatever decodes must be one or two channels of whole frames within -1..1.
#[test]
fn fuzz_sound_files() {
    use sinew::project::sound::{decode, encode_wav_float, encode_wav16, tone};
    let t = tone(8000, 440.0, 0.02, 0.5);
    let mut seeds = vec![
        encode_wav16(8000, 1, &t),
        encode_wav_float(8000, 2, &[t.clone(), t.clone()].concat()),
        include_bytes!("data/sound/tone.ogg").to_vec(),
    ];
    for (bits, format) in [(8, hound::SampleFormat::Int), (24, hound::SampleFormat::Int)] {
        let spec = hound::WavSpec { channels: 1, sample_rate: 8000, bits_per_sample: bits, sample_format: format };
        let mut buf = std::io::Cursor::new(Vec::new());
        let mut w = hound::WavWriter::new(&mut buf, spec).expect("writer");
        for s in &t[..64] {
            w.write_sample((s * 100.0) as i32).expect("sample");
        }
        w.finalize().expect("finalize");
        seeds.push(buf.into_inner());
    }
    fuzz("sound", &seeds, mutate_any, |b| match decode("/s.wav", b) {
        Ok(d) => {
            if !(1..=2).contains(&d.channels) || d.samples.len() % d.channels as usize != 0 {
                return Err(format!("{} channels, {} samples", d.channels, d.samples.len()));
            }
            if d.samples.iter().any(|s| !(-1.0..=1.0).contains(s)) {
                return Err("a sample outside -1..1".into());
            }
            Ok(true)
        }
        Err(e) if e.resource == "/s.wav" => Ok(false),
        Err(e) => Err(format!("the error names {} instead of the file", e.resource)),
    });
}

/// BMFont `.fnt` text files (a `.font` may name one) over an 8x8 page: an accepted file has every
/// glyph's rectangle on its page, and each glyph rasterises at any scale to a bitmap of its
/// stated size (or none); a refusal names the file.
#[test]
fn fuzz_bmfont_files() {
    use sinew::project::font::bmfont::{PageImage, parse};
    let seeds = vec![
        b"info face=\"T\" size=-16\ncommon lineHeight=20 base=15 scaleW=8 scaleH=8 pages=1\npage id=0 file=\"t.png\"\n\
          chars count=2\nchar id=65 x=0 y=0 width=4 height=8 xoffset=1 yoffset=11 xadvance=9 page=0 chnl=15\n\
          char id=66 x=4 y=0 width=4 height=8 xoffset=0 yoffset=0 xadvance=7 page=0 chnl=15\n\
          kernings count=1\nkerning first=65 second=66 amount=-2\n"
            .to_vec(),
        b"common lineHeight=48 base=24\npage id=0 file=\"p.png\"\nchar id=32 x=0 y=0 width=0 height=0 xadvance=36 page=0\n"
            .to_vec(),
    ];
    let page = |_: &str| -> PageImage { Ok((8, 8, vec![255; 8 * 8 * 4])) };
    fuzz("bmfont", &seeds, mutate_any, |b| {
        let Ok(text) = std::str::from_utf8(b) else { return Ok(false) };
        match parse("/f.fnt", text, &mut { page }) {
            Ok(font) => {
                for (i, g) in font.glyphs.iter().enumerate() {
                    let fits = g.width == 0
                        || g.height == 0
                        || font
                            .pages
                            .get(g.page)
                            .is_some_and(|p| g.x + g.width <= p.width && g.y + g.height <= p.height);
                    if !fits && font.by_char.values().any(|&c| usize::from(c) == i) {
                        return Err(format!("glyph {i} is outside its page: {g:?}"));
                    }
                    for scale in [0.5, 1.0, 3.0] {
                        let (px, w, h, ..) = font.rasterize(i as u16, scale);
                        if px.len() != w * h {
                            return Err(format!("glyph {i} at {scale}: {} texels for {w}x{h}", px.len()));
                        }
                    }
                }
                Ok(true)
            }
            Err(e) if e.resource == "/f.fnt" => Ok(false),
            Err(e) => Err(format!("the error names {} instead of the file", e.resource)),
        }
    });
}

/// `.atlas` and `.tilesource` files (issue 38), JSON and Defold text, over two small images: an
/// accepted one has every frame on its page and every animation frame naming a frame.
#[test]
fn fuzz_atlas_and_tile_source_files() {
    use sinew::project::sprite::load_atlas;
    let seeds: Vec<Vec<u8>> = [
        r#"{ "images": [{ "image": "/a.png" }, { "image": "/b.png" }],
             "animations": [{ "id": "run", "images": [{ "image": "/b.png" }, { "image": "/a.png" }],
                              "fps": 12, "playback": "loop_pingpong", "flip_horizontal": true }],
             "margin": 2, "extrude_borders": 1, "inner_padding": 1 }"#,
        "images {\n  image: \"/a.png\"\n}\nanimations {\n  id: \"walk\"\n  images {\n    image: \"/b.png\"\n  }\n  \
         playback: PLAYBACK_ONCE_BACKWARD\n  fps: 8\n  flip_vertical: 1\n}\nmargin: 1\nextrude_borders: 2\n",
        r#"{ "image": "/b.png", "tile_width": 4, "tile_height": 4, "tile_margin": 1, "tile_spacing": 2,
             "animations": [{ "id": "walk", "start_tile": 1, "end_tile": 4, "playback": "loop_forward" }] }"#,
        "image: \"/b.png\"\ntile_width: 8\ntile_height: 8\ntile_margin: 0\ntile_spacing: 0\nanimations {\n  \
         id: \"x\"\n  start_tile: 2\n  end_tile: 4\n  playback: PLAYBACK_ONCE_PINGPONG\n}\nextrude_borders: 1\n",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    let images = vec![
        ("/a.png".to_string(), samples::checker_png(8, 2, [255, 0, 0, 255], [0, 0, 255, 128])),
        ("/b.png".to_string(), samples::checker_png(16, 4, [0, 255, 0, 255], [0, 0, 0, 0])),
    ];
    let which = std::cell::Cell::new(0usize);
    fuzz("atlas", &seeds, mutate_noting(&which), |b| {
        let k = seeds.iter().position(|s| s == b).unwrap_or(which.get());
        let name = if k < 2 { "/x.atlas" } else { "/x.tilesource" };
        let mut files = images.clone();
        files.push((name.to_string(), b.to_vec()));
        let res = Resources::demo().with_overlay(files);
        let Ok(a) = load_atlas(&res, name) else { return Ok(false) };
        if a.rgba.len() != a.width as usize * a.height as usize * 4 {
            return Err(format!("{}x{} page with {} bytes", a.width, a.height, a.rgba.len()));
        }
        if let Some(f) = a.frames.iter().find(|f| f.x + f.width > a.width || f.y + f.height > a.height) {
            return Err(format!("frame {f:?} off a {}x{} page", a.width, a.height));
        }
        for anim in &a.animations {
            if anim.frames.is_empty() || anim.frames.iter().any(|&i| i as usize >= a.frames.len()) {
                return Err(format!("animation '{}' frames {:?} of {}", anim.id, anim.frames, a.frames.len()));
            }
        }
        Ok(true)
    });
}

/// The archive a bundled game reads (src/project/archive.rs): truncated, foreign or tampered
/// archives must be errors naming the file, never a panic or an allocation sized by the file.
#[test]
fn fuzz_bundle_archives() {
    use sinew::project::archive::{self, Archive};
    let seeds = vec![
        archive::write(&[
            ("/project.json".to_string(), br#"{ "main_collection": "/m.collection" }"#.to_vec()),
            ("/m.collection".to_string(), br#"{ "name": "m", "objects": [] }"#.to_vec()),
            ("/models/a.glb".to_string(), writer::glb_bytes(b"{}", &[0u8; 64])),
        ]),
        archive::write(&[]),
    ];
    fuzz("archive", &seeds, mutate_any, |b| match Archive::parse("game.pak", b.to_vec()) {
        Ok(a) => {
            for p in a.paths() {
                if a.get(&p).is_none() {
                    return Err(format!("{p} is listed but cannot be read"));
                }
            }
            Ok(true)
        }
        Err(e) if e.starts_with("game.pak: ") => Ok(false),
        Err(e) => Err(format!("error without the archive's name: {e}")),
    });
}

/// Loads nothing: the Defold fuzz target spawns objects without running their scripts.
struct NoScripts;

impl sinew::game::spawn::ScriptFactory for NoScripts {
    fn declarations(&mut self, _script: &str) -> Result<Vec<(String, String)>, String> {
        Ok(Vec::new())
    }
    fn create(
        &mut self,
        _slot: u32,
        _component: &str,
        _script: &str,
        _props: &[(String, sinew::project::json::Located<sinew::project::types::PropertyValue>)],
    ) -> Result<u32, String> {
        Ok(0)
    }
}

/// The Defold examples under tests/defold whose text files seed [`fuzz_defold_project_files`]:
/// physics (embedded collision objects, tile map shapes), GUI and its layouts, particles,
/// meshes, proxies, glTF models, sprites, lights, cameras.
const DEFOLD_SEED_PROJECTS: &[&str] = &[
    "physics_dynamic",
    "tilemap_collisions",
    "gui_healthbar",
    "gui_layouts",
    "particles_fire_and_smoke",
    "mesh_triangle",
    "mesh_textured",
    "proxy",
    "gltf",
    "sprite_tint",
    "basic_lights_2d",
    "render_orthographic_zoom",
];

/// A Defold project with its own input binding, beside [`DEFOLD_SEED_PROJECTS`]' examples
/// (which all use Defold's built-in one).
const DEFOLD_BINDING_PROJECT: &str = "defold_binding";

/// Defold's own files as Defold's editor writes them (issues 33 and 34): `game.project`,
/// collections with embedded objects and collision objects, `.go`, `.gui`, `.particlefx`,
/// `.tilemap`, `.tilesource`, `.atlas`, `.font`, `.material`, `.buffer`, `.display_profiles`,
/// through [`fuzz_projects`].
#[test]
fn fuzz_defold_project_files() {
    let kinds = [
        "project",
        "collection",
        "go",
        "gui",
        "particlefx",
        "tilemap",
        "tilesource",
        "atlas",
        "font",
        "material",
        "buffer",
        "display_profiles",
    ];
    fuzz_projects("defold", "tests/defold", DEFOLD_SEED_PROJECTS, &kinds);
    fuzz_projects("defold_binding", "tests/projects", &[DEFOLD_BINDING_PROJECT], &["project", "input_binding"]);
}

/// The Lua test projects under tests/projects whose Sinew JSON files seed
/// [`fuzz_sinew_project_files`]: collision objects of every shape and type in 3D and 2D,
/// joints, GUI scenes, particle effects, cameras and lights, labels.
const SINEW_SEED_PROJECTS: &[&str] = &[
    "physics_shapes",
    "physics_joints",
    "physics_trigger",
    "physics_fuzz",
    "physics_raycast",
    "physics_flip",
    "physics_scale",
    "api_gui",
    "api_particlefx",
    "api_camera",
    "api_label",
    "input_keys",
];

/// Sinew's JSON project files (`project.json`, collections with collision objects, joints,
/// cameras and lights, `.go`, `.gui`, `.particlefx`) through [`fuzz_projects`], as Defold's.
#[test]
fn fuzz_sinew_project_files() {
    let kinds = ["json", "collection", "go", "gui", "particlefx", "input_binding"];
    fuzz_projects("sinew", "tests/projects", SINEW_SEED_PROJECTS, &kinds);
}

/// Mutants of the files of kinds `kinds` (extensions) in the projects `names` under `root`: a
/// mutant takes its file's place in its project, whose main collection is then loaded,
/// spawned (scripts are not run) and stepped for ten physics frames. A broken file is a load
/// problem, never a panic, and no body it made may leave a game object's transform non-finite.
fn fuzz_projects(name: &str, root: &str, names: &[&str], kinds: &[&str]) {
    use sinew::project::collection::load_collection_within;
    use sinew::project::settings::{load_settings, settings_file};
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(root);
    let mut places: Vec<(usize, String)> = Vec::new();
    let mut seeds: Vec<Vec<u8>> = Vec::new();
    let mut projects: Vec<Resources> = Vec::new();
    for (k, project) in names.iter().enumerate() {
        let dir = root.join(project);
        projects.push(Resources::open_dir(&dir).expect("a project to seed the fuzzer"));
        let mut stack = vec![dir.clone()];
        while let Some(d) = stack.pop() {
            let mut entries: Vec<PathBuf> =
                std::fs::read_dir(&d).expect("read the project").map(|e| e.expect("an entry").path()).collect();
            entries.sort();
            for p in entries {
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().and_then(|e| e.to_str()).is_some_and(|e| kinds.contains(&e)) {
                    let rel = p.strip_prefix(&dir).expect("inside the project").to_string_lossy().replace('\\', "/");
                    places.push((k, format!("/{rel}")));
                    seeds.push(std::fs::read(&p).expect("read a seed"));
                }
            }
        }
    }
    assert!(seeds.len() >= 2, "{} seed files", seeds.len());
    let which = std::cell::Cell::new(0usize);
    fuzz(name, &seeds, mutate_noting(&which), |b| {
        let k = seeds.iter().position(|s| s == b).unwrap_or(which.get());
        let (project, path) = &places[k];
        let res = projects[*project].clone().with_overlay(vec![(path.clone(), b.to_vec())]);
        let settings = match load_settings(&res) {
            Ok(s) => s,
            Err(e) => return short(e.to_string()),
        };
        let binding = sinew::project::input::load_binding(&res, &settings.input, settings_file(&res));
        let loaded = load_collection_within(&res, &settings.main_collection, settings.max_instances);
        let world = std::cell::RefCell::new(sinew::game::World::new(&loaded.spec.name));
        let spawned = sinew::game::spawn::spawn_collection(&world, &res, &loaded.spec, &mut NoScripts);
        {
            let w = &mut *world.borrow_mut();
            w.physics.configure(settings.physics, settings.fixed_update_frequency, &mut w.scene);
        }
        for _ in 0..10 {
            sinew::game::physics::update(&world, 1.0 / 60.0);
            let mut w = world.borrow_mut();
            let posted = w.messages.take_all();
            w.messages.give_back(posted);
            w.messages.new_frame();
        }
        let w = world.borrow();
        let s = &w.scene;
        for slot in (0..s.alive.len()).filter(|&i| s.alive[i]) {
            if !(s.position[slot].is_finite() && s.rotation[slot].is_finite() && s.scale[slot].is_finite()) {
                return Err(format!(
                    "{path}: object {slot} at {} {} {}",
                    s.position[slot], s.rotation[slot], s.scale[slot]
                ));
            }
        }
        let mut problems: Vec<String> = loaded.problems.iter().map(ToString::to_string).collect();
        problems.extend(spawned.err().unwrap_or_default());
        problems.extend(binding.err().map(|e| e.to_string()));
        match problems.iter().find_map(|p| long_line(p)) {
            Some(e) => Err(e),
            None => Ok(problems.is_empty()),
        }
    });
}

/// A file's problems are one per line, however many there are; a line too long to read is a
/// hostile value quoted whole.
fn long_line(text: &str) -> Option<String> {
    text.lines()
        .find(|l| l.len() > 2000)
        .map(|l| format!("a {}-byte line: {}…", l.len(), &l[..l.floor_char_boundary(200)]))
}

/// A load error is a rejected input, unless a line of it is too long to read.
fn short(e: String) -> Result<bool, String> {
    long_line(&e).map_or(Ok(false), Err)
}
