import Foundation
import TraceGenerator
import TransduceDemo
import TransduceTrace

extension TraceGenerator {
    /// Runs the demo workload once on a ring recorder and keeps its events as the template.
    static func recorded() async throws -> TraceGenerator {
        let recorder = TraceRecorder(capacity: 1 << 14)
        _ = try await DemoWorkload.run(instrument: recorder)
        return try TraceGenerator(template: recorder.snapshot().events)
    }

    /// `--generate-trace FILE EVENTS [RUNTIMES]`: 2 processes of 8 runtimes, or (`runtimes` > 0)
    /// that many processes of one runtime each (the many-runtimes shape: a runtime per
    /// connection or document).
    /// With `longWindows`, the long-request-windows shape (``TraceGenerator/write(events:processes:runtimes:longWindows:to:)``).
    static func writeAndExit(events: Int, runtimes: Int = 0, longWindows: Bool = false, to path: String) async throws -> Never {
        let generator = try await recorded()
        let (written, request) =
            runtimes > 0
            ? try generator.write(events: events, processes: runtimes, runtimes: 1, longWindows: longWindows, to: path)
            : try generator.write(events: events, longWindows: longWindows, to: path)
        print("\(written) events written to \(path); a request to look at: --pid 40000 --runtime 1 --request \(request)")
        exit(0)
    }
}
