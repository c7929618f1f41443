import Transduce
import TransduceTrace

/// The report's timeline of cycles, and the trace's totals, from one pass over a stream: every
/// cycle, while there are at most `limit` of them; past that, the `limit` that held the gate
/// longest one by one and every cycle in each runtime's ``Density`` (how many began, and how
/// long they held the gate, in each of at most ``Density/bucketCount`` stretches of time).
///
/// Memory: the kept cycles, per runtime its open cycle, and the density's buckets of each runtime
/// kept whole and of the others together (``RuntimeLanes``).
struct ReportCycles {
    /// A cycle as the timeline draws it (absolute times).
    struct Cycle {
        var runtime: RuntimeKey
        var cycle: UInt64
        var label: String
        var enter: UInt64
        var held: UInt64
        var async: Bool
    }

    /// One runtime's cycles over time in fixed memory: buckets of `width` ns from its first
    /// cycle, whose neighbours merge pairwise (and `width` doubles) when a cycle begins past the
    /// last.
    struct Density {
        static let bucketCount = 512
        var start: UInt64
        var width: UInt64 = 1_000
        var counts = [UInt32](repeating: 0, count: bucketCount)
        var busy = [UInt64](repeating: 0, count: bucketCount)

        mutating func add(enter: UInt64, held: UInt64) {
            let offset = enter > start ? enter - start : 0
            while offset / width >= UInt64(Self.bucketCount) {
                for i in 0..<(Self.bucketCount / 2) {
                    counts[i] = counts[2 * i] &+ counts[2 * i + 1]
                    busy[i] = busy[2 * i] &+ busy[2 * i + 1]
                }
                for i in (Self.bucketCount / 2)..<Self.bucketCount {
                    counts[i] = 0
                    busy[i] = 0
                }
                width *= 2
            }
            let i = Int(offset / width)
            counts[i] &+= 1
            busy[i] &+= held
        }

        /// The buckets up to the last one used.
        var used: Int { (counts.lastIndex { $0 > 0 } ?? -1) + 1 }
    }

    private var rows = CycleRows()
    private var asyncCycles: [RuntimeKey: UInt64] = [:]
    private var kept: TopHeap<Cycle>
    /// By lane: the runtimes kept whole have a density each, the others one together (under
    /// ``RuntimeLanes/others``), as their gates.
    private var lanes = RuntimeLanes()
    private var densities: [RuntimeKey: Density] = [:]
    /// Cycles seen (entered).
    private(set) var count = 0
    /// The last event's time.
    private(set) var end: UInt64 = 0

    init(limit: Int) {
        kept = TopHeap(capacity: limit)
    }

    mutating func consume(_ e: TraceEvent) {
        end = max(end, e.time)
        // Lanes by the events' order, as the gates' (GateTable).
        _ = lanes.lane(e.runtimeKey)
        switch e.kind {
        case .effect where e.code == EffectKind.asyncAction.rawValue: asyncCycles[e.runtimeKey] = e.cycle
        default: break
        }
        rows.consume(e)
        if rows.readyCount > 0 { add(rows.take()) }
    }

    /// Takes in the cycles still open at the end.
    mutating func finish() { add(rows.finish()) }

    private mutating func add(_ left: [CycleRows.Row]) {
        for row in left {
            let isAsync = asyncCycles[row.runtime] == row.cycle
            if isAsync { asyncCycles[row.runtime] = nil }
            let held = row.held ?? end.minus(row.enter)
            let cycle = Cycle(
                runtime: row.runtime, cycle: row.cycle, label: row.label, enter: row.enter, held: held,
                async: isAsync || row.spawned > 0)
            kept.insert(cycle, key: TopHeap<Cycle>.key(descending: held, ascending: row.enter, UInt64(count)))
            densities[lanes.keptKey(row.runtime), default: Density(start: row.enter)].add(enter: row.enter, held: held)
            count += 1
        }
    }

    /// The cycles drawn one by one (by runtime, then time), and the densities of every runtime
    /// (cut after their last used bucket) when they are not all of them (empty when they are).
    func timeline(limit: Int) -> (cycles: [Cycle], densities: [(runtime: RuntimeKey, density: Density)]) {
        let drawn = kept.sortedBest(limit: limit).sorted { ($0.runtime, $0.enter, $0.cycle) < ($1.runtime, $1.enter, $1.cycle) }
        guard count > drawn.count else { return (drawn, []) }
        return (
            drawn,
            densities.keys.sorted().map { key in
                var d = densities[key]!
                let used = d.used
                d.counts.removeSubrange(used...)
                d.busy.removeSubrange(used...)
                return (key, d)
            }
        )
    }
}
