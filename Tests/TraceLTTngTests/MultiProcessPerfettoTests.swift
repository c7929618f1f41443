import Foundation
import Testing
import TransduceTestSupport

@testable import TransduceTrace

extension LTTngTests {
    /// Real processes at once under one LTTng session: their Chrome and Perfetto exports open
    /// clean in Perfetto, each process under its own pid, each request lasting what the trace
    /// says.
    @Suite(.disabled(if: underThreadSanitizer)) struct MultiProcess {
        /// Three `TracedExample --repeat 2` (two runtimes each, the same runtime ids, dispatch ids
        /// and labels in every process) started together under `trace-view record`; each keeps its
        /// ring, the ground truth of its own events.
        @Test(.enabled(if: LTTngTools.available && PerfettoUI.available))
        func threeProcessesOfTwoRuntimesExportCleanToPerfetto() async throws {
            let dir = TemporaryDirectory()
            // What each process's ring holds, by pid.
            let (ctf, rings) = try await recordExamples(3, repeats: 2, in: dir)
            // The session's events of these processes alone (the record's tag), in trace order.
            let jsonl = dir.file("events.jsonl")
            let exported = try await traceView(["export", "--format", "jsonl", "--output", jsonl, ctf])
            #expect(exported.status == 0, "\(exported.err)")
            let reader = JSONLinesReader(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: jsonl))))
            let read = reader.readAll()
            let events = read.events
            #expect(Set(events.map(\.process)) == Set(rings.keys))
            for (pid, ring) in rings {
                let ours = events.filter { $0.process == pid }
                #expect(ours.count == ring.count, "pid \(pid): \(ours.count) events in LTTng, \(ring.count) in its ring")
                #expect(Set(ours.map(\.runtime)) == [1, 2])
            }
            // One time base on LTTng input: a diagram's notes are its own time column's
            // differences, and contention's waits the same (the runtime's measured fields are
            // another clock's: LTTng stamps each tracepoint itself).
            let index = TraceIndex(events)
            var contention = ContentionReport()
            for e in events { contention.consume(e) }
            var measuredDiffer = 0
            for e in events where e.kind == .cycleEnter || e.kind == .cycleLeave || e.kind == .requestResume {
                let start: UInt64
                switch e.kind {
                case .cycleLeave: start = events[try #require(index.cycles[.init(runtime: e.runtimeKey, id: e.cycle)]).enter].time
                default: start = events[try #require(index.dispatches[.init(runtime: e.runtimeKey, id: e.dispatch)]).event].time
                }
                let note = try #require(index.interaction(for: e)?.note)
                let word = e.kind == .cycleEnter ? "wait" : e.kind == .cycleLeave ? "held" : "after"
                #expect(note == "\(word) " + formatDuration(e.time - start), "\(e.kind) at \(e.time)")
                if e.time - start != e.nanos { measuredDiffer += 1 }
            }
            for wait in contention.longestWaits {
                let enter = try #require(
                    events.first { $0.kind == .cycleEnter && $0.runtimeKey == wait.runtime && $0.dispatch == wait.dispatch })
                let dispatch = try #require(
                    events.first { $0.kind == .dispatch && $0.runtimeKey == wait.runtime && $0.dispatch == wait.dispatch })
                #expect(wait.waited == enter.time - dispatch.time)
            }
            print("one time base: \(measuredDiffer) notes differ from the runtime's measured fields on this LTTng trace")
            let path = dir.file("processes.json")
            let chrome = try await traceView(["export", "--format", "chrome", "--output", path, ctf])
            #expect(chrome.status == 0, "\(chrome.err)")
            try await PerfettoUI.expectClean(path, of: events, hosts: read.hosts)
            // The same in Perfetto's native format, read by Perfetto's own definitions too.
            if PerfettoProtoReader.readersAvailable {
                let native = dir.file("processes.pftrace")
                let exported = try await traceView(["export", "--format", "perfetto", "--output", native, ctf])
                #expect(exported.status == 0, "\(exported.err)")
                try await PerfettoProtoReader.expectClean(native, of: events, hosts: read.hosts)
            }
        }
    }
}
