//! `ik_tool` binary: parses the command line with [`ik_tool::cli`] (clap) and runs the command.
//! Bad arguments print clap's message and the usage and exit with status 2 (`--help` prints the
//! help and exits with 0); bad input (an unreadable or
//! invalid file, no skin, animation, legs or clip of that name) prints one line and exits with
//! status 2; any other failure prints the error and exits with status 1.

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command = match ik_tool::cli::parse(&args) {
        Ok(command) => command,
        Err(error) => {
            // Printing only fails when stdout or stderr is closed; the status still tells.
            let _ = error.print();
            return ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2));
        }
    };
    match ik_tool::cli::run(&command) {
        // A reader that stops early (`ik_tool contacts FILE | head`) closes the pipe: the
        // command still succeeded, so a failed write is not a panic or an error.
        Ok(text) => {
            let _ = writeln!(std::io::stdout().lock(), "{text}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            let _ = writeln!(std::io::stderr().lock(), "ik_tool: {error}");
            ExitCode::from(error.exit_code())
        }
    }
}
