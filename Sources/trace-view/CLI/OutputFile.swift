#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard output, or a file written atomically on `close()`.
final class OutputFile {
    private let path: String?
    private let temporary: String?
    private let file: UnsafeMutablePointer<FILE>?
    private var failed = false

    init(path: String?) throws {
        self.path = path
        guard let path else {
            temporary = nil
            file = nil
            return
        }
        let temporary = path + ".tmp-\(getpid())"
        guard let file = fopen(temporary, "wb") else {
            throw CLIError.data("\(path): cannot create: \(String(cString: strerror(errno)))")
        }
        self.temporary = temporary
        self.file = file
    }

    func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if let file {
            if fwrite(bytes, 1, bytes.count, file) != bytes.count { failed = true }
        } else {
            Terminal.write(String(decoding: bytes, as: UTF8.self))
        }
    }

    private var closed = false

    /// A file never closed (the export failed) leaves nothing behind.
    deinit {
        if !closed, let file, let temporary {
            fclose(file)
            unlink(temporary)
        }
    }

    func close() throws {
        guard let file, let temporary, let path else { return }
        closed = true
        let closed = fclose(file) == 0
        guard closed && !failed && rename(temporary, path) == 0 else {
            unlink(temporary)
            throw CLIError.data("\(path): write failed")
        }
    }
}
