//! The command line and the main loop.
pub mod api;
pub mod audio;
pub mod bundle;
pub mod cli;
pub mod draw;
pub mod inspect;
pub mod interrupt;
pub mod luajit;
pub mod new;
pub mod replay_file;
pub mod run;
pub mod stats;
pub mod stdout;
pub mod view;
pub mod watch;

pub use cli::main;
