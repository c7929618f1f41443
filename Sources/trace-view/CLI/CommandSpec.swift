/// One option of a command: its name, the placeholder of its value (`nil` for a flag) and its
/// help. The parser, the usage line and the OPTIONS section are all made from these.
struct OptionSpec: Sendable {
    let name: String
    let value: String?
    let help: String
    /// Shown without brackets in the usage line (the command checks that it is given).
    var required = false

    init(_ name: String, _ value: String?, _ help: String, required: Bool = false) {
        self.name = name
        self.value = value
        self.help = help
        self.required = required
    }

    static func flag(_ name: String, _ help: String) -> OptionSpec { OptionSpec(name, nil, help) }

    /// `--runtime ID`, `--ascii`.
    var synopsis: String { "--\(name)" + (value.map { " \($0)" } ?? "") }

    // The options several commands share, defined once.
    static let runtime = OptionSpec("runtime", "ID", "Only this runtime (its id within its process)")
    static let pid = OptionSpec("pid", "PID", "Only this process")
    static let allProcesses = flag("all-processes", "In a `record` trace, every process the session caught")
    static let ascii = flag("ascii", "Pure ASCII")
    static let width = OptionSpec(
        "width", "N",
        "Fit lines to N columns (40 to 1000; default COLUMNS or the terminal; in a pipe with neither, nothing is cut)")
    static let noColor = flag("no-color", "No colour (the same as --color never)")
    static let color = OptionSpec(
        "color", "auto|always|never",
        "Colour: auto (on a terminal, and never with NO_COLOR or TERM=dumb; the default), always, never")
    static let help = flag("help", "Show this help")

    /// `--runtime`, `--pid`, `--all-processes`: which events of a trace a command reads.
    static let selection = [runtime, pid, allProcesses]
    /// `--ascii`, `--width`, `--no-color`: how text output is drawn.
    static let display = [ascii, width, noColor, color]
}

/// What a subcommand is to the tool: the one place its name, usage, help and options are given.
struct CommandSpec: Sendable {
    let name: String
    /// One line for the tool's command list.
    let abstract: String
    let options: [OptionSpec]
    /// The positional part of the usage (`TRACE`, `-- COMMAND [ARG...]`, or "").
    let arguments: String
    /// What the command does, wrapped by hand.
    let discussion: String
    /// Text after the options (environment, exit status), or "".
    let epilogue: String

    init(
        name: String, abstract: String, options: [OptionSpec], arguments: String = "TRACE", discussion: String,
        epilogue: String = ""
    ) {
        self.name = name
        self.abstract = abstract
        self.options = options
        self.arguments = arguments
        self.discussion = discussion
        self.epilogue = epilogue
    }

    /// Parses `arguments` against this command's options (and `--help`, `-h`).
    func parse(_ arguments: [String]) throws -> Arguments {
        let all = options + [.help]
        return try Arguments(
            arguments, valued: Set(all.filter { $0.value != nil }.map(\.name)),
            flags: Set(all.filter { $0.value == nil }.map(\.name)))
    }

    /// The width help text is wrapped to.
    static let width = 92

    /// `USAGE: trace-view NAME [--opt V] … ARGUMENTS`, wrapped at ``width`` under the first option.
    var usage: String { synopsis(lead: "USAGE: trace-view \(name)") }

    /// `trace-view NAME [--opt V] … ARGUMENTS`, wrapped the same way: the line the tool's help
    /// lists for this command, and the README and the DocC manual quote (a test checks).
    var synopsis: String { synopsis(lead: "trace-view \(name)") }

    private func synopsis(lead: String) -> String {
        let words = options.map { $0.required ? $0.synopsis : "[\($0.synopsis)]" } + (arguments.isEmpty ? [] : [arguments])
        var lines = [lead]
        for word in words {
            if lines[lines.count - 1].count + 1 + word.count > Self.width && lines[lines.count - 1].count > lead.count {
                lines.append(String(repeating: " ", count: lead.count))
            }
            lines[lines.count - 1] += " " + word
        }
        return lines.joined(separator: "\n")
    }

    /// The whole `--help` text.
    var help: String {
        var text = usage + "\n\n" + discussion
        if !options.isEmpty {
            let column = min(24, (options.map { $0.synopsis.count }.max() ?? 0) + 4)
            let indent = String(repeating: " ", count: column)
            text += "\n\nOPTIONS:"
            for option in options {
                let synopsis = option.synopsis
                let help = wrap(option.help, width: Self.width - column)
                let first =
                    synopsis.count + 2 < column
                    ? "  " + synopsis + String(repeating: " ", count: column - synopsis.count - 2) + help[0]
                    : "  " + synopsis + "\n" + indent + help[0]
                text += "\n" + ([first] + help.dropFirst().map { indent + $0 }).joined(separator: "\n")
            }
        }
        if !epilogue.isEmpty { text += "\n\n" + epilogue }
        return text
    }
}

/// A trace-view subcommand: its spec, and what it does with parsed arguments.
protocol Subcommand {
    static var spec: CommandSpec { get }
    static func run(_ arguments: Arguments) async throws
}

/// `text` broken into lines of at most `width` characters at spaces (a longer word stands alone).
func wrap(_ text: String, width: Int) -> [String] {
    var lines = [""]
    for word in text.split(separator: " ") {
        if !lines[lines.count - 1].isEmpty && lines[lines.count - 1].count + 1 + word.count > width { lines.append("") }
        lines[lines.count - 1] += (lines[lines.count - 1].isEmpty ? "" : " ") + word
    }
    return lines
}
