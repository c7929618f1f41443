/// A set of ids kept as sorted, disjoint ranges: what a streaming analysis remembers of the
/// objects it is done with (ended tasks, resumed dispatches), so that a late event about one is
/// still recognised while memory stays with the gaps, not the ids.
///
/// A runtime issues ids in order and most objects end soon after, so the ids that ended form a
/// few long runs broken only where an object is still open: the ranges number about as many as
/// the open objects. Inserting near the high end (the usual case) is O(log n) plus the ranges
/// after it.
struct IDRanges: Sendable {
    /// One run is held inline: most sets are one (a runtime's dispatches, its cycles, what it
    /// dispatched), and a trace of 78,126 runtimes kept six sets each, two arrays a set. More are
    /// bounds in one array, lower and upper of each range in turn, ascending.
    private enum Storage {
        case empty
        case one(lower: UInt64, upper: UInt64)
        case many([UInt64])
    }
    private var storage = Storage.empty

    /// How many ranges it takes.
    var rangeCount: Int {
        switch storage {
        case .empty: 0
        case .one: 1
        case .many(let bounds): bounds.count / 2
        }
    }

    /// The index (in ranges) of the first range whose upper bound is at least `id`, of the
    /// ranges `among` of `bounds` (every one by default).
    private static func firstNotBelow(_ id: UInt64, in bounds: [UInt64], among: Range<Int>? = nil) -> Int {
        (among ?? 0..<bounds.count / 2).partitionPoint { bounds[2 * $0 + 1] >= id }
    }

    /// Whether one of the ranges `among` (indexes in ranges) of `bounds` (lower and upper of each
    /// range in turn, ascending) holds `id`: for a set's own bounds, or a stretch of a table's.
    static func contains(_ id: UInt64, in bounds: [UInt64], among: Range<Int>) -> Bool {
        let i = firstNotBelow(id, in: bounds, among: among)
        return i < among.upperBound && bounds[2 * i] <= id
    }

    /// The ranges' bounds, lower and upper of each in turn, ascending.
    var bounds: [UInt64] {
        switch storage {
        case .empty: []
        case .one(let lower, let upper): [lower, upper]
        case .many(let bounds): bounds
        }
    }

    func contains(_ id: UInt64) -> Bool {
        switch storage {
        case .empty: return false
        case .one(let lower, let upper): return lower <= id && id <= upper
        case .many(let bounds): return Self.contains(id, in: bounds, among: 0..<bounds.count / 2)
        }
    }

    mutating func insert(_ id: UInt64) {
        switch storage {
        case .empty:
            storage = .one(lower: id, upper: id)
        case .one(let lower, let upper):
            if lower <= id && id <= upper { return }
            if upper &+ 1 == id {
                storage = .one(lower: lower, upper: id)
            } else if id &+ 1 == lower {
                storage = .one(lower: id, upper: upper)
            } else {
                storage = .many(id < lower ? [id, id, lower, upper] : [lower, upper, id, id])
            }
        case .many(var bounds):
            storage = .empty  // the array is uniquely referenced while it changes
            Self.insert(id, into: &bounds)
            storage = bounds.count == 2 ? .one(lower: bounds[0], upper: bounds[1]) : .many(bounds)
        }
    }

    private static func insert(_ id: UInt64, into bounds: inout [UInt64]) {
        let count = bounds.count / 2
        let i = firstNotBelow(id, in: bounds)
        if i < count && bounds[2 * i] <= id { return }
        let joinsBelow = i > 0 && bounds[2 * i - 1] &+ 1 == id
        let joinsAbove = i < count && id &+ 1 == bounds[2 * i]
        switch (joinsBelow, joinsAbove) {
        case (true, true):
            // The range below reaches to the upper bound of the one above, which goes.
            bounds[2 * i - 1] = bounds[2 * i + 1]
            bounds.removeSubrange(2 * i..<2 * i + 2)
        case (true, false): bounds[2 * i - 1] = id
        case (false, true): bounds[2 * i] = id
        case (false, false): bounds.insert(contentsOf: [id, id], at: 2 * i)
        }
    }
}
