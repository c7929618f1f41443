/// The best `capacity` of a stream of values, each ranked by a key of three integers (a greater
/// key is better; ties are the caller's to break inside the key), in a binary heap whose root is
/// the worst kept: O(log capacity) an insertion, memory for `capacity` values whatever the stream.
///
/// The heap orders keys and slots only: its code compares and moves plain integers, never the
/// values (a heap generic over its values is not specialized in the modules that use it, and
/// comparing and swapping through generic witnesses was a fifth of a pass that offered every
/// request to one).
package struct TopHeap<Element> {
    /// What ranks a value: greater is better, compared left to right.
    package typealias Key = (UInt64, UInt64, UInt64)

    private var items: [Element] = []
    private var ranks: TopRanks

    package init(capacity: Int) { ranks = TopRanks(capacity: max(1, capacity)) }

    /// Keeps `x` if it ranks among the best `capacity` so far (a key equal to the worst kept's
    /// does not displace it).
    package mutating func insert(_ x: Element, key: Key) {
        guard let slot = ranks.admit(key) else { return }
        if slot == items.count {
            // Grown by doubling, but never past the capacity: the last doubling would otherwise
            // leave up to a third of the storage unused (100,000 rows kept 131,072).
            if items.count == items.capacity { items.reserveCapacity(min(ranks.capacity, max(16, items.count * 2))) }
            items.append(x)
        } else {
            items[slot] = x
        }
    }

    /// What it kept, best first: the best `limit` of them when given.
    package func sortedBest(limit: Int = .max) -> [Element] { ranks.slotsBestFirst(limit: limit).map { items[$0] } }

    /// What it kept, best first (the best `limit` of them when given), each made into what
    /// `transform` returns: no array of the values between.
    package func sortedBest<T>(limit: Int = .max, _ transform: (Element) throws -> T) rethrows -> [T] {
        try ranks.slotsBestFirst(limit: limit).map { try transform(items[$0]) }
    }

    /// What it kept, in no order.
    package var kept: [Element] { items }

    /// The key that ranks by `a` descending, then `b` and `c` ascending: the usual order of
    /// "slowest first, ties by the lower id".
    package static func key(descending a: UInt64, ascending b: UInt64, _ c: UInt64 = 0) -> Key { (a, ~b, ~c) }
}

/// ``TopHeap``'s order, apart from its values so that it is compiled for its one concrete type:
/// keys and the slots of their values, in a binary heap whose root is the worst kept.
package struct TopRanks {
    private struct Entry {
        var key: TopHeap<Never>.Key
        var slot: Int
    }

    private var heap: [Entry] = []
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// The slot a value of `key` goes in (the next new one, or the one of the worst kept, which
    /// it replaces), or nil when it does not rank among the best `capacity`.
    mutating func admit(_ key: TopHeap<Never>.Key) -> Int? {
        if heap.count < capacity {
            if heap.count == heap.capacity { heap.reserveCapacity(min(capacity, max(16, heap.count * 2))) }
            heap.append(Entry(key: key, slot: heap.count))
            var i = heap.count - 1
            while i > 0, heap[(i - 1) / 2].key > heap[i].key {
                heap.swapAt(i, (i - 1) / 2)
                i = (i - 1) / 2
            }
            return heap.count - 1
        }
        guard key > heap[0].key else { return nil }
        heap[0].key = key
        let slot = heap[0].slot
        var i = 0
        while true {
            var worse = i
            let left = 2 * i + 1
            if left < heap.count && heap[worse].key > heap[left].key { worse = left }
            if left + 1 < heap.count && heap[worse].key > heap[left + 1].key { worse = left + 1 }
            guard worse != i else { break }
            heap.swapAt(i, worse)
            i = worse
        }
        return slot
    }

    /// The slots, best first: the best `limit`.
    func slotsBestFirst(limit: Int) -> [Int] { heap.sorted { $0.key > $1.key }.prefix(limit).map(\.slot) }
}
