import TraceInputs
import TransduceTrace

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard output, or a file: written atomically on `close()` where the path is a regular file
/// or absent, through a symbolic link to its target (the link stays), in place to a FIFO, a
/// device or `/dev/stdout` (``FileDestination``).
final class OutputFile {
    private let path: String?
    /// Where the bytes end up (the link's target for a link).
    private let target: String?
    /// The temporary file renamed to `target` on close (`nil`: written in place).
    private let temporary: String?
    private let file: UnsafeMutablePointer<FILE>?
    private var failed = false

    init(path: String?) throws {
        self.path = path
        guard let path else {
            target = nil
            temporary = nil
            file = nil
            return
        }
        let destination: FileDestination
        do {
            destination = try FileDestination.resolve(path)
        } catch {
            throw CLIError.data("\(path): cannot write: \(error.reason)")
        }
        switch destination {
        case .atomic(let final):
            target = final
            temporary = final + ".tmp-\(getpid())"
        case .direct(let path):
            target = path
            temporary = nil
        }
        guard let file = fopen(temporary ?? target!, "wb") else {
            throw CLIError.data("\(path): cannot create: \(String(cString: strerror(errno)))")
        }
        self.file = file
    }

    func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if let file {
            if fwrite(bytes, 1, bytes.count, file) != bytes.count { failed = true }
        } else {
            Terminal.write(bytes: bytes)
        }
    }

    private var closed = false

    /// A file never closed (the export failed) leaves nothing behind.
    deinit {
        if !closed, let file {
            fclose(file)
            if let temporary { unlink(temporary) }
        }
    }

    func close() throws {
        guard let file, let target, let path else { return }
        closed = true
        let closed = fclose(file) == 0
        guard closed && !failed && (temporary.map { rename($0, target) == 0 } ?? true) else {
            if let temporary { unlink(temporary) }
            throw CLIError.data("\(path): write failed")
        }
    }
}
