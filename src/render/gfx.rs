//! Window, OpenGL context and the offscreen frame buffer every frame is drawn into. The
//! window's events are translated in `sdl_input`.

use std::sync::atomic::{AtomicBool, Ordering};

use glow::HasContext;
use sdl2::video::{GLProfile, SwapInterval};

use super::image::Image;
use super::sdl_input::SdlInput;
use crate::game::input::RawEvent;

/// Set while the `SDL_VIDEODRIVER` hint is forced to `offscreen` by a headless [`Gfx`].
static OFFSCREEN_HINT_SET: AtomicBool = AtomicBool::new(false);

/// How to open the window (or, headless, the offscreen surface).
#[derive(Clone, Debug)]
pub struct WindowConfig {
    pub title: String,
    pub width: u32,
    pub height: u32,
    pub vsync: bool,
    /// Use SDL's `offscreen` video driver (EGL, no display needed).
    pub headless: bool,
}

/// Whether a windowed (non-headless) [`Gfx`] can plausibly be opened: false when neither
/// `DISPLAY` nor `WAYLAND_DISPLAY` is set. Only looks at the environment, so it is cheap;
/// `Gfx::new` still reports an error if SDL cannot open a window after all.
pub fn display_available() -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    if cfg!(any(target_os = "windows", target_os = "macos")) {
        return true;
    }
    set("DISPLAY") || set("WAYLAND_DISPLAY")
}

/// The OpenGL device: SDL window + GL 3.3 core context + an offscreen frame buffer (RGBA8
/// colour, 24-bit depth) that frames are drawn into and read back from.
pub struct Gfx {
    // Field order is drop order: GL objects go while the context is still alive.
    fbo: glow::Framebuffer,
    color_rb: glow::Renderbuffer,
    depth_rb: glow::Renderbuffer,
    gl: glow::Context,
    width: u32,
    height: u32,
    headless: bool,
    /// Headless frames end with `glFinish` rather than `glFlush` (see [`Gfx::finish_frames`]).
    finish: bool,
    event_pump: sdl2::EventPump,
    input: SdlInput,
    _gl_context: sdl2::video::GLContext,
    window: sdl2::video::Window,
    video: sdl2::VideoSubsystem,
    _sdl: sdl2::Sdl,
}

impl Gfx {
    /// Opens the window (or offscreen surface when `cfg.headless`) with an OpenGL 3.3 core
    /// context and creates the offscreen frame buffer of `cfg.width` x `cfg.height`.
    pub fn new(cfg: &WindowConfig) -> Result<Gfx, String> {
        if cfg.width == 0 || cfg.height == 0 {
            return Err(format!("invalid window size {}x{}", cfg.width, cfg.height));
        }
        if cfg.headless {
            // SDL's offscreen driver creates the context through EGL (Mesa: llvmpipe when
            // there is no GPU); no X/Wayland display and no environment variables needed.
            // Override priority so a user's SDL_VIDEODRIVER cannot defeat `headless`.
            sdl2::hint::set_with_priority("SDL_VIDEODRIVER", "offscreen", &sdl2::hint::Hint::Override);
            OFFSCREEN_HINT_SET.store(true, Ordering::Relaxed);
        } else if OFFSCREEN_HINT_SET.swap(false, Ordering::Relaxed) {
            // An earlier headless Gfx in this process forced the offscreen driver; undo it
            // (an empty hint means "SDL's default choice", i.e. $SDL_VIDEODRIVER or probing).
            let user = std::env::var("SDL_VIDEODRIVER").unwrap_or_default();
            sdl2::hint::set_with_priority("SDL_VIDEODRIVER", &user, &sdl2::hint::Hint::Override);
        }
        let sdl = sdl2::init().map_err(|e| format!("SDL init failed: {e}"))?;
        let video = sdl.video().map_err(|e| format!("SDL video init failed: {e}"))?;
        if !cfg.headless {
            // With no display SDL falls back to its offscreen driver, which would "open" an
            // invisible window; report that instead unless the user asked for it explicitly.
            let driver = video.current_video_driver();
            let requested = std::env::var("SDL_VIDEODRIVER").unwrap_or_default();
            if matches!(driver, "offscreen" | "dummy") && requested != driver {
                return Err(format!(
                    "no display available (SDL chose its '{driver}' video driver); \
                     run headless instead"
                ));
            }
        }
        {
            let attr = video.gl_attr();
            attr.set_context_profile(GLProfile::Core);
            attr.set_context_version(3, 3);
            attr.set_context_flags().forward_compatible().set();
            attr.set_red_size(8);
            attr.set_green_size(8);
            attr.set_blue_size(8);
            attr.set_depth_size(0);
            attr.set_double_buffer(!cfg.headless);
        }
        let mut builder = video.window(&cfg.title, cfg.width, cfg.height);
        builder.opengl();
        if cfg.headless {
            builder.hidden();
        } else {
            builder.position_centered().resizable().allow_highdpi();
        }
        let window = builder
            .build()
            .map_err(|e| format!("SDL could not open a window ({}): {e}", video.current_video_driver()))?;
        let gl_context =
            window.gl_create_context().map_err(|e| format!("could not create an OpenGL 3.3 core context: {e}"))?;
        window.gl_make_current(&gl_context).map_err(|e| format!("could not make the OpenGL context current: {e}"))?;
        if !cfg.headless {
            let interval = if cfg.vsync { SwapInterval::VSync } else { SwapInterval::Immediate };
            if let Err(e) = video.gl_set_swap_interval(interval) {
                log::warn!("could not set swap interval: {e}");
            }
        }
        // SAFETY: the context created above is current on this thread; the loader returns
        // null for unknown names, which glow tolerates until the function is called.
        let gl = unsafe {
            glow::Context::from_loader_function(|name| video.gl_get_proc_address(name) as *const std::ffi::c_void)
        };
        let version = gl.version();
        if version.is_embedded || (version.major, version.minor) < (3, 3) {
            return Err(format!(
                "OpenGL 3.3 core needed, got {}.{}{} ({})",
                version.major,
                version.minor,
                if version.is_embedded { " ES" } else { "" },
                version.vendor_info
            ));
        }
        let (fbo, color_rb, depth_rb) = create_framebuffer(&gl, cfg.width, cfg.height)?;
        let event_pump = sdl.event_pump().map_err(|e| format!("SDL event pump: {e}"))?;
        // Headless runs take input from replay files only, so no controllers are opened.
        let input = SdlInput::new(if cfg.headless { None } else { Some(&sdl) });
        Ok(Gfx {
            fbo,
            color_rb,
            depth_rb,
            gl,
            width: cfg.width,
            height: cfg.height,
            headless: cfg.headless,
            finish: false,
            event_pump,
            input,
            _gl_context: gl_context,
            window,
            video,
            _sdl: sdl,
        })
    }

    pub fn gl(&self) -> &glow::Context {
        &self.gl
    }

    /// Size of the offscreen frame buffer (what `read_pixels` returns).
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// Draws at `width` x `height` from the next frame on: the frame buffer is made again at
    /// that size (the window follows the game's window size, as Defold's drawing area does).
    /// A size the driver refuses keeps the old frame buffer, with the error.
    pub fn resize(&mut self, width: u32, height: u32) -> Result<(), String> {
        if (width, height) == (self.width, self.height) {
            return Ok(());
        }
        if width == 0 || height == 0 {
            return Err(format!("cannot draw at {width}x{height}"));
        }
        let (fbo, color, depth) = create_framebuffer(&self.gl, width, height)?;
        // SAFETY: the old objects belong to this context, which is current; nothing holds them.
        unsafe {
            self.gl.delete_framebuffer(self.fbo);
            self.gl.delete_renderbuffer(self.color_rb);
            self.gl.delete_renderbuffer(self.depth_rb);
        }
        (self.fbo, self.color_rb, self.depth_rb) = (fbo, color, depth);
        (self.width, self.height) = (width, height);
        Ok(())
    }

    /// Asks the window system for a window of `width` x `height` (`@render: resize`); its
    /// resize event follows. Headless: nothing (the caller reports the resize itself).
    pub fn set_window_size(&mut self, width: u32, height: u32) {
        if self.headless {
            return;
        }
        if let Err(e) = self.window.set_size(width, height) {
            log::warn!("could not resize the window to {width}x{height}: {e}");
        }
    }

    /// Whether this is a headless (offscreen) surface.
    pub fn is_headless(&self) -> bool {
        self.headless
    }

    /// `GL_VERSION` and `GL_RENDERER`, plus the SDL video driver, for a log line.
    pub fn renderer_info(&self) -> String {
        // SAFETY: plain queries on the current context.
        let (version, renderer) =
            unsafe { (self.gl.get_parameter_string(glow::VERSION), self.gl.get_parameter_string(glow::RENDERER)) };
        format!("OpenGL {version} on {renderer} (SDL video driver: {})", self.video.current_video_driver())
    }

    /// Binds the offscreen frame buffer, sets the viewport to its size, clears colour and
    /// depth, and turns depth testing on.
    pub fn begin_frame(&mut self, clear: [f32; 4]) {
        let gl = &self.gl;
        // SAFETY: all objects belong to this context, which is current.
        unsafe {
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(self.fbo));
            gl.viewport(0, 0, self.width as i32, self.height as i32);
            gl.disable(glow::SCISSOR_TEST);
            gl.color_mask(true, true, true, true);
            gl.depth_mask(true);
            gl.clear_color(clear[0], clear[1], clear[2], clear[3]);
            gl.clear_depth_f64(1.0);
            gl.clear(glow::COLOR_BUFFER_BIT | glow::DEPTH_BUFFER_BIT);
            gl.enable(glow::DEPTH_TEST);
            gl.depth_func(glow::LESS);
        }
    }

    /// Makes each headless frame wait until it is drawn, for `--stats`. llvmpipe draws
    /// asynchronously: a headless frame that only flushes returns before its pixels are done,
    /// and the drawing shows up later wherever something waits for it (a texture changed in
    /// place, a frame buffer switch), so the render phase would time the submission of one
    /// frame plus the drawing of others. Measured on the demo: "3 ms" a frame without shadows
    /// was 70-77 ms once each frame was waited for. A window's swap waits anyway.
    pub fn finish_frames(&mut self, on: bool) {
        self.finish = on;
    }

    /// Windowed: copies the frame buffer to the window (scaled to its drawable size) and
    /// swaps. Headless: flushes, or with `finish_frames` waits for the frame.
    pub fn end_frame(&mut self) {
        let gl = &self.gl;
        if self.headless {
            // SAFETY: plain flush or finish on the current context.
            unsafe {
                if self.finish {
                    gl.finish();
                } else {
                    gl.flush();
                }
            }
            return;
        }
        let (dw, dh) = self.window.drawable_size();
        // SAFETY: all objects belong to this context, which is current.
        unsafe {
            gl.disable(glow::SCISSOR_TEST);
            gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(self.fbo));
            gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, None);
            gl.blit_framebuffer(
                0,
                0,
                self.width as i32,
                self.height as i32,
                0,
                0,
                dw as i32,
                dh as i32,
                glow::COLOR_BUFFER_BIT,
                glow::LINEAR,
            );
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(self.fbo));
        }
        self.window.gl_swap_window();
    }

    /// Hides the cursor and switches SDL to relative motion (or back); nothing when headless.
    pub fn set_mouse_lock(&mut self, on: bool) {
        if self.headless || self.input.mouse_locked() == on {
            return;
        }
        self._sdl.mouse().set_relative_mouse_mode(on);
        self.input.set_mouse_locked(on);
    }

    /// Drains pending window-system events into `out` as raw input events.
    pub fn poll_events(&mut self, out: &mut Vec<RawEvent>) {
        for e in self.event_pump.poll_iter() {
            self.input.translate(e, out);
        }
    }

    /// The window's size in the units of mouse coordinates (the offscreen size when headless).
    pub fn window_size(&self) -> (u32, u32) {
        if self.headless { (self.width, self.height) } else { self.window.size() }
    }

    /// Reads the offscreen frame buffer back as RGBA8, rows top-to-bottom.
    pub fn read_pixels(&self) -> Image {
        let (w, h) = (self.width as usize, self.height as usize);
        let mut buf = vec![0u8; w * h * 4];
        let gl = &self.gl;
        // SAFETY: `buf` holds exactly w*h RGBA8 pixels with pack alignment 1.
        unsafe {
            gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(self.fbo));
            gl.read_buffer(glow::COLOR_ATTACHMENT0);
            gl.pixel_store_i32(glow::PACK_ALIGNMENT, 1);
            gl.read_pixels(
                0,
                0,
                self.width as i32,
                self.height as i32,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelPackData::Slice(Some(&mut buf)),
            );
        }
        // GL rows are bottom-to-top; flip.
        let row = w * 4;
        let mut rgba = Vec::with_capacity(buf.len());
        for y in (0..h).rev() {
            rgba.extend_from_slice(&buf[y * row..(y + 1) * row]);
        }
        Image { width: self.width, height: self.height, rgba }
    }
}

impl Drop for Gfx {
    fn drop(&mut self) {
        // SAFETY: the context is still alive (it is dropped after this) and these objects
        // were created on it.
        unsafe {
            self.gl.bind_framebuffer(glow::FRAMEBUFFER, None);
            self.gl.delete_framebuffer(self.fbo);
            self.gl.delete_renderbuffer(self.color_rb);
            self.gl.delete_renderbuffer(self.depth_rb);
        }
    }
}

fn create_framebuffer(
    gl: &glow::Context,
    width: u32,
    height: u32,
) -> Result<(glow::Framebuffer, glow::Renderbuffer, glow::Renderbuffer), String> {
    let (w, h) = (width as i32, height as i32);
    // SAFETY: the context is current; objects are created and bound on it.
    unsafe {
        let color = gl.create_renderbuffer()?;
        gl.bind_renderbuffer(glow::RENDERBUFFER, Some(color));
        gl.renderbuffer_storage(glow::RENDERBUFFER, glow::RGBA8, w, h);
        let depth = gl.create_renderbuffer()?;
        gl.bind_renderbuffer(glow::RENDERBUFFER, Some(depth));
        // With stencil bits: GUI clipping nodes (`render::gui`) mask their children with them.
        gl.renderbuffer_storage(glow::RENDERBUFFER, glow::DEPTH24_STENCIL8, w, h);
        gl.bind_renderbuffer(glow::RENDERBUFFER, None);
        let fbo = gl.create_framebuffer()?;
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
        gl.framebuffer_renderbuffer(glow::FRAMEBUFFER, glow::COLOR_ATTACHMENT0, glow::RENDERBUFFER, Some(color));
        gl.framebuffer_renderbuffer(glow::FRAMEBUFFER, glow::DEPTH_STENCIL_ATTACHMENT, glow::RENDERBUFFER, Some(depth));
        let status = gl.check_framebuffer_status(glow::FRAMEBUFFER);
        if status != glow::FRAMEBUFFER_COMPLETE {
            gl.bind_framebuffer(glow::FRAMEBUFFER, None);
            gl.delete_framebuffer(fbo);
            gl.delete_renderbuffer(color);
            gl.delete_renderbuffer(depth);
            return Err(format!("offscreen frame buffer {width}x{height} incomplete (status 0x{status:x})"));
        }
        Ok((fbo, color, depth))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_available_follows_environment() {
        // Only checks consistency with the environment; does not modify it.
        let set = |n: &str| std::env::var_os(n).is_some_and(|v| !v.is_empty());
        if cfg!(target_os = "linux") {
            assert_eq!(display_available(), set("DISPLAY") || set("WAYLAND_DISPLAY"));
        }
    }
}
