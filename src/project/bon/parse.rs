//! The `.bon` text format (rigs.md section 2.1): one statement a line, every mistake an error
//! naming the file and the line. Points and parents must be defined before they are used, so
//! one pass reads the file and every reference is checked where it is written.
use crate::base::error::LoadError;
use crate::project::obj::line_error;
use std::collections::HashMap;

/// More bones than this is not a rig anyone wrote by hand (and joint indices are `u16`).
pub const MAX_BONES: usize = 1024;

/// A named point (`BoneAxis`).
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub name: String,
    pub pos: [f64; 3],
}

/// One `Bone` line with the settings that follow it.
#[derive(Debug, Clone, PartialEq)]
pub struct BoneDef {
    pub name: String,
    /// Index of the parent bone; None for `Scene`.
    pub parent: Option<usize>,
    /// Indices into [`BonFile::points`].
    pub pivot: usize,
    pub end: usize,
    /// None: captures no vertex by radius.
    pub radius: Option<f64>,
    pub min: f64,
    pub max: f64,
    /// Degrees around X, Y, Z.
    pub rmin: [f64; 3],
    pub rmax: [f64; 3],
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BonFile {
    /// The OBJ resource (`Read`), resolved against the `.bon`'s folder.
    pub read: String,
    pub read_line: usize,
    pub points: Vec<Point>,
    pub bones: Vec<BoneDef>,
}

/// Parses `.bon` text; `path` is its resource path (names it in errors, anchors `Read`).
pub fn parse(path: &str, text: &str) -> Result<BonFile, LoadError> {
    let mut read: Option<(String, usize)> = None;
    let mut points: Vec<Point> = Vec::new();
    let mut bones: Vec<BoneDef> = Vec::new();
    // Names to indices: a file of 300,000 `BoneAxis` lines must not compare each name with
    // every one before it.
    let mut point_index: HashMap<String, usize> = HashMap::new();
    let mut bone_index: HashMap<String, usize> = HashMap::new();
    let mut last_line = 0;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        last_line = line;
        let err = |m: String| line_error(path, line, m);
        // A field starting with `#` or `;` starts a comment (the whole line when it is the first).
        let fields: Vec<&str> =
            raw.split([' ', '\t']).filter(|f| !f.is_empty()).take_while(|f| !f.starts_with(['#', ';'])).collect();
        let Some(&key) = fields.first() else { continue };
        let args = &fields[1..];
        let want = |n: usize, usage: &str| {
            if args.len() == n { Ok(()) } else { Err(err(format!("{usage} takes {n} field(s), found {}", args.len()))) }
        };
        match key.to_ascii_lowercase().as_str() {
            "read" => {
                want(1, "Read PATH")?;
                if let Some((_, first)) = &read {
                    return Err(err(format!("a second 'Read' (the first is on line {first})")));
                }
                if !bones.is_empty() {
                    return Err(err("'Read' must come before any 'Bone'".into()));
                }
                let p = args[0].replace('\\', "/");
                let resolved = crate::base::path::resolve_relative(path, &p)
                    .ok_or_else(|| err(format!("Read '{p}' escapes the project root")))?;
                read = Some((resolved, line));
            }
            "boneaxis" => {
                want(4, "BoneAxis NAME X Y Z")?;
                let name = args[0];
                if point_index.contains_key(name) {
                    return Err(err(format!("duplicate point '{name}'")));
                }
                let pos = numbers::<3>(&args[1..]).map_err(err)?;
                point_index.insert(name.to_string(), points.len());
                points.push(Point { name: name.to_string(), pos });
            }
            "bone" => {
                want(4, "Bone NAME PARENT PIVOT END")?;
                let (name, parent, pivot, end) = (args[0], args[1], args[2], args[3]);
                if bone_index.contains_key(name) {
                    return Err(err(format!("duplicate bone '{name}'")));
                }
                if name.eq_ignore_ascii_case("scene") || name.eq_ignore_ascii_case("parent") {
                    return Err(err(format!("a bone cannot be named '{name}' (a PARENT keyword)")));
                }
                if bones.len() >= MAX_BONES {
                    return Err(err(format!("more than {MAX_BONES} bones")));
                }
                let parent = if parent.eq_ignore_ascii_case("scene") {
                    None
                } else if parent.eq_ignore_ascii_case("parent") {
                    if bones.is_empty() {
                        return Err(err("parent 'Parent' but there is no previous bone".into()));
                    }
                    Some(bones.len() - 1)
                } else {
                    Some(*bone_index.get(parent).ok_or_else(|| err(format!("unknown parent bone '{parent}'")))?)
                };
                let point = |n: &str| point_index.get(n).copied().ok_or_else(|| err(format!("unknown point '{n}'")));
                let (pivot, end) = (point(pivot)?, point(end)?);
                bone_index.insert(name.to_string(), bones.len());
                bones.push(BoneDef {
                    name: name.to_string(),
                    parent,
                    pivot,
                    end,
                    radius: None,
                    min: 0.0,
                    max: 1.0,
                    rmin: [-180.0; 3],
                    rmax: [180.0; 3],
                    line,
                });
            }
            k @ ("boneinfluence" | "bonermax" | "bonermin") => {
                let usage = match k {
                    "boneinfluence" => "BoneInfluence RADIUS MIN MAX",
                    "bonermax" => "BoneRmax X Y Z",
                    _ => "BoneRmin X Y Z",
                };
                want(3, usage)?;
                let v = numbers::<3>(args).map_err(err)?;
                let Some(b) = bones.last_mut() else {
                    return Err(err(format!("'{key}' before any 'Bone'")));
                };
                match k {
                    "boneinfluence" => {
                        let [radius, min, max] = v;
                        if radius <= 0.0 {
                            return Err(err(format!("radius {radius} must be greater than 0")));
                        }
                        if !(0.0 <= min && min <= max && max <= 1.0) {
                            return Err(err(format!("min {min} and max {max} must satisfy 0 <= min <= max <= 1")));
                        }
                        (b.radius, b.min, b.max) = (Some(radius), min, max);
                    }
                    "bonermax" => b.rmax = v,
                    _ => b.rmin = v,
                }
                for (axis, (lo, hi)) in ["X", "Y", "Z"].iter().zip(b.rmin.iter().zip(&b.rmax)) {
                    if lo > hi {
                        return Err(err(format!("bone '{}': Rmin {lo} is above Rmax {hi} around {axis}", b.name)));
                    }
                }
            }
            _ => {
                return Err(err(format!(
                    "unknown keyword '{key}' (expected Read, BoneAxis, Bone, BoneInfluence, BoneRmax or BoneRmin)"
                )));
            }
        }
    }
    let Some((read, read_line)) = read else {
        return Err(line_error(path, last_line.max(1), "no 'Read' line naming the OBJ to rig".into()));
    };
    if bones.is_empty() {
        return Err(line_error(path, last_line.max(1), "no 'Bone' line: a rig needs at least one bone".into()));
    }
    Ok(BonFile { read, read_line, points, bones })
}

/// Exactly `N` decimals (`0.065`, `-80`, `1e-3`), finite.
fn numbers<const N: usize>(fields: &[&str]) -> Result<[f64; N], String> {
    let mut out = [0.0; N];
    for (o, f) in out.iter_mut().zip(fields) {
        let ok = f.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'-' | b'+' | b'e' | b'E'));
        *o = match f.parse::<f64>() {
            Ok(v) if ok && v.is_finite() => v,
            _ => return Err(format!("'{f}' is not a number")),
        };
    }
    Ok(out)
}
