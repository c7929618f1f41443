/// Which runtimes a view keeps whole: the first ``maxWhole`` runtimes a trace names each get a
/// lane of their own, in that order; every runtime after them shares one more lane, under
/// ``others``, and is counted.
///
/// A view that keeps per-runtime state (a gate's histograms and timelines, a timeline's density)
/// keeps it per lane: its memory is bounded by ``maxWhole`` + 1 states whatever the number of
/// runtimes (a service that makes a runtime per connection has a hundred thousand). Lanes are
/// given in the order of the stream, so every view of the same events gives a runtime the same
/// lane.
package struct RuntimeLanes: Sendable {
    /// The runtimes kept whole, one lane each (as `contention` follows them one by one).
    package static let maxWhole = ContentionByRuntime.maxRuntimes
    /// Distinct runtimes past ``maxWhole`` counted exactly; beyond, ``otherCount`` is a lower
    /// bound.
    package static let maxCountedOthers = ContentionByRuntime.maxCountedOthers
    /// The key the runtimes past ``maxWhole`` are kept under, together. (A trace that names this
    /// runtime itself has it counted with them.)
    package static let others = RuntimeKey(rawValue: .max)

    private var lanes: [RuntimeKey: Int] = [:]
    /// The runtimes with a lane of their own, in the order the stream first named them.
    package private(set) var whole: [RuntimeKey] = []
    private var otherKeys = Set<RuntimeKey>()
    private var lastKey = RuntimeKey(rawValue: 0)
    private var lastLane = -1

    package init() {}

    /// How many distinct runtimes share the ``others`` lane (at least, past ``maxCountedOthers``).
    package var otherCount: Int { otherKeys.count }
    /// How many runtimes the stream named (at least).
    package var count: Int { whole.count + otherKeys.count }

    /// `key`'s lane, given now if it has none: its own (`0..<maxWhole`, in the order of
    /// ``whole``) or ``maxWhole`` (shared by the others).
    @inline(__always)
    package mutating func lane(_ key: RuntimeKey) -> Int {
        if lastLane >= 0 && key == lastKey { return lastLane }
        let found: Int
        if let lane = lanes[key] {
            found = lane
        } else if whole.count < Self.maxWhole && key != Self.others {
            found = whole.count
            lanes[key] = found
            whole.append(key)
        } else {
            found = Self.maxWhole
            if otherKeys.count < Self.maxCountedOthers { otherKeys.insert(key) }
        }
        lastKey = key
        lastLane = found
        return found
    }

    /// The key `key` is kept under: itself when it has a lane of its own, else ``others``.
    package func keptKey(_ key: RuntimeKey) -> RuntimeKey { lanes[key] == nil ? Self.others : key }
}
