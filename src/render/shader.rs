//! GLSL compilation: the Defold-compatibility preamble, compile and link with the fixed vertex
//! attribute locations, and errors that name the shader resource and carry the driver's log.

use glow::HasContext;

use crate::base::error::LoadError;

/// Vertex attribute locations, bound by name before linking so every program agrees with every
/// mesh VAO (one VAO per primitive, whatever material draws it).
pub const ATTRIBUTES: [(u32, &str); 8] = [
    (0, "position"),
    (1, "normal"),
    (2, "tangent"),
    (3, "texcoord0"),
    (4, "texcoord1"),
    (5, "color"),
    (6, "bone_indices"),
    (7, "bone_weights"),
];

/// Defold's names for streams Sinew names otherwise: a mesh buffer's `color0`.
const DEFOLD_ALIASES: [(u32, &str); 1] = [(5, "color0")];

/// Inserted after `#version` so Defold shaders compile unchanged (`EDITOR` stays undefined).
const DEFINES: &str = "#define gl_VertexIndex gl_VertexID\n";

/// Keeps `#version` first (adding `#version 140` when missing), inserts [`DEFINES`] after it,
/// and a `#line` so driver messages keep the file's own line numbers.
pub fn preprocess(source: &str) -> String {
    preprocess_with(source, "")
}

/// [`preprocess`] with `extra` lines (a program variant's defines) after [`DEFINES`].
pub fn preprocess_with(source: &str, extra: &str) -> String {
    let mut out = String::with_capacity(source.len() + extra.len() + 64);
    let mut offset = 0;
    for (index, line) in source.split_inclusive('\n').enumerate() {
        let end = offset + line.len();
        let t = line.trim_start();
        if t.starts_with("#version") {
            out.push_str(&source[..end]);
            if !line.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(DEFINES);
            out.push_str(extra);
            // GLSL before 4.30 (Mesa follows the shader's version) numbers the line after
            // `#line N` as N + 1; the file's next line is index + 2 (1-based).
            out.push_str(&format!("#line {}\n", index + 1));
            out.push_str(&source[end..]);
            return out;
        }
        if !(t.is_empty() || t.starts_with("//")) {
            break;
        }
        offset = end;
    }
    out.push_str("#version 140\n");
    out.push_str(DEFINES);
    out.push_str(extra);
    out.push_str("#line 0\n");
    out.push_str(source);
    out
}

/// One shader stage to compile: GL stage, resource name (for messages), GLSL source, and the
/// defines of the program variant it is compiled for (empty for none).
pub struct Stage<'a> {
    pub kind: u32,
    pub resource: &'a str,
    pub source: &'a str,
    pub defines: &'a str,
}

fn compile(gl: &glow::Context, stage: &Stage) -> Result<glow::Shader, LoadError> {
    let classic = if stage.kind == glow::VERTEX_SHADER { super::classic::rewrite(stage.source) } else { None };
    let source = preprocess_with(classic.as_deref().unwrap_or(stage.source), stage.defines);
    // SAFETY: the context is current; the shader is deleted on failure.
    unsafe {
        let shader = gl.create_shader(stage.kind).map_err(|e| LoadError::new(stage.resource, e))?;
        gl.shader_source(shader, &source);
        gl.compile_shader(shader);
        if gl.get_shader_compile_status(shader) {
            return Ok(shader);
        }
        let log = gl.get_shader_info_log(shader);
        gl.delete_shader(shader);
        Err(LoadError::new(stage.resource, format!("shader compile failed:\n{}", log.trim_end())))
    }
}

/// Compiles and links `stages` with [`ATTRIBUTES`] bound. A compile error names the stage's
/// resource; a link error names the first stage and lists them all.
pub fn link(gl: &glow::Context, stages: &[Stage]) -> Result<glow::Program, LoadError> {
    let first = stages.first().map_or("<no shaders>", |s| s.resource);
    let mut shaders = Vec::with_capacity(stages.len());
    let delete_all = |shaders: &[glow::Shader]| {
        for &s in shaders {
            // SAFETY: shaders created on this context and not attached to a live program.
            unsafe { gl.delete_shader(s) };
        }
    };
    for stage in stages {
        match compile(gl, stage) {
            Ok(s) => shaders.push(s),
            Err(e) => {
                delete_all(&shaders);
                return Err(e);
            }
        }
    }
    // SAFETY: the context is current; shaders are detached and deleted after linking.
    unsafe {
        let program = match gl.create_program() {
            Ok(p) => p,
            Err(e) => {
                delete_all(&shaders);
                return Err(LoadError::new(first, e));
            }
        };
        for &s in &shaders {
            gl.attach_shader(program, s);
        }
        for (index, name) in ATTRIBUTES.into_iter().chain(super::classic::ALIASES).chain(DEFOLD_ALIASES) {
            gl.bind_attrib_location(program, index, name);
        }
        gl.link_program(program);
        for &s in &shaders {
            gl.detach_shader(program, s);
        }
        delete_all(&shaders);
        if gl.get_program_link_status(program) {
            return Ok(program);
        }
        let log = gl.get_program_info_log(program);
        gl.delete_program(program);
        let names: Vec<&str> = stages.iter().map(|s| s.resource).collect();
        Err(LoadError::new(first, format!("program link failed ({}):\n{}", names.join(" + "), log.trim_end())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_stays_first_and_defines_follow() {
        let src = "// header\n#version 140\nvoid main() {}\n";
        let out = preprocess(src);
        assert_eq!(out, "// header\n#version 140\n#define gl_VertexIndex gl_VertexID\n#line 2\nvoid main() {}\n");
        assert!(!out.contains("EDITOR"));
    }

    #[test]
    fn missing_version_gets_140() {
        let out = preprocess("void main() {}");
        assert!(out.starts_with("#version 140\n#define gl_VertexIndex gl_VertexID\n"), "{out}");
        assert!(out.ends_with("void main() {}"));
    }

    #[test]
    fn variant_defines_follow_the_builtin_ones_and_keep_line_numbers() {
        let out = preprocess_with("#version 140\nvoid main() {}\n", "#define SINEW_LIGHTS 2\n");
        assert_eq!(
            out,
            "#version 140\n#define gl_VertexIndex gl_VertexID\n#define SINEW_LIGHTS 2\n#line 1\nvoid main() {}\n"
        );
    }

    #[test]
    fn version_without_newline_is_terminated() {
        let out = preprocess("#version 140");
        assert_eq!(out, "#version 140\n#define gl_VertexIndex gl_VertexID\n#line 1\n");
    }
}
