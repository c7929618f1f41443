/// Each runtime's transducer and host type (its start event's labels), with each distinct pair
/// held once: a service with a runtime per connection names the same pair hundreds of thousands
/// of times (at 200,000 runtimes, a pair of strings each took 21 MB; an index each takes 4).
///
/// The pairs are found again through an open-addressing table of their positions (4 bytes a
/// slot), not a dictionary keyed by the pair: that held each pair a second time, with its hash
/// buckets, about 55 bytes more a pair where every runtime is named differently.
struct RuntimeNames {
    private var index: [RuntimeKey: UInt32] = [:]
    private var pairs: [(name: String, host: String)] = []
    /// Positions in `pairs` plus one (0: an empty slot); a power of two long, at most three
    /// quarters full.
    private var slots: [UInt32] = []

    /// How many distinct pairs it holds.
    var distinctPairs: Int { pairs.count }

    /// `runtime`'s names, if its start was seen.
    subscript(runtime: RuntimeKey) -> (name: String, host: String)? {
        get { index[runtime].map { pairs[Int($0)] } }
        set {
            guard let newValue else {
                index[runtime] = nil
                return
            }
            index[runtime] = position(of: newValue)
        }
    }

    /// The position of `pair` in `pairs`, added when it is new (never more pairs than runtimes:
    /// a trace that names each differently takes a pair each).
    private mutating func position(of pair: (name: String, host: String)) -> UInt32 {
        if (pairs.count + 1) * 4 > slots.count * 3 { grow() }
        let mask = slots.count - 1
        var slot = Self.hash(pair) & mask
        while slots[slot] != 0 {
            let found = Int(slots[slot] - 1)
            if pairs[found].name == pair.name && pairs[found].host == pair.host { return UInt32(found) }
            slot = (slot + 1) & mask
        }
        let added = UInt32(truncatingIfNeeded: pairs.count)
        pairs.append(pair)
        slots[slot] = added + 1
        return added
    }

    /// Twice the slots (16 at first), every pair placed again.
    private mutating func grow() {
        slots = [UInt32](repeating: 0, count: max(16, slots.count * 2))
        let mask = slots.count - 1
        for (i, pair) in pairs.enumerated() {
            var slot = Self.hash(pair) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = UInt32(truncatingIfNeeded: i) + 1
        }
    }

    private static func hash(_ pair: (name: String, host: String)) -> Int {
        var hasher = Hasher()
        hasher.combine(pair.name)
        hasher.combine(pair.host)
        return hasher.finalize()
    }
}

extension RuntimeNames: Sendable {}
