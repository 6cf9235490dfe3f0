//! Where a frame's drawing goes, pass by pass, for `--stats` (issue 40: the first frame is most
//! of the start-up, and whoever makes it faster needs to know whether it is the shadows, the
//! models or the GUI). GL runs asynchronously, so a pass's time is known only once the driver
//! has finished it: with the clock on, each pass ends with `glFinish` and is charged the wall
//! time since the previous pass ended. That stops the CPU from running ahead of the GPU, which
//! is why the clock runs only under `--stats` (where a headless run finishes every frame anyway).
use glow::HasContext;
use std::time::Instant;

/// The passes of a frame in drawing order, as `--stats` names them.
pub const PASSES: [&str; 5] = ["shadow", "models", "sprites", "overlay", "gui"];

/// A pass of [`PASSES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// The skinning poses' upload and the shadow map.
    Shadow,
    /// Models and labels' glyphs queued with them.
    Models,
    /// Sprites, particles and tile maps.
    Sprites,
    /// Debug cubes, `draw_line`, `draw_text` and labels.
    Overlay,
    Gui,
}

#[derive(Debug, Default)]
pub struct PassClock {
    on: bool,
    mark: Option<Instant>,
    /// Milliseconds each pass took in the frame being drawn (the last one, once drawn).
    took: [f64; PASSES.len()],
}

impl PassClock {
    pub fn set_on(&mut self, on: bool) {
        self.on = on;
        self.mark = None;
    }

    /// Starts a frame: what was queued before it (the clear, texture and buffer uploads) is
    /// finished here and charged to no pass.
    pub fn begin(&mut self, gl: &glow::Context) {
        self.took = [0.0; PASSES.len()];
        if self.on {
            // SAFETY: a plain finish on the current context.
            unsafe { gl.finish() };
            self.mark = Some(Instant::now());
        }
    }

    /// Ends `pass`: waits for the driver to draw it and charges it the time since the last mark.
    /// Nothing (not even the wait) while the clock is off or no frame was begun.
    pub fn lap(&mut self, gl: &glow::Context, pass: Pass) {
        let Some(mark) = self.mark.filter(|_| self.on) else { return };
        // SAFETY: as in `begin`.
        unsafe { gl.finish() };
        let now = Instant::now();
        self.took[pass as usize] += (now - mark).as_secs_f64() * 1000.0;
        self.mark = Some(now);
    }

    /// Each pass's milliseconds in the last frame, in [`PASSES`] order (zeros while off).
    pub fn took(&self) -> &[f64; PASSES.len()] {
        &self.took
    }
}
