//! Where each frame's mix goes: `--audio-out FILE.wav` (32-bit float, exactly the samples
//! mixed) and, with a window, the audio device through SDL. The device's callback copies from a
//! lock-free ring and plays silence when the ring runs dry; without a device (headless, CI, no
//! sound card) the run goes on silently.
use crate::game::sound::mixer::RATE;
use crate::game::sound::ring::Ring;
use crate::project::sound::wav_float_header;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Samples the ring holds: 0.17 s of stereo, several frames of slack at any frame rate.
const RING_SAMPLES: usize = 16_384;
/// Above this many queued samples (85 ms) a frame's mix is dropped rather than queued, so a
/// game clock running ahead of the device never builds up latency.
const MAX_QUEUED: usize = RING_SAMPLES / 2;

struct Feeder {
    ring: Arc<Ring>,
}

impl sdl2::audio::AudioCallback for Feeder {
    type Channel = f32;
    fn callback(&mut self, out: &mut [f32]) {
        self.ring.pop(out);
    }
}

struct WavOut {
    path: PathBuf,
    file: std::io::BufWriter<std::fs::File>,
    samples: u64,
}

pub struct AudioOut {
    wav: Option<WavOut>,
    device: Option<(sdl2::audio::AudioDevice<Feeder>, Arc<Ring>)>,
    failed: bool,
}

impl AudioOut {
    /// Creates `audio_out` (an error if it cannot be) and, unless `headless`, opens the default
    /// device (only logged when there is none).
    pub fn open(audio_out: Option<&Path>, headless: bool) -> Result<AudioOut, String> {
        let wav = match audio_out {
            Some(p) => {
                let mut file = std::fs::File::create(p)
                    .map(std::io::BufWriter::new)
                    .map_err(|e| format!("{}: cannot create the audio file: {e}", p.display()))?;
                file.write_all(&wav_float_header(RATE, 2, 0))
                    .map_err(|e| format!("{}: cannot write the audio file: {e}", p.display()))?;
                Some(WavOut { path: p.to_path_buf(), file, samples: 0 })
            }
            None => None,
        };
        let device = if headless { None } else { open_device() };
        Ok(AudioOut { wav, device, failed: false })
    }

    /// One frame's mix (interleaved stereo at [`RATE`]).
    pub fn write(&mut self, samples: &[f32]) {
        if let Some((_, ring)) = &self.device
            && ring.len() < MAX_QUEUED
        {
            ring.push(samples);
        }
        if let Some(w) = &mut self.wav
            && !self.failed
        {
            let mut bytes = Vec::with_capacity(samples.len() * 4);
            for s in samples {
                bytes.extend_from_slice(&s.to_le_bytes());
            }
            if let Err(e) = w.file.write_all(&bytes) {
                log::error!("{}: cannot write the audio file: {e}", w.path.display());
                self.failed = true;
            }
            w.samples += samples.len() as u64;
        }
    }

    /// Writes the WAV header's sizes; false when the file could not be completed.
    pub fn finish(mut self) -> bool {
        let Some(w) = &mut self.wav else { return true };
        let header = wav_float_header(RATE, 2, w.samples);
        let done = (|| {
            w.file.seek(SeekFrom::Start(0))?;
            w.file.write_all(&header)?;
            w.file.flush()
        })();
        match done {
            Ok(()) => !self.failed,
            Err(e) => {
                log::error!("{}: cannot finish the audio file: {e}", w.path.display());
                false
            }
        }
    }
}

fn open_device() -> Option<(sdl2::audio::AudioDevice<Feeder>, Arc<Ring>)> {
    let opened = (|| {
        let sdl = sdl2::init()?;
        let audio = sdl.audio()?;
        let want = sdl2::audio::AudioSpecDesired { freq: Some(RATE as i32), channels: Some(2), samples: Some(1024) };
        let ring = Arc::new(Ring::new(RING_SAMPLES));
        let feeder = ring.clone();
        let device = audio.open_playback(None, &want, |_| Feeder { ring: feeder })?;
        device.resume();
        Ok::<_, String>((device, ring))
    })();
    match opened {
        Ok(d) => Some(d),
        Err(e) => {
            log::info!("no audio device ({e}): sound is mixed but not played");
            None
        }
    }
}
