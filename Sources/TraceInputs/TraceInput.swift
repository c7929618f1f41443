import Synchronization
import TransduceTrace
import TransduceTraceCTF

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opens TRACE, whatever it is (told apart by content): a binary trace file, a JSON Lines file,
/// or an LTTng CTF trace directory (read through libbabeltrace2). `-` reads standard input.
///
/// Everything but a directory is opened once and streamed: standard input, pipes and named FIFOs
/// work like files, and memory stays bounded whatever their size. The bytes read to tell the
/// kind apart are put back in front, so nothing is lost. One TraceInput is read once.
package struct TraceInput {
    package enum Kind: String {
        case binary = "trace file"
        case jsonLines = "JSON Lines"
        case ctf = "LTTng CTF trace"
    }

    package let path: String
    package let kind: Kind
    private let source: DescriptorSource?
    /// For a trace `trace-view record` made: the tag of its command's processes, whose events
    /// alone are read (unless `--all-processes`).
    package let recordTag: String?
    /// For a trace `trace-view record` or `live -- COMMAND` kept: why it stops before its
    /// command's end (the relay daemon died mid-stream), if it does.
    package let incomplete: String?
    /// Whether the input can be read again from its start (a regular file or a CTF trace; not
    /// standard input or a FIFO): views that take two passes need it.
    let rereadable: Bool

    /// The file `trace-view record` leaves in its output directory: `tag=…`, `command=…` and,
    /// when the trace stops early, `incomplete=…` lines.
    package static let recordFile = "trace-view-record"

    package init(path: String, allProcesses: Bool = false) throws {
        self.path = path
        let record = path == "-" ? [:] : Self.recordFields(in: path)
        recordTag = allProcesses ? nil : record["tag"]
        incomplete = record["incomplete"]
        if path == "-" {
            rereadable = false
            source = DescriptorSource(descriptor: STDIN_FILENO, closes: false)
            kind = Self.kind(of: source!.peek(64))
            return
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            // sysexits' EX_NOINPUT: the input does not exist or cannot be read.
            throw CLIError("\(path): cannot read: \(String(cString: strerror(errno)))", .nothingSelected)
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            guard CTFTraceReader.isAvailable else {
                throw CLIError.data("\(path): a directory, but this build cannot read CTF traces (no libbabeltrace2)")
            }
            let traces = CTFTraceReader.traceCount(path: path)
            guard traces > 0 else {
                throw CLIError.data("\(path): a directory without an LTTng CTF trace (no metadata file)")
            }
            guard traces <= CTFTraceReader.maxTraces else {
                throw CLIError.data(
                    "\(path): more than \(CTFTraceReader.maxTraces) CTF traces below this directory; name one LTTng session's output"
                )
            }
            kind = .ctf
            source = nil
            rereadable = true
            return
        }
        // A FIFO blocks here until a writer opens it, as `cat` would.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CLIError("\(path): cannot open: \(String(cString: strerror(errno)))", .nothingSelected)
        }
        source = DescriptorSource(descriptor: descriptor, closes: true)
        kind = Self.kind(of: source!.peek(64))
        rereadable = (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The `name=value` lines of `directory`'s ``recordFile`` (the first of each name; at most
    /// 64 lines of 512 bytes are read).
    private static func recordFields(in directory: String) -> [String: String] {
        guard let file = fopen(directory + "/" + recordFile, "rb") else { return [:] }
        defer { fclose(file) }
        var fields: [String: String] = [:]
        var line = [CChar](repeating: 0, count: 512)
        var lines = 0
        while lines < 64, fgets(&line, Int32(line.count), file) != nil {
            lines += 1
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard let equals = text.firstIndex(of: "=") else { continue }
            let name = String(text[..<equals])
            if fields[name] == nil {
                fields[name] = String(text[text.index(after: equals)...]).trimmingTrailing(where: { $0.isNewline })
            }
        }
        return fields
    }

    /// Records `why` the trace `trace-view record` or `live -- COMMAND` kept in `directory`
    /// stops early: every view of it then says so, and counts its losses as unknown.
    package static func markIncomplete(_ directory: String, why: String) {
        guard let file = fopen(directory + "/" + recordFile, "ab") else { return }
        defer { fclose(file) }
        let line = "incomplete=" + Escaping.oneLine(why) + "\n"
        fputs(line, file)
    }

    private static func kind(of head: [UInt8]) -> Kind {
        if head.starts(with: TraceFileFormat.magic) { return .binary }
        if head.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{") { return .jsonLines }
        return .binary  // the binary reader names what is wrong with it
    }

    /// Streams every event to `body`; returns the reader's notes (with values no runtime writes,
    /// see ``TraceSanity``) and the recorder counts if any.
    @discardableResult
    package func forEach(progress: Progress? = nil, _ body: (TraceEvent) -> Void) throws -> (
        notes: [String], counts: TraceCounts?
    ) {
        var everything = Everything()
        return try forEach(progress: progress, admitting: &everything, body)
    }

    /// Streams to `body` the events `filter` admits (it is asked of every event), as
    /// ``forEach(progress:_:)`` does: the loop is made for each kind of filter, its work written
    /// in (a closure each reading layer adds is a call an event, a few percent of `summary` each).
    func forEach<Filter: EventFilter>(
        progress: Progress?, admitting filter: inout Filter, _ body: (TraceEvent) -> Void
    ) throws -> (notes: [String], counts: TraceCounts?) {
        var checked = Checked(filter: filter, progress: progress)
        let (notes, counts) = try readEvents(admitting: &checked, body)
        filter = checked.filter
        progress?.done()
        return (notes + checked.sanity.notes, counts)
    }

    /// Stops ``forEach(progress:_:)`` after the event it is handing over (a trace file or JSON
    /// Lines; a CTF reader's child reads on, its events unread).
    func stopReading() {
        hostTable.stop = true
        hostTable.reader?.stop()
    }

    /// The host of each process, known once ``forEach(_:)`` has read the input.
    package var hosts: [UInt32: String] { hostTable.hosts }
    /// Whether the tracer lost events in a number it did not say (LTTng's lost packets), known
    /// once ``forEach(_:)`` has read the input.
    package var lossesUnknown: Bool { hostTable.lossesUnknown }
    private let hostTable = HostTable()

    private func readEvents<Filter: EventFilter>(admitting filter: inout Filter, _ body: (TraceEvent) -> Void) throws -> (
        notes: [String], counts: TraceCounts?
    ) {
        let name = path == "-" ? "-" : path
        switch kind {
        case .ctf:
            let (notes, counts, hosts, lossesUnknown) = try CTFChild.read(path: path, recordTag: recordTag) {
                if filter.admits($0) { body($0) }
            }
            hostTable.hosts = hosts
            hostTable.lossesUnknown = lossesUnknown || incomplete != nil
            return ((incomplete.map { ["\(path): incomplete: \($0)"] } ?? []) + notes, counts)
        case .binary:
            let reader: TraceFileReader
            do {
                reader = try TraceFileReader(source: source!, name: name)
            } catch let error as TraceFileError {
                throw CLIError.data(error.description)
            }
            hostTable.reader = reader
            defer { hostTable.reader = nil }
            if !hostTable.stop { reader.forEach { if filter.admits($0) { body($0) } } }
            hostTable.hosts = reader.hosts
            return (reader.notes + readError(), reader.footer)
        case .jsonLines:
            let reader = JSONLinesReader(source: source!, name: name)
            while !hostTable.stop, let e = reader.next() { if filter.admits(e) { body(e) } }
            hostTable.hosts = reader.hosts
            if reader.eventCount == 0 && !reader.notes.isEmpty {
                throw CLIError.data("\(path): not a trace: \(reader.notes[0])")
            }
            return (reader.notes + readError(), reader.footer)
        }
    }

    /// The index of a binary trace file (``TraceFileIndex``): the one kept beside it when it
    /// describes the file as it is, or one built now, in one pass over this input, and kept
    /// beside it for later runs (when the directory can be written). Nil for other inputs.
    /// Reads this input when it builds: use it instead of ``forEach(progress:_:)``.
    package func fileIndex(progress: Progress? = nil) throws -> TraceFileIndex? {
        guard kind == .binary, rereadable, let identity = TraceFileIndex.identity(of: path) else { return nil }
        if let kept = Self.keptIndex(of: path, identity: identity) { return kept }
        return try forEachIndexing(progress: progress) { _ in }.index
    }

    /// Streams every event to `body` as ``forEach(progress:_:)`` does and returns the same, with
    /// the index of a binary trace file (``fileIndex(progress:)``): the kept one, or one built in
    /// this same pass and kept. A view that reads stretches of the file later pays for its index
    /// once, not with a pass of its own. With `keepsIndex` false, the index is built (when none
    /// is kept) for this run only: for a file that goes with the run (``TraceCopy``).
    func forEachIndexing(
        progress: Progress? = nil, keepsIndex: Bool = true, _ body: (TraceEvent) -> Void
    ) throws -> (notes: [String], counts: TraceCounts?, index: TraceFileIndex?) {
        guard kind == .binary, rereadable, let identity = TraceFileIndex.identity(of: path) else {
            let (notes, counts) = try forEach(progress: progress, body)
            return (notes, counts, nil)
        }
        if let kept = Self.keptIndex(of: path, identity: identity) {
            let (notes, counts) = try forEach(progress: progress, body)
            return (notes, counts, kept)
        }
        let reader: TraceFileReader
        do {
            reader = try TraceFileReader(source: source!, name: path)
        } catch let error as TraceFileError {
            throw CLIError.data(error.description)
        }
        var sanity = TraceSanity()
        var read = 0
        var index = TraceFileIndex.build(reader: reader, identity: identity, every: Self.indexInterval) { event in
            sanity.consume(event)
            body(event)
            read += 1
            if read & 0xFFFF == 0 { progress?.update("read \(read) events") }
        }
        progress?.done()
        hostTable.hosts = reader.hosts
        index.notes += readError() + sanity.notes
        if keepsIndex { index.save(sidecarOf: path) }
        return (index.notes, reader.footer, index)
    }

    /// The index kept beside the trace at `path` if it can be trusted
    /// (``TraceFileIndex/load(sidecarOf:identity:key:)``); one that is forged, damaged or not a
    /// damaged is said once (on standard error) and ignored: the views read the trace.
    static func keptIndex(of path: String, identity: TraceFileIndex.Identity) -> TraceFileIndex? {
        let (index, refused) = TraceFileIndex.load(sidecarOf: path, identity: identity)
        if let refused, !refused.isNotAFile {
            let first = refusalsSaid.withLock { $0.insert(refused.description).inserted }
            if first { StandardError.line("trace-view: note: \(refused.description): ignored, the trace itself is read") }
        }
        return index
    }

    private static let refusalsSaid = Mutex(Set<String>())

    private func readError() -> [String] {
        guard let error = source?.error, error != 0 else { return [] }
        return ["\(path): read failed: \(String(cString: strerror(error)))"]
    }

    /// Reads the events `keep` accepts into memory (for the views that need random access), and
    /// the earliest time of all of them (kept or not), which views count times from.
    ///
    /// At most ``holdLimit`` events: a view that holds a longer trace stops with a clear error
    /// (``ExitStatus/tooLarge``) instead of running out of memory.
    package func load(progress: Progress? = nil, keep: (TraceEvent) -> Bool = { _ in true }) throws -> (
        trace: Trace, start: UInt64?
    ) {
        var events: [TraceEvent] = []
        var start: UInt64?
        let limit = Self.holdLimit
        var over = false
        let (notes, counts) = try forEach(progress: progress) {
            start = min(start ?? $0.time, $0.time)
            guard !over, keep($0) else { return }
            guard events.count < limit else {
                over = true
                // Binary and JSON Lines input stop here; a CTF reader's child reads on, unheld.
                stopReading()
                return
            }
            events.append($0)
        }
        if over {
            throw CLIError(
                "\(path): this view holds the trace in memory, and it has more than \(limit) events (about 512 bytes "
                    + "each; the bound is half the memory trace-view may use: its address-space limit, or the machine's). "
                    + "Select part of it (--runtime, --pid, --from/--to where the view has them), or use a view that "
                    + "streams (summary, contention, tasks, check, slow, export --format chrome|jsonl); "
                    + "\(Self.limitVariable)=N sets the bound.", .tooLarge)
        }
        var trace = Trace(events: events, counts: counts ?? TraceCounts(events: UInt64(events.count)), notes: notes)
        trace.hosts = hosts
        return (trace, start)
    }

    /// Events between an index's places to start again: `TRACE_VIEW_INDEX_EVERY` (tests make them
    /// dense), or ``TraceFileIndex/interval``.
    static let indexInterval: Int = {
        if let text = getenv("TRACE_VIEW_INDEX_EVERY").map({ String(cString: $0) }), let n = Int(text), n > 0 { return n }
        return TraceFileIndex.interval
    }()

    /// The variable that sets ``holdLimit``.
    static let limitVariable = "TRACE_VIEW_MAX_EVENTS"

    /// How many events a view may hold: `TRACE_VIEW_MAX_EVENTS`, or half the memory the process
    /// may use (its `RLIMIT_AS`, or the machine's RAM) at 512 bytes an event (the event, its
    /// strings and its index entries).
    static let holdLimit: Int = {
        if let text = getenv(limitVariable).map({ String(cString: $0) }), let n = Int(text), n > 0 { return n }
        var limit = rlimit()
        let ram = UInt64(max(0, sysconf(Int32(_SC_PHYS_PAGES)))) &* UInt64(max(0, sysconf(Int32(_SC_PAGESIZE))))
        var usable = ram == 0 ? UInt64(1) << 34 : ram
        if getrlimit(Int32(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max {
            usable = min(usable, UInt64(limit.rlim_cur))
        }
        return Int(max(usable / 2 / 512, 1))
    }()
}

/// Where ``TraceInput`` keeps what its reader learnt of hosts (a TraceInput is a value read once),
/// and whether its reader should stop.
private final class HostTable {
    package var hosts: [UInt32: String] = [:]
    package var lossesUnknown = false
    /// Asked before every event of JSON Lines and CTF (a trace file's reader has its own, told
    /// by ``TraceInput/stopReading()``): unchecked, because a dynamic exclusivity check of it
    /// cost more than the read it guards (only the reading thread sets it, from within the read).
    @exclusivity(unchecked) package var stop = false
    /// The trace file's reader while it reads, told to stop with the rest.
    var reader: TraceFileReader?
}

/// What a read of an input asks of each event before it hands it on
/// (``TraceInput/forEach(progress:admitting:_:)``).
protocol EventFilter {
    mutating func admits(_ e: TraceEvent) -> Bool
}

/// Every event.
private struct Everything: EventFilter {
    func admits(_ e: TraceEvent) -> Bool { true }
}

/// What a read asks first: it checks each event (``TraceSanity``) and counts it (the progress
/// line), then asks `filter`.
private struct Checked<Filter: EventFilter>: EventFilter {
    var filter: Filter
    let progress: Progress?
    var sanity = TraceSanity()
    var read = 0

    init(filter: Filter, progress: Progress?) {
        (self.filter, self.progress) = (filter, progress)
    }

    mutating func admits(_ e: TraceEvent) -> Bool {
        sanity.consume(e)
        read += 1
        if read & 0xFFFF == 0 { progress?.update("read \(read) events") }
        return filter.admits(e)
    }
}
