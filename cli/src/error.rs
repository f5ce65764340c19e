//! The command's errors: the library's, and its own for pictures, the
//! bench, options and files.

use std::path::PathBuf;

/// Everything that can make a `gpusat` command fail.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// An error of the library (a bad scene, a GPU fault, ...).
    #[error(transparent)]
    Library(#[from] gpusat::Error),
    /// A command-line value out of range.
    #[error("{option}: {message}")]
    Option {
        /// The option, as written (`--dt`, `gpusat bench`, ...).
        option: String,
        /// What is wrong with it.
        message: String,
    },
    /// A file that could not be written.
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A picture, animation or plot that could not be made.
    #[error("{0}")]
    Render(String),
    /// A benchmark that could not be run honestly (a backend disagreeing
    /// with the CPU reference).
    #[error("bench: {0}")]
    Bench(String),
    /// A scene that could not be resolved.
    #[error("{file}: {message}")]
    Unresolved {
        /// The scene file.
        file: String,
        /// Why.
        message: String,
    },
}

impl From<gpusat::gpu::GpuError> for CliError {
    fn from(err: gpusat::gpu::GpuError) -> CliError {
        CliError::Library(err.into())
    }
}

impl CliError {
    /// An option error.
    pub fn option(option: impl Into<String>, message: impl Into<String>) -> CliError {
        CliError::Option {
            option: option.into(),
            message: message.into(),
        }
    }
}
