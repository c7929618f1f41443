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

    /// The next `count` bytes, taken as ``read(to:count:)`` would take them, where the source
    /// keeps them: valid until the source is next called. Nil, with nothing taken, when it cannot
    /// lend them (fewer are left, or it keeps no bytes of its own): ``read(to:count:)`` them.
    func lend(_ count: Int) -> UnsafeRawBufferPointer?
}

extension ByteSource {
    /// Reads up to `count` bytes into the start of `buffer` (which holds at least that many).
    package func read(into buffer: inout [UInt8], count: Int) -> Int {
        precondition(buffer.count >= count)
        return buffer.withUnsafeMutableBytes { read(to: $0.baseAddress!, count: count) }
    }

    package func lend(_ count: Int) -> UnsafeRawBufferPointer? { nil }
}

/// A file descriptor (a file, standard input, a pipe, a FIFO), read with `read(2)` a block at a
/// time: a trace's chunks can be a few events each (a process chunk before each run of one
/// process's events), and two system calls a chunk cost more than decoding it. A pipe's read
/// returns what is there, so a live stream is not held back waiting for a block to fill.
///
/// What it read is lent in place (``lend(_:)``), so a reader decodes a chunk where it was read
/// to: copying every chunk out of the block (4% of `summary`) and the calls a read made cost
/// more than the chunks of a few events they moved.
package final class DescriptorSource: ByteSource {
    private let descriptor: Int32
    private let closes: Bool
    // Read and changed on every read of a chunk, by the one thread that reads: unchecked, since
    // a dynamic exclusivity check of each cost more than the read itself.
    /// Bytes read and not yet taken: `stash[start..<end]`, of `capacity`.
    @exclusivity(unchecked) private var stash: UnsafeMutableRawPointer
    @exclusivity(unchecked) private var capacity = DescriptorSource.block
    @exclusivity(unchecked) private var start = 0
    @exclusivity(unchecked) private var end = 0
    private var failed = false
    /// The `errno` of a failed read, if one failed (the input then ends there).
    package private(set) var error: Int32 = 0
    /// The most one `read(2)` asks for.
    static let block = 1 << 20

    package init(descriptor: Int32, closes: Bool) {
        self.descriptor = descriptor
        self.closes = closes
        stash = .allocate(byteCount: Self.block, alignment: 16)
    }

    /// Opens `path` to read; nil (with `errno` set) when it cannot.
    package convenience init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.init(descriptor: descriptor, closes: true)
    }

    deinit {
        stash.deallocate()
        if closes { close(descriptor) }
    }

    /// The next `count` bytes (fewer at the end of the input), left to be read: how an input is
    /// told apart without losing its start.
    package func peek(_ count: Int) -> [UInt8] {
        while end - start < count && more(atLeast: count) {}
        return Array(UnsafeRawBufferPointer(start: stash + start, count: min(end - start, count)))
    }

    package func read(to buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        var filled = 0
        while filled < count {
            if start == end && !more(atLeast: 1) { break }
            let n = min(count - filled, end - start)
            (buffer + filled).copyMemory(from: stash + start, byteCount: n)
            start += n
            filled += n
        }
        return filled
    }

    package func lend(_ count: Int) -> UnsafeRawBufferPointer? {
        while end - start < count {
            if !more(atLeast: count) { return nil }
        }
        defer { start += count }
        return UnsafeRawBufferPointer(start: stash + start, count: count)
    }

    /// Moves to byte `offset` of a file, forgetting what was read ahead; `false` if it cannot.
    package func seek(to offset: Int) -> Bool {
        guard lseek(descriptor, off_t(offset), SEEK_SET) == off_t(offset) else { return false }
        (start, end, failed) = (0, 0, false)
        return true
    }

    /// Reads once more after what is stashed (moving that to the front, in a stash that holds
    /// `count` bytes at least); false at the end or on a failure.
    private func more(atLeast count: Int) -> Bool {
        guard !failed else { return false }
        if start > 0 {
            stash.copyMemory(from: stash + start, byteCount: end - start)
            end -= start
            start = 0
        }
        // Room for `count`, and half a block to read into after what is kept: grown only for
        // a chunk larger than a block.
        if capacity < count || capacity - end < Self.block / 2 {
            let wanted = max(count, end + Self.block)
            let larger = UnsafeMutableRawPointer.allocate(byteCount: wanted, alignment: 16)
            larger.copyMemory(from: stash, byteCount: end)
            stash.deallocate()
            (stash, capacity) = (larger, wanted)
        }
        while true {
            let n = systemRead(descriptor, stash + end, min(Self.block, capacity - end))
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

/// Bytes held in memory (tests, the fuzzers), lent in place as a descriptor's are, so that
/// what reads them takes the same paths as a file's reader.
final class MemorySource: ByteSource {
    private let bytes: UnsafeMutableRawBufferPointer
    private var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = .allocate(byteCount: bytes.count, alignment: 16)
        bytes.withUnsafeBytes { self.bytes.copyMemory(from: $0) }
    }

    deinit { bytes.deallocate() }

    func read(to buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        let n = min(count, bytes.count - position)
        guard n > 0 else { return 0 }
        buffer.copyMemory(from: bytes.baseAddress! + position, byteCount: n)
        position += n
        return n
    }

    func lend(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count <= bytes.count - position else { return nil }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<position + count])
    }
}

#if canImport(Glibc)
    private let systemRead = Glibc.read
#elseif canImport(Darwin)
    private let systemRead = Darwin.read
#endif
