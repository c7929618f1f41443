import Testing
import TraceGenerator
import TransduceTestSupport

@testable import TransduceTrace

/// The small structures the streaming analyses keep their memory bounded with, against the plain
/// collections they stand for.
@Suite struct StreamingPartsTests {
    @Test func idRangesHoldWhatASetHolds() {
        var numbers = SeededRandom(seed: 7)
        var ranges = IDRanges()
        var set = Set<UInt64>()
        // Mostly ascending ids with stragglers, as objects end in a trace.
        for i in 0..<20_000 as Range<UInt64> {
            let id = numbers.next(below: 4) == 0 ? numbers.next(below: i + 1) : i
            ranges.insert(id)
            set.insert(id)
        }
        for id in 0..<20_100 as Range<UInt64> { #expect(ranges.contains(id) == set.contains(id), "id \(id)") }
        // Runs of consecutive ids are kept as one range each.
        let runs = (0..<20_100 as Range<UInt64>).filter { set.contains($0) && !set.contains($0 &- 1) }.count
        #expect(ranges.rangeCount == runs)
    }

    /// One run is held inline; a gap makes two, and filling it makes one again.
    @Test func idRangesGoFromOneRunToManyAndBack() {
        var ranges = IDRanges()
        #expect(ranges.rangeCount == 0 && !ranges.contains(0))
        for id: UInt64 in [5, 6, 4] { ranges.insert(id) }
        #expect(ranges.rangeCount == 1 && (4...6).allSatisfy(ranges.contains) && !ranges.contains(3) && !ranges.contains(7))
        ranges.insert(8)
        #expect(ranges.rangeCount == 2 && ranges.contains(8) && !ranges.contains(7))
        ranges.insert(7)
        #expect(ranges.rangeCount == 1 && (4...8).allSatisfy(ranges.contains))
        ranges.insert(2)
        ranges.insert(UInt64.max)
        #expect(ranges.rangeCount == 3 && ranges.contains(2) && !ranges.contains(3) && ranges.contains(.max))
    }

    /// Frozen into one table, each runtime's ranges answer as its own set does; a runtime the
    /// table lacks holds nothing.
    @Test func anIDRangeTableHoldsWhatEachRuntimesSetHolds() {
        var numbers = SeededRandom(seed: 11)
        var sets: [RuntimeKey: IDRanges] = [:]
        var oracle: [RuntimeKey: Set<UInt64>] = [:]
        // Runtimes with no range, one, and many; keys not in insertion order.
        for r in [9, 2, 40, 7, 1_000] as [UInt64] {
            let key = RuntimeKey(rawValue: r)
            sets[key] = IDRanges()
            oracle[key] = []
            for i in 0..<(r == 40 ? 0 : r * 20) {
                let id = numbers.next(below: 3) == 0 ? numbers.next(below: i + 1) : i
                sets[key]!.insert(id)
                oracle[key]!.insert(id)
            }
        }
        let table = IDRangeTable(sets)
        for (key, ids) in oracle {
            for id in 0..<20_100 as Range<UInt64> {
                #expect(table.contains(id, in: key) == ids.contains(id), "runtime \(key), id \(id)")
            }
        }
        #expect(!table.contains(0, in: RuntimeKey(rawValue: 3)))
        #expect(!table.contains(0, in: RuntimeKey(rawValue: 5_000)))
        #expect(!IDRangeTable([:]).contains(0, in: RuntimeKey(rawValue: 1)))
    }

    /// A small table answers as a dictionary does, holding few entries in an array and many in a
    /// dictionary, and back to few when emptied.
    @Test func aSmallTableHoldsWhatADictionaryHolds() {
        var numbers = SeededRandom(seed: 5)
        var table = SmallTable<UInt64, Int>()
        var oracle: [UInt64: Int] = [:]
        for step in 0..<40_000 {
            // Phases of growth past the array's bound and of shrinking back to nothing.
            let growing = (step / 2_000) % 2 == 0
            let key = numbers.next(below: growing ? 40 : 8)
            if growing || numbers.next(below: 4) == 0 {
                table[key] = step
                oracle[key] = step
            } else {
                #expect(table.removeValue(forKey: key) == oracle.removeValue(forKey: key))
                if numbers.next(below: 2) == 0, let any = oracle.keys.first {
                    table[any] = nil
                    oracle[any] = nil
                }
            }
            #expect(table.count == oracle.count && table.isEmpty == oracle.isEmpty)
            #expect(table[key] == oracle[key])
        }
        #expect(Dictionary(uniqueKeysWithValues: table.entries.map { ($0.key, $0.value) }) == oracle)
        var seen: [UInt64: Int] = [:]
        table.forEach { seen[$0] = $1 }
        #expect(seen == oracle && table.values.sorted() == oracle.values.sorted())
        // Few: in the order they came.
        var few = SmallTable<UInt64, String>()
        for k: UInt64 in [9, 3, 7] { few[k] = "\(k)" }
        few[3] = nil
        few[1] = "1"
        #expect(few.entries.map(\.key) == [9, 7, 1])
    }

    /// Runtime slots through growth and removals (which move later entries back across the gap,
    /// around the table's end too): every key's slot is the dictionary's after every step.
    @Test func runtimeSlotsHoldWhatADictionaryHolds() {
        var numbers = SeededRandom(seed: 11)
        var slots = RuntimeSlots()
        var oracle: [RuntimeKey: Int] = [:]
        // Few keys (crowded, so searches run on and wrap) and keys of many processes.
        let spaces: [(UInt64) -> RuntimeKey] = [
            { RuntimeKey(rawValue: $0) }, { RuntimeKey(process: UInt32($0 % 977), runtime: $0 / 977 + 1) },
        ]
        for (round, key) in spaces.enumerated() {
            for step in 0..<30_000 {
                let growing = (step / 3_000) % 2 == 0
                let k = key(numbers.next(below: round == 0 ? 48 : 5_000))
                if growing || numbers.next(below: 3) == 0 {
                    slots[k] = step
                    oracle[k] = step
                } else {
                    slots[k] = nil
                    oracle[k] = nil
                }
                #expect(slots.count == oracle.count)
                if step % 97 == 0 {
                    for k in oracle.keys { #expect(slots[k] == oracle[k]) }
                }
                #expect(slots[k] == oracle[k])
                #expect(slots[key(numbers.next(below: 100_000) + 100_000)] == nil)
            }
            for k in oracle.keys { slots[k] = nil }
            oracle = [:]
            #expect(slots.count == 0)
        }
    }

    /// A released slot goes to the next runtime that needs one; the released runtime is named by
    /// no key, and an event of it later makes it a new state.
    @Test func aReleasedSlotIsGivenToTheNextRuntime() {
        var table = PerRuntime<[Int]>()
        let one = table.slot(1) { [1] }
        _ = table.slot(2) { [2] }
        table.release(one, leaving: [])
        #expect(table.count == 1 && table.keys == [2] && table.slot(1) == nil && table.state(1) == nil)
        let three = table.slot(3) { [3] }
        #expect(three == one && table.state(3) == [3] && table.keys == [3, 2])
        let again = table.slot(1) { [9] }
        #expect(again != one && table.state(1) == [9] && table.count == 3)
    }

    /// A runtime keeps the cycles that left which its own dispatches reach back to (timed before
    /// they left, recorded after): eight while none reaches back, twice the furthest reach once
    /// one does, so a later dispatch reaching further still finds its holder.
    @Test func aRuntimeKeepsAsManyCyclesThatLeftAsItsDispatchesReachBack() {
        var gate = RequestWindows.Runtime()
        var position = 0
        var time: UInt64 = 1_000
        // Each cycle's dispatch position and the time it left, by id.
        var dispatched: [UInt64: Int] = [:]
        var left: [UInt64: UInt64] = [:]
        func follow(_ kind: TraceEvent.Kind, _ id: UInt64, at t: UInt64) {
            var e = TraceEvent(kind: kind, time: t, thread: 1, runtime: 1)
            e.dispatch = id
            e.cycle = id
            if kind == .dispatch { dispatched[id] = position }
            if kind == .cycleLeave { left[id] = t }
            gate.follow(e, at: position)
            position += 1
        }
        func cycles(_ ids: ClosedRange<UInt64>) {
            for id in ids {
                for kind in [TraceEvent.Kind.dispatch, .cycleEnter, .cycleLeave] {
                    follow(kind, id, at: time)
                    time += 10
                }
            }
        }
        // Where the window of a dispatch timed just before cycle `k` left, recorded now, starts.
        func start(before k: UInt64) -> Int { gate.windowStart(dispatchedAt: left[k]! - 1, position: position) }
        cycles(1...20)
        #expect(gate.left.count == 8, "no dispatch reached back: eight kept")
        #expect(start(before: 13) == dispatched[13], "eight back: the holder's dispatch")
        #expect(start(before: 12) == dispatched[13], "nine back: as far as the eight kept")
        // A dispatch timed before cycle 16 left, recorded after cycle 20: it reaches back five.
        follow(.dispatch, 100, at: left[16]! - 1)
        follow(.cycleEnter, 100, at: time)
        follow(.cycleLeave, 100, at: time + 10)
        time += 30
        cycles(21...40)
        #expect(gate.left.count == 16)
        #expect(start(before: 29) == dispatched[29], "twelve back: found")
    }

    @Test func topHeapKeepsTheBestInOrder() {
        var numbers = SeededRandom(seed: 11)
        let values = (0..<5_000).map { _ in numbers.next(below: 1_000) }
        for capacity in [1, 7, 100, 10_000] {
            // Ranked by value, ties by the earlier: the values' places show which of equals stay.
            var heap = TopHeap<Int>(capacity: capacity)
            for (at, v) in values.enumerated() { heap.insert(at, key: TopHeap<Int>.key(descending: v, ascending: UInt64(at))) }
            let expected = values.indices.sorted { (values[$0], $1) > (values[$1], $0) }.prefix(capacity)
            #expect(heap.sortedBest() == Array(expected))
            #expect(heap.sortedBest(limit: 5) { -$0 } == expected.prefix(5).map { -$0 })
        }
    }

    @Test func recentlyDoneHandsBackTheOldest() {
        var recent = RecentlyDone<Int, String>(capacity: 3)
        #expect(recent.insert(1, "a") == nil)
        #expect(recent.insert(2, "b") == nil)
        #expect(recent.insert(3, "c") == nil)
        #expect(recent.remove(2) == "b")
        let pushed = recent.insert(4, "d")
        #expect(pushed?.0 == 1 && pushed?.1 == "a")
        // 2 was taken out: its turn hands back nothing.
        #expect(recent.insert(5, "e") == nil)
        #expect(recent.remove(3) == "c" && recent.remove(4) == "d" && recent.remove(5) == "e")
    }

    /// `ChunkedArray` holds what an array holds, in order, across its chunks' edges.
    @Test func aChunkedArrayIsAnArray() {
        let size = ChunkedArray<Int>.chunkSize
        for n in [0, 1, size - 1, size, size + 1, 3 * size + 7] {
            var chunked = ChunkedArray<Int>()
            for i in 0..<n { chunked.append(i * 7 + 3) }
            #expect(chunked.count == n && chunked.isEmpty == (n == 0))
            #expect(Array(chunked) == (0..<n).map { $0 * 7 + 3 })
            if n > 0 { #expect(chunked[n - 1] == (n - 1) * 7 + 3 && chunked.last == chunked[n - 1]) }
        }
    }

    /// A key whose hash puts many keys on a few slots (`classes` of them), so that long probes and
    /// backward shifts are taken; with many classes, clusters wrap around the index's end.
    private struct Clustered: Hashable, Sendable {
        var id: Int
        var classes: Int
        func hash(into hasher: inout Hasher) { hasher.combine(id % classes) }
    }

    /// `RecentlyDone` against a model made of a dictionary and a ring of entry numbers: the same
    /// values found, the same entries pushed out, in the same order, over random inserts (a key
    /// put in again), removals and lookups, with keys that share slots.
    @Test(arguments: [(1, 5), (3, 5), (64, 5), (64, 1 << 20), (1_000, 1 << 20)])
    func recentlyDoneIsItsModel(_ capacity: Int, _ classes: Int) {
        struct Model {
            let capacity: Int
            var ring: [(key: Clustered, entry: Int)] = []
            var next = 0
            var live: [Clustered: (entry: Int, value: Int)] = [:]
            var entries = 0
            mutating func insert(_ key: Clustered, _ value: Int) -> (Clustered, Int)? {
                live[key] = nil
                entries += 1
                defer { live[key] = (entries, value) }
                guard ring.count == capacity else {
                    ring.append((key, entries))
                    return nil
                }
                let oldest = ring[next]
                ring[next] = (key, entries)
                next = (next + 1) % capacity
                guard let found = live[oldest.key], found.entry == oldest.entry else { return nil }
                live[oldest.key] = nil
                return (oldest.key, found.value)
            }
        }
        var generator = SeededRandom(seed: UInt64(capacity * classes))
        var model = Model(capacity: capacity)
        var recent = RecentlyDone<Clustered, Int>(capacity: capacity, reserving: capacity / 2)
        var pushed = 0
        for step in 0..<20_000 {
            let key = Clustered(id: Int(generator.next() % UInt64(3 * capacity + 2)), classes: classes)
            switch generator.next() % 4 {
            case 0, 1:
                let (a, b) = (recent.insert(key, step), model.insert(key, step))
                #expect(a?.0 == b?.0 && a?.1 == b?.1, "insert \(key.id) at \(step)")
                if a != nil { pushed += 1 }
            case 2:
                #expect(recent.remove(key) == model.live.removeValue(forKey: key)?.value, "remove \(key.id) at \(step)")
            default:
                #expect(recent[key] == model.live[key]?.value, "lookup \(key.id) at \(step)")
            }
        }
        for id in 0..<(3 * capacity + 2) {
            let key = Clustered(id: id, classes: classes)
            #expect(recent[key] == model.live[key]?.value)
        }
        #expect(pushed > 1_000)
    }

    /// `tasks` prints a long table as it goes, laid out by its first rows; a short one exactly as
    /// the report held whole.
    @Test func aLongTaskTableIsPrintedAsItComes() {
        let options = RenderOptions(width: 100, cuts: true)
        func rows(_ n: Int) -> [TaskReport.Row] {
            (1...n).map {
                TaskReport.Row(
                    runtime: RuntimeKey(rawValue: UInt64(1 + $0 % 2)), task: UInt64($0),
                    name: $0 == n - 3 ? String(repeating: "long", count: 30) : "load",
                    policy: "switchToLatest", spawnedBy: "refresh", start: UInt64($0) * 1_000, ran: 500, outcome: "settle",
                    replacedBy: 0, joinedBy: [])
            }
        }
        let short = rows(100)
        var stream = TaskReportStream(options: options)
        var lines: [String] = []
        for batch in stride(from: 0, to: 90, by: 30) { lines += stream.add(Array(short[batch..<batch + 30])) }
        #expect(lines.isEmpty)
        lines += stream.finish(Array(short[90...]), warnings: [])
        #expect(lines == TaskReport(rows: short, warnings: []).render(options: options))

        let long = rows((TaskReportStream.layoutRows / 100 + 10) * 100)
        stream = TaskReportStream(options: options)
        lines = []
        for batch in stride(from: 0, to: long.count - 100, by: 100) { lines += stream.add(Array(long[batch..<batch + 100])) }
        lines += stream.finish(
            Array(long[(long.count - 100)...]),
            warnings: [AnalysisWarning(.neverSettled(.init(runtime: 1, task: 7, name: "x", spawnedBy: "load#1", running: 0)))])
        #expect(lines.first?.contains("Tasks") == true)
        #expect(lines.count == 2 + long.count + 3, "\(lines.prefix(4)) \(lines.suffix(6))")
        // Every row, in order, in the widths of the first rows: a later long name is cut to them.
        let rowLines = lines.dropFirst(2).prefix(long.count)
        #expect(zip(rowLines, long).allSatisfy { $1.name != "load" || $0.contains("load #\($1.task) ") })
        #expect(rowLines.contains { $0.contains("longlong") && $0.contains("…") })
        #expect(rowLines.allSatisfy { $0.displayColumns <= 100 })
        #expect(lines.last?.contains("never settled: x") == true)
    }

    /// A request that joins a shared task which had made a request of its own before the join:
    /// that request belongs to the lifecycle though it came first, and a second pass finds it.
    @Test func aJoinedTasksEarlierRequestsAreFoundByAnotherPass() throws {
        var events: [TraceEvent] = []
        var t: UInt64 = 1_000
        func add(_ kind: TraceEvent.Kind, _ set: (inout TraceEvent) -> Void) {
            var e = TraceEvent(kind: kind, time: t, thread: 1, runtime: 1)
            set(&e)
            events.append(e)
            t += 10
        }
        func style(_ name: String) -> UInt8 { TraceNames.code(kind: .dispatch, name: name)! }
        // post #1 starts shared task #1 ("fetch").
        add(.dispatch) {
            $0.dispatch = 1; $0.code = style("post"); $0.label = "start"
        }
        add(.cycleEnter) {
            $0.dispatch = 1; $0.cycle = 1
        }
        add(.transduce) {
            $0.cycle = 1; $0.label = "start"
        }
        add(.taskSpawn) {
            $0.cycle = 1; $0.task = 1; $0.label = "fetch"; $0.code = TraceNames.code(kind: .taskSpawn, name: "shareable")!
        }
        add(.cycleLeave) { $0.cycle = 1 }
        // The task requests #2, whose cycle starts task #2 ("inner").
        add(.dispatch) {
            $0.dispatch = 2; $0.code = style("request"); $0.label = "lookup"; $0.otherTask = 1
        }
        add(.cycleEnter) {
            $0.dispatch = 2; $0.cycle = 2
        }
        add(.transduce) {
            $0.cycle = 2; $0.label = "lookup"
        }
        add(.taskSpawn) {
            $0.cycle = 2; $0.task = 2; $0.label = "inner"
        }
        add(.cycleLeave) { $0.cycle = 2 }
        // request #3 joins task #1.
        add(.dispatch) {
            $0.dispatch = 3; $0.code = style("request"); $0.label = "fetch"
        }
        add(.cycleEnter) {
            $0.dispatch = 3; $0.cycle = 3
        }
        add(.transduce) {
            $0.cycle = 3; $0.label = "fetch"
        }
        add(.taskJoin) {
            $0.dispatch = 3; $0.task = 1
        }
        add(.cycleLeave) { $0.cycle = 3 }
        add(.taskSettle) { $0.task = 2 }
        add(.requestResume) {
            $0.dispatch = 2; $0.task = 2
        }
        add(.taskSettle) { $0.task = 1 }
        add(.requestResume) {
            $0.dispatch = 3; $0.task = 1
        }
        let index = TraceIndex(events)
        let whole = index.requestLifecycle(runtime: 1, dispatch: 3).map { index.events[$0] }
        #expect(whole.contains { $0.kind == .taskSpawn && $0.task == 2 }, "the fixture's lifecycle reaches task #2")
        let found = LifecycleWindow.find(dispatch: 3) { body in events.forEach(body) }
        #expect(found.passes == 2)
        let stretch = try #require(found.stretches[1])
        let alone = TraceIndex(
            events.indices.filter { stretch.contains($0) && events[$0].runtimeKey == 1 }.map { events[$0] })
        #expect(alone.requestLifecycle(runtime: 1, dispatch: 3).map { alone.events[$0] } == whole)
    }

    /// Events of several threads come in record order, not time order: a dispatch's time is read
    /// before its event is recorded, so the cycle that held the gate in its wait may have left
    /// (and been recorded) before it. The window still starts at that cycle, and the breakdown
    /// read from it names the holder as one over the whole trace does.
    @Test func aHolderRecordedBeforeTheDispatchItDelayedIsInItsWindow() throws {
        var events: [TraceEvent] = []
        func add(_ kind: TraceEvent.Kind, at time: UInt64, _ set: (inout TraceEvent) -> Void) {
            var e = TraceEvent(kind: kind, time: time, thread: 1, runtime: 1)
            set(&e)
            events.append(e)
        }
        let request = TraceNames.code(kind: .dispatch, name: "request")!
        add(.dispatch, at: 1_000) {
            $0.dispatch = 1; $0.code = request; $0.label = "a"
        }
        add(.cycleEnter, at: 1_010) {
            $0.dispatch = 1; $0.cycle = 1
        }
        add(.transduce, at: 1_020) {
            $0.cycle = 1; $0.label = "a"
        }
        // Cycle #1 leaves at 1,500; dispatch #2, timed at 1,200, is recorded after it.
        add(.cycleLeave, at: 1_500) { $0.cycle = 1 }
        add(.dispatch, at: 1_200) {
            $0.dispatch = 2; $0.code = request; $0.label = "b"
        }
        add(.requestResume, at: 1_510) { $0.dispatch = 1 }
        add(.cycleEnter, at: 1_520) {
            $0.dispatch = 2; $0.cycle = 2
        }
        add(.transduce, at: 1_530) {
            $0.cycle = 2; $0.label = "b"
        }
        add(.cycleLeave, at: 1_540) { $0.cycle = 2 }
        add(.requestResume, at: 1_550) { $0.dispatch = 2 }
        let whole = try #require(TraceIndex(events).latencyBreakdown(runtime: 1, dispatch: 2))
        #expect(whole.parts.first?.heldBy.map(\.cycle) == [1], "the fixture's wait is held by cycle #1")
        var windows = RequestWindows()
        events.forEach { windows.consume($0) }
        var breakdowns = WindowedBreakdowns(windows.takeAll())
        events.forEach { breakdowns.consume($0) }
        let windowed = try #require(breakdowns.take()[TraceIndex.Key(runtime: 1, id: 2)])
        func parts(_ b: LatencyBreakdown) -> [String] {
            b.parts.map { "\($0.kind) \($0.nanos) held by \($0.heldBy.map { "\($0.cycle) \($0.nanos)" })" }
        }
        #expect(parts(windowed) == parts(whole))
    }

    /// Breakdowns made at each resume from the events still kept are those of the whole trace,
    /// request by request (the oracle: ``TraceIndex`` over every event), on the demo, on two
    /// runtimes, and on the demo as 16 runtimes in 2 processes; with room for only 50 events,
    /// the requests whose windows reached back past what was kept are handed over, and a second
    /// pass (``WindowedBreakdowns``) finds the rest, in one pass or in batches that fit the
    /// bound, each pass ending once its batch is done: nothing is lost.
    @Test(arguments: [500_000, 50])
    func breakdownsAtTheirResumesAreTheWholeTraces(maxKept: Int) throws {
        let demo = try JSONLinesReader(path: fixtures + "/demo.jsonl").readAll().events
        let directory = TemporaryDirectory()
        let file = directory.file("generated.tdtrace")
        try TraceGenerator(template: demo).write(events: 20_000, to: file)
        // And the long-request-windows shape: each runtime's first load resumed after its run.
        let long = directory.file("long.tdtrace")
        try TraceGenerator(template: demo).write(events: 20_000, longWindows: true, to: long)
        let traces = [
            demo, try JSONLinesReader(path: fixtures + "/two-runtimes.jsonl").readAll().events,
            try TraceFileReader(path: file).readAll().events, try TraceFileReader(path: long).readAll().events,
        ]
        func described(_ b: LatencyBreakdown) -> String {
            "\(b.runtime) #\(b.dispatch) \(b.total): "
                + b.parts.map { "\($0.kind) \($0.nanos) \($0.heldBy.map { "\($0.cycle)/\($0.nanos)" })" }.joined(separator: ", ")
        }
        for events in traces {
            let whole = TraceIndex(events).latencyBreakdowns().map(described).sorted()
            #expect(!whole.isEmpty)
            var resumed = ResumeBreakdowns(maxKept: maxKept)
            var found: [String] = []
            for e in events {
                resumed.consume(e)
                found += resumed.take().map(described)
            }
            if maxKept == 50 && events.count > 10_000 {
                #expect(!resumed.missed.isEmpty, "a bound this small misses some of the generated trace's")
            }
            var again = ResumeBreakdowns(missed: resumed.missed)
            var once: [String] = []
            for e in events {
                again.consume(e)
                once += again.take().map(described)
            }
            #expect(again.missed.isEmpty, "a pass of missed requests keeps what their windows read")
            #expect((found + once).sorted() == whole)
            // The same in batches, a pass each, whose runtimes' events fit the bound (or a
            // runtime alone): every missed request in one batch, and the same breakdowns.
            let batches = resumed.missedBatches
            #expect(batches.map(\.count).reduce(0, +) == resumed.missed.count)
            var perRuntime: [RuntimeKey: Int] = [:]
            for e in events { perRuntime[e.runtimeKey, default: 0] += 1 }
            for batch in batches {
                let runtimes = Set(batch.map(\.runtime))
                #expect(runtimes.count == 1 || runtimes.map { perRuntime[$0]! }.reduce(0, +) <= maxKept)
            }
            if maxKept == 50 && events.count > 10_000 { #expect(batches.count > 1) }
            // Each batch's pass may end once it is done (its requests all resumed): it has
            // found what a pass to the end finds. Batches go in the order their runtimes' last
            // requests resumed, so most end early.
            var batched: [String] = []
            for batch in batches {
                var pass = ResumeBreakdowns(missed: batch)
                #expect(!pass.isDone)
                for e in events {
                    pass.consume(e)
                    batched += pass.take().map(described)
                    if pass.isDone { break }
                }
                #expect(pass.isDone, "every missed request resumes in its batch's pass")
            }
            #expect(batched.sorted() == once.sorted())
        }
    }

    /// More runtimes than the bound, each keeping a single event (a trace of a runtime per
    /// connection past 437,500 of them at the default bound): the oldest are let go and the
    /// pass goes on. (It let go of none and never ended.)
    @Test func moreRuntimesThanTheBoundEachKeepingOneEvent() {
        var resumed = ResumeBreakdowns(maxKept: 8)
        for n in 1...100 {
            var e = TraceEvent(kind: .runtimeStart, time: UInt64(n), runtime: UInt64(n))
            e.count = 16
            resumed.consume(e)
        }
        #expect(resumed.peakKept <= 9 && resumed.missed.isEmpty && resumed.found.isEmpty)
    }

    /// Runtimes that come and go (a runtime per connection): the missed requests' batches go in
    /// the order their runtimes' last requests resumed, so the pass of a batch of runtimes that
    /// stopped early ends early, and the breakdowns are still the whole trace's. Four waves of
    /// 16 runtimes, one after the other, with room for only 50 events.
    @Test func batchesOfRuntimesThatStoppedEarlyEndEarly() throws {
        let demo = try JSONLinesReader(path: fixtures + "/demo.jsonl").readAll().events
        let directory = TemporaryDirectory()
        let events = try TraceGenerator(template: demo).waves(
            4, events: 5_000, runtimes: 16, scratch: directory.file("wave.tdtrace"))
        func described(_ b: LatencyBreakdown) -> String {
            "\(b.runtime) #\(b.dispatch) \(b.total): " + b.parts.map { "\($0.kind) \($0.nanos)" }.joined(separator: ", ")
        }
        var resumed = ResumeBreakdowns(maxKept: 50)
        var found: [String] = []
        for e in events {
            resumed.consume(e)
            found += resumed.take().map(described)
        }
        let batches = resumed.missedBatches
        #expect(batches.count >= 4, "a bound this small misses requests of every wave")
        // Every runtime stopped with nothing open: none is held, though each rejected a dispatch
        // after its stop (it was, a state and an event each, until the pass ended).
        #expect(resumed.runtimesHeld == 0)
        var reads: [Int] = []
        for batch in batches {
            var pass = ResumeBreakdowns(missed: batch)
            var read = 0
            for e in events where !pass.isDone {
                pass.consume(e)
                found += pass.take().map(described)
                read += 1
            }
            #expect(pass.isDone)
            reads.append(read)
        }
        #expect(found.sorted() == TraceIndex(events).latencyBreakdowns().map(described).sorted())
        // The first batch's runtimes are the first wave's: its pass ends within that wave.
        #expect(reads.first! <= events.count / 4, "passes read \(reads) of \(events.count) events")
        #expect(reads.reduce(0, +) < batches.count * events.count * 3 / 4, "passes read \(reads)")
    }

    /// The many-runtimes shape: the demo's run by `runtimes` runtimes at once, each in a process
    /// of its own, `events` in all (written and read back, as a recorded trace is).
    static func manyRuntimes(events: Int, runtimes: Int) throws -> [TraceEvent] {
        let demo = try JSONLinesReader(path: fixtures + "/demo.jsonl").readAll().events
        let directory = TemporaryDirectory()
        let file = directory.file("many.tdtrace")
        try TraceGenerator(template: demo).write(events: events, processes: runtimes, runtimes: 1, to: file)
        return try TraceFileReader(path: file).readAll().events
    }

    /// A breakdown as text: its request, total, and each part with the cycles that held it.
    static func described(_ b: LatencyBreakdown) -> String {
        "\(b.runtime) #\(b.dispatch) \(b.total): "
            + b.parts.map { "\($0.kind) \($0.nanos) \($0.heldBy.map(\.cycle))" }.joined(separator: ", ")
    }

    /// A runtime per connection with room for a few of them (the many-runtimes shape: 156
    /// runtimes of 128 events, 2,000 events kept): most requests are missed, and ``MissedPasses``
    /// breaks them down in batches of twice the bound, each pass keeping within the bound, and
    /// then whatever those missed again, in batches that fit it whole. Every breakdown is the
    /// whole trace's, once; it takes half the passes of batches of the bound (11 against 23),
    /// each keeping well within it (each runtime keeps only what its open windows can still
    /// read, not all it saw since its first); and the order is the same every time.
    @Test func missedPassesOfTwiceTheBoundKeepWithinIt() throws {
        let events = try Self.manyRuntimes(events: 20_000, runtimes: 156)
        let described = Self.described
        let bound = 2_000
        func run(spread: Int) -> (found: [String], passes: Int, again: Int, peak: Int) {
            var resumed = ResumeBreakdowns(maxKept: bound)
            var found: [String] = []
            for e in events {
                resumed.consume(e)
                found += resumed.take().map(described)
            }
            #expect(resumed.missed.count > 500, "\(resumed.missed.count) missed")
            var passes = MissedPasses(resumed.takeMissedBatches(spread: spread), maxKept: bound)
            var (count, peak) = (0, 0)
            while let batch = passes.next() {
                var pass = ResumeBreakdowns(missed: batch.keys, maxKept: batch.maxKept)
                for e in events where !pass.isDone {
                    pass.consume(e)
                    found += pass.take().map(described)
                }
                #expect(pass.isDone, "every request of a batch resumes in its pass")
                peak = max(peak, pass.peakKept)
                count += 1
                passes.missedAgain(pass.takeMissedBatches())
            }
            return (found, count, passes.passes.again, peak)
        }
        let whole = TraceIndex(events).latencyBreakdowns().map(described).sorted()
        let one = run(spread: 1)
        let two = run(spread: MissedPasses.spread)
        #expect(one.found.sorted() == whole && two.found.sorted() == whole)
        #expect(one.again == 0, "batches of the bound fit it")
        // A runtime lets go of what its open windows can no longer read at each of its resumes
        // (it kept every event from its first window to its stop: 2,001, the bound, and cut).
        #expect(two.peak < bound * 3 / 4, "a pass of twice the bound kept \(two.peak)")
        #expect(two.passes * 3 < one.passes * 2, "\(two.passes) passes against \(one.passes)")
        #expect(run(spread: MissedPasses.spread).found == two.found)
        // A bound too small for two batches of twice it: passes miss some again, and the second
        // round breaks them down.
        var resumed = ResumeBreakdowns(maxKept: 100)
        var found: [String] = []
        for e in events {
            resumed.consume(e)
            found += resumed.take().map(described)
        }
        var passes = MissedPasses(resumed.takeMissedBatches(spread: 8), maxKept: 100)
        while let batch = passes.next() {
            var pass = ResumeBreakdowns(missed: batch.keys, maxKept: batch.maxKept)
            for e in events where !pass.isDone {
                pass.consume(e)
                found += pass.take().map(described)
            }
            #expect(batch.maxKept == .max ? pass.missed.isEmpty : pass.peakKept <= 101)
            passes.missedAgain(pass.takeMissedBatches())
        }
        #expect(passes.passes.again > 0, "batches of eight times the bound miss some again")
        #expect(found.sorted() == whole)
    }

    /// Runtime groups split runtimes between passes: each runtime in exactly one group of a
    /// count, the same in every run (a fixed hash), and evenly enough that a group of a trace's
    /// runtimes holds about its share: keys as recorders make them (a process's runtimes numbered
    /// from 1, a few processes), and the counts groups are made for.
    @Test func runtimeGroupsSplitRuntimesEvenly() {
        let keys = (0..<4).flatMap { process in
            (1...25_000).map { RuntimeKey(rawValue: UInt64(1_000 + process * 7) << 32 | UInt64($0)) }
        }
        #expect(RuntimeGroup.count(for: 0, most: 50_000) == 1)
        #expect(RuntimeGroup.count(for: 50_000, most: 50_000) == 1)
        #expect(RuntimeGroup.count(for: 50_001, most: 50_000) == 2)
        #expect(RuntimeGroup.count(for: 781_250, most: 50_000) == 16)
        // A runtime an event does not make a pass an event.
        #expect(RuntimeGroup.count(for: 100_000_000, most: 50_000) == RuntimeGroup.maxCount)
        #expect(RuntimeGroup.count(for: 5, most: 0) == 5)
        for count in [1, 2, 3, 4, 16, 17] {
            var sizes = Array(repeating: 0, count: count)
            var inOneGroup = true
            for key in keys {
                var first: Int?
                for group in 0..<count where RuntimeGroup(group, of: count).contains(key) {
                    inOneGroup = inOneGroup && first == nil
                    first = first ?? group
                }
                guard let first else {
                    inOneGroup = false
                    continue
                }
                sizes[first] += 1
            }
            #expect(inOneGroup, "\(count) groups: a key in none or in two")
            let share = keys.count / count
            #expect(sizes.allSatisfy { abs($0 - share) * 20 < share }, "\(count) groups: \(sizes)")
        }
        // Fixed: the same key is in the same group in every process (an export resumed with
        // `--from` goes through the requests in the same order).
        #expect(
            RuntimeGroup(0, of: 2).contains(RuntimeKey(rawValue: 1)) == !RuntimeGroup(1, of: 2).contains(RuntimeKey(rawValue: 1)))
        #expect(
            keys.prefix(8).map { key in (0..<16).first { RuntimeGroup($0, of: 16).contains(key) }! } == Self.groupsOfFirstKeys)
    }

    /// The groups of `runtimeGroupsSplitRuntimesEvenly`'s first eight keys among 16, as the
    /// hash puts them: a change of hash changes the order of a resumed export.
    static let groupsOfFirstKeys = [1, 10, 4, 13, 7, 0, 10, 3]

    /// The plan of passes (``BreakdownPasses``) on the many-runtimes shape (80 runtimes of 128
    /// events, all open at once), with room for 200 events and 20 named requests a pass and 20
    /// runtimes followed at once: groups of runtimes, each in rounds, each round with passes of
    /// its missed requests. Every breakdown is the whole trace's, once, in the same order every
    /// run; and a pass of a group holds the states of fewer runtimes than a pass of them all.
    @Test func thePlanOfPassesBreaksEveryRequestDownOnce() throws {
        let events = try Self.manyRuntimes(events: 10_000, runtimes: 80)
        var census = RuntimesWaiting()
        for e in events { census.consume(e) }
        #expect(census.peak > 40, "\(census.peak) runtimes waiting at once")
        func run(maxRuntimes: Int) -> (found: [String], groups: Int, rounds: Int, passes: Int, held: Int) {
            var plan = BreakdownPasses(peakRuntimes: census.peak, maxRuntimes: maxRuntimes, maxKept: 200, maxMissed: 20)
            var found: [String] = []
            var held = 0
            while var pass = plan.next() {
                for e in events where !pass.isDone {
                    pass.consume(e)
                    held = max(held, pass.runtimesHeld)
                    found += pass.take().map(Self.described)
                }
                plan.finished(&pass)
            }
            return (found, plan.groups, plan.rounds, plan.passes, held)
        }
        let whole = TraceIndex(events).latencyBreakdowns().map(Self.described).sorted()
        let all = run(maxRuntimes: 1_000)
        let grouped = run(maxRuntimes: 20)
        #expect(all.groups == 1 && grouped.groups == RuntimeGroup.count(for: census.peak, most: 20) && grouped.groups >= 3)
        #expect(
            grouped.rounds > grouped.groups && grouped.passes > grouped.rounds,
            "\(grouped.rounds) rounds, \(grouped.passes) passes")
        // (Compared apart: a failed `#expect` of two arrays this long diffs them for minutes.)
        let (allWhole, groupedWhole) = (all.found.sorted() == whole, grouped.found.sorted() == whole)
        #expect(
            whole.count > 500 && allWhole && groupedWhole,
            "\(whole.count) requests, \(all.found.count) and \(grouped.found.count) found")
        #expect(grouped.held * 2 < all.held, "a group's pass held \(grouped.held) runtimes, all runtimes' \(all.held)")
        let again = run(maxRuntimes: 20).found == grouped.found
        #expect(again, "the same order every run")
    }

    /// A pass that misses more requests than it may name (`maxMissed`) stops at the first it
    /// could not, and a pass from there (``ResumeBreakdowns/resumesCovered``) goes on: on the
    /// many-runtimes shape, 100 named a pass against more than 500 missed, it takes rounds, each
    /// covering later requests than the last, and every breakdown is the whole trace's, once.
    /// (Past a million missed requests, the rest were left out, warned but lost.)
    @Test func aPassThatMissesMoreThanItNamesGoesOnInRounds() throws {
        let events = try Self.manyRuntimes(events: 20_000, runtimes: 156)
        let described = Self.described
        let (bound, most) = (2_000, 100)
        var found: [String] = []
        var covered: [Int] = []
        var from: Int? = 0
        while let first = from {
            var resumed = ResumeBreakdowns(maxKept: bound, maxMissed: most, resumesFrom: first)
            for e in events where !resumed.isDone {
                resumed.consume(e)
                found += resumed.take().map(described)
            }
            #expect(resumed.missed.count <= most)
            from = resumed.resumesCovered
            if let from {
                #expect(resumed.missed.count == most, "a round ends when it is full")
                #expect(from > first, "each round covers requests")
                covered.append(from)
            }
            var passes = MissedPasses(resumed.takeMissedBatches(spread: MissedPasses.spread), maxKept: bound)
            while let batch = passes.next() {
                var pass = ResumeBreakdowns(missed: batch.keys, maxKept: batch.maxKept)
                for e in events where !pass.isDone {
                    pass.consume(e)
                    found += pass.take().map(described)
                }
                passes.missedAgain(pass.takeMissedBatches())
            }
        }
        #expect(covered.count > 500 / most, "\(covered.count) rounds")
        let whole = TraceIndex(events).latencyBreakdowns().map(described).sorted()
        #expect(found.count == whole.count)
        #expect(found.sorted() == whole)
    }

    /// A request resumed only after its runtime's whole run keeps what its breakdown reads — the
    /// stretches where its path waited for the gate and ran its cycles, its tasks' ends, its
    /// resume — not the run: on the long-request-windows shape of 2 runtimes and 100,000 events,
    /// the pass keeps at most a few thousand events at once (every event of the two runs, before:
    /// about 100,000), and every breakdown is the whole trace's, labels, holders, actions and
    /// off-path tasks included; so does the one pass that breaks each down at its resume.
    @Test func aLongWindowKeepsWhatItsBreakdownReads() throws {
        let demo = try JSONLinesReader(path: fixtures + "/demo.jsonl").readAll().events
        let directory = TemporaryDirectory()
        let file = directory.file("long.tdtrace")
        let written = try TraceGenerator(template: demo).write(
            events: 100_000, processes: 1, runtimes: 2, longWindows: true, to: file)
        let events = try TraceFileReader(path: file).readAll().events
        func described(_ b: LatencyBreakdown) -> String {
            let parts = b.parts.map { p in
                "\(p.kind) \(p.start) \(p.nanos) c\(p.cycle) t\(p.task) d\(p.dispatch) \(p.label) ["
                    + p.heldBy.map { "\($0.cycle) \($0.label) \($0.nanos) \($0.actionNanos) \($0.asyncActionNanos)" }
                    .joined(separator: "; ") + "]"
            }
            return "\(b.runtime) #\(b.dispatch) \(b.label) \(b.styleCode) \(b.outcomeCode) \(b.total) off \(b.offPath) "
                + "origin \(b.originTask) \(String(describing: b.traceContext)): " + parts.joined(separator: ", ")
        }
        var windows = RequestWindows()
        events.forEach { windows.consume($0) }
        let requests = windows.takeAll()
        // The shape: some windows span most of the trace.
        #expect(requests.contains { $0.last - $0.first > written.events / 2 })
        var pass = WindowedBreakdowns(requests)
        var found: [String] = []
        for e in events {
            pass.consume(e)
            found += pass.take().values.map(described)
        }
        #expect(found.count == requests.count)
        #expect(found.sorted() == TraceIndex(events).latencyBreakdowns().map(described).sorted())
        #expect(pass.peakKept < 10_000, "\(pass.peakKept) events kept at once of \(events.count)")
        // And in one pass, each at its resume (the CSV table and the OTLP export): none left for
        // a second pass, the same breakdowns, as few events kept.
        var resumed = ResumeBreakdowns()
        var atResume: [String] = []
        for e in events {
            resumed.consume(e)
            atResume += resumed.take().map(described)
        }
        #expect(resumed.missed.isEmpty)
        #expect(atResume.sorted() == found.sorted())
        #expect(resumed.peakKept < 10_000, "\(resumed.peakKept) events kept at once of \(events.count)")
    }

    /// The views of many requests found and read in the same passes (a report's diagrams) are
    /// those of each found and read alone: the same stretch and the same events, request by
    /// request, on two runtimes and on the long-request-windows shape of 16 runtimes, whose
    /// dispatch ids repeat in every runtime.
    @Test func requestsReadTogetherAreEachReadAlone() throws {
        let demo = try JSONLinesReader(path: fixtures + "/demo.jsonl").readAll().events
        let directory = TemporaryDirectory()
        let file = directory.file("long.tdtrace")
        try TraceGenerator(template: demo).write(events: 20_000, longWindows: true, to: file)
        let traces = [
            try JSONLinesReader(path: fixtures + "/two-runtimes.jsonl").readAll().events,
            try TraceFileReader(path: file).readAll().events,
        ]
        for events in traces {
            let all = events.filter { $0.kind == .dispatch }.map { TraceIndex.Key(runtime: $0.runtimeKey, id: $0.dispatch) }
            // Every request of a small trace; of a larger, one in so many, in trace order.
            let keys = stride(from: 0, to: all.count, by: max(1, all.count / 60)).map { all[$0] }
            let read = { (body: (TraceEvent) -> Void) in events.forEach(body) }
            let found = LifecycleWindow.find(keys, read: read)
            let together = LifecycleWindow.events(of: zip(found, keys).map { ($0, $1.runtime) }, read: read)
            #expect(found.count == keys.count && together.count == keys.count)
            for (j, key) in keys.enumerated() {
                let alone = LifecycleWindow.find(dispatch: key.id, read: read)
                #expect(found[j].stretches[key.runtime] == alone.stretches[key.runtime], "\(key)")
                let events = LifecycleWindow.events(of: alone, runtime: key.runtime, read: read)
                #expect(!events.isEmpty && together[j] == events, "\(key): \(together[j].count) events, \(events.count) alone")
            }
        }
    }
}

/// The gate analysis's recent holds: what held the gate during each wait, however the runtime
/// went between quiet (nothing pending: a short ring) and a backlog (the ring grows).
@Suite struct RecentHoldsTests {
    @Test func aWaitIsHeldByEveryCycleInItsWayAcrossQuietAndBusySpells() {
        var events: [TraceEvent] = []
        var t: UInt64 = 0
        var cycle: UInt64 = 0
        func run(_ dispatch: UInt64, _ label: String, holding: UInt64) {
            cycle += 1
            events += [enter(cycle, dispatch, at: t), transduce(cycle, label, at: t), leave(cycle, at: t + holding)]
            t += holding + 1
        }
        // Posts each entering at once: nothing pending when they leave.
        func quiet(_ ids: ClosedRange<UInt64>) {
            for d in ids {
                t += 1
                events.append(dispatch(d, "post", "quiet", at: t))
                run(d, "quiet", holding: 1)
            }
        }
        // A request dispatched with posts it waits behind; returns the first of their cycles.
        func backlog(_ request: UInt64, _ label: String, behind posts: ClosedRange<UInt64>, holding: (UInt64) -> UInt64)
            -> UInt64
        {
            let start = t + 1
            events.append(dispatch(request, "request", label, at: start))
            for d in posts { events.append(dispatch(d, "post", "busy\(d)", at: start)) }
            t = start + 1
            let first = cycle + 1
            for d in posts { run(d, "busy\(d)", holding: holding(d)) }
            run(request, label, holding: 1)
            events.append(resume(request, at: t))
            return first
        }
        // Quiet (the short ring wraps); a request behind 70 posts (the ring grows from the short
        // one, wrapped, and wraps again at its full size); quiet again; a request behind 3.
        quiet(1...20)
        let busyFirst = backlog(100, "waiter", behind: 101...170) { $0 == 150 ? 50 : 2 }
        quiet(200...230)
        let lateFirst = backlog(300, "second", behind: 301...303) { _ in 100 }
        var report = ContentionReport()
        for e in events { report.consume(e) }
        let waits = Dictionary(uniqueKeysWithValues: report.longestWaits.map { ($0.dispatch, $0) })
        // Every cycle that held the gate in the wait, oldest first, and none before it: the
        // last 64 (``ContentionReport/history``) of a wait behind 70.
        #expect(waits[100]?.heldBy.map(\.cycle) == Array((busyFirst + 6)..<(busyFirst + 70)))
        #expect(waits[300]?.heldBy.map(\.cycle) == Array(lateFirst..<(lateFirst + 3)))
        // The request's tail names the longest of them.
        #expect(report.requestTails["waiter"]?.slowest.first?.holder == "waiting behind busy150")
    }
}

/// The cycles table against a plain model of it: a queue of every admission not entered yet,
/// cleared of a runtime's at its stop, over runtimes that come and go (hundreds of them, each
/// leaving admissions that never enter, some dispatching again after their stop).
@Suite struct CycleRowsTests {
    @Test func rowsAreThoseOfAQueueClearedAtEachStop() {
        var numbers = SeededRandom(seed: 3)
        var events: [TraceEvent] = []
        var t: UInt64 = 0
        var next: [UInt64: UInt64] = [:]  // each runtime's next id
        var live = Set<UInt64>(1...40)
        var born: UInt64 = 40
        for _ in 0..<15_000 {
            t += 1
            let r = live.sorted()[Int(numbers.next(below: UInt64(live.count)))]
            let id = next[r, default: 1]
            switch numbers.next(below: 10) {
            case 0..<5:
                // An admission; most enter at once, some never.
                events.append(
                    e(.dispatch, at: t, runtime: r) {
                        $0.dispatch = id; $0.label = "l\(id % 7)"; $0.code = 1
                    })
                if numbers.next(below: 4) != 0 {
                    events.append(
                        e(.cycleEnter, at: t, runtime: r) {
                            $0.cycle = id; $0.dispatch = id
                        })
                    events.append(e(.effect, at: t, runtime: r) { $0.cycle = id })
                    events.append(e(.cycleLeave, at: t, runtime: r) { $0.cycle = id })
                }
                next[r] = id + 1
            case 5:
                // A cycle of an admission queued earlier (or of one not in the trace).
                let old = id > 1 ? numbers.next(below: id - 1) + 1 : 0
                events.append(
                    e(.cycleEnter, at: t, runtime: r) {
                        $0.cycle = 1_000_000 + id; $0.dispatch = old
                    })
                events.append(e(.cycleLeave, at: t, runtime: r) { $0.cycle = 1_000_000 + id })
                next[r] = id + 1
            case 6 where live.count > 1:
                events.append(e(.runtimeStop, at: t, runtime: r))
                // Most go; some dispatch again after their stop.
                if numbers.next(below: 5) != 0 { live.remove(r) }
                born += 1
                live.insert(born)
            default:
                break
            }
        }
        var table = CycleRows()
        var rows: [CycleRows.Row] = []
        for e in events {
            table.consume(e)
            rows += table.take()
        }
        rows += table.finish()
        // The model.
        var queued: [TraceIndex.Key: (time: UInt64, label: String)] = [:]
        var expected: [(RuntimeKey, UInt64, String, UInt64?)] = []
        for e in events {
            let key = TraceIndex.Key(runtime: e.runtimeKey, id: e.dispatch)
            switch e.kind {
            case .dispatch: queued[key] = (e.time, e.label)
            case .cycleEnter:
                let admission = queued.removeValue(forKey: key)
                expected.append((e.runtimeKey, e.cycle, admission?.label ?? "", admission.map { e.time - $0.time }))
            case .runtimeStop: queued = queued.filter { $0.key.runtime != e.runtimeKey }
            default: break
            }
        }
        #expect(rows.count == expected.count && rows.count > 5_000)
        for (row, want) in zip(rows, expected) {
            #expect(row.runtime == want.0 && row.cycle == want.1 && row.label == want.2 && row.waited == want.3)
        }
    }
}
