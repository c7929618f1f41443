import CBabeltrace
import TransduceTrace

/// Reads the `transduce:*` events of an LTTng CTF trace directory through libbabeltrace2.
///
/// Events of other providers are skipped. Times are the raw `CLOCK_MONOTONIC` nanoseconds of
/// LTTng's default clock, the same time base as the ring buffer, so both traces of one process
/// line up. The thread is the `vtid` context (record with `lttng add-context -u -t vtid`).
public enum CTFTraceReader {
    /// A CTF trace (or a relay daemon) that could not be read: a struct over a ``Code``, with
    /// what libbabeltrace2 or the reader said in words.
    public struct ReadError: Error, CustomStringConvertible {
        /// What went wrong. Codes may be added: a `switch` over them needs a `default`.
        public struct Code: Hashable, Sendable, CustomStringConvertible {
            enum Base: Sendable { case failed, noTrace, tooManyTraces, unavailable }
            let base: Base

            init(_ base: Base) { self.base = base }

            /// libbabeltrace2 or the connection failed (the message says how).
            public static let failed = Code(.failed)
            /// No CTF trace (no metadata file) at or below the directory.
            public static let noTrace = Code(.noTrace)
            /// More than ``CTFTraceReader/maxTraces`` traces below the directory.
            public static let tooManyTraces = Code(.tooManyTraces)
            /// This build has no libbabeltrace2.
            public static let unavailable = Code(.unavailable)

            /// The code's name, as written in Swift (`noTrace`).
            public var description: String { "\(base)" }

            /// The code of the C reader's status (cbabeltrace.h's `CBT_*`; anything unknown is
            /// ``failed``).
            init(status: Int32) {
                base =
                    switch Int(status) {
                    case Int(CBT_NO_TRACE): .noTrace
                    case Int(CBT_TOO_MANY_TRACES): .tooManyTraces
                    case Int(CBT_UNAVAILABLE): .unavailable
                    default: .failed
                    }
            }
        }

        /// What went wrong.
        public var code: Code
        /// The trace directory (or the relay daemon's URL).
        public var path: String
        /// What libbabeltrace2 or the reader said.
        public var message: String
        public var description: String { "\(path): \(message)" }
    }

    /// Whether this build can read CTF traces (libbabeltrace2 was available at build time).
    public static var isAvailable: Bool { cbt_available() != 0 }

    /// What a read found besides events.
    public struct Result: Sendable {
        /// Events that could not be mapped (unknown names, unknown code names).
        public var notes: [String] = []
        /// What the tracer said it lost, in words.
        public var lossNotes: [String] = []
        /// Events LTTng said it discarded (its discarded-events messages).
        public var discardedEvents: UInt64 = 0
        /// Discarded-events messages that gave no count: losses of unknown size.
        public var uncountedDiscards: UInt64 = 0
        /// Whole packets LTTng lost (event counts unknown).
        public var discardedPackets: UInt64 = 0
        /// The host of each process (the trace environment's `hostname`).
        public var hosts: [UInt32: String] = [:]
        /// `CLOCK_REALTIME` minus the trace clock (`CLOCK_MONOTONIC`) when it was recorded: the
        /// clock's offset from the Unix epoch that LTTng writes in the trace's metadata (the
        /// first trace's, where a directory holds several), or `nil` when its clock has none.
        public var wallClockOffset: Int64?
        /// The first event's time (the trace clock's), or 0 without events.
        public var firstTime: UInt64 = 0

        /// The counts a trace file carries for what was read: `events`, LTTng's discarded
        /// events, and the wall-clock anchor (``TraceCounts/monotonicOrigin`` and
        /// ``TraceCounts/realtimeOrigin``) from the trace's own clock offset.
        public func counts(events: UInt64) -> TraceCounts {
            var counts = TraceCounts(events: events, discarded: discardedEvents)
            if let offset = wallClockOffset {
                let origin = max(firstTime, 1)
                let realtime = origin.shifted(by: offset)
                if realtime != 0 {
                    counts.monotonicOrigin = origin
                    counts.realtimeOrigin = realtime
                }
            }
            return counts
        }

        /// Whether the tracer lost events: some analyses cannot then tell "never happened" from
        /// "was lost".
        public var lostEvents: Bool { discardedEvents > 0 || uncountedDiscards > 0 || discardedPackets > 0 }
    }

    /// How many CTF traces are at or below `path` (a bounded search; see cbabeltrace.h).
    public static func traceCount(path: String) -> Int { Int(cbt_count_traces(path)) }
    /// The most traces a directory may hold.
    public static let maxTraces = Int(CBT_MAX_TRACES)

    /// Calls `body` with each `transduce:*` event in time order, with its process (`vpid`) and
    /// thread (`vtid`). With `process`, only events of that process are read (needs `vpid`).
    ///
    /// With `recordTag`, only events of processes that started a runtime with that
    /// `TRANSDUCE_RECORD_TAG` (`trace-view record` tags its command's processes) are read.
    @discardableResult
    public static func read(
        path: String, process: Int32? = nil, recordTag: String? = nil, _ body: (TraceEvent) -> Void
    ) throws -> Result {
        let texts = CTFTextTable()
        return try read(path: path, process: process, recordTag: recordTag, texts: texts) {
            body(texts.event($0, label: $1, label2: $2))
        }
    }

    /// Reads as ``read(path:process:recordTag:_:)`` does, but hands each event over with its
    /// texts as numbers of `texts` (its `label` and `label2`, which stay empty in the event): no
    /// `String` is made.
    @discardableResult
    package static func read(
        path: String, process: Int32? = nil, recordTag: String? = nil, texts: CTFTextTable,
        _ body: (TraceEvent, _ label: UInt32, _ label2: UInt32) -> Void
    ) throws -> Result {
        try withoutActuallyEscaping(body) { body in
            let context = Context(body: body, process: process.map { UInt32(bitPattern: $0) }, tag: recordTag, texts: texts)
            return try context.finish(name: path) { losses, error, size in
                cbt_read_ctf(path, Context.deliver, Unmanaged.passUnretained(context).toOpaque(), losses, error, size)
            }
        }
    }

    /// Reads the LTTng live session at `url` (`net://HOST[:PORT]/host/HOSTNAME/SESSION`) from a
    /// relay daemon, calling `body` with each `transduce:*` event as it arrives, until the session
    /// ends (it is destroyed) or `idle` returns `true`. `idle` is called while the session has no
    /// new data (about every 20 ms then): a reader flushes what it holds there. Blocks the caller.
    @discardableResult
    public static func readLive(
        url: String, recordTag: String? = nil, idle: () -> Bool, _ body: (TraceEvent) -> Void
    ) throws -> Result {
        let texts = CTFTextTable()
        return try readLive(url: url, recordTag: recordTag, texts: texts, idle: idle) {
            body(texts.event($0, label: $1, label2: $2))
        }
    }

    /// Reads as ``readLive(url:recordTag:idle:_:)`` does, with the events' texts as numbers of
    /// `texts`, as ``read(path:process:recordTag:texts:_:)`` hands them over.
    @discardableResult
    package static func readLive(
        url: String, recordTag: String? = nil, texts: CTFTextTable, idle: () -> Bool,
        _ body: (TraceEvent, _ label: UInt32, _ label2: UInt32) -> Void
    ) throws -> Result {
        try withoutActuallyEscaping(body) { body in
            try withoutActuallyEscaping(idle) { idle in
                let context = Context(body: body, process: nil, tag: recordTag, texts: texts)
                context.idle = idle
                return try context.finish(name: url) { losses, error, size in
                    cbt_read_live(
                        url, Context.deliver,
                        { raw in
                            guard let raw else { return 1 }
                            return Unmanaged<Context>.fromOpaque(raw).takeUnretainedValue().idle?() == true ? 1 : 0
                        }, Unmanaged.passUnretained(context).toOpaque(), losses, error, size)
                }
            }
        }
    }

    /// A session a relay daemon offers for live reading.
    public struct LiveSession: Sendable, Equatable {
        /// Its URL, for ``readLive(url:recordTag:idle:_:)``.
        public var url: String
        /// The host it is recorded on.
        public var hostname: String
        /// The session's name.
        public var name: String
        /// Its streams.
        public var streams: UInt64
        /// The live readers connected to it now.
        public var clients: UInt64

        public init(url: String, hostname: String, name: String, streams: UInt64, clients: UInt64) {
            self.url = url
            self.hostname = hostname
            self.name = name
            self.streams = streams
            self.clients = clients
        }
    }

    /// The sessions the relay daemon at `url` (`net://HOST[:PORT]`) offers.
    public static func liveSessions(url: String) throws -> [LiveSession] {
        final class Sessions { var all: [LiveSession] = [] }
        let sessions = Sessions()
        var error = [CChar](repeating: 0, count: 1024)
        let status = cbt_list_live(
            url,
            { session, raw in
                guard let session, let raw else { return 1 }
                let s = session.pointee
                let text = { (p: UnsafePointer<CChar>?) in p.map { String(cString: $0) } ?? "" }
                Unmanaged<Sessions>.fromOpaque(raw).takeUnretainedValue().all.append(
                    LiveSession(
                        url: text(s.url), hostname: text(s.hostname), name: text(s.name), streams: s.streams,
                        clients: s.clients))
                return 0
            }, Unmanaged.passUnretained(sessions).toOpaque(), &error, error.count)
        guard status == 0 else { throw ReadError(code: .init(status: status), path: url, message: Self.message(error)) }
        return sessions.all
    }

    private static func message(_ error: [CChar]) -> String {
        String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// One read's state, shared with the C callbacks. Used by one thread: its per-event
    /// state goes unchecked for exclusive access.
    private final class Context {
        let body: (TraceEvent, UInt32, UInt32) -> Void
        var idle: (() -> Bool)?
        var result = Result()
        let process: UInt32?
        let tag: String?
        var tagged = Set<UInt32>()
        /// The process whose tag was checked last (`UInt64.max`: none yet), and the process whose
        /// host was looked for last: each is looked at again only when the process changes.
        @exclusivity(unchecked) var lastTagged = UInt64.max
        @exclusivity(unchecked) var lastHostProcess = UInt64.max
        @exclusivity(unchecked) var mapper: CTFEventMapper
        init(body: @escaping (TraceEvent, UInt32, UInt32) -> Void, process: UInt32?, tag: String?, texts: CTFTextTable) {
            self.body = body
            self.process = process
            self.tag = tag
            mapper = CTFEventMapper(texts: texts)
        }

        /// The C reader's callback: ``handle(_:)`` on the context, which the read holds (so
        /// it is used without a retain and release an event).
        static let deliver: cbt_callback = { event, raw in
            guard let event, let raw else { return 1 }
            return Unmanaged<Context>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.handle(event) }
        }

        /// Maps one event and hands it on, unless it is of a process not asked for.
        func handle(_ event: UnsafePointer<cbt_event>) -> Int32 {
            let vpid = event.pointee.vpid
            if let process, vpid != process { return 0 }
            if UInt64(vpid) != lastTagged, let tag {
                if !tagged.contains(vpid) {
                    guard CTFTraceReader.recordTag(of: event.pointee) == tag else { return 0 }
                    tagged.insert(vpid)
                }
                lastTagged = UInt64(vpid)
            }
            // A local event (its texts empty, nothing counted) handed over without a copy.
            var mapped = TraceEvent(kind: .runtimeStart, time: 0, runtime: 0)
            guard let labels = mapper.map(event.pointee, into: &mapped) else { return 0 }
            if result.wallClockOffset == nil, event.pointee.clock_is_unix != 0 {
                result.wallClockOffset = event.pointee.clock_offset_ns
                result.firstTime = mapped.time
            }
            if UInt64(vpid) != lastHostProcess {
                lastHostProcess = UInt64(vpid)
                if result.hosts[vpid] == nil, result.hosts.count < 65_536, let host = event.pointee.hostname,
                    host.pointee != 0
                {
                    result.hosts[vpid] = String(cString: host)
                }
            }
            body(mapped, labels.label, labels.label2)
            return 0
        }

        /// Runs the C reader, then turns its losses into the result (or its failure into an error).
        func finish(
            name: String, _ read: (UnsafeMutablePointer<cbt_losses>, UnsafeMutablePointer<CChar>, Int) -> Int32
        ) throws -> Result {
            var error = [CChar](repeating: 0, count: 1024)
            var losses = cbt_losses()
            let status = error.withUnsafeMutableBufferPointer { read(&losses, $0.baseAddress!, $0.count) }
            guard status == 0 else {
                throw ReadError(code: .init(status: status), path: name, message: CTFTraceReader.message(error))
            }
            var result = self.result
            result.notes = mapper.notes
            result.discardedEvents = losses.discarded_events
            result.uncountedDiscards = losses.discarded_events_uncounted
            result.discardedPackets = losses.discarded_packets
            if result.discardedEvents > 0 {
                result.lossNotes.append("LTTng discarded \(counted(result.discardedEvents, "event")) (its buffers were full)")
            }
            if result.uncountedDiscards > 0 {
                result.lossNotes.append("LTTng discarded events \(counted(result.uncountedDiscards, "more time")), count unknown")
            }
            if result.discardedPackets > 0 {
                result.lossNotes.append("LTTng lost \(counted(result.discardedPackets, "packet")) of events, count unknown")
            }
            return result
        }
    }

    /// Reads the whole trace into memory; LTTng's discarded events are the counts' `discarded`.
    public static func readAll(path: String, process: Int32? = nil) throws -> Trace {
        var events: [TraceEvent] = []
        let result = try read(path: path, process: process) { events.append($0) }
        var trace = Trace(
            events: events, counts: result.counts(events: UInt64(events.count)),
            notes: result.notes + result.lossNotes)
        trace.hosts = result.hosts
        return trace
    }

    /// How the provider writes an empty text (transduce_tp.h says why).
    public static let emptyText = "\u{2205}"

    /// The `record_tag` of a `runtime_start` event, or nil for any other event.
    static func recordTag(of raw: cbt_event) -> String? {
        guard String(cString: raw.name) == "transduce:runtime_start" else { return nil }
        for i in 0..<Int(raw.field_count) where String(cString: raw.fields[i].name) == "record_tag" {
            let field = raw.fields[i]
            guard let pointer = field.text, field.text_length > 0 else { return "" }
            let tag = pointer.withMemoryRebound(to: UInt8.self, capacity: Int(field.text_length)) {
                String(decoding: UnsafeBufferPointer(start: $0, count: Int(field.text_length)), as: UTF8.self)
            }
            return tag == emptyText ? "" : tag
        }
        return ""
    }
}
