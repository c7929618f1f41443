/// The objects a streaming analysis finished with most recently, whole (their events, for the
/// findings a late event about one of them would make), at most `capacity` of them; older ones
/// are handed back to be remembered compactly (``IDRanges``).
///
/// One ring of keys and values in the order they were done, and an open-addressing index of
/// ring positions beside it (linear probing, at most half full, each slot with its key's hash):
/// for a 16-byte key and an 8-byte value, 28 bytes an entry and 16 of index, and one hash an
/// insert. (A dictionary with a ring of keys beside it took 64 bytes an entry, the OTLP export's
/// link tables 17 MB at the peak of a trace of 78,126 runtimes, and two hashes an insert.)
struct RecentlyDone<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Entries in the order they were done, a ring once `capacity` are; an entry is here until
    /// its turn comes again, and live while the index points at it (one taken out, or put in
    /// again later, is not). Keys apart from values: a probe compares keys without copying a
    /// value (a value that holds references was retained on every probe).
    private var keys: [Key] = []
    private var values: [Value] = []
    /// The index slot that points at each entry, ``dead`` when none does.
    private var slots: [UInt32] = []
    private static var dead: UInt32 { .max }
    /// Where the next entry goes once the ring is full (the oldest).
    private var next = 0
    /// By the key's hash: 0 when empty, else the hash's low 32 bits above the ring position + 1
    /// (a probe, a move and a resize need no hash made again). A power of two long, at least
    /// twice the ring's entries.
    private var index: [UInt64] = []
    let capacity: Int

    /// At most `capacity` whole; storage for `reserving` of them (at most `capacity`) made now,
    /// the rest as they come (a table kept per runtime, for tens of thousands of runtimes,
    /// makes none up front).
    init(capacity: Int, reserving: Int = 1 << 16) {
        precondition(capacity > 0 && capacity < Int(UInt32.max) / 4, "a RecentlyDone of \(capacity)")
        self.capacity = capacity
        let reserved = min(capacity, reserving)
        keys.reserveCapacity(reserved)
        values.reserveCapacity(reserved)
        slots.reserveCapacity(reserved)
        if reserved > 0 { index = Array(repeating: 0, count: Self.indexSize(for: reserved)) }
    }

    /// The value of `key`, if it is still here.
    subscript(key: Key) -> Value? {
        guard let at = find(key, hash: Self.hash(key)) else { return nil }
        return values[Self.position(index[at])]
    }

    /// Takes `key` back out, if it is still here.
    mutating func remove(_ key: Key) -> Value? {
        guard let at = find(key, hash: Self.hash(key)) else { return nil }
        let value = values[Self.position(index[at])]
        unindex(at)
        return value
    }

    /// Adds `key` (put in again, it leaves at its new turn); returns the oldest one it pushed
    /// out, with its value, when full.
    mutating func insert(_ key: Key, _ value: Value) -> (Key, Value)? {
        let hash = Self.hash(key)
        if let at = find(key, hash: hash) { unindex(at) }
        guard keys.count == capacity else {
            if 2 * (keys.count + 1) > index.count { reindex(size: Self.indexSize(for: keys.count + 1)) }
            keys.append(key)
            values.append(value)
            slots.append(Self.dead)
            place(keys.count - 1, hash: hash)
            return nil
        }
        let position = next
        next = (next + 1) % capacity
        var pushed: (Key, Value)?
        if slots[position] != Self.dead {
            pushed = (keys[position], values[position])
            unindex(Int(slots[position]))
        }
        keys[position] = key
        values[position] = value
        place(position, hash: hash)
        return pushed
    }

    /// The smallest power of two at least twice `entries` (and 16).
    private static func indexSize(for entries: Int) -> Int {
        var size = 16
        while size < 2 * entries { size *= 2 }
        return size
    }

    private static func hash(_ key: Key) -> UInt32 { UInt32(truncatingIfNeeded: key.hashValue) }
    private static func position(_ slot: UInt64) -> Int { Int(truncatingIfNeeded: slot & 0xFFFF_FFFF) - 1 }
    private static func hash(ofSlot slot: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: slot >> 32) }

    /// The index slot that points at `key`'s live entry.
    private func find(_ key: Key, hash: UInt32) -> Int? {
        guard !index.isEmpty else { return nil }
        let mask = index.count - 1
        var at = Int(hash) & mask
        while index[at] != 0 {
            if Self.hash(ofSlot: index[at]) == hash && keys[Self.position(index[at])] == key { return at }
            at = (at + 1) & mask
        }
        return nil
    }

    /// Points the index at ring position `position`, whose key has `hash` (not indexed).
    private mutating func place(_ position: Int, hash: UInt32) {
        let mask = index.count - 1
        var at = Int(hash) & mask
        while index[at] != 0 { at = (at + 1) & mask }
        index[at] = UInt64(hash) << 32 | UInt64(position + 1)
        slots[position] = UInt32(at)
    }

    /// Empties index slot `hole` (its entry is dead from now on), moving back the entries after
    /// it that probed past it (so a lookup never stops early at an emptied slot: no tombstones).
    private mutating func unindex(_ hole: Int) {
        slots[Self.position(index[hole])] = Self.dead
        let mask = index.count - 1
        var hole = hole
        var at = hole
        while true {
            at = (at + 1) & mask
            guard index[at] != 0 else { break }
            let home = Int(Self.hash(ofSlot: index[at])) & mask
            // It stays when its home lies cyclically in (hole, at]: its probe never passed the hole.
            let stays = hole <= at ? (hole < home && home <= at) : (hole < home || home <= at)
            if !stays {
                index[hole] = index[at]
                slots[Self.position(index[hole])] = UInt32(hole)
                hole = at
            }
        }
        index[hole] = 0
    }

    /// Makes the index `size` slots, with the live entries it had.
    private mutating func reindex(size: Int) {
        let live = index.filter { $0 != 0 }
        index = Array(repeating: 0, count: size)
        for slot in live { place(Self.position(slot), hash: Self.hash(ofSlot: slot)) }
    }
}
