//! The `recommend` binary: parse arguments, run the command, map errors to exit codes
//! (0 ok, 1 runtime error, 2 usage or input error).

mod app;
mod cli;
mod serve;
mod signals;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
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
