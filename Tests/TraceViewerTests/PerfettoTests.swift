import Foundation
import Testing
import TraceTooling
import TransduceTestSupport

@testable import TransduceTrace

/// The Chrome export opened in Perfetto itself: the offline Perfetto UI (scripts/perfetto-ui.sh)
/// in headless Chromium (scripts/bootstrap.sh), queried through Perfetto's own trace processor
/// (scripts/perfetto-check.py). Skipped where either is missing: the UI comes from a package
/// index, which a machine may not reach.
/// Skipped under ThreadSanitizer: it checks a file format, and its browser run blocks a thread of
/// the test pool for as long as Chromium takes.
@Suite(.serialized, .disabled(if: underThreadSanitizer)) struct PerfettoTests {
    @Test(.enabled(if: PerfettoUI.available)) func perfettoEndsEveryRequestAndLinksEveryFlow() async throws {
        let dir = TemporaryDirectory()
        let events = try await SharedTraces.mixed.value
        let path = try await exportTrace(events, format: "chrome", in: dir).path
        let expected = try PerfettoUI.counts(path)
        let (seen, errors, _, _) = try await PerfettoUI.perfetto(path)
        #expect(errors.isEmpty, "Perfetto's importer: \(errors)")
        #expect(seen["requests"] == expected.requests && expected.requests > 100)
        #expect(seen["unfinished_requests"] == 0, "Perfetto could not end \(seen["unfinished_requests"] ?? -1) requests")
        #expect(seen["unfinished"] == 0)
        #expect(seen["slices"] == expected.slices)
        #expect(seen["flows"] == expected.links && expected.links > 100)
        #expect(seen["thread_tracks"] == expected.tracks)
    }

    /// ``processesTrace()``: three processes of two runtimes each.
    @Test(.enabled(if: PerfettoUI.available)) func severalProcessesAndRuntimesOpenCleanInPerfetto() async throws {
        let dir = TemporaryDirectory()
        let (events, hosts) = try await SharedTraces.processes.value
        let path = try await exportTrace(events, hosts: hosts, format: "chrome", in: dir).path
        try await PerfettoUI.expectClean(path, of: events, hosts: hosts)
    }
}
