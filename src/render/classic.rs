//! The classic skinning shader contract (rigs.md section 5): a vertex shader written as the
//! "Skeletal animation, part 1 – shader" article writes one declares `vertex`, `uv`,
//! `bone0info`…`bone3info` (vec2: joint index, weight) and `bonesMatrices`/`boneMatrices`.
//! `vertex` and `uv` are bound to the position and texcoord0 locations at link time
//! ([`ALIASES`]); the four `boneKinfo` attributes are rewritten here into reads of Sinew's
//! `bone_indices`/`bone_weights` streams, so no mesh carries extra vertex data for them. The
//! uniform names are matched in `program.rs` like the built-in ones.

/// Extra attribute names bound to the locations of [`super::shader::ATTRIBUTES`].
pub const ALIASES: [(u32, &str); 2] = [(0, "vertex"), (3, "uv")];

/// `source` with `attribute vec2 boneKinfo;` / `in vec2 boneKinfo;` declarations replaced by
/// macros over `bone_indices` and `bone_weights` (declared once, where the first one was, when
/// the shader does not declare them itself); a `#line` keeps driver messages on the file's own
/// line numbers. Sources without such declarations are returned unchanged (None).
pub fn rewrite(source: &str) -> Option<String> {
    let lines: Vec<&str> = source.split_inclusive('\n').collect();
    let decl = |l: &str| -> Option<usize> {
        let t = l.trim();
        let rest = t.strip_prefix("attribute").or_else(|| t.strip_prefix("in "))?;
        let mut it = rest.split_whitespace();
        let (ty, name) = (it.next()?, it.next()?.trim_end_matches(';'));
        if ty != "vec2" || it.next().is_some_and(|x| x != ";") {
            return None;
        }
        let k = name.strip_prefix("bone")?.strip_suffix("info")?.parse::<usize>().ok()?;
        (k < 4).then_some(k)
    };
    let first = lines.iter().position(|l| decl(l).is_some())?;
    let declares = |name: &str| source.contains(&format!(" {name};"));
    let mut out = String::with_capacity(source.len() + 400);
    for (i, l) in lines.iter().enumerate() {
        if i == first {
            for (name, _) in [("bone_indices", 0), ("bone_weights", 1)] {
                if !declares(name) {
                    out.push_str(&format!("in vec4 {name};\n"));
                }
            }
            for k in 0..4 {
                let c = ["x", "y", "z", "w"][k];
                out.push_str(&format!("#define bone{k}info vec2(bone_indices.{c}, bone_weights.{c})\n"));
            }
            // The next line is line i + 2 of the file (1-based); see `shader::preprocess`.
            out.push_str(&format!("#line {}\n", i + 1));
        } else if decl(l).is_some() {
            out.push('\n');
        } else {
            out.push_str(l);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bone_infos_become_reads_of_the_skin_streams() {
        let src = "#version 140\nattribute vec3 vertex;\nattribute vec2 bone0info;\nattribute vec2 bone1info;\nin vec2 bone2info;\nattribute vec2 bone3info;\nvoid main() { gl_Position = vec4(vertex * bone0info.y, 1.0); }\n";
        let out = rewrite(src).unwrap();
        assert!(
            out.contains(
                "in vec4 bone_indices;\nin vec4 bone_weights;\n#define bone0info vec2(bone_indices.x, bone_weights.x)\n"
            ),
            "{out}"
        );
        assert!(
            out.contains("#define bone3info vec2(bone_indices.w, bone_weights.w)\n#line 3\n\n\n\nvoid main()"),
            "{out}"
        );
        assert!(!out.contains("vec2 bone1info"));
        assert_eq!(rewrite("#version 140\nin vec4 position;\n"), None);
    }
}
