#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a reader's bytes come from. Each source is read once, front to back, so pipes and FIFOs
/// work as well as files.
package protocol ByteSource: AnyObject {
    /// Reads up to `count` bytes to `buffer`, which holds at least that many; returns how many
    /// were read (fewer only at the end of the input).
    func read(to buffer: UnsafeMutableRawPointer, count: Int) -> Int
}

extension ByteSource {
    /// Reads up to `count` bytes into the start of `buffer` (which holds at least that many).
    package func read(into buffer: inout [UInt8], count: Int) -> Int {
        precondition(buffer.count >= count)
        return buffer.withUnsafeMutableBytes { read(to: $0.baseAddress!, count: count) }
    }
}

/// A file descriptor (standard input, a pipe, a FIFO, a file), read with `read(2)` a block at a
/// time: a trace's chunks can be a few events each (a process chunk before each run of one
/// process's events), and two system calls a chunk cost more than decoding it. A pipe's read
/// returns what is there, so a live stream is not held back waiting for a block to fill.
package final class DescriptorSource: ByteSource {
    private let descriptor: Int32
    private let closes: Bool
    /// Bytes read and not yet taken: `stash[start..<end]`.
    private var stash: [UInt8] = []
    private var start = 0
    private var end = 0
    private var failed = false
    /// The `errno` of a failed read, if one failed (the input then ends there).
    package private(set) var error: Int32 = 0
    /// The most one `read(2)` asks for.
    static let block = 1 << 20

    package init(descriptor: Int32, closes: Bool) {
        self.descriptor = descriptor
        self.closes = closes
    }
    deinit { if closes { close(descriptor) } }

    /// The next `count` bytes (fewer at the end of the input), left to be read: how an input is
    /// told apart without losing its start.
    package func peek(_ count: Int) -> [UInt8] {
        while end - start < count && more() {}
        return Array(stash[start..<min(end, start + count)])
    }

    package func read(to buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        var filled = 0
        while filled < count {
            if start == end && !more() { break }
            let n = min(count - filled, end - start)
            stash.withUnsafeBytes { from in
                (buffer + filled).copyMemory(from: from.baseAddress! + start, byteCount: n)
            }
            start += n
            filled += n
        }
        return filled
    }

    /// Reads once more after what is stashed (moving that to the front); false at the end or on
    /// a failure.
    private func more() -> Bool {
        guard !failed else { return false }
        if start > 0 {
            stash.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: $0.baseAddress! + start, byteCount: end - start) }
            end -= start
            start = 0
        }
        if stash.count - end < Self.block { stash += [UInt8](repeating: 0, count: Self.block - (stash.count - end)) }
        while true {
            let n = stash.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress! + end, Self.block) }
            if n > 0 {
                end += n
                return true
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { error = errno }
            failed = true
            return false
        }
    }
}

final class FileSource: ByteSource {
    private let file: UnsafeMutablePointer<FILE>
    init(_ file: UnsafeMutablePointer<FILE>) { self.file = file }
    deinit { fclose(file) }
    func read(to buffer: UnsafeMutableRawPointer, count: Int) -> Int { fread(buffer, 1, count, file) }
    /// Moves to byte `offset` of the file; `false` if it cannot.
    func seek(to offset: Int) -> Bool { fseeko(file, off_t(offset), SEEK_SET) == 0 }
}

final class MemorySource: ByteSource {
    private let bytes: [UInt8]
    private var position = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    func read(to buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        let n = min(count, bytes.count - position)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + position, byteCount: n) }
        position += n
        return n
    }
}

#if canImport(Glibc)
    private let systemRead = Glibc.read
#elseif canImport(Darwin)
    private let systemRead = Darwin.read
#endif
