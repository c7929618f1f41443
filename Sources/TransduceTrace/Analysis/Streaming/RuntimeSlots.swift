/// Which slot each runtime's state has in a ``PerRuntime``: a hash table of runtime keys with
/// open addressing and linear probing, hashed by multiplying the key's 64 bits.
///
/// A `Dictionary` hashed every key with SipHash, looked up once an event when the events of
/// several runtimes interleave: 6% of `summary`. A multiply and a shift are enough here, with
/// the multiplier drawn at random once a process, so that keys a hand-made trace chooses do not
/// collide by design (multiply-shift hashing with a random odd multiplier is universal).
/// Removal shifts the entries after it back, so no deleted marks pile up.
package struct RuntimeSlots {
    /// Each position's key, where ``values`` holds a slot.
    private var keys: [UInt64]
    /// Each position's slot, or -1 where the position is free.
    private var values: [Int32]
    /// How far the hash's product is shifted: 64 less the bits of a position.
    private var shift: UInt64
    /// How many keys have a slot.
    package private(set) var count = 0

    private static let multiplier = UInt64.random(in: 0...UInt64.max) | 1
    private static let initialBits: UInt64 = 4

    package init() {
        keys = Array(repeating: 0, count: 1 << Self.initialBits)
        values = Array(repeating: -1, count: 1 << Self.initialBits)
        shift = 64 - Self.initialBits
    }

    /// The slot of `key`, if it has one; setting `nil` removes it.
    package subscript(key: RuntimeKey) -> Int? {
        @inline(__always) get {
            let (position, found) = find(key.rawValue)
            return found ? Int(values[position]) : nil
        }
        set {
            let (position, found) = find(key.rawValue)
            switch (newValue, found) {
            case (let slot?, true): values[position] = Int32(slot)
            case (let slot?, false): insert(key.rawValue, Int32(slot), at: position)
            case (nil, true): remove(at: position)
            case (nil, false): break
            }
        }
    }

    @inline(__always)
    private func home(_ key: UInt64) -> Int { Int(truncatingIfNeeded: (key &* Self.multiplier) >> shift) }

    /// Where `key` is (found) or would go (not found).
    @inline(__always)
    private func find(_ key: UInt64) -> (position: Int, found: Bool) {
        let mask = values.count - 1
        var position = home(key)
        while true {
            if values[position] < 0 { return (position, false) }
            if keys[position] == key { return (position, true) }
            position = (position + 1) & mask
        }
    }

    private mutating func insert(_ key: UInt64, _ slot: Int32, at position: Int) {
        precondition(slot >= 0, "a slot is a non-negative index")
        // At most three quarters full: a search ends after a few positions (linear probing
        // looks at about 2.5 for a key it finds and 8.5 for one it does not, at the most), and
        // 78,126 runtimes take 1.5 MB, less than a `Dictionary` of them.
        if (count + 1) * 4 > values.count * 3 {
            grow()
            insert(key, slot, at: find(key).position)
            return
        }
        keys[position] = key
        values[position] = slot
        count += 1
    }

    private mutating func grow() {
        let (oldKeys, oldValues) = (keys, values)
        keys = Array(repeating: 0, count: oldValues.count * 2)
        values = Array(repeating: -1, count: oldValues.count * 2)
        shift -= 1
        for i in oldValues.indices where oldValues[i] >= 0 {
            let position = find(oldKeys[i]).position
            keys[position] = oldKeys[i]
            values[position] = oldValues[i]
        }
    }

    /// Frees `position`, moving back each entry after it that a search for it would no longer
    /// reach across the gap.
    private mutating func remove(at position: Int) {
        let mask = values.count - 1
        var gap = position
        var next = (gap + 1) & mask
        while values[next] >= 0 {
            let wanted = home(keys[next])
            // Whether `wanted` lies cyclically in (gap, next]: the entry is still reachable from
            // its home without the gap, so it stays.
            let stays = gap <= next ? (gap < wanted && wanted <= next) : (gap < wanted || wanted <= next)
            if !stays {
                keys[gap] = keys[next]
                values[gap] = values[next]
                gap = next
            }
            next = (next + 1) & mask
        }
        values[gap] = -1
        count -= 1
    }
}

extension RuntimeSlots: Sendable {}
