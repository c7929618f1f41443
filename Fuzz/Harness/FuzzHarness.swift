import TransduceTrace

/// What a fuzz target runs on each input, and what the regression suite runs on every input a
/// fuzzer ever crashed: read the bytes as a trace (binary or JSON Lines, told apart as trace-view
/// does), then run every analysis and export on what was read, at a width the input picks.
///
/// Nothing here checks output: the property is "no trap, no hang, bounded memory" (the fuzzer's
/// sanitizers and limits find the rest). Events are capped at ``maxEvents`` per input so one
/// execution stays fast.
public enum FuzzHarness {
    public static let maxEvents = 4_096

    public enum Reader: Sendable { case binary, jsonLines, either }

    public static func exercise(_ bytes: [UInt8], reader: Reader = .either) {
        var trace = Trace()
        let binary: Bool
        switch reader {
        case .binary: binary = true
        case .jsonLines: binary = false
        case .either: binary = bytes.starts(with: TraceFileFormat.magic) || bytes.first != UInt8(ascii: "{")
        }
        if binary {
            guard let file = try? TraceFileReader(bytes: bytes, name: "fuzz") else { return }
            while trace.events.count < maxEvents, let event = file.next() { trace.events.append(event) }
            trace.notes = file.notes
            if let footer = file.footer { trace.counts = footer }
        } else {
            let file = JSONLinesReader(bytes: bytes, name: "fuzz")
            while trace.events.count < maxEvents, let event = file.next() { trace.events.append(event) }
            trace.notes = file.notes
            if let footer = file.footer { trace.counts = footer }
        }
        analyse(trace, width: 40 + Int(bytes.count % 97) * 10)
    }

    /// Decodes `bytes` as a trace file's index (``TraceFileIndex``), as they are and sealed as
    /// this user's trace-view would have written them (their version made the current one, their
    /// last four bytes the checksum of the rest, then signed with a fixed key: the parser behind
    /// the signature is what a bug could reach), and looks up a few dispatches in whatever decodes.
    public static func exerciseIndex(_ bytes: [UInt8]) {
        let key = TraceFileIndex.Key(bytes: Array(repeating: 0x42, count: 32))
        var sealed = Array(bytes.dropLast(4))
        if sealed.count >= 12 { sealed.replaceSubrange(8..<12, with: [2, 0, 0, 0]) }
        withUnsafeBytes(of: CRC32.checksum(sealed).littleEndian) { sealed += $0 }
        sealed += SHA256.hmac(key: key.bytes, sealed)
        for candidate in [bytes, sealed] {
            guard let index = try? TraceFileIndex(decoding: candidate, key: key) else { continue }
            let ids: [UInt64] =
                [0, 1, .max] + index.spans.prefix(4).flatMap { [$0.dispatches.lowerBound, $0.dispatches.upperBound] }
            for id in ids {
                _ = index.plan(dispatch: id) { _ in true }
                _ = index.plan(dispatch: id) { $0.rawValue % 2 == 0 }
            }
            _ = index.encoded(key: key)
        }
    }

    /// Every analysis, render and export of trace-view's commands, over `trace`.
    public static func analyse(_ trace: Trace, width: Int) {
        let options = RenderOptions(width: width, ascii: width % 20 == 0)
        var summary = SummaryReport()
        var contention = ContentionReport()
        var bytes = 0
        var chrome = ChromeTraceExporter { bytes &+= $0.count }
        var perfetto = PerfettoTraceExporter { bytes &+= $0.count }
        for event in trace.events {
            summary.consume(event)
            contention.consume(event)
            chrome.consume(event)
            perfetto.consume(event)
        }
        chrome.finish()
        perfetto.finish(hosts: trace.hosts)
        summary.recorder = trace.counts
        _ = summary.render(options: options)
        _ = contention.render(options: options)
        let index = TraceIndex(trace.events)
        OTLPTraceExport(index: index, hosts: trace.hosts, wallClockOffset: 0).write { bytes &+= $0.count }
        _ = TaskReport(index: index).render(options: options)
        let diagram = SequenceDiagram(index: index, options: options)
        _ = diagram.render(Array(index.events.indices))
        _ = SequenceExport.mermaid(index: index, indices: Array(index.events.indices))
        _ = SequenceExport.plantUML(index: index, indices: Array(index.events.indices))
        // The request views of a few dispatches, as `sequence --request N` draws them.
        for (key, _) in index.dispatches.prefix(4) {
            let lifecycle = index.requestLifecycle(runtime: key.runtime, dispatch: key.id)
            _ = diagram.render(lifecycle)
            _ = SequenceExport.mermaid(index: index, indices: lifecycle)
        }
        let report = InvariantReport(trace, complete: nil)
        // Shrunk on small inputs only: its search checks windows again and again, and a fuzzer
        // wants thousands of inputs a minute (the tests shrink traces of every size).
        if let first = report.violations.first, trace.events.count <= 512 {
            _ = ViolationShrinker(trace: trace, whole: report.whole, lossy: report.lossy).shrink(first)
        }
        // Tests written from a few windows, as `test-from` writes them.
        for cycles: ClosedRange<UInt64> in [1...4, 2...9] {
            guard var builder = try? TestWindowBuilder(cycles: cycles) else { continue }
            for event in trace.events { builder.consume(event) }
            guard let window = try? builder.finish(),
                let writer = try? TestWindowSource(
                    type: "Feature", module: nil, env: nil, suite: nil, test: nil, origin: "fuzz")
            else { continue }
            _ = writer.render(window)
        }
        var jsonl: [UInt8] = []
        JSONLines.encode(trace) { jsonl += $0 }
        var binary: [UInt8] = []
        TraceFileWriter.encodeBinary(trace) { binary += $0 }
        _ = bytes
    }
}
