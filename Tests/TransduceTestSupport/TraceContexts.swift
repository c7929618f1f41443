import Foundation
import Testing
import TraceTooling
import Transduce
import TransduceDemo

@testable import TransduceTrace

/// W3C trace contexts the tests dispatch under, and a trace of three runtimes recorded under
/// them (one under the server's context, one under the worker's, one under none).
package enum TraceContexts {
    package static let server = TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")!
    package static let worker = TraceContext(traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00")!
    /// ``record()`` made once for every test that reads it, so that the suite does not run the
    /// workloads five times over beside the rest of it on a busy machine.
    package static let recorded = Task { try await record() }

    /// Three runtimes at once: one under the server's context, one under the worker's, one under
    /// none. Returns the trace and each runtime's context.
    package static func record() async throws -> (trace: Trace, contexts: [UInt64: TraceContext?]) {
        let recorder = TraceRecorder(capacity: 1 << 14, lttng: false)
        let run = { @Sendable (context: TraceContext?) in
            try await TraceContext.withCurrent(context) { try await DemoWorkload.run(instrument: recorder) }
        }
        let (a, b, c) = try await withTimeout(120) {
            async let a = run(Self.server)
            async let b = run(Self.worker)
            async let c = run(nil)
            return try await (a, b, c)
        }
        let trace = recorder.snapshot()
        return (trace, [a.rawValue: Self.server, b.rawValue: Self.worker, c.rawValue: nil])
    }
    /// "pid runtime dispatch trace-id parent-span-id" of each resumed awaited request made under a
    /// context, in otlp-check.py's order.
    package static func expectedParents(_ events: [TraceEvent]) -> [String] {
        var contexts: [TraceIndex.Key: TraceContext] = [:]
        var dispatched = Set<TraceIndex.Key>()
        var rows: [(Int, Int, Int, String, String)] = []
        for e in events {
            let key = TraceIndex.Key(runtime: e.runtimeKey, id: e.dispatch)
            if let context = e.traceContext { contexts[key] = context }
            if e.kind == .dispatch, e.isAwaitedDispatch { dispatched.insert(key) }
            if e.kind == .requestResume, dispatched.remove(key) != nil, let context = contexts[key] {
                rows.append((Int(e.process), Int(e.runtime), Int(e.dispatch), context.traceID, context.spanIDHex))
            }
        }
        rows.sort { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }
        return rows.map { "\($0.0) \($0.1) \($0.2) \($0.3) \($0.4)" }
    }
}
