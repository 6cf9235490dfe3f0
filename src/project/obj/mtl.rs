//! Wavefront `.mtl` material libraries (rigs.md section 1): `Kd`, `map_Kd`, `d` / `Tr`, `Ke`.
//! Other statements are ignored with one debug line per statement kind and file, since real
//! exporters write a dozen (`Ns`, `Ka`, `Ks`, `illum`, …) that Sinew's shaders have no use for.
use super::line_error;
use crate::base::error::LoadError;

/// One `newmtl` block.
#[derive(Debug, Clone, PartialEq)]
pub struct MtlMaterial {
    pub name: String,
    pub diffuse: [f32; 3],
    /// `d`, or 1 − `Tr`; blended when below 1.
    pub alpha: f32,
    /// `Ke`: the built-in material's emissive term (`MaterialData::emissive`).
    pub emissive: [f32; 3],
    /// `map_Kd`, resolved against the `.mtl`'s folder (None when it climbs out of the project:
    /// that is an error reported by [`parse`]).
    pub diffuse_map: Option<String>,
    /// The line of `map_Kd`, for the texture's error message.
    pub diffuse_map_line: usize,
}

impl MtlMaterial {
    fn new(name: &str) -> Self {
        MtlMaterial {
            name: name.to_string(),
            diffuse: [1.0; 3],
            alpha: 1.0,
            emissive: [0.0; 3],
            diffuse_map: None,
            diffuse_map_line: 0,
        }
    }
}

/// Parses one `.mtl` text; `path` names it in errors and is the base of `map_Kd` paths.
pub fn parse(path: &str, text: &str) -> Result<Vec<MtlMaterial>, LoadError> {
    let mut out: Vec<MtlMaterial> = Vec::new();
    let mut logged: Vec<String> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let err = |m: String| line_error(path, line, m);
        let body = raw.split('#').next().unwrap_or("").trim();
        let mut it = body.split_ascii_whitespace();
        let Some(key) = it.next() else { continue };
        let rest: Vec<&str> = it.collect();
        let needs_material = || err(format!("'{key}' before any 'newmtl'"));
        match key {
            "newmtl" => {
                let name = body[key.len()..].trim();
                if name.is_empty() {
                    return Err(err("'newmtl' needs a name".into()));
                }
                out.push(MtlMaterial::new(name));
            }
            "Kd" | "Ke" => {
                let m = out.last_mut().ok_or_else(needs_material)?;
                let v = floats::<3>(&rest).map_err(|e| err(format!("'{key}': {e}")))?;
                if key == "Kd" {
                    m.diffuse = v;
                } else {
                    m.emissive = v;
                }
            }
            "d" | "Tr" => {
                let m = out.last_mut().ok_or_else(needs_material)?;
                // `d -halo 0.5` is a legal variant: the value is the last field.
                let v = floats::<1>(rest.last().map(std::slice::from_ref).unwrap_or(&[]))
                    .map_err(|e| err(format!("'{key}': {e}")))?[0];
                if !(0.0..=1.0).contains(&v) {
                    return Err(err(format!("'{key}' {v} is outside 0..1")));
                }
                m.alpha = if key == "d" { v } else { 1.0 - v };
            }
            "map_Kd" => {
                let m = out.last_mut().ok_or_else(needs_material)?;
                // Options (`-s 1 1 1`, `-bm 0.5`) come first; the file name is the last field.
                let Some(file) = rest.last() else { return Err(err("'map_Kd' needs a file name".into())) };
                let file = file.replace('\\', "/");
                let resolved = crate::base::path::resolve_relative(path, &file)
                    .ok_or_else(|| err(format!("map_Kd '{file}' escapes the project root")))?;
                m.diffuse_map = Some(resolved);
                m.diffuse_map_line = line;
            }
            other => {
                if !logged.iter().any(|l| l == other) {
                    log::debug!("{path}:{line}: '{other}' is ignored");
                    logged.push(other.to_string());
                }
            }
        }
    }
    Ok(out)
}

/// Exactly `N` finite numbers (`Kd 1 1` is a mistake; so is `Kd 1 1 1 1`).
fn floats<const N: usize>(fields: &[&str]) -> Result<[f32; N], String> {
    if fields.len() != N {
        return Err(format!("expected {N} number(s), found {}", fields.len()));
    }
    let mut out = [0.0; N];
    for (o, f) in out.iter_mut().zip(fields) {
        *o = super::number(f)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_colour_alpha_texture_emissive() {
        let m = parse(
            "/m/a.mtl",
            "# c\nnewmtl skin\nNs 10\nKd 0.5 0.25 1\nd 0.5\nKe 1 0 0\nmap_Kd -s 1 1 1 tex/skin.png\nnewmtl b\nTr 0.25\n",
        )
        .unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].diffuse, [0.5, 0.25, 1.0]);
        assert_eq!(m[0].alpha, 0.5);
        assert_eq!(m[0].emissive, [1.0, 0.0, 0.0]);
        assert_eq!(m[0].diffuse_map.as_deref(), Some("/m/tex/skin.png"));
        assert_eq!(m[1].alpha, 0.75);
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse("/a.mtl", "newmtl x\nKd 1 x 1\n").unwrap_err();
        assert_eq!(e.to_string(), "/a.mtl:2: 'Kd': 'x' is not a number");
        let e = parse("/a.mtl", "Kd 1 1 1\n").unwrap_err();
        assert_eq!(e.line, Some(1));
        let e = parse("/a.mtl", "newmtl x\nmap_Kd ../../t.png\n").unwrap_err();
        assert!(e.message.contains("escapes"), "{e}");
    }
}
