//! `sinew`, `sinew run`, `sinew check`, `sinew inspect`, `sinew new`, `sinew api` (cli.md). Exit status: 0 ok, 1 load failure, 2 usage.
use super::run::{RunOptions, run};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "sinew", version, about = "A Lua-first runtime for animated 3D games (Defold's API)")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run a project (default: the demo embedded in the binary).
    Run(RunArgs),
    /// Load everything in a project and report every problem; exit 1 if any.
    Check { project_dir: PathBuf },
    /// Pack a project into OUT: an executable named after the game, its archive (NAME.pak) and
    /// LICENSES.txt, to run without Sinew's sources (docs/bundle.md).
    Bundle {
        project_dir: PathBuf,
        /// The folder to write.
        #[arg(short, long, value_name = "OUT")]
        out: PathBuf,
        /// Append the archive to the executable: one file to hand out.
        #[arg(long)]
        single_file: bool,
    },
    /// Print a model's (glTF, OBJ, .bon rig) meshes, skins and joints, morph targets and animations.
    Inspect(InspectArgs),
    /// Show one model file (.glb, .gltf, .obj, .bon) without a project: framed, lit, orbit with
    /// the mouse; Space/N next clip, P pause, B bones, R reset camera.
    View(ViewArgs),
    /// Run a plain Lua file on the built-in LuaJIT, without Sinew's API (benchmark floors).
    #[command(hide = true)]
    Luajit {
        file: PathBuf,
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Write a starter project (a model, a script, an input binding, editor annotations) into DIR.
    New {
        dir: PathBuf,
        /// In Defold's own formats (game.project, .collection, .go, .model, .input_binding).
        #[arg(long)]
        defold: bool,
    },
    /// Write the Lua API as lua-language-server annotations (--lua DIR) or markdown (--markdown DIR).
    Api {
        /// Folder for the annotation files (one per namespace).
        #[arg(long, value_name = "DIR")]
        lua: Option<PathBuf>,
        /// Folder for the API reference pages (docs/api).
        #[arg(long, value_name = "DIR")]
        markdown: Option<PathBuf>,
    },
}

#[derive(clap::Args)]
struct InspectArgs {
    model: PathBuf,
    /// With --vertices: the animation (name, or index in the file) to pose.
    #[arg(long, value_name = "NAME_OR_INDEX")]
    anim: Option<String>,
    /// With --vertices: a time in seconds to pose at (repeatable).
    #[arg(long = "time", value_name = "T", value_parser = parse_time)]
    times: Vec<f32>,
    /// Write the posed vertex positions of every drawn primitive as JSON to FILE ("-": stdout).
    #[arg(long, value_name = "FILE")]
    vertices: Option<PathBuf>,
    /// For a `.bon` rig: write every OBJ vertex's bone weights as JSON to FILE ("-": stdout).
    #[arg(long, value_name = "FILE")]
    weights: Option<PathBuf>,
}

fn parse_time(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("'{s}' is not a time in seconds")),
    }
}

/// The options `run` and `view` share: how the frames are made and shown.
#[derive(clap::Args, Default)]
struct FrameArgs {
    /// Render offscreen, no window (chosen automatically when no display is available).
    #[arg(long)]
    headless: bool,
    /// Quit after N frames.
    #[arg(long, value_name = "N")]
    frames: Option<u64>,
    /// Advance the game by exactly this many seconds each frame.
    #[arg(long, value_name = "SECONDS", value_parser = parse_dt)]
    fixed_dt: Option<f32>,
    /// Write the last rendered frame as a PNG on exit.
    #[arg(long, value_name = "PATH")]
    screenshot: Option<PathBuf>,
    /// Window or offscreen size.
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    size: Option<(u32, u32)>,
    /// No hot reload.
    #[arg(long)]
    no_watch: bool,
    /// Feed the input events of FILE (a recording or a hand-written file).
    #[arg(long, value_name = "FILE")]
    replay: Option<PathBuf>,
}

impl FrameArgs {
    fn options(self) -> RunOptions {
        RunOptions {
            headless: self.headless,
            frames: self.frames,
            fixed_dt: self.fixed_dt,
            screenshot: self.screenshot,
            size: self.size,
            watch: !self.no_watch,
            replay: self.replay,
            ..RunOptions::default()
        }
    }
}

#[derive(clap::Args)]
struct ViewArgs {
    file: PathBuf,
    #[command(flatten)]
    frame: FrameArgs,
}

#[derive(clap::Args, Default)]
struct RunArgs {
    project_dir: Option<PathBuf>,
    #[command(flatten)]
    frame: FrameArgs,
    /// At exit, print one JSON line of frame statistics to stderr.
    #[arg(long)]
    stats: bool,
    /// Draw every game object that shows nothing else as a small cube.
    #[arg(long)]
    debug_draw: bool,
    /// Write every raw input event to FILE as JSON lines stamped with the frame.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// Write every sample mixed to FILE (WAV, 48 kHz stereo 32-bit float).
    #[arg(long, value_name = "FILE")]
    audio_out: Option<PathBuf>,
}

fn parse_dt(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("'{s}' is not a number of seconds >= 0")),
    }
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("'{s}' is not a size like 960x540");
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let (w, h) = (w.parse::<u32>().map_err(|_| bad())?, h.parse::<u32>().map_err(|_| bad())?);
    let max = crate::project::types::MAX_WINDOW_SIDE;
    if w == 0 || h == 0 || w > max || h > max {
        return Err(bad());
    }
    Ok((w, h))
}

/// A bundled game's command line: how it runs, nothing about projects.
#[derive(Parser)]
#[command(about = "A game made with Sinew")]
struct PlayerCli {
    #[command(flatten)]
    frame: FrameArgs,
    /// At exit, print one JSON line of frame statistics to stderr.
    #[arg(long)]
    stats: bool,
    /// Write every sample mixed to FILE (WAV, 48 kHz stereo 32-bit float).
    #[arg(long, value_name = "FILE")]
    audio_out: Option<PathBuf>,
}

/// Parses the command line and runs; returns the process exit status.
pub fn main() -> i32 {
    crate::base::log::init();
    // A bundled game (`sinew bundle`) runs its archive whatever it is called with.
    if let Some(game) = super::bundle::bundled_game() {
        let status = match game {
            Ok(archive) => match PlayerCli::try_parse() {
                Ok(p) => super::bundle::play(
                    archive,
                    RunOptions { stats: p.stats, audio_out: p.audio_out, ..p.frame.options() },
                ),
                Err(e) => {
                    let _ = e.print();
                    if e.use_stderr() { 2 } else { 0 }
                }
            },
            Err(e) => {
                eprintln!("{e}");
                1
            }
        };
        crate::base::log::finish();
        return status;
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    let status = match cli.command {
        None => run(RunOptions::default()),
        Some(Command::Run(a)) => run(RunOptions {
            project_dir: a.project_dir,
            stats: a.stats,
            debug_draw: a.debug_draw,
            record: a.record,
            audio_out: a.audio_out,
            ..a.frame.options()
        }),
        Some(Command::View(a)) => super::view::view(&a.file, a.frame.options()),
        Some(Command::Check { project_dir }) => super::run::check(&project_dir),
        Some(Command::Bundle { project_dir, out, single_file }) => {
            super::bundle::bundle(&project_dir, &out, single_file)
        }
        Some(Command::New { dir, defold }) => super::new::new_project(&dir, defold),
        Some(Command::Api { lua, markdown }) => super::api::api(lua.as_deref(), markdown.as_deref()),
        Some(Command::Inspect(a)) if a.weights.is_some() => {
            if crate::project::import::is_bon(&a.model.to_string_lossy()) && a.vertices.is_none() {
                super::inspect::inspect_rig(&a.model, a.weights.as_deref())
            } else {
                eprintln!("error: --weights goes with a .bon rig (and not with --vertices)");
                2
            }
        }
        Some(Command::Inspect(a)) => match a.vertices {
            Some(out) => super::inspect::vertices(&a.model, a.anim.as_deref(), &a.times, &out),
            None if a.anim.is_some() || !a.times.is_empty() => {
                eprintln!("error: --anim and --time go with --vertices FILE");
                2
            }
            None => super::inspect::inspect(&a.model),
        },
        Some(Command::Luajit { file, args }) => super::luajit::run_file(&file, &args),
    };
    crate::base::log::finish();
    status
}
