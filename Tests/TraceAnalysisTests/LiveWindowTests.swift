import Foundation
import Testing
import TransduceTestSupport

@testable import TransduceTrace

/// The live stream's bounded model: the window keeps the latest events in order, the tally counts
/// all of them, and the analyses of a window agree with those of the same events as a trace.
@Suite struct LiveWindowTests {
    static func demo() throws -> [TraceEvent] {
        JSONLinesReader(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: fixtures + "/demo.jsonl")))).readAll().events
    }

    @Test func theWindowKeepsTheLatestEventsInOrderAndTheTallyCountsThemAll() throws {
        let events = try Self.demo()
        // Four copies, each its own runtime: more than the window holds.
        let stream = (0..<4).flatMap { copy in
            events.map {
                var e = $0
                e.runtime += 10 * UInt64(copy)
                return e
            }
        }
        var window = LiveWindow(capacity: events.count + 7)
        var tally = LiveTally()
        for event in stream {
            window.add(event)
            tally.add(event)
        }
        #expect(window.events == Array(stream.suffix(events.count + 7)))
        #expect(window.evicted == UInt64(stream.count - events.count - 7))
        #expect(window.tally == tally)
        #expect(window.tally.events == UInt64(stream.count) && window.tally.runtimes.count == 4)
        let trace = window.trace
        #expect(trace.counts.events == UInt64(stream.count))
        // The last copy is whole in the window: its requests are those of the demo alone.
        let last = TraceIndex(trace.events).latencyBreakdowns().filter {
            $0.runtime == RuntimeKey(process: events[0].process, runtime: events[0].runtime + 30)
        }
        let alone = TraceIndex(events).latencyBreakdowns()
        #expect(last.map(\.total) == alone.map(\.total) && !alone.isEmpty)
    }

    @Test func aWindowNotFullIsTheStreamItself() throws {
        let events = try Self.demo()
        var window = LiveWindow(capacity: 1_000_000)
        for event in events { window.add(event) }
        #expect(window.events == events && window.evicted == 0)
        #expect(LiveWindow(capacity: 0).capacity == 1)
    }
}
