import Synchronization
import TransduceTrace

#if canImport(Glibc)
    import Glibc
    typealias SignalHandler = __sighandler_t
#elseif canImport(Darwin)
    import Darwin
    typealias SignalHandler = sig_t
#endif

/// The terminal while the UI runs: raw mode on the alternate screen with the cursor hidden, put
/// back exactly as it was on every way out: a normal exit (``restore()``), Ctrl-C (read as a key:
/// raw mode has no signals from the keyboard), SIGTERM/SIGHUP/SIGINT from elsewhere, and a crash
/// (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT), whose handlers restore the terminal and then die
/// of the signal as before. A signal the caller ignored stays ignored, and every signal's handler
/// is put back as it was when the UI ends.
///
/// One at a time per process; its state is process-global because signal handlers need it.
enum TerminalSession {
    /// The settings to put back (valid while ``active``).
    nonisolated(unsafe) private static var saved = termios()
    nonisolated(unsafe) private static var active = false
    /// Set by SIGWINCH; the UI's loop polls it.
    static let resized = Atomic<Bool>(false)

    private static let leave = Array("\u{1B}[?25h\u{1B}[?1049l".utf8)
    private static let fatalSignals = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTERM, SIGHUP, SIGINT, SIGQUIT]

    /// Whether standard input and output are a terminal (``begin()`` can enter it).
    static var available: Bool { isatty(STDIN_FILENO) != 0 && isatty(STDOUT_FILENO) != 0 }

    /// Enters raw mode and the alternate screen; `false` when standard input is not a terminal.

    static func begin() -> Bool {
        guard available, tcgetattr(STDIN_FILENO, &saved) == 0 else {
            return false
        }
        var raw = saved
        // Byte by byte, no echo, no signals from the keyboard, no output processing (lines are
        // positioned); reads wait for one byte (the loop polls first).
        cfmakeraw(&raw)
        active = true
        for number in fatalSignals {
            // A signal the caller ignores stays ignored (`live -- COMMAND` ignores SIGINT and
            // SIGQUIT while its command runs, like system(3)).
            let before = signal(number, SIG_IGN)
            previous[number] = before
            if !isIgnore(before) { installRestoring(number) }
        }
        previous[SIGWINCH] = signal(SIGWINCH) { _ in TerminalSession.resized.store(true, ordering: .relaxed) }
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else {
            active = false
            putHandlersBack()
            return false
        }
        emit(Array("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J".utf8))
        return true
    }

    /// Leaves the alternate screen and puts the terminal's settings back.
    static func restore() {
        guard active else { return }
        active = false
        emit(leave)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
        putHandlersBack()
    }

    /// The handlers the signals had before ``begin()``.
    nonisolated(unsafe) private static var previous: [Int32: SignalHandler?] = [:]

    private static func putHandlersBack() {
        for (number, handler) in previous { signal(number, handler) }
        previous = [:]
    }

    private static func isIgnore(_ handler: SignalHandler?) -> Bool {
        unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    /// The terminal's size now (columns, rows).
    static var size: (columns: Int, rows: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return (80, 24) }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Writes `bytes` to standard output, all of them.
    static func emit(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { writeAll(STDOUT_FILENO, $0) }
    }

    /// A handler that restores the terminal (only async-signal-safe calls), then dies of the
    /// signal as it would have.
    private static func installRestoring(_ number: Int32) {
        signal(number) { number in
            if TerminalSession.active {
                TerminalSession.leave.withUnsafeBytes { _ = write(STDOUT_FILENO, $0.baseAddress!, $0.count) }
                tcsetattr(STDIN_FILENO, TCSAFLUSH, &TerminalSession.saved)
            }
            signal(number, SIG_DFL)
            raise(number)
        }
    }

    /// The next key, or `nil` when none came within `timeout` milliseconds (or input ended:
    /// `ended` is then set).
    static func readKey(timeout: Int32, ended: inout Bool) -> Key? {
        guard let first = readByte(timeout: timeout, ended: &ended) else { return nil }
        switch first {
        case 0x03: return .interrupt
        case 0x09: return .tab
        case 0x0D, 0x0A: return .enter
        case 0x7F, 0x08: return .backspace
        case 0x1B:
            // An escape sequence, or Esc alone (nothing follows within 30 ms).
            var ignored = false
            guard let second = readByte(timeout: 30, ended: &ignored) else { return .escape }
            guard second == UInt8(ascii: "[") || second == UInt8(ascii: "O") else {
                pending = second  // Esc, then a key of its own
                return .escape
            }
            var sequence: [UInt8] = []
            while sequence.count < 8, let byte = readByte(timeout: 30, ended: &ignored) {
                sequence.append(byte)
                if byte >= 0x40 && byte <= 0x7E { break }
            }
            switch String(decoding: sequence, as: UTF8.self) {
            case "A": return .up
            case "B": return .down
            case "H", "1~", "7~": return .home
            case "F", "4~", "8~": return .end
            case "5~": return .pageUp
            case "6~": return .pageDown
            default: return nil
            }
        default:
            guard first >= 0x20 && first < 0x7F else { return nil }
            return .character(Character(Unicode.Scalar(first)))
        }
    }

    /// A byte read past an Esc that began no sequence: the next key's.
    nonisolated(unsafe) private static var pending: UInt8?

    private static func readByte(timeout: Int32, ended: inout Bool) -> UInt8? {
        if let byte = pending {
            pending = nil
            return byte
        }
        var poller = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeout) > 0 else { return nil }
        var byte: UInt8 = 0
        let n = read(STDIN_FILENO, &byte, 1)
        if n == 1 { return byte }
        if n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN) { ended = true }
        return nil
    }
}
