//! A render script's render targets (`render.render_target`): what each one is — its buffers,
//! their formats, filtering and wrapping, its size — as game state. The renderer makes the
//! frame buffers and textures they describe (`render::render_target`), and makes them again
//! when a target's `version` changes; nothing here touches GL.

/// Render targets a render script may hold at once: scripts make one or two in `init` (and
/// again on a resize, deleting the old one); one that makes a target a frame and never deletes
/// it is stopped here, not when the driver runs out of memory.
pub const MAX_TARGETS: usize = 64;
/// The longest side of a render target, refused before anything is allocated (GL 3.3 promises
/// 1024; every driver Sinew runs on gives at least 8192).
pub const MAX_SIDE: u32 = 8192;
/// Bytes of texture memory all live targets may take together: what the largest sides in the
/// widest format would take several times over, refused before the driver is asked (a script
/// that makes a target a frame would otherwise fill memory first).
pub const MAX_BYTES: u64 = 1 << 30;
/// Colour buffers of one target (`graphics.BUFFER_TYPE_COLOR0_BIT` to `COLOR3_BIT`).
pub const COLOR_BUFFERS: usize = 4;

/// `graphics.TEXTURE_FORMAT_*` a render target takes, numbered as Defold numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Luminance = 0,
    Rgb = 2,
    Rgba = 3,
    Depth = 6,
    Stencil = 7,
    Rgb16f = 22,
    Rgb32f = 23,
    Rgba16f = 24,
    Rgba32f = 25,
    R16f = 26,
    Rg16f = 27,
    R32f = 28,
    Rg32f = 29,
}

impl Format {
    pub const ALL: [Format; 13] = [
        Format::Luminance,
        Format::Rgb,
        Format::Rgba,
        Format::Depth,
        Format::Stencil,
        Format::Rgb16f,
        Format::Rgb32f,
        Format::Rgba16f,
        Format::Rgba32f,
        Format::R16f,
        Format::Rg16f,
        Format::R32f,
        Format::Rg32f,
    ];

    /// The name after `TEXTURE_FORMAT_` (and after `render.FORMAT_`, Defold's older name).
    pub fn name(self) -> &'static str {
        match self {
            Format::Luminance => "LUMINANCE",
            Format::Rgb => "RGB",
            Format::Rgba => "RGBA",
            Format::Depth => "DEPTH",
            Format::Stencil => "STENCIL",
            Format::Rgb16f => "RGB16F",
            Format::Rgb32f => "RGB32F",
            Format::Rgba16f => "RGBA16F",
            Format::Rgba32f => "RGBA32F",
            Format::R16f => "R16F",
            Format::Rg16f => "RG16F",
            Format::R32f => "R32F",
            Format::Rg32f => "RG32F",
        }
    }

    pub fn value(self) -> u32 {
        self as u32
    }

    fn of(v: f64) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f64::from(f.value()) == v)
    }

    fn is_color(self) -> bool {
        !matches!(self, Format::Depth | Format::Stencil)
    }

    /// Bytes a texel takes as the renderer stores it (the RGB float formats with alpha).
    fn texel_bytes(self) -> u64 {
        match self {
            Format::Luminance => 1,
            Format::R16f => 2,
            Format::Rgb => 3,
            Format::Rgba | Format::Depth | Format::Stencil | Format::Rg16f | Format::R32f => 4,
            Format::Rgb16f | Format::Rgba16f | Format::Rg32f => 8,
            Format::Rgb32f | Format::Rgba32f => 16,
        }
    }
}

/// `graphics.TEXTURE_FILTER_*`, in Defold's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    Default,
    Nearest,
    Linear,
    NearestMipmapNearest,
    NearestMipmapLinear,
    LinearMipmapNearest,
    LinearMipmapLinear,
}

impl Filter {
    pub const ALL: [Filter; 7] = [
        Filter::Default,
        Filter::Nearest,
        Filter::Linear,
        Filter::NearestMipmapNearest,
        Filter::NearestMipmapLinear,
        Filter::LinearMipmapNearest,
        Filter::LinearMipmapLinear,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Filter::Default => "DEFAULT",
            Filter::Nearest => "NEAREST",
            Filter::Linear => "LINEAR",
            Filter::NearestMipmapNearest => "NEAREST_MIPMAP_NEAREST",
            Filter::NearestMipmapLinear => "NEAREST_MIPMAP_LINEAR",
            Filter::LinearMipmapNearest => "LINEAR_MIPMAP_NEAREST",
            Filter::LinearMipmapLinear => "LINEAR_MIPMAP_LINEAR",
        }
    }

    /// Whether it samples four texels: a render target has one level, so the mipmap filters
    /// read it as their base filter would.
    pub fn is_linear(self) -> bool {
        matches!(self, Filter::Default | Filter::Linear | Filter::LinearMipmapNearest | Filter::LinearMipmapLinear)
    }
}

/// `graphics.TEXTURE_WRAP_*`, in Defold's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrap {
    ClampToBorder,
    ClampToEdge,
    MirroredRepeat,
    Repeat,
}

impl Wrap {
    pub const ALL: [Wrap; 4] = [Wrap::ClampToBorder, Wrap::ClampToEdge, Wrap::MirroredRepeat, Wrap::Repeat];

    pub fn name(self) -> &'static str {
        match self {
            Wrap::ClampToBorder => "CLAMP_TO_BORDER",
            Wrap::ClampToEdge => "CLAMP_TO_EDGE",
            Wrap::MirroredRepeat => "MIRRORED_REPEAT",
            Wrap::Repeat => "REPEAT",
        }
    }
}

/// One buffer of a render target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Buffer {
    Color(u8),
    Depth,
    Stencil,
}

/// How one buffer is sampled and stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Texture {
    pub format: Format,
    pub min: Filter,
    pub mag: Filter,
    pub wrap: [Wrap; 2],
}

/// What a render target is made of.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetSpec {
    pub width: u32,
    pub height: u32,
    pub colors: [Option<Texture>; COLOR_BUFFERS],
    /// Depth and stencil: a depth-stencil texture when both, sampled as depth.
    pub depth: Option<Texture>,
    pub stencil: bool,
    /// Changed whenever the target is made or resized: the renderer makes its objects again.
    pub version: u64,
}

impl TargetSpec {
    /// The texture memory its buffers take (depth and stencil share one 4-byte texel).
    pub fn bytes(&self) -> u64 {
        let texel: u64 = self.colors.iter().flatten().map(|c| c.format.texel_bytes()).sum::<u64>()
            + if self.depth.is_some() || self.stencil { 4 } else { 0 };
        texel * u64::from(self.width) * u64::from(self.height)
    }

    /// Whether it has `buffer`.
    pub fn has(&self, buffer: Buffer) -> bool {
        match buffer {
            Buffer::Color(i) => self.colors.get(usize::from(i)).is_some_and(Option::is_some),
            Buffer::Depth => self.depth.is_some(),
            Buffer::Stencil => self.stencil,
        }
    }
}

/// One buffer of `render.render_target`'s table as a script gave it: `None` where a field was
/// left out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BufferParams {
    pub buffer: Buffer,
    pub format: Option<f64>,
    pub width: Option<f64>,
    pub height: Option<f64>,
    pub min_filter: Option<f64>,
    pub mag_filter: Option<f64>,
    pub u_wrap: Option<f64>,
    pub v_wrap: Option<f64>,
}

/// The render script's live targets, each with its number. Numbers are not reused, so a
/// deleted target's handle never draws into a later one; a script that makes and deletes a
/// target every frame keeps no trace of the old ones.
#[derive(Default)]
pub struct RenderTargets {
    targets: Vec<(u32, TargetSpec)>,
    next: u32,
    versions: u64,
}

fn side(v: Option<f64>, what: &str) -> Result<u32, String> {
    match v {
        None => Err(format!("{what} is missing")),
        Some(x) if x.fract() == 0.0 && (1.0..=f64::from(MAX_SIDE)).contains(&x) => Ok(x as u32),
        Some(x) => Err(format!("{what} must be a whole number from 1 to {MAX_SIDE}, not {x}")),
    }
}

fn nth<T: Copy>(all: &[T], v: Option<f64>, default: T, what: &str, kind: &str) -> Result<T, String> {
    match v {
        None => Ok(default),
        Some(x) if x >= 0.0 && x.fract() == 0.0 && (x as usize) < all.len() => Ok(all[x as usize]),
        Some(x) => Err(format!("{what} {x} is not a graphics.{kind}_* value")),
    }
}

fn buffer_name(b: Buffer) -> String {
    match b {
        Buffer::Color(i) => format!("BUFFER_TYPE_COLOR{i}_BIT"),
        Buffer::Depth => "BUFFER_TYPE_DEPTH_BIT".into(),
        Buffer::Stencil => "BUFFER_TYPE_STENCIL_BIT".into(),
    }
}

impl RenderTargets {
    /// `render.render_target`: a new target's number.
    pub fn make(&mut self, buffers: &[BufferParams]) -> Result<u32, String> {
        let mut spec = self.spec_of(buffers)?;
        self.fits(spec.bytes(), None)?;
        if self.targets.len() >= MAX_TARGETS {
            return Err(format!(
                "a render script may hold at most {MAX_TARGETS} render targets (render.delete_render_target frees one)"
            ));
        }
        self.versions += 1;
        spec.version = self.versions;
        let n = self.next;
        self.next += 1;
        self.targets.push((n, spec));
        Ok(n)
    }

    fn spec_of(&self, buffers: &[BufferParams]) -> Result<TargetSpec, String> {
        if buffers.is_empty() {
            return Err("a render target needs at least one buffer".into());
        }
        let mut spec =
            TargetSpec { width: 0, height: 0, colors: [None; COLOR_BUFFERS], depth: None, stencil: false, version: 0 };
        for b in buffers {
            let name = buffer_name(b.buffer);
            if spec.has(b.buffer) {
                return Err(format!("{name} is given twice"));
            }
            let (w, h) = (side(b.width, &format!("{name}'s width"))?, side(b.height, &format!("{name}'s height"))?);
            if spec.width == 0 {
                (spec.width, spec.height) = (w, h);
            } else if (w, h) != (spec.width, spec.height) {
                return Err(format!(
                    "{name} is {w}x{h} where another buffer is {}x{}: the buffers of a render target have one size",
                    spec.width, spec.height
                ));
            }
            let default = match b.buffer {
                Buffer::Color(_) => Format::Rgba,
                Buffer::Depth => Format::Depth,
                Buffer::Stencil => Format::Stencil,
            };
            let format = match b.format {
                None => default,
                Some(v) => {
                    Format::of(v).ok_or_else(|| format!("{name}'s format {v} is not a graphics.TEXTURE_FORMAT_*"))?
                }
            };
            let fits = match b.buffer {
                Buffer::Color(_) => format.is_color(),
                _ => format == default,
            };
            if !fits {
                return Err(format!("{name} cannot be of format TEXTURE_FORMAT_{}", format.name()));
            }
            let texture = Texture {
                format,
                min: nth(
                    &Filter::ALL,
                    b.min_filter,
                    Filter::Linear,
                    &format!("{name}'s min_filter"),
                    "TEXTURE_FILTER",
                )?,
                mag: nth(
                    &Filter::ALL,
                    b.mag_filter,
                    Filter::Linear,
                    &format!("{name}'s mag_filter"),
                    "TEXTURE_FILTER",
                )?,
                wrap: [
                    nth(&Wrap::ALL, b.u_wrap, Wrap::ClampToEdge, &format!("{name}'s u_wrap"), "TEXTURE_WRAP")?,
                    nth(&Wrap::ALL, b.v_wrap, Wrap::ClampToEdge, &format!("{name}'s v_wrap"), "TEXTURE_WRAP")?,
                ],
            };
            match b.buffer {
                Buffer::Color(i) => {
                    let slot = spec.colors.get_mut(usize::from(i)).ok_or_else(|| format!("no colour buffer {i}"))?;
                    *slot = Some(texture);
                }
                Buffer::Depth => spec.depth = Some(texture),
                Buffer::Stencil => spec.stencil = true,
            }
        }
        Ok(spec)
    }

    /// Whether `bytes` more (in place of target `replacing`'s) stay within [`MAX_BYTES`].
    fn fits(&self, bytes: u64, replacing: Option<u32>) -> Result<(), String> {
        let others: u64 = self.targets.iter().filter(|(i, _)| Some(*i) != replacing).map(|(_, t)| t.bytes()).sum();
        if others + bytes > MAX_BYTES {
            return Err(format!(
                "the render targets would take {} MiB of texture memory with this one, more than the {} MiB a render script may hold",
                (others + bytes) >> 20,
                MAX_BYTES >> 20
            ));
        }
        Ok(())
    }

    /// `render.delete_render_target`.
    pub fn delete(&mut self, n: u32) -> Result<(), String> {
        let at = self.targets.iter().position(|(i, _)| *i == n).ok_or_else(|| missing(n))?;
        self.targets.remove(at);
        Ok(())
    }

    /// `render.set_render_target_size`: every buffer at the new size, made again.
    pub fn resize(&mut self, n: u32, width: f64, height: f64) -> Result<(), String> {
        let (w, h) = (side(Some(width), "the width")?, side(Some(height), "the height")?);
        let mut resized = self.get_mut(n)?.clone();
        (resized.width, resized.height) = (w, h);
        self.fits(resized.bytes(), Some(n))?;
        self.versions += 1;
        let version = self.versions;
        let t = self.get_mut(n)?;
        (t.width, t.height, t.version) = (w, h, version);
        Ok(())
    }

    /// Target `n`, if it exists.
    pub fn get(&self, n: u32) -> Option<&TargetSpec> {
        self.targets.iter().find(|(i, _)| *i == n).map(|(_, t)| t)
    }

    /// Target `n`, or the message a script gets for naming one that does not exist.
    pub fn find(&self, n: u32) -> Result<&TargetSpec, String> {
        self.get(n).ok_or_else(|| missing(n))
    }

    fn get_mut(&mut self, n: u32) -> Result<&mut TargetSpec, String> {
        self.targets.iter_mut().find(|(i, _)| *i == n).map(|(_, t)| t).ok_or_else(|| missing(n))
    }

    /// Every live target with its number.
    pub fn all(&self) -> &[(u32, TargetSpec)] {
        &self.targets
    }

    /// Forgets them all (the render script stopped).
    pub fn clear(&mut self) {
        self.targets.clear();
    }
}

fn missing(n: u32) -> String {
    format!("render target {n} does not exist (deleted already?)")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn color(w: f64, h: f64) -> BufferParams {
        BufferParams {
            buffer: Buffer::Color(0),
            format: Some(f64::from(Format::Rgba.value())),
            width: Some(w),
            height: Some(h),
            min_filter: None,
            mag_filter: Some(1.0),
            u_wrap: None,
            v_wrap: Some(3.0),
        }
    }

    #[test]
    fn a_target_is_made_as_its_table_says() {
        let mut t = RenderTargets::default();
        let depth = BufferParams { buffer: Buffer::Depth, format: Some(6.0), ..color(320.0, 200.0) };
        let n = t.make(&[color(320.0, 200.0), depth]).unwrap();
        let s = t.get(n).unwrap();
        assert_eq!((s.width, s.height), (320, 200));
        let c = s.colors[0].unwrap();
        assert_eq!(
            (c.format, c.min, c.mag, c.wrap),
            (Format::Rgba, Filter::Linear, Filter::Nearest, [Wrap::ClampToEdge, Wrap::Repeat])
        );
        assert!(s.has(Buffer::Depth) && !s.has(Buffer::Stencil) && !s.has(Buffer::Color(1)));
        let v = s.version;
        t.resize(n, 64.0, 32.0).unwrap();
        let s = t.get(n).unwrap();
        assert_eq!((s.width, s.height), (64, 32));
        assert_ne!(s.version, v, "a resize makes it again");
        t.delete(n).unwrap();
        assert!(t.get(n).is_none());
        assert!(t.delete(n).unwrap_err().contains("does not exist"));
        assert_eq!(t.make(&[color(8.0, 8.0)]).unwrap(), n + 1, "numbers are not reused");
    }

    #[test]
    fn bad_tables_are_refused_before_anything_is_made() {
        let mut t = RenderTargets::default();
        assert!(t.make(&[]).unwrap_err().contains("at least one"));
        assert!(t.make(&[color(0.0, 10.0)]).unwrap_err().contains("width must be a whole number"));
        assert!(t.make(&[color(10.0, 1e9)]).unwrap_err().contains("8192"));
        let wide = |w| BufferParams { format: Some(f64::from(Format::Rgba32f.value())), ..color(w, 8192.0) };
        let depth = BufferParams { buffer: Buffer::Depth, format: Some(6.0), ..color(8192.0, 8192.0) };
        assert!(t.make(&[wide(8192.0), depth]).unwrap_err().contains("1280 MiB"), "1 GiB and a depth buffer");
        let small = t.make(&[color(64.0, 64.0)]).unwrap();
        let big = t.make(&[wide(6000.0)]).unwrap();
        assert!(t.make(&[wide(6000.0)]).unwrap_err().contains("more than the 1024 MiB"), "together over the limit");
        assert!(t.resize(big, 8192.0, 8192.0).is_err(), "nor grown past it");
        t.delete(big).unwrap();
        assert_eq!(t.make(&[wide(6000.0)]).unwrap(), big + 1, "a deleted one gives its memory back");
        t.delete(small).unwrap();
        t.clear();
        assert!(t.make(&[color(10.0, f64::NAN)]).is_err());
        assert!(t.make(&[BufferParams { height: None, ..color(4.0, 4.0) }]).unwrap_err().contains("height is missing"));
        let other = BufferParams { buffer: Buffer::Color(1), ..color(8.0, 8.0) };
        assert!(t.make(&[color(4.0, 4.0), other]).unwrap_err().contains("one size"));
        assert!(t.make(&[color(4.0, 4.0), color(4.0, 4.0)]).unwrap_err().contains("twice"));
        let depth_as_color = BufferParams { format: Some(6.0), ..color(4.0, 4.0) };
        assert!(t.make(&[depth_as_color]).unwrap_err().contains("cannot be of format TEXTURE_FORMAT_DEPTH"));
        assert!(t.make(&[BufferParams { format: Some(5.0), ..color(4.0, 4.0) }]).unwrap_err().contains("format 5"));
        assert!(
            t.make(&[BufferParams { min_filter: Some(7.0), ..color(4.0, 4.0) }]).unwrap_err().contains("min_filter")
        );
        assert!(t.make(&[BufferParams { u_wrap: Some(-1.0), ..color(4.0, 4.0) }]).unwrap_err().contains("u_wrap"));
        assert!(t.all().is_empty(), "nothing was made");
        for _ in 0..MAX_TARGETS {
            t.make(&[color(1.0, 1.0)]).unwrap();
        }
        assert!(t.make(&[color(1.0, 1.0)]).unwrap_err().contains("at most"));
        t.delete(3).unwrap();
        assert!(t.make(&[color(1.0, 1.0)]).is_ok(), "a deleted one frees its place");
        assert!(t.resize(3, 4.0, 4.0).is_err());
        assert!(t.resize(4, 0.0, 4.0).is_err());
    }

    /// The three formats runtime textures take too are numbered as there (one numbering).
    #[test]
    fn formats_shared_with_runtime_textures_have_their_numbers() {
        for (name, v, _) in crate::game::runtime_textures::TEXTURE_FORMATS {
            let f = Format::ALL.iter().find(|f| format!("TEXTURE_FORMAT_{}", f.name()) == *name);
            assert_eq!(f.map(|f| f.value()), Some(*v), "{name}");
        }
    }
}
