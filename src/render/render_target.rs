//! The GL side of a render script's render targets (`game::render_targets`): a frame buffer per
//! target with a texture per buffer, made the first frame a target exists and again whenever
//! its version changes (a resize), deleted with it.
use crate::game::render_targets::{Buffer, COLOR_BUFFERS, Filter, Format, TargetSpec, Texture, Wrap};
use glow::HasContext;

struct GpuTarget {
    /// The script's number of the target, and the version it was made at.
    number: u32,
    version: u64,
    fbo: glow::Framebuffer,
    colors: [Option<glow::Texture>; COLOR_BUFFERS],
    depth: Option<glow::Texture>,
}

/// The frame buffers of the live targets.
#[derive(Default)]
pub struct TargetFramebuffers {
    made: Vec<GpuTarget>,
    /// Versions of targets that could not be made: reported once, not tried again.
    failed: Vec<u64>,
}

/// (internal format, format, type) of a colour buffer. The RGB float formats are stored with
/// alpha: GL 3.3 requires the RGBA ones to be renderable, not the RGB.
fn gl_format(f: Format) -> (u32, u32, u32) {
    match f {
        Format::Luminance => (glow::R8, glow::RED, glow::UNSIGNED_BYTE),
        Format::Rgb => (glow::RGB8, glow::RGB, glow::UNSIGNED_BYTE),
        Format::Rgba | Format::Depth | Format::Stencil => (glow::RGBA8, glow::RGBA, glow::UNSIGNED_BYTE),
        Format::Rgb16f | Format::Rgba16f => (glow::RGBA16F, glow::RGBA, glow::HALF_FLOAT),
        Format::Rgb32f | Format::Rgba32f => (glow::RGBA32F, glow::RGBA, glow::FLOAT),
        Format::R16f => (glow::R16F, glow::RED, glow::HALF_FLOAT),
        Format::Rg16f => (glow::RG16F, glow::RG, glow::HALF_FLOAT),
        Format::R32f => (glow::R32F, glow::RED, glow::FLOAT),
        Format::Rg32f => (glow::RG32F, glow::RG, glow::FLOAT),
    }
}

fn gl_filter(f: Filter) -> u32 {
    if f.is_linear() { glow::LINEAR } else { glow::NEAREST }
}

fn gl_wrap(w: Wrap) -> u32 {
    match w {
        Wrap::ClampToBorder => glow::CLAMP_TO_BORDER,
        Wrap::ClampToEdge => glow::CLAMP_TO_EDGE,
        Wrap::MirroredRepeat => glow::MIRRORED_REPEAT,
        Wrap::Repeat => glow::REPEAT,
    }
}

/// A texture of `size` in `(internal, format, type)`, sampled as `t` says.
///
/// # Safety
/// `gl` is current.
unsafe fn texture(
    gl: &glow::Context,
    size: (u32, u32),
    (internal, format, ty): (u32, u32, u32),
    t: &Texture,
) -> Result<glow::Texture, String> {
    // SAFETY: the caller's contract; plain texture creation with no data.
    unsafe {
        let tex = gl.create_texture()?;
        gl.bind_texture(glow::TEXTURE_2D, Some(tex));
        let (w, h) = (size.0 as i32, size.1 as i32);
        gl.tex_image_2d(glow::TEXTURE_2D, 0, internal as i32, w, h, 0, format, ty, glow::PixelUnpackData::Slice(None));
        for (p, v) in [
            (glow::TEXTURE_MIN_FILTER, gl_filter(t.min)),
            (glow::TEXTURE_MAG_FILTER, gl_filter(t.mag)),
            (glow::TEXTURE_WRAP_S, gl_wrap(t.wrap[0])),
            (glow::TEXTURE_WRAP_T, gl_wrap(t.wrap[1])),
            (glow::TEXTURE_MAX_LEVEL, 0),
        ] {
            gl.tex_parameter_i32(glow::TEXTURE_2D, p, v as i32);
        }
        if t.format == Format::Luminance {
            // Sampled as Defold's luminance is: the value in red, green and blue.
            gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_SWIZZLE_G, glow::RED as i32);
            gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_SWIZZLE_B, glow::RED as i32);
        }
        gl.bind_texture(glow::TEXTURE_2D, None);
        Ok(tex)
    }
}

/// # Safety
/// `gl` is current; `t`'s objects belong to it.
unsafe fn delete(gl: &glow::Context, t: GpuTarget) {
    // SAFETY: the caller's contract.
    unsafe {
        gl.delete_framebuffer(t.fbo);
        for tex in t.colors.into_iter().flatten().chain(t.depth) {
            gl.delete_texture(tex);
        }
    }
}

/// The frame buffer `spec` describes, complete, or why not (nothing is left behind then).
///
/// # Safety
/// `gl` is current.
unsafe fn make(gl: &glow::Context, number: u32, spec: &TargetSpec) -> Result<GpuTarget, String> {
    // SAFETY: the caller's contract; the objects made are deleted on every error path, and the
    // frame buffer binding is put back.
    unsafe {
        let fbo = gl.create_framebuffer()?;
        let mut t = GpuTarget { number, version: spec.version, fbo, colors: [None; COLOR_BUFFERS], depth: None };
        let previous = gl.get_parameter_framebuffer(glow::DRAW_FRAMEBUFFER_BINDING);
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
        let size = (spec.width, spec.height);
        let mut draw = Vec::new();
        let mut result = Ok(());
        for (i, c) in spec.colors.iter().enumerate() {
            let Some(c) = c else { continue };
            match texture(gl, size, gl_format(c.format), c) {
                Ok(tex) => {
                    let at = glow::COLOR_ATTACHMENT0 + i as u32;
                    gl.framebuffer_texture_2d(glow::FRAMEBUFFER, at, glow::TEXTURE_2D, Some(tex), 0);
                    t.colors[i] = Some(tex);
                    draw.push(at);
                }
                Err(e) => result = Err(e),
            }
        }
        if result.is_ok() && (spec.depth.is_some() || spec.stencil) {
            let sampled = spec.depth.unwrap_or(Texture {
                format: Format::Depth,
                min: Filter::Nearest,
                mag: Filter::Nearest,
                wrap: [Wrap::ClampToEdge; 2],
            });
            let (format, at) = if spec.stencil {
                ((glow::DEPTH24_STENCIL8, glow::DEPTH_STENCIL, glow::UNSIGNED_INT_24_8), glow::DEPTH_STENCIL_ATTACHMENT)
            } else {
                ((glow::DEPTH_COMPONENT32F, glow::DEPTH_COMPONENT, glow::FLOAT), glow::DEPTH_ATTACHMENT)
            };
            match texture(gl, size, format, &sampled) {
                Ok(tex) => {
                    gl.framebuffer_texture_2d(glow::FRAMEBUFFER, at, glow::TEXTURE_2D, Some(tex), 0);
                    t.depth = Some(tex);
                }
                Err(e) => result = Err(e),
            }
        }
        if draw.is_empty() {
            gl.draw_buffer(glow::NONE);
            gl.read_buffer(glow::NONE);
        } else {
            gl.draw_buffers(&draw);
            gl.read_buffer(draw[0]);
        }
        if result.is_ok() && gl.check_framebuffer_status(glow::FRAMEBUFFER) != glow::FRAMEBUFFER_COMPLETE {
            result = Err("this driver cannot draw into that combination of buffers and formats".into());
        }
        gl.bind_framebuffer(glow::FRAMEBUFFER, previous);
        match result {
            Ok(()) => Ok(t),
            Err(e) => {
                delete(gl, t);
                Err(e)
            }
        }
    }
}

impl TargetFramebuffers {
    /// Makes what `specs` has and this has not (or has at another version), and deletes what
    /// `specs` no longer has. A target that cannot be made is reported once and draws nowhere.
    /// Versions are unique to each target's making and resizing, so they name what is made.
    pub fn sync(&mut self, gl: &glow::Context, specs: &[(u32, TargetSpec)]) {
        let wanted = |version: u64| specs.iter().any(|(_, s)| s.version == version);
        let mut i = 0;
        while i < self.made.len() {
            if wanted(self.made[i].version) {
                i += 1;
            } else {
                // SAFETY: the target's objects were made on this context, which is current.
                unsafe { delete(gl, self.made.swap_remove(i)) };
            }
        }
        self.failed.retain(|&v| wanted(v));
        for (n, spec) in specs {
            if self.made.iter().any(|m| m.version == spec.version) || self.failed.contains(&spec.version) {
                continue;
            }
            // SAFETY: the context is current.
            match unsafe { make(gl, *n, spec) } {
                Ok(t) => self.made.push(t),
                Err(e) => {
                    log::error!("render target {n} ({}x{}): {e}; nothing is drawn into it", spec.width, spec.height);
                    self.failed.push(spec.version);
                }
            }
        }
    }

    fn get(&self, n: u32) -> Option<&GpuTarget> {
        self.made.iter().find(|t| t.number == n)
    }

    /// Target `n`'s frame buffer, if it was made.
    pub fn framebuffer(&self, n: u32) -> Option<glow::Framebuffer> {
        self.get(n).map(|t| t.fbo)
    }

    /// The texture of target `n`'s `buffer` (depth and stencil share one).
    pub fn texture(&self, n: u32, buffer: Buffer) -> Option<glow::Texture> {
        let t = self.get(n)?;
        match buffer {
            Buffer::Color(i) => t.colors.get(usize::from(i)).copied().flatten(),
            Buffer::Depth | Buffer::Stencil => t.depth,
        }
    }

    /// Deletes every target's objects (the context is going away).
    pub fn destroy(&mut self, gl: &glow::Context) {
        for t in self.made.drain(..) {
            // SAFETY: made on this context, which is current.
            unsafe { delete(gl, t) };
        }
    }
}
