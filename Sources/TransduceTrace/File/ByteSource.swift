#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a reader's bytes come from. Each source is read once, front to back, so pipes and FIFOs
/// work as well as files.
package protocol ByteSource: AnyObject {
    /// Reads up to `count` bytes into the start of `buffer`; returns how many were read (fewer
    /// only at the end of the input).
    func read(into buffer: inout [UInt8], count: Int) -> Int
}

/// A file descriptor (standard input, a pipe, a FIFO, a file), read with `read(2)`, with the
/// bytes already taken from it to tell what it holds put back in front.
package final class DescriptorSource: ByteSource {
    private let descriptor: Int32
    private let closes: Bool
    private var pending: [UInt8]
    private var failed = false
    /// The `errno` of a failed read, if one failed (the input then ends there).
    package private(set) var error: Int32 = 0

    package init(descriptor: Int32, closes: Bool) {
        self.descriptor = descriptor
        self.closes = closes
        pending = []
    }
    deinit { if closes { close(descriptor) } }

    /// Reads up to `count` bytes and keeps them to be read again: how an input is told apart
    /// without losing its start.
    package func peek(_ count: Int) -> [UInt8] {
        var head = [UInt8](repeating: 0, count: count)
        let n = read(into: &head, count: count)
        pending = Array(head[0..<n]) + pending
        return pending
    }

    package func read(into buffer: inout [UInt8], count: Int) -> Int {
        var filled = 0
        if !pending.isEmpty {
            let n = min(count, pending.count)
            buffer.replaceSubrange(0..<n, with: pending[0..<n])
            pending.removeFirst(n)
            filled = n
        }
        while filled < count && !failed {
            let n = buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress! + filled, count - filled) }
            if n > 0 {
                filled += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                if n < 0 { error = errno }
                failed = true
            }
        }
        return filled
    }
}

final class FileSource: ByteSource {
    private let file: UnsafeMutablePointer<FILE>
    init(_ file: UnsafeMutablePointer<FILE>) { self.file = file }
    deinit { fclose(file) }
    func read(into buffer: inout [UInt8], count: Int) -> Int {
        buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, count, file) }
    }
}

final class MemorySource: ByteSource {
    private let bytes: [UInt8]
    private var position = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    func read(into buffer: inout [UInt8], count: Int) -> Int {
        let n = min(count, bytes.count - position)
        guard n > 0 else { return 0 }
        buffer.withUnsafeMutableBufferPointer { out in
            bytes.withUnsafeBufferPointer { src in
                out.baseAddress!.update(from: src.baseAddress! + position, count: n)
            }
        }
        position += n
        return n
    }
}

#if canImport(Glibc)
    private let systemRead = Glibc.read
#elseif canImport(Darwin)
    private let systemRead = Darwin.read
#endif
