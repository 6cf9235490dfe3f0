//! Defold's `.cubemap` (cubemap_ddf.proto: six image files, `right`, `left`, `top`, `bottom`,
//! `front`, `back`) as one cube texture, for a material's `samplerCube` (a `.model`'s
//! `textures { sampler: "env" texture: "/sky.cubemap" }`). The faces go to GL's +X, -X, +Y, -Y,
//! +Z and -Z in that order, each as its image is written (rows top first), as Defold uploads
//! them.
use crate::base::error::LoadError;
use crate::project::Resources;
use crate::project::defold::text::{Field, Value};
use crate::project::model_data::{TextureData, Wrap};

/// The fields of a `.cubemap`, in GL's face order.
pub const FACES: [&str; 6] = ["right", "left", "top", "bottom", "front", "back"];

/// Largest side of a face, in pixels (six RGBA faces of 4096² are 384 MiB).
pub const MAX_SIDE: u32 = 4096;

fn at(path: &str, f: &Field, message: String) -> LoadError {
    LoadError::at(path, f.at.line, f.at.column, message)
}

/// Reads the `.cubemap` at `path` and its six square images of one size; every problem is an
/// error naming the file and, for a field, its position.
pub fn load_cubemap(res: &Resources, path: &str, referenced_from: &str) -> Result<TextureData, LoadError> {
    let text = res.read_string(path, Some(referenced_from))?;
    let m = crate::project::defold::text::parse(path, &text).map_err(crate::project::defold::joined)?;
    if let Some(f) = m.fields.iter().find(|f| !FACES.contains(&f.name.as_str())) {
        return Err(at(path, f, format!("unknown field `{}` (a cubemap has {})", f.name, FACES.join(", "))));
    }
    let mut rgba = Vec::new();
    let mut side: Option<(u32, &str)> = None;
    for face in FACES {
        let Some(f) = m.first(face) else {
            return Err(LoadError::new(
                path,
                format!("the cubemap has no `{face}` image (it needs {})", FACES.join(", ")),
            ));
        };
        let Value::Str(image, _) = &f.value else {
            return Err(at(path, f, format!("`{face}` must be an image path in quotes")));
        };
        let file = crate::project::json::resource_path(
            &crate::project::json::Located { value: image.clone(), at: None },
            path,
        )
        .map_err(|e| at(path, f, e.message))?;
        let bytes = res.read(&file, Some(path)).map_err(|e| at(path, f, format!("`{face}`: {e}")))?;
        let (w, h, px) =
            crate::project::gltf::decode_image(&bytes).map_err(|e| at(path, f, format!("`{face}`: {file}: {e}")))?;
        if w != h || w > MAX_SIDE {
            return Err(at(
                path,
                f,
                format!("`{face}`: {file} is {w}x{h}: faces are square, at most {MAX_SIDE} pixels"),
            ));
        }
        match side {
            Some((s, first)) if s != w => {
                return Err(at(
                    path,
                    f,
                    format!("`{face}`: {file} is {w} pixels wide, `{first}` {s}: the faces differ"),
                ));
            }
            Some(_) => {}
            None => side = Some((w, face)),
        }
        rgba.extend_from_slice(&px);
    }
    let side = side.map_or(0, |(s, _)| s);
    Ok(TextureData {
        name: path.to_string(),
        width: side,
        height: side,
        rgba,
        wrap_s: Wrap::ClampToEdge,
        wrap_t: Wrap::ClampToEdge,
        mag_linear: true,
        min_linear: true,
        mipmaps: true,
        cube: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(side: u32, rgba: [u8; 4]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, side, side);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut wr = enc.write_header().expect("header");
        wr.write_image_data(&rgba.repeat((side * side) as usize)).expect("pixels");
        drop(wr);
        out
    }

    fn cubemap(text: &str, sides: [u32; 6]) -> Resources {
        let mut files: Vec<(String, Vec<u8>)> = FACES
            .iter()
            .zip(sides)
            .enumerate()
            .map(|(i, (f, s))| (format!("/sky/{f}.png"), png(s, [i as u8 * 40, 0, 0, 255])))
            .collect();
        files.push(("/sky/sky.cubemap".into(), text.as_bytes().to_vec()));
        Resources::demo().with_overlay(files)
    }

    const ALL: &str = "right: \"/sky/right.png\"\nleft: \"/sky/left.png\"\ntop: \"/sky/top.png\"\nbottom: \"/sky/bottom.png\"\nfront: \"/sky/front.png\"\nback: \"/sky/back.png\"\n";

    #[test]
    fn six_faces_in_gl_order() {
        let t = load_cubemap(&cubemap(ALL, [2; 6]), "/sky/sky.cubemap", "/m.model").expect("loads");
        assert!(t.cube);
        assert_eq!((t.width, t.height, t.rgba.len()), (2, 2, 6 * 2 * 2 * 4));
        // Face i's first texel has red i * 40: right, left, top, bottom, front, back.
        let reds: Vec<u8> = (0..6).map(|i| t.rgba[i * 16]).collect();
        assert_eq!(reds, [0, 40, 80, 120, 160, 200]);
    }

    #[test]
    fn bad_cubemaps_are_errors_with_their_position() {
        let err = |text: &str, sides: [u32; 6]| {
            load_cubemap(&cubemap(text, sides), "/sky/sky.cubemap", "/m.model").unwrap_err().to_string()
        };
        let e = err(&ALL.replace("back: \"/sky/back.png\"\n", ""), [2; 6]);
        assert!(e.contains("/sky/sky.cubemap: the cubemap has no `back` image"), "{e}");
        let e = err(&format!("{ALL}up: \"/sky/top.png\"\n"), [2; 6]);
        assert!(e.starts_with("/sky/sky.cubemap:7:1: unknown field `up`"), "{e}");
        let e = err(ALL, [2, 2, 2, 4, 2, 2]);
        assert!(e.starts_with("/sky/sky.cubemap:4:1: `bottom`: /sky/bottom.png is 4 pixels wide, `right` 2"), "{e}");
        let e = err(&ALL.replace("/sky/front.png", "/sky/none.png"), [2; 6]);
        assert!(e.starts_with("/sky/sky.cubemap:5:1: `front`:") && e.contains("/sky/none.png"), "{e}");
        let e = err(&ALL.replace("/sky/left.png", "left.png"), [2; 6]);
        assert!(e.starts_with("/sky/sky.cubemap:2:1: resource path 'left.png' must start with '/'"), "{e}");
        let e = err("right: 3\n", [2; 6]);
        assert!(e.contains("`right` must be an image path in quotes"), "{e}");
    }
}
