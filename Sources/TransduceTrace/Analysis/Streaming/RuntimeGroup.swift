/// One of `count` groups that split a trace's runtimes between passes, each pass following only
/// its group's: a pass's per-runtime state then follows the runtimes of one group open at once,
/// not all of them (a service with a runtime per connection has hundreds of thousands at once).
///
/// A runtime's group is a hash of its key with a fixed multiplier, so that every run of the same
/// trace splits it the same way (an export that stopped part-way resumes at the same request).
package struct RuntimeGroup: Sendable, Hashable {
    /// Which group, from 0.
    package var index: Int
    /// How many groups split the runtimes.
    package var count: Int

    /// Every runtime, in one group.
    package static let all = RuntimeGroup(0, of: 1)

    /// Group `index` of `count`.
    package init(_ index: Int, of count: Int) {
        precondition(count >= 1 && (0..<count).contains(index), "group \(index) of \(count)")
        self.index = index
        self.count = count
    }

    /// How many groups keep the runtimes open at once, `open`, to at most `most` a group (on
    /// average: a hash spreads them, it does not count them), and at most ``maxCount``.
    package static func count(for open: Int, most: Int) -> Int {
        min(maxCount, max(1, (open + max(1, most) - 1) / max(1, most)))
    }

    /// The most groups: each is a pass over the whole trace at least, so a trace that opens a
    /// runtime an event (a hostile one: millions of runtimes) takes at most this many passes,
    /// its groups past the bound each.
    package static let maxCount = 64

    /// Whether `runtime` is of this group.
    @inline(__always)
    package func contains(_ runtime: RuntimeKey) -> Bool {
        count == 1 || Self.index(of: runtime, among: count) == index
    }

    /// The group of `runtime` among `count`.
    @inline(__always)
    package static func index(of runtime: RuntimeKey, among count: Int) -> Int {
        // Multiply-shift (Fibonacci hashing): the high bits of the product mix every bit of the
        // key (a runtime's key puts its process in the high half and its number in the low).
        Int((runtime.rawValue &* 0x9E37_79B9_7F4A_7C15) >> 32) % count
    }
}
