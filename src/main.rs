//! The `recommend` binary: parse arguments, run the command, map errors to exit codes
//! (0 ok, 1 runtime error, 2 usage or input error).

/// Standard error's `eprintln!`, without its panic on a closed pipe (`recommend::util::note`).
macro_rules! eprintln {
    ($($arg:tt)*) => {
        recommend::util::note(format_args!($($arg)*))
    };
}

mod app;
mod cli;
mod serve;
mod signals;

use std::process::ExitCode;

fn main() -> ExitCode {
    use clap::{CommandFactory, FromArgMatches, parser::ValueSource};
    // ONNX Runtime (1.29 on, Linux too) collects telemetry for Microsoft unless this is set
    // before it loads: a device id and a 2 MB event cache under ~/.cache/Microsoft, a session
    // file in /tmp, an uploader. An offline tool has no use for any of it, and starting it was
    // ~25 ms of every cold query. A value the user set is kept.
    if std::env::var_os("ORT_DISABLE_TELEMETRY").is_none() {
        // SAFETY: the first statement of `main`: no other thread exists yet to read or write
        // the environment concurrently.
        unsafe { std::env::set_var("ORT_DISABLE_TELEMETRY", "1") };
    }
    // An empty variable means "not set", as the library reads `RECOMMEND_MODEL_DIR`; clap would
    // take it for a flag given without its value ("a value is required for '--model-dir'").
    for var in cli::ENV_OPTIONS {
        if std::env::var_os(var).is_some_and(|v| v.is_empty()) {
            // SAFETY: as above, still before any other thread exists.
            unsafe { std::env::remove_var(var) };
        }
    }
    let parsed = cli::Cli::command()
        .try_get_matches()
        .and_then(|m| cli::Cli::from_arg_matches(&m).map(|c| (m, c)));
    let (matches, cli) = match parsed {
        Ok(p) => p,
        Err(e) if e.use_stderr() => {
            eprintln!(
                "{}",
                cli::usage_without_env(&e.render().to_string()).trim_end()
            );
            return ExitCode::from(2);
        }
        Err(e) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
    };
    if let Some(command) = matches.subcommand_name() {
        for id in cli::LIKE_ONLY_FLAGS {
            if matches.value_source(id) == Some(ValueSource::CommandLine) {
                eprintln!(
                    "error: --{} before `{command}` would be ignored; put it after the command \
                     (`recommend {command} --{} ...`)",
                    id.replace('_', "-"),
                    id.replace('_', "-")
                );
                return ExitCode::from(2);
            }
        }
    }
    // `serve` shuts down gracefully on its own signal handling; every other command cleans up
    // unfinished writes and exits.
    if !matches!(cli.command, Some(cli::Command::Serve { .. })) {
        signals::install();
    }
    let result = app::run(cli);
    signals::settle();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(app::exit_code(&e))
        }
    }
}
