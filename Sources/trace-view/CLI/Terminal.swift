import TraceInputs
import TransduceTrace

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The terminal facts output depends on: width and whether colour is welcome.
enum Terminal {
    /// The width output has to keep to: `COLUMNS`, else the terminal's (80 when a terminal does
    /// not say), brought into the range renderers draw at (``RenderOptions/minWidth`` to
    /// ``RenderOptions/maxWidth``); `nil` when there is neither (a pipe, a file), where nothing
    /// is cut, as `ps` and `git` print there. A `COLUMNS` that is not a width at all (not a
    /// number, 0, negative) is passed over with a warning.
    static var askedWidth: Int? {
        if let columns = getenv("COLUMNS").map({ String(cString: $0) }), !columns.isEmpty {
            if let n = Int(columns), n > 0 {
                return min(RenderOptions.maxWidth, max(RenderOptions.minWidth, n))
            }
            error("trace-view: warning: COLUMNS=\(columns.prefix(20)) is not a width; using the terminal's")
        }
        // (While a pager reads standard output, the terminal is the one it had.)
        let output = Pager.terminal ?? STDOUT_FILENO
        guard isatty(output) != 0 else { return nil }
        var size = winsize()
        if ioctl(output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return min(RenderOptions.maxWidth, max(RenderOptions.minWidth, Int(size.ws_col)))
        }
        return 80
    }

    /// ``askedWidth``, or 80 to lay out by where there is none.
    static var width: Int { askedWidth ?? 80 }

    /// `CLOCK_REALTIME` minus `CLOCK_MONOTONIC` now: where a trace's monotonic times fall on the
    /// wall clock, for a trace recorded on this machine since its last boot.
    static var wallClockOffsetNow: Int64 {
        var real = timespec()
        var monotonic = timespec()
        clock_gettime(CLOCK_MONOTONIC, &monotonic)
        clock_gettime(CLOCK_REALTIME, &real)
        return (Int64(real.tv_sec) - Int64(monotonic.tv_sec)) * 1_000_000_000 + Int64(real.tv_nsec) - Int64(monotonic.tv_nsec)
    }

    /// Whether standard output is a terminal (where binary output must not go), or a pager on one.
    static var outputIsTerminal: Bool { Pager.terminal != nil || isatty(STDOUT_FILENO) != 0 }

    /// Colour only on a terminal, never with `NO_COLOR` or `TERM=dumb`.
    static var color: Bool {
        if getenv("NO_COLOR") != nil { return false }
        if let term = getenv("TERM"), String(cString: term) == "dumb" { return false }
        return outputIsTerminal
    }

    /// The colours the terminal says it draws (`COLORTERM`, then `TERM`).
    static var colorDepth: RenderOptions.ColorDepth {
        let read = { (name: String) in getenv(name).map { String(cString: $0) } }
        return .of(term: read("TERM"), colorTerm: read("COLORTERM"))
    }

    static func options(_ arguments: Arguments) throws -> RenderOptions {
        let asked = Terminal.askedWidth
        var width = asked ?? 80
        var cuts = asked != nil
        if let w = try arguments.integer("width") {
            guard w >= 40 && w <= 1000 else { throw CLIError.usage("--width must be between 40 and 1000") }
            width = Int(w)
            cuts = true
        }
        var options = RenderOptions(width: width, ascii: arguments.flag("ascii"), color: try color(arguments), cuts: cuts)
        options.depth = colorDepth
        return options
    }

    /// `--color auto|always|never` and `--no-color` (the same as never): whether to draw colour.
    static func color(_ arguments: Arguments) throws -> Bool {
        switch arguments.options["color"] {
        case nil, "auto": return Terminal.color && !arguments.flag("no-color")
        case "always":
            guard !arguments.flag("no-color") else { throw CLIError.usage("--color always and --no-color contradict each other") }
            return true
        case "never": return false
        case let other?: throw CLIError.usage("--color takes auto, always or never, not '\(other)'")
        }
    }

    /// Prints `lines` that hold no colour of trace-view's own: every control character in them
    /// (an escape sequence from a label included) is shown as an escape.
    static func print(_ lines: [String]) { write(lines) { TransduceTrace.escapingControls($0, keepingColour: false) } }

    /// Prints a renderer's `lines` as `options` draw them: fitted to the width by display columns
    /// (``RenderOptions/fit(_:)``), pure ASCII with `--ascii`, and only the renderers' own
    /// colour sequences kept, when colour is on.
    /// (`fit` escapes as it fits: nothing is escaped twice.)
    static func print(_ lines: [String], options: RenderOptions) { write(lines, options.fit) }

    /// Writes each of `lines` as `shown` makes it, a newline after each, in 64 KB writes.
    private static func write(_ lines: [String], _ shown: (String) -> String) {
        var out = ""
        for line in lines {
            out += shown(line)
            out += "\n"
            if out.utf8.count > 1 << 16 {
                write(out)
                out = ""
            }
        }
        write(out)
    }

    static func write(_ text: String) { write(bytes: Array(text.utf8)) }

    /// Writes `bytes` to standard output as they are (an export's own encoding), through the
    /// pager when one is wanted (``Pager``).
    static func write(bytes: [UInt8]) {
        Pager.startIfWanted()
        _ = bytes.withUnsafeBytes { writeAll(STDOUT_FILENO, $0) }
    }

    /// Writes `text` to standard error as it is (no newline).
    static func errorRaw(_ text: String) { StandardError.write(text) }

    /// Writes `text` and a newline to standard error, every control character in it (but its
    /// newlines) shown as an escape: messages quote values from the user, the trace and the
    /// network, which must not drive the terminal.
    static func error(_ text: String) { StandardError.line(text) }
}
