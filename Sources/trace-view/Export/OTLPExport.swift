import TransduceTrace

/// `export --format otlp`: the spans written to a file (OTLP JSON, a `TracesData` a line) or sent
/// to a collector (``OTLPSender``). A file that can be read again is read twice (more where
/// requests waited very long: a pass for each of ``OTLPStream/missedBatches``) and never held
/// (``OTLPStream``); a pipe is held whole
/// (``OTLPTraceExport``), like `sequence`.
enum OTLPExport {
    /// Runs the export; returns the input's notes.
    static func run(
        input: TraceInput, selection: inout Selection, args: Arguments, settings: OTLPSettings?, from first: Int,
        output: OutputFile
    ) throws -> [String] {
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
        guard input.rereadable else {
            let trace = try input.load(progress: Progress()) { selection.keep($0) }.trace
            try selection.check()
            let export = OTLPTraceExport(
                index: TraceIndex(trace.events), hosts: trace.hosts.merging(input.hosts) { $1 },
                wallClockOffset: offset(trace.counts))
            let (emit, finish) = try sink(total: export.requests)
            export.write(encoding, from: first, emit)
            try finish()
            return trace.notes
        }
        var census = OTLPStream.Census()
        let (notes, counts) = try input.forEach(progress: Progress()) { if selection.keep($0) { census.consume($0) } }
        try selection.check()
        let (emit, finish) = try sink(total: census.requests)
        var stream = OTLPStream(
            census: census, hosts: input.hosts, wallClockOffset: offset(counts), encoding: encoding, from: first, emit: emit)
        var again = try Selection(args)
        try TraceInput(path: input.path, allProcesses: args.flag("all-processes")).forEach {
            if again.keep($0), !stream.stopped { stream.consume($0) }
        }
        let missed = stream.missed
        // The requests whose windows the second pass let go: a pass for each batch that fits.
        for batch in stream.takeMissedBatches() where !stream.stopped {
            stream.beginMissedPass(batch)
            var third = try Selection(args)
            try TraceInput(path: input.path, allProcesses: args.flag("all-processes")).forEach {
                if third.keep($0), !stream.stopped { stream.consumeMissed($0) }
            }
        }
        stream.finish()
        if missed.overflow {
            Terminal.error(
                "trace-view: warning: more than \(ResumeBreakdowns.maxMissed) requests waited too long to be broken down; "
                    + "their spans are left out")
        }
        try finish()
        return notes
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
