import Testing
import TransduceTestSupport

@testable import TransduceTrace

/// ``KeptEvents``, the packed events the requests' breakdowns keep, against an array of the
/// events and their positions.
@Suite struct KeptEventsTests {
    /// Every field at its extremes, texts of every kind, times on both sides of the first
    /// event's, and positions far apart.
    static func hostileEvents() -> [TraceEvent] {
        let kinds = (0...255).compactMap { TraceEvent.Kind(rawValue: UInt8($0)) }
        let texts = [
            "", "a", "load", "a label longer than fifteen bytes", "e\u{301}\u{301}", "👩‍👩‍👧 \u{0}\n\"",
            String(repeating: "é", count: 700),
        ]
        let wide: [UInt64] = [0, 1, 127, 128, 1 << 32, UInt64.max - 1, UInt64.max]
        let narrow: [UInt32] = [0, 1, 128, UInt32.max]
        var events: [TraceEvent] = []
        for i in 0..<400 {
            let time: UInt64 = i == 0 ? 1 << 40 : wide[i % wide.count] &+ UInt64(i)
            var e = TraceEvent(kind: kinds[i % kinds.count], time: time, thread: narrow[i % 4], runtime: 77)
            e.process = 9
            (e.dispatch, e.cycle, e.task) = (wide[i % 7], wide[(i / 7) % 7], wide[(i + 3) % 7])
            (e.otherTask, e.nanos) = (wide[(i + 5) % 7], wide[(i / 3) % 7])
            (e.step, e.count) = (narrow[(i / 4) % 4], narrow[(i + 1) % 4])
            (e.code, e.code2) = (UInt8(i % 256), UInt8((i * 7) % 256))
            (e.label, e.label2, e.payload) = (texts[i % 7], texts[(i / 7) % 7], texts[(i + 2) % 7])
            events.append(e)
        }
        return events
    }

    @Test func eachEventComesBackAsItWasKept() {
        var kept = KeptEvents()
        var model: [(position: Int, event: TraceEvent)] = []
        var position = 5
        for (i, e) in Self.hostileEvents().enumerated() {
            kept.append(e, at: position)
            model.append((position, e))
            position += [1, 2, 1 << 20, 1 << 40][i % 4]
        }
        #expect(kept.count == model.count)
        for i in kept.startIndex..<kept.endIndex {
            #expect(kept.position(at: i) == model[i].position)
            #expect(kept[i].position == model[i].position)
            #expect(kept[i].event == model[i].event)
        }
        // Positions are searched as the array's are.
        for probe in [0, 5, 6, 7, 8, 1 << 20, 1 << 40, 1 << 41, model.last!.position, model.last!.position + 1]
            + model.map(\.position)
        {
            #expect(kept.firstIndex(atOrAfter: probe) == (model.firstIndex { $0.position >= probe } ?? model.count))
        }
    }

    @Test func droppingTheFrontAndFilteringKeepTheRest() {
        let events = Self.hostileEvents()
        var kept = KeptEvents()
        var model: [(position: Int, event: TraceEvent)] = []
        for (i, e) in events.enumerated() {
            kept.append(e, at: 3 * i)
            model.append((3 * i, e))
        }
        func same() {
            #expect(kept.count == model.count)
            for (offset, i) in (kept.startIndex..<kept.endIndex).enumerated() {
                #expect(kept[i].position == model[offset].position && kept[i].event == model[offset].event)
            }
        }
        // Small drops keep the indices; past half, the storage is rebuilt from 0.
        for cut in [3, 30, 150, 600] {
            let index = kept.firstIndex(atOrAfter: cut)
            kept.removeFirst(upTo: index)
            model.removeAll { $0.position < cut }
            same()
        }
        kept.removeAll { $0 % 2 == 0 }
        model.removeAll { $0.position % 2 != 0 }
        same()
        // Appended after all of that, and shrunk.
        kept.append(events[1], at: 10_000)
        model.append((10_000, events[1]))
        kept.shrink()
        same()
        kept.removeFirst(upTo: kept.endIndex)
        #expect(kept.isEmpty && kept.startIndex == 0)
        // Empty, it starts over from the next event's position and time.
        kept.append(events[2], at: 1)
        #expect(kept[0].position == 1 && kept[0].event == events[2])
    }

    /// What it is for: the events of the demo workload take a third of the 96 bytes a struct of
    /// their fields took, or less (its labels, times and ids as they are recorded).
    @Test func keptEventsTakeAThirdOfAStruct() throws {
        let demo = try JSONLinesReader(path: fixtures + "/demo.jsonl").readAll().events
        var kept = KeptEvents()
        for (i, e) in demo.enumerated() { kept.append(e, at: 1_000_000 + i) }
        kept.shrink()
        #expect(kept.storedBytes <= demo.count * 32, "\(kept.storedBytes) bytes for \(demo.count) events")
    }
}
