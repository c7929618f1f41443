/// Every resumed awaited request's ``LatencyBreakdown`` in one pass, each at its resume, in
/// resume order: each runtime's events are kept from the earliest position a window still open
/// (or opened later) can start at (``RequestWindows/earliestOpen(runtime:)``), and a request's
/// breakdown reads its window from them, exactly as ``WindowedBreakdowns`` does in a second pass.
///
/// Memory: the events of what is open, at most `maxKept` in all (500,000 by default: tens of
/// MB): past it the oldest kept of the runtime keeping most are let go, and a request whose
/// window reaches back before what its runtime kept is handed over in ``missed`` instead (for a
/// second pass of its own, ``WindowedBreakdowns``), at most ``maxMissed`` of them.
package struct ResumeBreakdowns {
    private var windows = RequestWindows(keeps: false)
    /// Per runtime, its events from a position on (contiguous: every event of the runtime since).
    private var kept = PerRuntime<Kept>()
    private var keptCount = 0
    private var position = 0
    /// The breakdowns found and not yet taken, in resume order.
    package private(set) var found: [LatencyBreakdown] = []
    /// With `keepsWindows`, the index of each found breakdown's window, in the same order (what
    /// else a request's window says: its error, its tasks' cancellations).
    package private(set) var windowsFound: [TraceIndex] = []
    private let keepsWindows: Bool
    /// Requests whose windows reach back before what was kept, in resume order.
    package private(set) var missed: [RequestWindows.Request] = []
    /// Whether more than ``maxMissed`` were missed (the rest are lost: say so).
    package private(set) var missedOverflow = false

    private let maxKept: Int
    package static let maxMissed = 1_000_000

    private struct Kept {
        var events: [(position: Int, event: TraceEvent)] = []
        var head = 0
        /// Every event of the runtime seen: the most a pass that breaks down its requests keeps.
        var seen = 0
        /// Events appended since the runtime's last trim.
        var sinceTrim = 0
        var count: Int { events.count - head }

        mutating func drop(before position: Int) -> Int {
            var dropped = 0
            while head < events.count, events[head].position < position {
                head += 1
                dropped += 1
            }
            // The dropped ones' memory goes once they are more than half (each element is moved
            // at most once per halving), or all of them: a short-lived runtime's few events, which
            // stayed until the trace's end when only runs of 4,096 were compacted (1.8 GB at 10M
            // events in 78,126 runtimes).
            if head == events.count {
                events = []
                head = 0
            } else if head >= 64 && head * 2 > events.count {
                events.removeFirst(head)
                head = 0
            }
            return dropped
        }

        /// Moves what is kept to storage of its own size: a trimmed runtime's array kept the
        /// capacity of its longest run (a hundred thousand runtimes, each trimmed once by
        /// ``letGoOfTheOldest()``, held every event they ever had).
        mutating func shrink() {
            guard head > 0 || events.capacity > 2 * events.count + 16 else { return }
            events = Array(events[head...])
            head = 0
        }
    }

    package init(maxKept: Int = 500_000, keepsWindows: Bool = false) {
        self.maxKept = max(1, maxKept)
        self.keepsWindows = keepsWindows
    }

    /// Takes the next event of the stream, in order.
    package mutating func consume(_ e: TraceEvent) {
        defer { position += 1 }
        let runtime = e.runtimeKey
        let slot = kept.slot(runtime) { Kept() }
        kept[slot: slot].events.append((position, e))
        kept[slot: slot].seen += 1
        kept[slot: slot].sinceTrim += 1
        keptCount += 1
        windows.consume(e)
        if windows.hasResumed {
            for r in windows.takeResumed() { breakDown(r) }
        }
        // Every 4,096 events of the runtime, and at its stop (a runtime that stops early lets go
        // of what no open window needs).
        if kept[slot: slot].sinceTrim >= 4_096 || e.kind == .runtimeStop {
            kept[slot: slot].sinceTrim = 0
            keptCount -= kept[slot: slot].drop(before: windows.earliestOpen(runtime: runtime) ?? position + 1)
        }
        if keptCount > maxKept { letGoOfTheOldest() }
    }

    /// ``missed`` in batches, each for a pass of its own: a batch's runtimes' events add up to at
    /// most `maxKept` (a runtime that has more is a batch alone), so a pass that keeps only the
    /// events of its batch's runtimes (``WindowedBreakdowns``) keeps at most that many. (One pass
    /// for them all kept every missed request's window at once: 1.7 GB at 10M events in 78,126
    /// runtimes, half of them running at once.) Runtimes in key order; one batch when they fit.
    package var missedBatches: [[RequestWindows.Request]] {
        var byRuntime: [RuntimeKey: [RequestWindows.Request]] = [:]
        for r in missed { byRuntime[r.runtime, default: []].append(r) }
        var batches: [[RequestWindows.Request]] = []
        var batch: [RequestWindows.Request] = []
        var events = 0
        for runtime in byRuntime.keys.sorted() {
            let seen = kept.state(runtime)?.seen ?? 0
            if !batch.isEmpty && events + seen > maxKept {
                batches.append(batch)
                batch = []
                events = 0
            }
            batch += byRuntime[runtime]!
            events += seen
        }
        if !batch.isEmpty { batches.append(batch) }
        // In resume order within each batch, as ``missed``.
        return batches.map { b in b.sorted { $0.last < $1.last } }
    }

    /// Hands over the breakdowns found so far.
    package mutating func take() -> [LatencyBreakdown] {
        defer {
            found.removeAll(keepingCapacity: true)
            windowsFound.removeAll()
        }
        return found
    }

    /// Hands over the breakdowns found so far with their windows' indexes (`keepsWindows`).
    package mutating func takeWithWindows() -> [(breakdown: LatencyBreakdown, window: TraceIndex)] {
        defer {
            found.removeAll(keepingCapacity: true)
            windowsFound.removeAll()
        }
        return Array(zip(found, windowsFound))
    }

    private mutating func breakDown(_ r: RequestWindows.Request) {
        guard let slot = kept.slot(r.runtime) else { return }
        let events = kept[slot: slot]
        guard events.count > 0, events.events[events.head].position <= r.first else {
            if missed.count < Self.maxMissed { missed.append(r) } else { missedOverflow = true }
            return
        }
        // Positions increase: the window's first event by bisection.
        var low = events.head
        var high = events.events.count
        while low < high {
            let mid = (low + high) / 2
            if events.events[mid].position < r.first { low = mid + 1 } else { high = mid }
        }
        let index = TraceIndex(events.events[low...].map(\.event))
        if let b = index.latencyBreakdown(runtime: r.runtime, dispatch: r.dispatch) {
            found.append(b)
            if keepsWindows { windowsFound.append(index) }
        }
    }

    /// Lets go of the oldest events of the runtimes keeping most until at most 7/8 of `maxKept`
    /// are kept: a quarter of the largest at a time, the largest found again after each. All at
    /// once, so it runs once every `maxKept / 8` events or more: finding the largest on every
    /// event past the bound, over every runtime, was most of an export's CPU with thousands of
    /// runtimes (7,813: 24 s of 1M events' 25).
    private mutating func letGoOfTheOldest() {
        // A max-heap of (count, slot), the largest first; of equals, the earlier runtime.
        var heap = (0..<kept.count).map { (count: kept[slot: $0].count, slot: $0) }
        let before = { (a: (count: Int, slot: Int), b: (count: Int, slot: Int)) in
            a.count != b.count ? a.count > b.count : a.slot < b.slot
        }
        func siftDown(_ start: Int) {
            var i = start
            while true {
                let l = 2 * i + 1
                let r = l + 1
                var best = i
                if l < heap.count && before(heap[l], heap[best]) { best = l }
                if r < heap.count && before(heap[r], heap[best]) { best = r }
                if best == i { return }
                heap.swapAt(i, best)
                i = best
            }
        }
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
        let target = maxKept - maxKept / 8
        while keptCount > target, let top = heap.first, top.count > 0 {
            let k = kept[slot: top.slot]
            let cut = k.events[min(k.events.count - 1, k.head + max(1, k.count / 4))].position
            keptCount -= kept[slot: top.slot].drop(before: cut)
            kept[slot: top.slot].shrink()
            heap[0].count = kept[slot: top.slot].count
            siftDown(0)
        }
    }
}
