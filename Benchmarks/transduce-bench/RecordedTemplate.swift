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

    /// `--generate-trace FILE EVENTS`.
    static func writeAndExit(events: Int, to path: String) async throws -> Never {
        let (written, request) = try await recorded().write(events: events, to: path)
        print("\(written) events written to \(path); a request to look at: --pid 40000 --runtime 1 --request \(request)")
        exit(0)
    }
}
