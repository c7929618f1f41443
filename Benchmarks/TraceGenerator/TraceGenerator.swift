import TransduceTrace

/// Realistic traces of any size without running them: one runtime's recorded run (the demo
/// workload's: every dispatch style, a `switchToLatest` replacement, a `shareable` join, a
/// `uniqueRequest` cancel, contention on an async action, a dropped event), repeated by many
/// runtimes in several processes, each round with its ids and times moved on, all merged in time
/// order as a recorder would write them. The benchmark records its template afresh; the tests
/// take the demo fixture's, so that a size's trace is the same every time.
///
/// So every view sees what a real trace has, at the scale of a day's recording, in the time it
/// takes to encode it; `trace-view check` finds it clean (ids stay unique per runtime, and each
/// round is one whole run of the scenes).
package struct TraceGenerator {
    /// The events between the runtime's start and its stop, in recording order.
    let body: [TraceEvent]
    /// The `runtimeStart` event.
    let start: TraceEvent
    /// The stop and what came after it (the `post` after `cancel()`).
    let epilogue: [TraceEvent]
    /// The body's earliest time (not always its first event's: the runtime stamps a few out of
    /// order).
    let origin: UInt64
    /// One round's time span, a gap included (ns).
    let span: UInt64
    /// The highest dispatch, cycle and task id of one run (round ids are moved on by these).
    let maxDispatch: UInt64, maxCycle: UInt64, maxTask: UInt64

    /// The generator of `events`' run: its `runtimeStart`, what follows until its `runtimeStop`,
    /// and the stop and what comes after it.
    package init(template events: [TraceEvent]) throws {
        guard let first = events.firstIndex(where: { $0.kind == .runtimeStart }),
            let stop = events.lastIndex(where: { $0.kind == .runtimeStop }), first < stop
        else { throw Failure("the template has no whole run") }
        body = Array(events[(first + 1)..<stop])
        start = events[first]
        epilogue = Array(events[stop...])
        let times = body.map(\.time)
        origin = times.min() ?? 0
        span = (times.max() ?? 0) - (times.min() ?? 0) + 1_000
        let all = events[(first + 1)...]
        maxDispatch = all.map(\.dispatch).max() ?? 0
        maxCycle = all.map(\.cycle).max() ?? 0
        maxTask = all.map { max($0.task, $0.otherTask) }.max() ?? 0
    }

    package struct Failure: Error, CustomStringConvertible {
        package var description: String
        init(_ description: String) { self.description = description }
    }

    /// One runtime's events, round after round, as a stream.
    private struct Stream {
        let process: UInt32
        let runtime: UInt64
        let offset: UInt64
        let rounds: Int
        /// The dispatch (of the template) whose first round's resume is held back to the end of
        /// the runtime's rounds, when the trace has long request windows.
        var holds: UInt64?
        var held: TraceEvent?
        var round = -1
        var position = 0
        var ended = false

        /// The next event, or nil when the runtime's run is written.
        mutating func next(_ g: TraceGenerator) -> TraceEvent? {
            let origin = g.origin
            var event: TraceEvent
            var shift: UInt64 = 0
            if round < 0 {
                round = 0
                event = g.start
                event.time = offset
                return placed(event)
            } else if round < rounds {
                event = g.body[position]
                shift = UInt64(round)
                if round == 0, let holds, event.kind == .requestResume, event.dispatch == holds {
                    // Resumed after the last round instead: a window over the runtime's whole run.
                    held = placed(event)
                    position += 1
                    if position == g.body.count {
                        position = 0
                        round += 1
                    }
                    return next(g)
                }
                // Each round runs at its own pace (a quarter to twice the recorded one), so
                // latencies vary as a real trace's do rather than repeat exactly.
                let pace = Self.pace(round: round, runtime: runtime &+ UInt64(process) << 32)
                event.time = offset + UInt64(round) * g.span * 2 + (event.time &- origin) * pace / 64 + 1_000
                event.nanos = event.nanos * pace / 64
                position += 1
                if position == g.body.count {
                    position = 0
                    round += 1
                }
            } else if var resume = held {
                held = nil
                resume.time = offset + UInt64(rounds) * g.span * 2 + 999
                return resume
            } else if position < g.epilogue.count {
                event = g.epilogue[position]
                event.time = offset + UInt64(rounds) * g.span * 2 + (event.time &- g.epilogue[0].time) + 1_000
                shift = UInt64(rounds)
                position += 1
            } else {
                return nil
            }
            if event.dispatch != 0 { event.dispatch += shift * g.maxDispatch }
            if event.cycle != 0 { event.cycle += shift * g.maxCycle }
            if event.task != 0 { event.task += shift * g.maxTask }
            if event.otherTask != 0 { event.otherTask += shift * g.maxTask }
            return placed(event)
        }

        /// A pace in 64ths (16…128) for a round of a runtime: a fixed hash, so a size's trace is
        /// the same every time.
        static func pace(round: Int, runtime: UInt64) -> UInt64 {
            var x = UInt64(round) &* 0x9E37_79B9_7F4A_7C15 ^ runtime &* 0xBF58_476D_1CE4_E5B9
            x ^= x >> 31
            x = x &* 0x94D0_49BB_1331_11EB
            x ^= x >> 29
            return 16 + x % 113
        }

        private func placed(_ e: TraceEvent) -> TraceEvent {
            var e = e
            e.runtime = runtime
            e.process = process
            e.thread = e.thread &+ process &* 100
            return e
        }
    }

    /// Writes a trace of about `events` events (whole rounds: never fewer, at most one round of
    /// every runtime more) from `processes` processes of `runtimes` runtimes each to `path`, in
    /// the binary format. Memory: one round of the template and one chunk.
    ///
    /// Returns how many events it wrote and a request in the middle of every runtime's run (the
    /// demo's chart request, `request(load)`, of the middle round), for views of one request.
    ///
    /// With `longWindows`, each runtime's first `request(load)` is resumed only after its last
    /// round: the long-request-windows shape, where a request's window (what its breakdown reads)
    /// spans the runtime's whole run.
    @discardableResult
    package func write(
        events: Int, processes: Int = 2, runtimes: Int = 8, longWindows: Bool = false, to path: String
    ) throws -> (events: Int, request: UInt64) {
        let count = processes * runtimes
        let perRuntime = max(1, (events - count * (1 + epilogue.count) + count * body.count - 1) / (count * body.count))
        let chart = body.first { $0.kind == .dispatch && $0.label == "load" }?.dispatch ?? 1
        var streams = (0..<count).map { j in
            Stream(
                process: UInt32(40_000 + j / runtimes), runtime: UInt64(j % runtimes + 1),
                offset: 1_000_000_000 + UInt64(j) * span * 2 / UInt64(count), rounds: perRuntime,
                holds: longWindows ? chart : nil)
        }
        var heads: [TraceEvent?] = streams.indices.map { streams[$0].next(self) }
        var hosts: [UInt32: String] = [:]
        for s in streams { hosts[s.process] = "generated" }
        var written = 0
        // The earliest head next (the lowest stream of equal times): each runtime's events keep
        // their order, the runtimes interleave in time as a recorder's lanes merge. A heap of
        // the heads, so a hundred thousand runtimes cost log n an event, not n.
        var heap = HeadHeap()
        for (i, head) in heads.enumerated() { if let head { heap.push(time: head.time, stream: i) } }
        try TraceFileWriter.write(to: path) { sink in
            var encoder = TraceFileEncoder(hosts: hosts)
            while let best = heap.pop() {
                encoder.append(heads[best]!, into: sink)
                written += 1
                heads[best] = streams[best].next(self)
                if let head = heads[best] { heap.push(time: head.time, stream: best) }
            }
            var counts = TraceCounts()
            counts.events = UInt64(written)
            encoder.finish(counts: counts, into: sink)
        }
        return (written, chart + UInt64(perRuntime / 2) * maxDispatch)
    }

    /// A binary min-heap of the streams' heads by (time, stream): the same order as a scan for
    /// the earliest head that keeps the first of equals.
    private struct HeadHeap {
        private var items: [(time: UInt64, stream: Int)] = []

        private static func before(_ a: (time: UInt64, stream: Int), _ b: (time: UInt64, stream: Int)) -> Bool {
            (a.time, a.stream) < (b.time, b.stream)
        }

        mutating func push(time: UInt64, stream: Int) {
            items.append((time, stream))
            var i = items.count - 1
            while i > 0 {
                let parent = (i - 1) / 2
                guard Self.before(items[i], items[parent]) else { break }
                items.swapAt(i, parent)
                i = parent
            }
        }

        /// The stream of the earliest head, taken off the heap.
        mutating func pop() -> Int? {
            guard let top = items.first else { return nil }
            let last = items.removeLast()
            if !items.isEmpty {
                items[0] = last
                var i = 0
                while true {
                    let (l, r) = (2 * i + 1, 2 * i + 2)
                    var least = i
                    if l < items.count, Self.before(items[l], items[least]) { least = l }
                    if r < items.count, Self.before(items[r], items[least]) { least = r }
                    guard least != i else { break }
                    items.swapAt(i, least)
                    i = least
                }
            }
            return top.stream
        }
    }
}
