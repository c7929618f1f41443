import TraceInputs
import TransduceTrace

/// Every subcommand, in the order the help lists them, and the dispatch from a command line to
/// one of them. Usage and help are generated from each command's ``CommandSpec``.
enum Registry {
    static var commands: [any Subcommand.Type] {
        [
            DemoCommand.self, SequenceCommand.self, ContentionCommand.self, TasksCommand.self, SummaryCommand.self,
            SlowCommand.self, CheckCommand.self, DiffCommand.self, TestFromCommand.self, ExportCommand.self, RecordCommand.self,
            LiveCommand.self,
            TUICommand.self,
            ReportCommand.self, CompletionCommand.self, ManCommand.self,
        ]
    }

    static func command(named name: String) -> (any Subcommand.Type)? { commands.first { $0.spec.name == name } }

    /// `trace-view --help`.
    static var toolHelp: String {
        let specs = commands.map { $0.spec }
        let width = specs.map { $0.name.count }.max() ?? 0
        let list = specs.map { "  " + $0.name + String(repeating: " ", count: width + 3 - $0.name.count) + $0.abstract }
        let statuses = ExitStatus.allCases.map { "\($0.rawValue) \($0.meaning)" }.joined(separator: ", ")
        return """
            trace-view: sequence diagrams, gate contention and task reports from Transduce traces

            USAGE: trace-view <command> [options] [TRACE]

            COMMANDS:
            \(list.joined(separator: "\n"))

            SYNOPSIS:
            \(specs.map(\.synopsis).joined(separator: "\n"))

            TRACE is a Transduce trace file, a JSON Lines file, or an LTTng CTF trace directory,
            told apart by content; '-' reads standard input. A view that reads in passes (slow,
            tui, report, sequence --request, export --format otlp and csv --table requests)
            reads a trace file again for each; anything else it reads once, into a temporary
            binary copy in TMPDIR (about 80 bytes an event, gone when the view ends) that its
            passes read: a CTF trace is decoded once, standard input is never held.
            \(wrap("Exit status: \(statuses).", width: 88).joined(separator: "\n"))
            Output: colour only on a terminal and never with NO_COLOR (--color always|never|auto
            says otherwise); the text views go through $PAGER (less, with LESS=FRX, when unset)
            on a terminal, never with --no-pager; every line fits the width
            (--width, else COLUMNS or the terminal; 40 to 1000); in a pipe or file with neither,
            nothing is cut. Output streams as it is drawn; long work shows progress on standard
            error when that is a terminal.
            Times are from the trace's first event. One clock: every time and duration shown
            comes from the trace's timestamps (the recorder's CLOCK_MONOTONIC, or LTTng's), a
            wait as enter - dispatch, a hold as leave - enter, a latency as resume - dispatch; only
            an action's run time, which has no event of its own to start from, is the runtime's
            measure. Durations take units: 800ns, 250us, 5ms, 1.5s.
            Run 'trace-view <command> --help' for a command's options; 'trace-view man | man -l -'
            for the manual page; 'source <(trace-view completion bash)' for completion (zsh,
            fish too). A mistyped command or option gets the closest as a suggestion.
            """
    }

    static func run(_ all: [String]) async throws {
        guard let name = all.first else {
            printHelp(toolHelp)
            throw CLIError.usage("missing command")
        }
        let rest = Array(all.dropFirst())
        if name == CTFChild.command { CTFChild.run(rest) }
        if name == "--help" || name == "-h" || name == "help" {
            if let topic = rest.first, let command = command(named: topic) { return printHelp(command.spec.help) }
            return printHelp(toolHelp)
        }
        if name == "--version" || name == "-V" {
            return Terminal.print(["trace-view \(PackageVersion.current) (trace format \(TraceFileFormat.version))"])
        }
        guard let command = command(named: name) else {
            let hint = Suggestion.hint(for: name, among: commands.map { $0.spec.name })
            throw CLIError.usage("unknown command '\(name)'\(hint); 'trace-view --help' lists them")
        }
        let arguments = try command.spec.parse(rest)
        if arguments.flag("help") { return printHelp(command.spec.help) }
        if command.spec.options.contains(where: { $0.name == Pager.option.name }) { Pager.want(arguments) }
        try await command.run(arguments)
    }

    static func printHelp(_ text: String) {
        Terminal.print(text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    }
}

/// Prints reader notes as warnings; damaged input exits 65 after the report.
func finish(notes: [String]) throws {
    guard !notes.isEmpty else { return }
    for note in notes.prefix(20) { Terminal.error("trace-view: warning: \(note)") }
    throw CLIError.data("the input is damaged; the report above shows what could be read")
}
