/// A set of ids kept as sorted, disjoint ranges: what a streaming analysis remembers of the
/// objects it is done with (ended tasks, resumed dispatches), so that a late event about one is
/// still recognised while memory stays with the gaps, not the ids.
///
/// A runtime issues ids in order and most objects end soon after, so the ids that ended form a
/// few long runs broken only where an object is still open: the ranges number about as many as
/// the open objects. Inserting near the high end (the usual case) is O(log n) plus the ranges
/// after it.
struct IDRanges: Sendable {
    /// Lower and upper bounds (inclusive) of each range, ascending; `lower.count == upper.count`.
    private var lower: [UInt64] = []
    private var upper: [UInt64] = []

    /// How many ranges it takes.
    var rangeCount: Int { lower.count }

    /// The index of the first range whose upper bound is at least `id`.
    private func firstNotBelow(_ id: UInt64) -> Int {
        upper.partitionPoint { $0 >= id }
    }

    func contains(_ id: UInt64) -> Bool {
        let i = firstNotBelow(id)
        return i < lower.count && lower[i] <= id
    }

    mutating func insert(_ id: UInt64) {
        let i = firstNotBelow(id)
        if i < lower.count && lower[i] <= id { return }
        let joinsBelow = i > 0 && upper[i - 1] &+ 1 == id
        let joinsAbove = i < lower.count && id &+ 1 == lower[i]
        switch (joinsBelow, joinsAbove) {
        case (true, true):
            upper[i - 1] = upper[i]
            lower.remove(at: i)
            upper.remove(at: i)
        case (true, false): upper[i - 1] = id
        case (false, true): lower[i] = id
        case (false, false):
            lower.insert(id, at: i)
            upper.insert(id, at: i)
        }
    }
}

/// The objects a streaming analysis finished with most recently, whole (their events, for the
/// findings a late event about one of them would make), at most `capacity` of them; older ones
/// are handed back to be remembered compactly (``IDRanges``).
struct RecentlyDone<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private var values: [Key: Value] = [:]
    /// Keys in the order they were done (a ring of `capacity`); a key taken back out stays here
    /// until its turn and is skipped then (or, put back meanwhile, leaves a little early: it is
    /// then remembered compactly, which is never wrong, only less detailed).
    private var order: [Key]
    private var next = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        order = []
        order.reserveCapacity(min(capacity, 1 << 16))
    }

    /// The value of `key`, if it is still here.
    subscript(key: Key) -> Value? { values[key] }

    /// Takes `key` back out, if it is still here.
    mutating func remove(_ key: Key) -> Value? { values.removeValue(forKey: key) }

    /// Adds `key`; returns the oldest one it pushed out, with its value, when full.
    mutating func insert(_ key: Key, _ value: Value) -> (Key, Value)? {
        values[key] = value
        if order.count < capacity {
            order.append(key)
            return nil
        }
        let oldest = order[next]
        order[next] = key
        next = (next + 1) % capacity
        guard oldest != key, let value = values.removeValue(forKey: oldest) else { return nil }
        return (oldest, value)
    }
}
