//! Defold's `.render` (render_ddf.proto's RenderPrototypeDesc): the render script a project draws
//! with. Its `materials` and `render_resources` name materials and render targets a script looks
//! up by name (`render.enable_material`, `render.enable_texture`), which Sinew's render scripts
//! do not have: they are read for their paths and otherwise left.
use super::Cx;
use super::read::Reader;
use crate::base::error::LoadError;
use crate::project::Resources;

const RENDER: &[&str] = &["script", "materials", "render_resources"];
const NAMED: &[&str] = &["name", "material", "path"];

/// The render script that the `.render` file at `path` names (its source path: Defold's
/// `.render_scriptc` build name is read as the `.render_script` it came from).
pub fn render_script(res: &Resources, path: &str) -> Result<String, LoadError> {
    let text = res.read_string(path, None)?;
    let msg = super::text::parse(path, &text).map_err(super::joined)?;
    let mut cx = Cx::new(res);
    let p = &mut cx.problems;
    let r = Reader::new(&msg, "a render", RENDER, &["materials", "render_resources"], p);
    for name in ["materials", "render_resources"] {
        for f in r.all(name) {
            if let Some(m) = super::read::message(f, name, p) {
                Reader::new(m, name, NAMED, &[], p);
            }
        }
    }
    let script = r.required("script", p).map(|(s, f)| (s.to_string(), f.value_at.clone()));
    if !cx.problems.0.is_empty() {
        return Err(super::joined(cx.problems.0));
    }
    let Some((script, at)) = script else {
        return Err(LoadError::new(path, "a render needs a `script`"));
    };
    let source = script.strip_suffix('c').filter(|s| s.ends_with(".render_script")).unwrap_or(&script);
    match crate::base::path::normalize(source) {
        Some(p) if p.ends_with(".render_script") => Ok(p),
        _ => Err(LoadError::at(
            &at.resource,
            at.line,
            at.column,
            format!("`script` must be a .render_script path in the project, not '{script}'"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::render_script;
    use crate::project::Resources;

    fn res(files: &[(&str, &str)]) -> Resources {
        Resources::demo().with_overlay(files.iter().map(|(p, t)| (p.to_string(), t.as_bytes().to_vec())).collect())
    }

    #[test]
    fn a_render_names_its_script() {
        let r = res(&[(
            "/r/my.render",
            "script: \"/r/my.render_script\"\nmaterials {\n  name: \"post\"\n  material: \"/r/post.material\"\n}\n",
        )]);
        assert_eq!(render_script(&r, "/r/my.render").unwrap(), "/r/my.render_script");
        let built = res(&[("/r/b.render", "script: \"/r/my.render_scriptc\"\n")]);
        assert_eq!(render_script(&built, "/r/b.render").unwrap(), "/r/my.render_script");
    }

    #[test]
    fn a_bad_render_is_refused_with_its_position() {
        let r = res(&[
            ("/r/none.render", "materials {\n  name: \"a\"\n  material: \"/a.material\"\n}\n"),
            ("/r/wrong.render", "script: \"/r/x.script\"\n"),
            ("/r/field.render", "script: \"/r/x.render_script\"\nscripts: 1\n"),
        ]);
        let e = render_script(&r, "/r/none.render").unwrap_err().to_string();
        assert!(e.contains("script"), "{e}");
        let e = render_script(&r, "/r/wrong.render").unwrap_err().to_string();
        assert!(e.starts_with("/r/wrong.render:1:9") && e.contains(".render_script"), "{e}");
        let e = render_script(&r, "/r/field.render").unwrap_err().to_string();
        assert!(e.starts_with("/r/field.render:2:1") && e.contains("unknown field `scripts`"), "{e}");
        assert!(render_script(&r, "/r/missing.render").is_err());
    }
}
