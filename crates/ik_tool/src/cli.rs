//! Command-line parsing and dispatch for `ik_tool`.
//!
//! Method: a hand-rolled parser over the argument list (no dependency): the first argument is
//! the subcommand, the rest are its `--flag value` options. Inputs: the arguments after the
//! program name. Outputs: a [`Command`] or a usage error; [`run`] carries the command out.
//! Invariants: unknown subcommands, unknown flags, missing values and extra arguments are all
//! usage errors (the binary prints [`USAGE`] and exits with status 2); nothing is written then.

use std::path::PathBuf;

use crate::ToolError;

/// The usage text printed on bad arguments.
pub const USAGE: &str = "\
usage: ik_tool <command> [options]

commands:
  mannequin --out <path.glb>   write the skinned mannequin with Idle/Walk/Jog clips to <path.glb>
                               and its contact labels to <path>.ik.json (default
                               assets/mannequin.glb)
  help                         print this text
";

/// A parsed command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Generate the mannequin to this `.glb` path.
    Mannequin {
        /// Output path of the glTF binary.
        out: PathBuf,
    },
    /// Print usage.
    Help,
}

/// Parses the arguments after the program name.
pub fn parse(args: &[String]) -> Result<Command, String> {
    let (command, rest) = args.split_first().ok_or("missing command")?;
    match command.as_str() {
        "mannequin" => {
            let mut out = PathBuf::from("assets/mannequin.glb");
            let mut it = rest.iter();
            while let Some(flag) = it.next() {
                match flag.as_str() {
                    "--out" | "-o" => out = PathBuf::from(it.next().ok_or("--out needs a path")?),
                    other => return Err(format!("unknown option `{other}`")),
                }
            }
            Ok(Command::Mannequin { out })
        }
        "help" | "--help" | "-h" if rest.is_empty() => Ok(Command::Help),
        other => Err(format!("unknown command `{other}`")),
    }
}

/// Runs a parsed command; returns the lines to print.
pub fn run(command: &Command) -> Result<String, ToolError> {
    match command {
        Command::Mannequin { out } => {
            let (glb, sidecar) = crate::mannequin::write(out)?;
            Ok(format!("wrote {}\nwrote {}", glb.display(), sidecar.display()))
        }
        Command::Help => Ok(USAGE.trim_end().to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_mannequin_and_rejects_bad_arguments() {
        assert_eq!(parse(&args(&["mannequin", "--out", "x/m.glb"])), Ok(Command::Mannequin { out: "x/m.glb".into() }));
        assert!(parse(&args(&[])).is_err());
        assert!(parse(&args(&["mannequin", "--out"])).is_err());
        assert!(parse(&args(&["mannequin", "--size", "2"])).is_err());
        assert!(parse(&args(&["bake"])).is_err());
    }
}
