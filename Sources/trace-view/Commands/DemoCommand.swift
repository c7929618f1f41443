import TraceInputs
import TransduceDemo
import TransduceTrace

/// `trace-view demo`: the built-in workload on the ring buffer, and what it recorded.
enum DemoCommand: Subcommand {
    static let spec = CommandSpec(
        name: "demo", abstract: "Run a built-in workload on the ring buffer and show what it recorded",
        options: [OptionSpec("save", "FILE", "Also write the trace (.jsonl for JSON Lines, else the binary format)")]
            + OptionSpec.display,
        arguments: "",
        discussion: """
            Runs the built-in workload (the request-lifecycle chart, a switchToLatest replacement,
            a shareable join, a uniqueRequest, callers contending with an async action that holds
            the gate) on a BaseRuntime recording to the ring buffer, then prints the chart
            request's sequence diagram and the contention report. Under an LTTng session the same
            events also reach LTTng.
            """)

    static func run(_ args: Arguments) async throws {
        guard args.positionals.isEmpty else { throw CLIError.usage("demo takes no TRACE") }
        let options = try Terminal.options(args)
        let recorder = TraceRecorder(capacity: 1 << 14)
        let runtime = try await DemoWorkload.run(instrument: recorder)
        let trace = recorder.snapshot()
        let index = TraceIndex(trace.events)
        var lines = [
            options.paint("trace-view demo", .bold)
                + ": \(trace.events.count) events from runtime \(runtime) recorded in the ring buffer"
                + " (\(trace.counts.overwritten) overwritten)",
            "",
        ]
        if let load = trace.events.first(where: { $0.kind == .dispatch && $0.label == "load" && $0.runtime == runtime.rawValue })
        {
            lines.append(options.paint("The request-lifecycle chart: request(load) #\(load.dispatch)", .bold))
            lines.append("(its task holds the waiter while send(ping) gets through the gate)")
            lines += SequenceDiagram(index: index, options: options, origin: trace.start).render(
                index.lifecycleWithConcurrentCycles(runtime: load.runtimeKey, dispatch: load.dispatch))
            lines.append("")
        }
        var report = ContentionReport()
        trace.feed(&report)
        lines += report.render(options: options)
        if let path = args.options["save"] {
            do { try recorder.write(to: path) } catch { throw CLIError.data("\(error)") }
            lines.append("")
            lines.append("trace saved to \(path); try: trace-view tui \(path), or trace-view report --output report.html \(path)")
        } else {
            lines.append("")
            lines.append(
                "(save the trace with --save FILE, then: trace-view tui|report|slow|sequence|contention|tasks|summary|check|export FILE)"
            )
        }
        Terminal.print(lines, options: options)
    }
}
