/// Lines written to standard output as they come, in 64 KB writes (so `| head` sees the first
/// lines of a long diagram at once). Control characters in them are escaped.
struct OutputStream {
    private var buffer = ""

    mutating func line(_ text: String) {
        buffer += Terminal.escapingControls(text)
        buffer += "\n"
        if buffer.utf8.count > 1 << 16 { flush() }
    }

    mutating func flush() {
        Terminal.write(buffer)
        buffer = ""
    }
}
