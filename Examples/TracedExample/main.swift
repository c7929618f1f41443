// Runs the demo workload with a `TraceRecorder` (ring buffer + LTTng) and dumps the trace.
//
//     swift run TracedExample FILE                    # write FILE from code (.jsonl: JSON Lines)
//     TRANSDUCE_TRACE=FILE swift run TracedExample    # dump FILE at exit (and on SIGUSR2)
//     swift run TracedExample --serve FILE            # run, then wait; `kill -USR2 <pid>` dumps FILE;
//                                                     # end of standard input exits (and dumps)
//     swift run TracedExample --repeat N FILE         # the workload N times (a burst of events)
//     TRANSDUCE_TRACE=FILE swift run TracedExample --end-with HOW
//                                                     # run, then end by HOW: INT, TERM, HUP (the
//                                                     # signal to itself), trap, or throw (an error
//                                                     # out of main); the trace is dumped all the same;
//                                                     # or trap-while-writing: trap while another
//                                                     # thread writes a large trace to FILE
//
// Under an LTTng session that enables `transduce:*`, the same events also go to LTTng. With
// TRACEPARENT set (a W3C `traceparent`, the environment carrier OpenTelemetry uses between
// processes), the workload's dispatches are made under that trace context, and an OTLP export
// parents its requests' spans there.
import Foundation
import Transduce
import TransduceDemo
import TransduceTrace

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@main
enum TracedExample {
    static func main() async throws {
        var arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--end-with", arguments.count == 2 {
            try await end(with: arguments[1])
        }
        if arguments.first == "--repeat", arguments.count == 3, let times = Int(arguments[1]) {
            // A burst of events for LTTng (e.g. to overrun a small channel); the ring keeps the last.
            let recorder = TraceRecorder(capacity: 1 << 16)
            for _ in 0..<max(1, times) { _ = try await workload(instrument: recorder) }
            try recorder.write(to: arguments[2])
            print("\(times) runs of the workload: \(recorder.ring.counts.offered) events offered")
            return
        }
        if arguments.isEmpty {
            guard TraceRecorder.bootstrapFromEnvironment() != nil else {
                print("usage: TracedExample FILE | --serve FILE   (or set TRANSDUCE_TRACE=FILE)")
                exit(64)
            }
            // Hosts pick up the bootstrapped recorder; the dump happens at exit.
            let runtime = try await workload(instrument: nil)
            print("runtime \(runtime) done; the trace is written at exit")
            return
        }
        let serve = arguments.first == "--serve"
        if serve { arguments.removeFirst() }
        // A flag it does not know (or one with the wrong arguments) is not a file name: it once
        // wrote a trace named `--end-with`.
        guard let path = arguments.first, arguments.count == 1, !path.hasPrefix("-") else {
            print("usage: TracedExample FILE | --serve FILE | --repeat N FILE | --end-with HOW (see its header)")
            exit(64)
        }
        let recorder = TraceRecorder(capacity: 1 << 14)
        if serve {
            recorder.dumpOnSignal(to: path)
            recorder.dumpAtExit(to: path)
            _ = try await workload(instrument: recorder)
            print("ready \(getpid())")
            fflush(nil)
            while readLine() != nil {}
            return
        }
        let runtime = try await workload(instrument: recorder)
        try recorder.write(to: path)
        print("runtime \(runtime): \(recorder.snapshot().events.count) events written to \(path)")
    }

    struct Thrown: Error {}

    /// The demo workload, under the trace context of TRACEPARENT when that is set.
    static func workload(instrument: (any RuntimeInstrument)?) async throws -> RuntimeID {
        let context = ProcessInfo.processInfo.environment["TRACEPARENT"].flatMap { TraceContext(traceparent: $0) }
        return try await TraceContext.withCurrent(context) { try await DemoWorkload.run(instrument: instrument) }
    }

    static func end(with how: String) async throws -> Never {
        guard TraceRecorder.bootstrapFromEnvironment() != nil else {
            print("--end-with needs TRANSDUCE_TRACE=FILE")
            exit(64)
        }
        // TRANSDUCE_EXAMPLE_RUNS=N runs the workload N times first (a dump larger than a pipe's buffer).
        let runs = getenv("TRANSDUCE_EXAMPLE_RUNS").flatMap { Int(String(cString: $0)) } ?? 1
        for _ in 0..<max(1, runs) { _ = try await workload(instrument: nil) }
        // When the ending starts (CLOCK_MONOTONIC ns), so a test can time the ending alone.
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        print("ending at \(UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec))")
        fflush(nil)
        switch how {
        case "INT": kill(getpid(), SIGINT)
        case "TERM": kill(getpid(), SIGTERM)
        case "HUP": kill(getpid(), SIGHUP)
        case "trap": fatalError("ending with a trap, as asked")
        case "trap-while-writing":
            // A writer on another thread has its temporary file open when the trap comes: the
            // crash handler's dump stands, and no temporary file is left beside it.
            guard let path = getenv("TRANSDUCE_TRACE").map({ String(cString: $0) }) else { exit(64) }
            var big = TraceEvent(kind: .dispatch, time: 1, thread: 1, runtime: 9)
            big.label = "bulk"
            let trace = Trace(events: Array(repeating: big, count: 500_000))
            Thread.detachNewThread { try? TraceFileWriter.write(trace, to: path) }
            let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
            let name = String(path.split(separator: "/").last ?? "")
            while !((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).contains(where: {
                $0.hasPrefix(name + ".tmp-")
            }) {
                usleep(1_000)
            }
            fatalError("ending with a trap while a dump is being written, as asked")
        case "throw": throw Thrown()
        default:
            print("unknown ending \(how)")
            exit(64)
        }
        // A signal sent to oneself is delivered before kill returns, unless blocked on this
        // thread; then another thread takes it.
        while true { pause() }
    }
}
