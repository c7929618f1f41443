import TraceInputs
import TransduceTrace

/// `export --format otlp`: the spans written to a file (OTLP JSON, a `TracesData` a line) or sent
/// to a collector (``OTLPSender``). The trace is read twice (more where requests waited very long
/// or many runtimes were open at once: ``BreakdownPasses``) and never held (``OTLPStream``); a
/// pipe, a CTF trace or JSON Lines through a temporary copy (``TraceSource``).
enum OTLPExport {
    /// Runs the export.
    static func run(
        source: TraceSource, args: Arguments, settings: OTLPSettings?, from first: Int, output: OutputFile
    ) throws {
        let encoding = settings?.encoding ?? .json
        /// Where the batches go, once the export's size is known.
        func sink(total: Int) throws -> (emit: ([UInt8], Range<Int>) -> Bool, finish: () throws -> Void) {
            guard let settings else {
                return (
                    { body, _ in
                        output.write(body + [0x0A])
                        return true
                    }, {}
                )
            }
            let sender = try OTLPSender(settings: settings, allowPartial: args.flag("allow-partial"), total: total, from: first)
            return (sender.send, sender.finish)
        }
        var census = OTLPStream.Census()
        try source.pass { census.consume($0) }
        let (emit, finish) = try sink(total: census.requests)
        var stream = OTLPStream(
            census: consume census, hosts: source.hosts, wallClockOffset: offset(source.counts), encoding: encoding, from: first,
            maxKept: ExportFormat.maxKept, maxMissed: ExportFormat.maxMissed,
            maxRuntimes: ExportFormat.maxRuntimes, emit: emit)
        while !stream.stopped && stream.beginPass() {
            source.follow(stream.group)
            try source.pass {
                if !stream.stopped { stream.consume($0) }
                if stream.stopped || stream.passIsDone { source.endPass() }
            }
        }
        stream.finish()
        try finish()
    }

    /// The trace's wall-clock anchor, else this machine's clocks now (with a warning).
    private static func offset(_ counts: TraceCounts?) -> Int64 {
        if let anchored = OTLPTraceExport.wallClockOffset(counts) { return anchored }
        Terminal.error(
            "trace-view: warning: the trace has no wall-clock anchor: span times are placed by this machine's clocks "
                + "now (right for a trace recorded here since the last boot)")
        return Terminal.wallClockOffsetNow
    }
}
