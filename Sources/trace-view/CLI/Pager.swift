import Synchronization
import TraceTooling

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Long output on a terminal goes through a pager, as git's does: `$PAGER` (`less` when it is not
/// set), with `LESS=FRX` unless `LESS` is set, so a text that fits one screen is printed as it
/// is, colour passes, and the text stays on the screen after `q`. Never in a pipe or a file,
/// with `--no-pager`, with `PAGER` empty or `cat`, or when the pager's program is not found.
///
/// Started at the first write to standard output (the progress a long read shows on standard
/// error comes before it), and waited for when trace-view exits.
enum Pager {
    /// The option every paged command takes.
    static let option = OptionSpec.flag(
        "no-pager", "Never page (on a terminal long output goes through $PAGER, less by default)")

    private struct State {
        /// The pager's command line, while it is wanted and not started.
        var wanted: String?
        var pid: pid_t = 0
        /// The terminal standard output was, kept open while the pager has its place.
        var terminal: Int32 = -1
    }
    private static let state = Mutex(State())

    /// Pages this run's standard output if it is a terminal and `arguments` do not say
    /// `--no-pager`.
    static func want(_ arguments: Arguments) {
        guard !arguments.flag("no-pager"), isatty(STDOUT_FILENO) != 0 else { return }
        let command = getenv("PAGER").map { String(cString: $0) } ?? "less"
        let words = command.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard let program = words.first.map(String.init), words != ["cat"],
            program.contains("/") ? access(program, X_OK) == 0 : Subprocess.which(program) != nil
        else { return }
        state.withLock { $0.wanted = command }
    }

    /// The terminal standard output was before a pager took its place (`nil`: none took it):
    /// what width and colour are asked of.
    static var terminal: Int32? { state.withLock { $0.terminal >= 0 ? $0.terminal : nil } }

    /// Starts the pager, if one is wanted and not started, with standard output into it.
    static func startIfWanted() {
        state.withLock { s in
            guard let command = s.wanted else { return }
            s.wanted = nil
            var environment: [String: String] = [:]
            if getenv("LESS") == nil { environment["LESS"] = "FRX" }
            if getenv("LV") == nil { environment["LV"] = "-c" }
            let saved = dup(STDOUT_FILENO)
            guard saved >= 0 else { return }
            _ = fcntl(saved, F_SETFD, FD_CLOEXEC)
            // Its output is the terminal this process's standard output still is.
            guard let child = try? Subprocess.startFeeding("/bin/sh", ["-c", command], environment: environment) else {
                close(saved)
                return
            }
            dup2(child.input, STDOUT_FILENO)
            close(child.input)
            s.pid = child.pid
            s.terminal = saved
            atexit { Pager.finish() }
        }
    }

    /// Ends the pager's input and waits for the user to leave it (at exit).
    static func finish() {
        let pid = state.withLock { s -> pid_t in
            defer { s.pid = 0 }
            return s.pid
        }
        guard pid > 0 else { return }
        close(STDOUT_FILENO)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
