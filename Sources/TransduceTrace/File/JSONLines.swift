#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The readable interchange form: one JSON object per line, with the schema's field names.
///
/// ```
/// {"kind":"dispatch","time":1200,"thread":7,"runtime":1,"dispatch":3,"style":"request","event":"load","origin_task":0,"queue_depth":1}
/// {"kind":"counts","events":1,"overwritten":0,"discarded":0,"lost":0,"monotonic_origin":0,"realtime_origin":0}
/// ```
/// The counts line has `slow_requests` and `slow_dumps` too when a slow-request trigger counted
/// any, and `occasion` (`onSignal`, `slowRequest`, …: ``TraceCounts/Occasion``) when the writer
/// said why it wrote. Codes are written by name; `payload` appears only when captured; `pid` when known. Lines of
/// kind `process` (`{"kind":"process","pid":42,"host":"box"}`) name the host of a process: first
/// when the writer knows them before the events, else just before the counts. The last line
/// carries the recorder's counts.
public enum JSONLines {
    /// Writes `trace` as JSON Lines to `sink`, in chunks of about 1 MiB: process lines, one line per
    /// event, then the counts line.
    public static func encode(_ trace: Trace, into sink: ([UInt8]) -> Void) {
        var out: [UInt8] = []
        out.reserveCapacity(1 << 20)
        processLines(trace.hosts, into: &out)
        for event in trace.events {
            line(for: event, into: &out)
            if out.count >= 1 << 20 {
                sink(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        countsLine(trace.counts, events: trace.events.count, into: &out)
        sink(out)
    }

    /// One `process` line per process whose host is known, by pid.
    public static func processLines(_ hosts: [UInt32: String], into out: inout [UInt8]) {
        for (pid, host) in hosts.sorted(by: { $0.key < $1.key }) {
            out.append(contentsOf: #"{"kind":"process","pid":"#.utf8)
            appendNumber(UInt64(pid), to: &out)
            out.append(contentsOf: #","host":"#.utf8)
            Escaping.appendJSON(host, to: &out)
            out.append(contentsOf: "}\n".utf8)
        }
    }

    /// The last line: the recorder's (or tracer's) counts, with `events` events written.
    public static func countsLine(_ c: TraceCounts, events: Int, into out: inout [UInt8]) {
        out.append(
            contentsOf: Array(
                #"{"kind":"counts","events":\#(events),"overwritten":\#(c.overwritten),"discarded":\#(c.discarded),"lost":\#(c.lost),"monotonic_origin":\#(c.monotonicOrigin),"realtime_origin":\#(c.realtimeOrigin)"#
                    .utf8))
        // Only from a recorder with a slow-request trigger.
        if c.slowRequests != 0 || c.slowDumps != 0 {
            out.append(contentsOf: Array(#","slow_requests":\#(c.slowRequests),"slow_dumps":\#(c.slowDumps)"#.utf8))
        }
        if c.occasion != .unsaid { out.append(contentsOf: Array(#","occasion":"\#(c.occasion.name)""#.utf8)) }
        out.append(contentsOf: Array("}".utf8))
        out.append(0x0A)
    }

    /// The longest line (its newline included) a JSON Lines reader reads; a writer never
    /// writes a longer one.
    public static let maxLine = 1 << 20

    /// How many bytes of each text a line keeps when the whole would be longer than
    /// ``maxLine``: escaped at worst six bytes a byte, three texts fit.
    public static let cutTextBytes = 32 << 10

    /// Appends one event's line (with its newline) to `out`. Returns `true` when its texts were
    /// cut (to ``cutTextBytes``, ending with `…`) to keep the line within ``maxLine``.
    @discardableResult
    public static func line(for event: TraceEvent, into out: inout [UInt8]) -> Bool {
        let start = out.count
        appendLine(for: event, into: &out)
        guard out.count - start > maxLine else { return false }
        out.removeSubrange(start...)
        var cut = event
        for keyPath in [\TraceEvent.label, \TraceEvent.label2, \TraceEvent.payload] {
            let text = cut[keyPath: keyPath]
            guard text.utf8.count > cutTextBytes else { continue }
            // Whole characters only, and the mark of the cut.
            var kept = ""
            var bytes = 0
            for c in text {
                bytes += c.utf8.count
                if bytes > cutTextBytes - 3 { break }
                kept.append(c)
            }
            cut[keyPath: keyPath] = kept + "…"
        }
        appendLine(for: cut, into: &out)
        return true
    }

    private static func appendLine(for event: TraceEvent, into out: inout [UInt8]) {
        out.append(contentsOf: #"{"kind":""#.utf8)
        out.append(contentsOf: event.kind.description.utf8)
        out.append(contentsOf: #"","time":"#.utf8)
        appendNumber(event.time, to: &out)
        out.append(contentsOf: #","thread":"#.utf8)
        appendNumber(UInt64(event.thread), to: &out)
        out.append(contentsOf: #","runtime":"#.utf8)
        appendNumber(event.runtime, to: &out)
        if event.process != 0 {
            out.append(contentsOf: #","pid":"#.utf8)
            appendNumber(UInt64(event.process), to: &out)
        }
        for field in TraceSchema.fields(of: event.kind) {
            out.append(contentsOf: #",""#.utf8)
            out.append(contentsOf: field.name.utf8)
            out.append(contentsOf: #"":"#.utf8)
            if field.slot.isText {
                Escaping.appendJSON(event.text(field.slot), to: &out)
            } else {
                appendNumber(event.integer(field.slot), to: &out)
            }
        }
        if !event.payload.isEmpty {
            out.append(contentsOf: #","payload":"#.utf8)
            Escaping.appendJSON(event.payload, to: &out)
        }
        out.append(contentsOf: "}\n".utf8)
    }

    static func appendNumber(_ value: UInt64, to out: inout [UInt8]) {
        if value == 0 { return out.append(0x30) }
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = value
        var count = 0
        withUnsafeMutableBytes(of: &digits) { d in
            while n > 0 {
                d[count] = UInt8(0x30 + n % 10)
                n /= 10
                count += 1
            }
            for i in stride(from: count - 1, through: 0, by: -1) { out.append(d[i]) }
        }
    }
}
