//! Sound files decoded to memory: WAV (8/16/24/32-bit PCM, 32-bit float) through `hound` and
//! Ogg Vorbis through `lewton`, into interleaved `f32` frames of one or two channels. Every size
//! a header declares is checked against the bytes the file holds before anything is reserved, so
//! a 44-byte file claiming 4 GB of samples costs 44 bytes. Ogg Vorbis longer than
//! [`STREAM_ABOVE_SECONDS`] is not decoded here: its bytes are kept and each play decodes as it
//! goes (`game::sound::stream`), as Defold streams music.
use crate::base::error::LoadError;
use std::io::Cursor;
use std::sync::Arc;

/// Below this a "sample rate" is a corrupt header, not a sound (8 kHz telephony is the lowest in
/// use).
pub const MIN_SAMPLE_RATE: u32 = 1_000;
/// Above this (twice the highest studio rate) a header lies.
pub const MAX_SAMPLE_RATE: u32 = 384_000;
/// More channels than this are refused; of what is accepted the first two are kept.
pub const MAX_CHANNELS: u16 = 8;
/// The longest sound decoded to memory: ten minutes. A longer one is refused with its length
/// rather than filling memory (a game's music is streamed in Defold; Sinew keeps it whole).
pub const MAX_SECONDS: u64 = 600;

/// The most decoded samples one byte of an Ogg file may yield (besides one second's worth).
pub const OGG_SAMPLES_PER_BYTE: u64 = 256;
/// Ogg Vorbis sounds longer than this are streamed: music and long ambiences would cost
/// 11 MB a minute decoded (stereo f32 at 48 kHz); sound effects are shorter and start
/// without a decoder.
pub const STREAM_ABOVE_SECONDS: u64 = 30;
/// The longest streamed sound (its length is read from the last page before anything else).
pub const MAX_STREAM_SECONDS: u64 = 4 * 3600;

/// What is kept of a streamed sound: the file and its length.
#[derive(Debug, Clone, PartialEq)]
pub struct Streamed {
    pub bytes: Arc<[u8]>,
    /// Frames in the sound, from the last page's granule position.
    pub frames: u64,
}

/// A decoded sound: `channels` (1 or 2) interleaved samples per frame in -1..1; a streamed one
/// has no samples and its file in `streamed`.
#[derive(Debug, Clone, PartialEq)]
pub struct SoundData {
    pub rate: u32,
    pub channels: u16,
    pub samples: Vec<f32>,
    pub streamed: Option<Streamed>,
}

impl SoundData {
    /// Frames (one sample per channel) in the sound.
    pub fn frames(&self) -> usize {
        match &self.streamed {
            Some(s) => s.frames as usize,
            None => self.samples.len() / self.channels.max(1) as usize,
        }
    }

    /// The frame at `i` as (left, right); a mono sound gives its sample twice.
    #[inline]
    pub fn frame(&self, i: usize) -> (f32, f32) {
        if self.channels == 2 {
            let j = i * 2;
            (self.samples[j], self.samples[j + 1])
        } else {
            let s = self.samples[i];
            (s, s)
        }
    }
}

/// A `sound` component (engine.md section 5): Defold's SoundDesc plus Sinew's positional fields.
#[derive(Debug, Clone, PartialEq)]
pub struct SoundSpec {
    /// The `.wav` or `.ogg` resource; decoded when the component is made.
    pub sound: String,
    pub gain: f32,
    /// -1 (left) .. 1 (right); the pan law is in docs/sound.md.
    pub pan: f32,
    /// Playback rate: 2 is an octave up and half as long.
    pub speed: f32,
    pub looping: bool,
    /// How many times a looping sound plays before it ends (`sound_done`); 0 loops until stopped
    /// (Defold's `loopcount`).
    pub loopcount: u32,
    /// The mixer group; Defold's default is `master`.
    pub group: String,
    /// Beyond Defold: attenuated and panned by the object's place relative to the listener.
    pub spatial: Option<Spatial>,
}

/// Distances of a positional sound: full gain up to `min_distance`, silent from `max_distance`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spatial {
    pub min_distance: f32,
    pub max_distance: f32,
}

/// Defold's range for `speed` (sound.play refuses outside it too).
pub const MIN_SPEED: f32 = 0.0625;
pub const MAX_SPEED: f32 = 16.0;
/// A gain above this is a typo that would clip everything it plays with.
pub const MAX_GAIN: f32 = 16.0;

/// Decodes a `.wav` or `.ogg` resource; `path` names it in errors. A long Ogg Vorbis file is
/// kept to be streamed ([`STREAM_ABOVE_SECONDS`]).
pub fn decode(path: &str, bytes: &[u8]) -> Result<SoundData, LoadError> {
    decode_streaming_above(path, bytes, STREAM_ABOVE_SECONDS)
}

/// [`decode`] with the length above which Ogg Vorbis is streamed (0: every Ogg file, as
/// Defold's `[sound] stream_enabled`).
pub fn decode_streaming_above(path: &str, bytes: &[u8], seconds: u64) -> Result<SoundData, LoadError> {
    match bytes.get(..4) {
        Some(b"RIFF") | Some(b"RIFX") => decode_wav(path, bytes),
        Some(b"OggS") => match ogg_length(path, bytes)? {
            Some((rate, frames)) if frames > seconds.saturating_mul(rate as u64) => stream_ogg(path, bytes, frames),
            _ => decode_ogg(path, bytes),
        },
        _ => Err(LoadError::new(path, "not a sound file: expected a WAV (RIFF) or Ogg Vorbis (OggS) header")),
    }
}

/// The sample rate and the frames of an Ogg Vorbis file, from its headers and the granule
/// position of its last page; `None` when the last page gives none (the decoder then finds out).
fn ogg_length(path: &str, bytes: &[u8]) -> Result<Option<(u32, u64)>, LoadError> {
    let bad = |e: lewton::VorbisError| LoadError::new(path, format!("bad Ogg Vorbis file: {e}"));
    let reader = lewton::inside_ogg::OggStreamReader::new(Cursor::new(bytes)).map_err(bad)?;
    let rate = reader.ident_hdr.audio_sample_rate;
    check_format(path, "Ogg Vorbis", reader.ident_hdr.audio_channels as u16, rate)?;
    Ok(last_granule(bytes).map(|g| (rate, g)))
}

/// The granule position of the last page that has one: an Ogg page starts `OggS`, version 0,
/// a header-type byte, then the 64-bit granule position (-1 on pages where no packet ends).
fn last_granule(bytes: &[u8]) -> Option<u64> {
    let mut end = bytes.len();
    while let Some(at) = bytes[..end].windows(4).rposition(|w| w == b"OggS") {
        if let Some(g) = bytes.get(at + 6..at + 14).and_then(|b| <[u8; 8]>::try_from(b).ok()) {
            let g = u64::from_le_bytes(g);
            if g != u64::MAX && bytes.get(at + 4) == Some(&0) {
                return Some(g);
            }
        }
        end = at;
    }
    None
}

fn stream_ogg(path: &str, bytes: &[u8], frames: u64) -> Result<SoundData, LoadError> {
    let bad = |e: lewton::VorbisError| LoadError::new(path, format!("bad Ogg Vorbis file: {e}"));
    let mut reader = lewton::inside_ogg::OggStreamReader::new(Cursor::new(bytes)).map_err(bad)?;
    let channels = reader.ident_hdr.audio_channels as u16;
    let rate = reader.ident_hdr.audio_sample_rate;
    if frames > MAX_STREAM_SECONDS * rate as u64 {
        let msg = format!(
            "sound is {} s long; the limit of a streamed sound is {MAX_STREAM_SECONDS} s",
            frames / rate as u64
        );
        return Err(LoadError::new(path, msg));
    }
    // The last page's granule is only a claim: a few bytes of hostile file could say hours.
    let earned = bytes.len() as u64 * OGG_SAMPLES_PER_BYTE + rate as u64;
    if frames > earned {
        let msg = format!(
            "Ogg Vorbis stream claims more than {OGG_SAMPLES_PER_BYTE} samples per byte of file (a hostile stream)"
        );
        return Err(LoadError::new(path, msg));
    }
    // The first audio packet, so a file that cannot be decoded is an error now, not a silent play.
    reader.read_dec_packet_itl().map_err(bad)?;
    Ok(SoundData {
        rate,
        channels: channels.min(2),
        samples: Vec::new(),
        streamed: Some(Streamed { bytes: bytes.into(), frames }),
    })
}

fn check_format(path: &str, kind: &str, channels: u16, rate: u32) -> Result<(), LoadError> {
    if channels == 0 || channels > MAX_CHANNELS {
        let msg = format!("{kind} has {channels} channels (Sinew plays 1 to {MAX_CHANNELS})");
        return Err(LoadError::new(path, msg));
    }
    if !(MIN_SAMPLE_RATE..=MAX_SAMPLE_RATE).contains(&rate) {
        let msg = format!("{kind} sample rate {rate} Hz is outside {MIN_SAMPLE_RATE}..{MAX_SAMPLE_RATE} Hz");
        return Err(LoadError::new(path, msg));
    }
    Ok(())
}

fn too_long(path: &str, frames: u64, rate: u32) -> LoadError {
    let msg = format!("sound is {} s long; the limit is {MAX_SECONDS} s", frames / rate.max(1) as u64);
    LoadError::new(path, msg)
}

/// Keeps the first two of `channels` interleaved samples per frame.
fn keep_two(out: &mut Vec<f32>, frame: &[f32]) {
    out.extend_from_slice(&frame[..frame.len().min(2)]);
}

fn decode_wav(path: &str, bytes: &[u8]) -> Result<SoundData, LoadError> {
    let bad = |e: hound::Error| LoadError::new(path, format!("bad WAV file: {e}"));
    let reader = hound::WavReader::new(Cursor::new(bytes)).map_err(bad)?;
    let spec = reader.spec();
    check_format(path, "WAV", spec.channels, spec.sample_rate)?;
    let declared = reader.len() as u64;
    let width = (spec.bits_per_sample as u64).div_ceil(8).max(1);
    // The samples the bytes can hold at most: a lying data-chunk size earns nothing more.
    let held = bytes.len() as u64 / width;
    if declared > held {
        let msg = format!(
            "WAV data chunk declares {declared} samples but the file holds at most {held} (truncated or a lying header)"
        );
        return Err(LoadError::new(path, msg));
    }
    let channels = spec.channels as usize;
    let frames = declared / channels as u64;
    if frames > MAX_SECONDS * spec.sample_rate as u64 {
        return Err(too_long(path, frames, spec.sample_rate));
    }
    let kept = channels.min(2);
    let mut samples = Vec::with_capacity(frames as usize * kept);
    let mut frame = [0.0f32; MAX_CHANNELS as usize];
    let mut n = 0;
    let scale = match (spec.sample_format, spec.bits_per_sample) {
        (hound::SampleFormat::Float, 32) => None,
        (hound::SampleFormat::Int, b @ (8 | 16 | 24 | 32)) => Some(1.0 / (1u64 << (b - 1)) as f32),
        (f, b) => {
            let kind = if f == hound::SampleFormat::Float { "float" } else { "integer" };
            return Err(LoadError::new(
                path,
                format!("WAV {b}-bit {kind} samples are not supported (8/16/24/32-bit PCM or 32-bit float)"),
            ));
        }
    };
    let mut reader = reader;
    let mut push = |v: f32| {
        frame[n] = v;
        n += 1;
        if n == channels {
            keep_two(&mut samples, &frame[..channels]);
            n = 0;
        }
    };
    match scale {
        None => {
            for s in reader.samples::<f32>() {
                let v = s.map_err(bad)?;
                push(if v.is_finite() { v.clamp(-1.0, 1.0) } else { 0.0 });
            }
        }
        Some(scale) => {
            for s in reader.samples::<i32>() {
                push(s.map_err(bad)? as f32 * scale);
            }
        }
    }
    Ok(SoundData { rate: spec.sample_rate, channels: kept as u16, samples, streamed: None })
}

fn decode_ogg(path: &str, bytes: &[u8]) -> Result<SoundData, LoadError> {
    let bad = |e: lewton::VorbisError| LoadError::new(path, format!("bad Ogg Vorbis file: {e}"));
    let mut reader = lewton::inside_ogg::OggStreamReader::new(Cursor::new(bytes)).map_err(bad)?;
    let channels = reader.ident_hdr.audio_channels as u16;
    let rate = reader.ident_hdr.audio_sample_rate;
    check_format(path, "Ogg Vorbis", channels, rate)?;
    let limit = MAX_SECONDS * rate as u64;
    // A Vorbis packet of a few bytes can decode to thousands of frames, so a small hostile file
    // could claim the full ten minutes at 384 kHz (1.8 GB). Real files spend far more than one
    // byte per 256 samples (a 32 kbit/s stream: one per 11), so that is the most a byte earns.
    let earned = bytes.len() as u64 * OGG_SAMPLES_PER_BYTE + rate as u64;
    let mut samples = Vec::new();
    let mut frames = 0u64;
    while let Some(packet) = reader.read_dec_packet_itl().map_err(bad)? {
        frames += (packet.len() / channels as usize) as u64;
        if frames > limit {
            return Err(too_long(path, frames, rate));
        }
        if frames * u64::from(channels.min(2)) > earned {
            let msg = format!(
                "Ogg Vorbis stream decodes to more than {OGG_SAMPLES_PER_BYTE} samples per byte of file (a hostile stream)"
            );
            return Err(LoadError::new(path, msg));
        }
        for frame in packet.chunks_exact(channels as usize) {
            let (l, r) = (frame[0], frame.get(1).copied());
            samples.push(l as f32 / 32768.0);
            if let Some(r) = r {
                samples.push(r as f32 / 32768.0);
            }
        }
    }
    // The last page's granule position is the stream's true length: the encoder pads the final
    // block, and lewton hands the padding out too.
    let kept = channels.min(2);
    if let Some(end) = reader.get_last_absgp()
        && (end as usize).saturating_mul(kept as usize) < samples.len()
    {
        samples.truncate(end as usize * kept as usize);
    }
    Ok(SoundData { rate, channels: kept, samples, streamed: None })
}

/// A canonical 44-byte WAV header: `format` 1 (PCM) or 3 (float), `samples` samples of `bits`.
/// Sizes saturate at 4 GB.
fn wav_header(rate: u32, channels: u16, (format, bits): (u16, u16), samples: u64) -> Vec<u8> {
    let width = u32::from(bits / 8);
    let data_len = (samples * u64::from(width)).min(u32::MAX as u64 - 36) as u32;
    let mut out = Vec::with_capacity(44);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data_len).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&format.to_le_bytes());
    out.extend_from_slice(&channels.to_le_bytes());
    out.extend_from_slice(&rate.to_le_bytes());
    out.extend_from_slice(&(rate * u32::from(channels) * width).to_le_bytes());
    out.extend_from_slice(&(channels * bits / 8).to_le_bytes());
    out.extend_from_slice(&bits.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data_len.to_le_bytes());
    out
}

/// A WAV file of 16-bit PCM: what the tests and the demo's generator write.
pub fn encode_wav16(rate: u32, channels: u16, samples: &[f32]) -> Vec<u8> {
    let mut out = wav_header(rate, channels, (1, 16), samples.len() as u64);
    out.reserve(samples.len() * 2);
    for s in samples {
        out.extend_from_slice(&((s.clamp(-1.0, 1.0) * 32767.0).round() as i16).to_le_bytes());
    }
    out
}

/// A WAV file of 32-bit float samples: `--audio-out`'s format, so the file is exactly the mix.
pub fn encode_wav_float(rate: u32, channels: u16, samples: &[f32]) -> Vec<u8> {
    let mut out = wav_float_header(rate, channels, samples.len() as u64);
    out.reserve(samples.len() * 4);
    for s in samples {
        out.extend_from_slice(&s.to_le_bytes());
    }
    out
}

/// The 44-byte header of a float WAV holding `samples` samples (sizes saturate at 4 GB).
pub fn wav_float_header(rate: u32, channels: u16, samples: u64) -> Vec<u8> {
    wav_header(rate, channels, (3, 32), samples)
}

/// A sine tone: the tests' and the demo's generated sounds start here.
pub fn tone(rate: u32, hz: f32, seconds: f32, amplitude: f32) -> Vec<f32> {
    let n = (rate as f32 * seconds).round() as usize;
    (0..n).map(|i| amplitude * (std::f32::consts::TAU * hz * i as f32 / rate as f32).sin()).collect()
}

/// The demo's sounds (`content/sounds/`, written by `scripts/gen-assets.sh`), made here so the
/// repo holds no recording: a footstep (a short thump of filtered noise), a pickup chime (two
/// rising notes) and a looping wind ambience (noise swelling and fading, seamless at the seam).
pub fn demo_sounds() -> Vec<(&'static str, Vec<u8>)> {
    const RATE: u32 = 22_050;
    // A fixed LCG: the same bytes on every machine.
    let mut seed = 0x2545_f491u32;
    let mut noise = move || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) as f32 / (1u32 << 23) as f32 - 1.0
    };
    let secs = |s: f32| (RATE as f32 * s) as usize;
    // Footstep: low-passed noise under a fast attack and an exponential decay, 90 ms.
    let mut lp = 0.0f32;
    let step: Vec<f32> = (0..secs(0.09))
        .map(|i| {
            let t = i as f32 / RATE as f32;
            lp += 0.18 * (noise() - lp);
            let thump = (std::f32::consts::TAU * 70.0 * t).sin() * 0.5;
            (lp * 2.2 + thump) * (t / 0.004).min(1.0) * (-t / 0.025).exp() * 0.8
        })
        .collect();
    // Pickup: E6 then A6, each with a soft attack and a ringing decay, 0.35 s.
    let pickup: Vec<f32> = (0..secs(0.35))
        .map(|i| {
            let t = i as f32 / RATE as f32;
            let (hz, t0) = if t < 0.08 { (1318.5, 0.0) } else { (1760.0, 0.08) };
            let u = t - t0;
            let env = (u / 0.005).min(1.0) * (-u / 0.09).exp();
            let w = std::f32::consts::TAU * hz * u;
            (w.sin() + 0.3 * (2.0 * w).sin()) * env * 0.45
        })
        .collect();
    // Wind: band-limited noise whose level follows one whole sine period over the loop, 3 s,
    // played looping.
    let n = secs(3.0);
    let fade = secs(0.25);
    let (mut a, mut b) = (0.0f32, 0.0f32);
    let raw: Vec<f32> = (0..n + fade)
        .map(|_| {
            a += 0.04 * (noise() - a);
            b += 0.04 * (a - b);
            b
        })
        .collect();
    // The loop is raw[fade..n + fade], its last `fade` samples cross-faded into raw[0..fade],
    // which runs on into raw[fade]: the loop's first sample.
    let wind: Vec<f32> = (0..n)
        .map(|j| {
            let level = 0.55 + 0.45 * (std::f32::consts::TAU * j as f32 / n as f32).sin();
            let s = if j >= n - fade {
                let k = (j - (n - fade)) as f32 / fade as f32;
                raw[fade + j] * (1.0 - k) + raw[j - (n - fade)] * k
            } else {
                raw[fade + j]
            };
            s * level * 3.0
        })
        .collect();
    vec![
        ("step.wav", encode_wav16(RATE, 1, &step)),
        ("pickup.wav", encode_wav16(RATE, 1, &pickup)),
        ("wind.wav", encode_wav16(RATE, 1, &wind)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wav(bits: u16, format: hound::SampleFormat, channels: u16, values: &[f32]) -> Vec<u8> {
        let spec = hound::WavSpec { channels, sample_rate: 22050, bits_per_sample: bits, sample_format: format };
        let mut buf = Cursor::new(Vec::new());
        let mut w = hound::WavWriter::new(&mut buf, spec).expect("writer");
        for &v in values {
            match format {
                hound::SampleFormat::Float => w.write_sample(v).expect("write"),
                hound::SampleFormat::Int if bits == 8 => w.write_sample((v * 127.0) as i8).expect("write"),
                hound::SampleFormat::Int => {
                    w.write_sample((v * ((1i64 << (bits - 1)) - 1) as f32) as i32).expect("write")
                }
            }
        }
        w.finalize().expect("finalize");
        buf.into_inner()
    }

    #[test]
    fn wav_depths_decode_to_the_same_values() {
        let values = [0.0, 0.5, -0.5, 0.25];
        for (bits, format) in [
            (8, hound::SampleFormat::Int),
            (16, hound::SampleFormat::Int),
            (24, hound::SampleFormat::Int),
            (32, hound::SampleFormat::Float),
        ] {
            let d = decode("/t.wav", &wav(bits, format, 1, &values)).expect("decodes");
            assert_eq!((d.rate, d.channels, d.frames()), (22050, 1, 4), "{bits}-bit");
            for (a, b) in d.samples.iter().zip(values) {
                assert!((a - b).abs() < 0.01, "{bits}-bit: {a} vs {b}");
            }
        }
    }

    #[test]
    fn more_than_two_channels_keep_the_first_two() {
        let d = decode("/t.wav", &wav(16, hound::SampleFormat::Int, 3, &[0.1, 0.2, 0.3, 0.4, 0.5, 0.6])).expect("ok");
        assert_eq!((d.channels, d.frames()), (2, 2));
        assert!((d.frame(1).1 - 0.5).abs() < 0.001, "{:?}", d.frame(1));
    }

    #[test]
    fn a_lying_data_size_is_refused_before_allocating() {
        let mut bytes = wav(16, hound::SampleFormat::Int, 1, &[0.1; 8]);
        bytes[40..44].copy_from_slice(&(u32::MAX - 1).to_le_bytes());
        let e = decode("/big.wav", &bytes).expect_err("refused");
        assert!(e.to_string().starts_with("/big.wav: ") && e.message.contains("declares"), "{e}");
    }

    #[test]
    fn truncated_data_zero_channels_and_absurd_rates_are_errors() {
        let good = wav(16, hound::SampleFormat::Int, 1, &[0.1; 8]);
        let e = decode("/t.wav", &good[..50]).expect_err("truncated");
        assert!(e.message.contains("declares") || e.message.contains("bad WAV"), "{e}");
        let mut zero = good.clone();
        zero[22..24].copy_from_slice(&0u16.to_le_bytes());
        assert!(decode("/t.wav", &zero).is_err());
        let mut fast = good.clone();
        fast[24..28].copy_from_slice(&4_000_000_000u32.to_le_bytes());
        assert!(decode("/t.wav", &fast).is_err());
        assert!(decode("/t.wav", b"hello").expect_err("not a sound").message.contains("not a sound file"));
    }

    #[test]
    fn the_generated_wav_round_trips() {
        let t = tone(8000, 440.0, 0.01, 0.5);
        let d = decode("/t.wav", &encode_wav16(8000, 1, &t)).expect("ok");
        assert_eq!(d.frames(), t.len());
        let f = decode("/f.wav", &encode_wav_float(8000, 1, &t)).expect("ok");
        assert_eq!(f.samples, t, "the float file is bit-exact");
    }
}
