import TransduceTrace

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The terminal facts output depends on: width and whether colour is welcome.
enum Terminal {
    /// `COLUMNS`, then the terminal's width, then 80; brought into the range renderers draw at
    /// (``RenderOptions/minWidth`` to ``RenderOptions/maxWidth``). A `COLUMNS` that is not a
    /// width at all (not a number, 0, negative) is passed over with a warning.
    static var width: Int {
        if let columns = getenv("COLUMNS").map({ String(cString: $0) }), !columns.isEmpty {
            if let n = Int(columns), n > 0 {
                return min(RenderOptions.maxWidth, max(RenderOptions.minWidth, n))
            }
            error("trace-view: warning: COLUMNS=\(columns.prefix(20)) is not a width; using the terminal's")
        }
        var size = winsize()
        if isatty(STDOUT_FILENO) != 0, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return min(RenderOptions.maxWidth, max(RenderOptions.minWidth, Int(size.ws_col)))
        }
        return 80
    }

    /// Whether output has a width to keep to: a valid `COLUMNS`, or standard output is a
    /// terminal. Without one (a pipe, a file) nothing is cut, as `ps` and `git` do.
    static var hasWidth: Bool {
        if let columns = getenv("COLUMNS").map({ String(cString: $0) }), let n = Int(columns), n > 0 { return true }
        return isatty(STDOUT_FILENO) != 0
    }

    /// Colour only on a terminal, never with `NO_COLOR` or `TERM=dumb`.
    static var color: Bool {
        if getenv("NO_COLOR") != nil { return false }
        if let term = getenv("TERM"), String(cString: term) == "dumb" { return false }
        return isatty(STDOUT_FILENO) != 0
    }

    static func options(_ arguments: Arguments) throws -> RenderOptions {
        var width = Terminal.width
        var cuts = Terminal.hasWidth
        if let w = try arguments.integer("width") {
            guard w >= 40 && w <= 1000 else { throw CLIError.usage("--width must be between 40 and 1000") }
            width = Int(w)
            cuts = true
        }
        let color = Terminal.color && !arguments.flag("no-color")
        return RenderOptions(width: width, ascii: arguments.flag("ascii"), color: color, cuts: cuts)
    }

    static func print(_ lines: [String]) {
        var out = ""
        for line in lines {
            out += escapingControls(line)
            out += "\n"
            if out.utf8.count > 1 << 16 {
                write(out)
                out = ""
            }
        }
        write(out)
    }

    /// `line` with every control character shown as an escape, colour sequences kept (see
    /// ``TransduceTrace/escapingControls(_:)``).
    static func escapingControls(_ line: String) -> String { TransduceTrace.escapingControls(line) }

    static func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { writeBytes(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// Writes `text` to standard error as it is (no newline).
    static func errorRaw(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { writeBytes(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    static func error(_ text: String) {
        var bytes = Array((text + "\n").utf8)
        _ = bytes.withUnsafeMutableBytes { writeBytes(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}

/// write(2), by the name of the platform's C library (Glibc or Darwin).
private func writeBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.write(descriptor, bytes, count)
    #elseif canImport(Darwin)
        Darwin.write(descriptor, bytes, count)
    #endif
}
