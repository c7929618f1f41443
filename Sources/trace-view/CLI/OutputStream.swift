import TransduceTrace

/// Lines written to standard output as they come, in 64 KB writes (so `| head` sees the first
/// lines of a long diagram at once), drawn as `options` say (``Terminal/print(_:options:)``).
struct OutputStream {
    let options: RenderOptions
    private var buffer = ""

    init(options: RenderOptions) { self.options = options }

    mutating func line(_ text: String) {
        // `fit` escapes trace text as it fits the line.
        buffer += options.fit(text)
        buffer += "\n"
        if buffer.utf8.count > 1 << 16 { flush() }
    }

    mutating func flush() {
        Terminal.write(buffer)
        buffer = ""
    }
}
