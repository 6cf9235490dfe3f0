//! A play of a streamed sound (`project::sound::Streamed`): its own Vorbis decoder over the
//! file's bytes and a window of decoded frames, refilled on the game thread before each mix
//! with just what the mix will read. The mixer reads the window as it reads a decoded sound's
//! samples, so the two paths give the same samples; only the decoder allocates, and never in
//! [`super::mixer::mix`].
//!
//! The window runs on across a loop's seam (the decoder starts over), so a loop is seamless and
//! interpolation across the seam reads the sound's first frame, as a decoded loop does.
use crate::project::sound::Streamed;
use lewton::inside_ogg::OggStreamReader;
use std::io::Cursor;
use std::sync::Arc;

type Reader = OggStreamReader<Cursor<Arc<[u8]>>>;

pub struct Stream {
    file: Streamed,
    reader: Option<Reader>,
    /// Frames the decoder handed out since it last started (the sound's frames past `frames`
    /// are the encoder's padding and are cut).
    decoded: u64,
    /// Decoded frames, interleaved at the sound's kept channels; the voice's position counts
    /// from its first.
    pub window: Vec<f32>,
    kept: usize,
    /// No frame comes after the window's last: the sound (or its last loop) ended, or the
    /// file failed to decode (`error`).
    pub ended: bool,
    pub error: Option<String>,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("frames", &self.file.frames)
            .field("decoded", &self.decoded)
            .field("window_frames", &(self.window.len() / self.kept))
            .field("ended", &self.ended)
            .finish()
    }
}

impl Stream {
    pub fn new(file: Streamed, channels: u16) -> Stream {
        Stream {
            file,
            reader: None,
            decoded: 0,
            window: Vec::new(),
            kept: channels.clamp(1, 2) as usize,
            ended: false,
            error: None,
        }
    }

    /// Frames in the window.
    pub fn frames(&self) -> usize {
        self.window.len() / self.kept
    }

    /// Drops the first `n` frames (the mix has passed them).
    pub fn drop_front(&mut self, n: usize) {
        let n = (n * self.kept).min(self.window.len());
        self.window.drain(..n);
    }

    /// Decodes until the window holds `need` frames or the sound ends. At the end of the file
    /// `again` says whether to start over (a loop with plays left), and is asked once per seam.
    pub fn fill(&mut self, need: usize, mut again: impl FnMut() -> bool) {
        // A packet is at most 8,192 frames; a window that cannot grow in a few hundred packets
        // is a file that decodes to nothing, not one to spin on.
        let mut tries = 0;
        while self.frames() < need && !self.ended && tries < 512 {
            tries += 1;
            if self.decoded >= self.file.frames || self.file.frames == 0 {
                if self.file.frames > 0 && again() {
                    self.reader = None;
                    self.decoded = 0;
                    continue;
                }
                self.ended = true;
                break;
            }
            if self.reader.is_none() {
                match OggStreamReader::new(Cursor::new(self.file.bytes.clone())) {
                    Ok(r) => self.reader = Some(r),
                    Err(e) => return self.fail(e),
                }
            }
            let Some(reader) = self.reader.as_mut() else { return };
            let channels = (reader.ident_hdr.audio_channels as usize).max(1);
            match reader.read_dec_packet_itl() {
                Ok(Some(packet)) => {
                    let left = (self.file.frames - self.decoded) as usize;
                    for frame in packet.chunks_exact(channels).take(left) {
                        self.window.push(frame[0] as f32 / 32768.0);
                        if self.kept == 2 {
                            self.window.push(frame.get(1).copied().unwrap_or(frame[0]) as f32 / 32768.0);
                        }
                        self.decoded += 1;
                    }
                }
                // The file ended before its last page's granule said: the sound is that long.
                Ok(None) => self.file.frames = self.decoded,
                Err(e) => return self.fail(e),
            }
        }
    }

    fn fail(&mut self, e: lewton::VorbisError) {
        self.error = Some(format!("bad Ogg Vorbis data while streaming: {e}"));
        self.ended = true;
    }
}
