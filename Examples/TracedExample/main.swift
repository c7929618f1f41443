// Runs the demo workload with a `TraceRecorder` (ring buffer + LTTng) and writes the trace file.
//
//     swift run TracedExample [FILE]        # default: transduce-demo.tdtrace; .jsonl for JSON Lines
//
// Under an LTTng session that enables `transduce:*`, the same events also go to LTTng.
import DemoWorkload
import TransduceTrace

@main
enum TracedExample {
    static func main() async throws {
        let path = CommandLine.arguments.dropFirst().first ?? "transduce-demo.tdtrace"
        let recorder = TraceRecorder(capacity: 1 << 14)
        let runtime = try await DemoWorkload.run(instrument: recorder)
        try recorder.write(to: path)
        let trace = recorder.snapshot()
        print("runtime \(runtime): \(trace.events.count) events written to \(path)")
    }
}
