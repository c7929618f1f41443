/// The process chunks a reader has checked, by their checksum and bytes: a trace whose processes
/// interleave repeats a process's chunk before every run of its events (half the chunks of a
/// two-process trace), and a chunk whose header checksum and payload are those of a chunk checked
/// before has the same checksum (it need not be computed again) and names the same host (it need
/// not be compared again, as long as no host changed since: the reader forgets every chunk when
/// one does). Sound whatever the file holds: a chunk is taken as checked only when every byte
/// the checksum covers, and the checksum, are equal to those of one that passed.
///
/// Holds the last ``slots`` distinct chunks of at most ``maxPayload`` bytes, in memory of its own
/// (``deallocate()`` once, when its reader goes): a fixed size whatever the trace.
struct CheckedProcessChunks {
    static let slots = 8
    /// The longest payload kept (a pid and a host name of 60 bytes); a longer one is checked
    /// every time.
    static let maxPayload = 64

    /// `slots` entries, each the checksum and the length (one word, 0: empty) then the payload.
    private let storage: UnsafeMutableRawPointer
    private var next = 0
    private static let stride = 8 + maxPayload

    init() {
        storage = .allocate(byteCount: Self.slots * Self.stride, alignment: 8)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: Self.slots * Self.stride)
    }

    func deallocate() { storage.deallocate() }

    private static func key(checksum: UInt32, length: Int) -> UInt64 { UInt64(checksum) << 32 | UInt64(length) }

    /// Whether a process chunk of this checksum and payload passed before.
    @inline(__always)
    func contains(checksum: UInt32, _ payload: UnsafeRawBufferPointer) -> Bool {
        guard payload.count <= Self.maxPayload, payload.count > 0 else { return false }
        let key = Self.key(checksum: checksum, length: payload.count)
        for slot in 0..<Self.slots {
            let entry = storage + slot * Self.stride
            if entry.load(as: UInt64.self) == key && Self.same(entry + 8, payload) { return true }
        }
        return false
    }

    /// Whether `kept` starts with `payload`'s bytes, compared a word at a time (a call of
    /// `memcmp` for a dozen bytes cost more than the comparison).
    @inline(__always)
    private static func same(_ kept: UnsafeRawPointer, _ payload: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        let n = payload.count
        while i + 8 <= n {
            guard
                kept.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    == payload.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            else { return false }
            i += 8
        }
        while i < n {
            guard kept.load(fromByteOffset: i, as: UInt8.self) == payload[i] else { return false }
            i += 1
        }
        return true
    }

    /// Forgets every chunk (a host changed: a chunk kept may name the one replaced).
    mutating func removeAll() {
        for slot in 0..<Self.slots { (storage + slot * Self.stride).storeBytes(of: 0, as: UInt64.self) }
        next = 0
    }

    /// Remembers a process chunk that passed its checksum (the oldest one kept goes).
    mutating func insert(checksum: UInt32, _ payload: UnsafeRawBufferPointer) {
        guard payload.count <= Self.maxPayload, payload.count > 0 else { return }
        let entry = storage + next * Self.stride
        entry.storeBytes(of: Self.key(checksum: checksum, length: payload.count), as: UInt64.self)
        (entry + 8).copyMemory(from: payload.baseAddress!, byteCount: payload.count)
        next = (next + 1) % Self.slots
    }
}
