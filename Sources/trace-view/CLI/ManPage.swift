import TraceInputs
import TransduceTrace

/// The manual page (roff, `man -l`) made from the command registry: the same synopses, options
/// and exit statuses as the help. What `trace-view man` prints.
enum ManPage {
    /// Text as roff (``Escaping/roff(_:)``), line by line.
    static func roff(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { Escaping.roff(String($0)) }.joined(separator: "\n")
    }

    static func page(_ commands: [CommandSpec]) -> String {
        var lines = [
            ".TH TRACE\\-VIEW 1 \"\" \"trace-view \(PackageVersion.current)\" \"Transduce\"",
            ".SH NAME",
            "trace\\-view \\- sequence diagrams, gate contention, task fates and exports from Transduce traces",
            ".SH SYNOPSIS",
            ".nf",
        ]
        lines += commands.map { roff($0.synopsis) }
        lines += [
            ".fi",
            ".SH DESCRIPTION",
            roff(
                "trace-view reads a Transduce trace file, a JSON Lines file or an LTTng CTF trace directory "
                    + "(told apart by content; - reads standard input) and shows what the runtime did. "
                    + "Run trace-view COMMAND --help for a command's whole help."),
            ".SH COMMANDS",
        ]
        for spec in commands {
            lines += [
                ".SS \(roff(spec.name))", roff(spec.abstract) + ".", ".PP",
                roff(spec.discussion.replacingOccurrences(of: "\n", with: " ")),
            ]
            for option in spec.options {
                lines += [
                    ".TP", "\\fB\\-\\-\(roff(option.name))\\fR" + (option.value.map { " \\fI\(roff($0))\\fR" } ?? ""),
                    roff(option.help),
                ]
            }
        }
        lines += [".SH EXIT STATUS", ".TP"]
        lines += ExitStatus.allCases.flatMap { [".TP", "\($0.rawValue)", roff($0.meaning)] }.dropFirst()
        lines += [
            ".SH ENVIRONMENT",
            ".TP", "NO_COLOR", "No colour (as \\-\\-color never).",
            ".TP", "COLUMNS", "The width to fit lines to, where \\-\\-width is not given.",
            ".TP", "OTEL_EXPORTER_OTLP_*", "What export \\-\\-send sends with (see export \\-\\-help).",
            ".SH SEE ALSO",
            "babeltrace2(1), lttng(1)",
            "",
        ]
        return lines.joined(separator: "\n")
    }
}
